import { describe, expect, it } from "vitest";
import { formatScramCredential, hashScramPassword, parseScramCredential, verifyScramPassword, type ScramCredential } from "./scram-credential.js";

function parsed(text: string): ScramCredential {
  const result = parseScramCredential(text);
  if (!result.ok) throw new Error(result.error);
  return result.value;
}

describe("SCRAM credentials", () => {
  it("writes the $scram-sha-256$ form with 4096 iterations by default", async () => {
    expect(await hashScramPassword("pencil")).toMatch(/^\$scram-sha-256\$i=4096\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]{44}\$[A-Za-z0-9+/=]{44}$/);
  });

  it("round-trips through the text form", async () => {
    const text = await hashScramPassword("pencil");
    expect(formatScramCredential(parsed(text))).toBe(text);
  });

  it("verifies the right plain password and refuses a wrong one", async () => {
    const credential = parsed(await hashScramPassword("pencil"));
    expect([await verifyScramPassword("pencil", credential), await verifyScramPassword("crayon", credential)]).toEqual([true, false]);
  });

  it("refuses fewer iterations than RFC 7677's minimum", () => {
    expect(parseScramCredential("$scram-sha-256$i=1000$c2FsdHNhbHQ=$AAAA$AAAA")).toMatchObject({ ok: false, error: expect.stringMatching(/iterations/) as unknown });
  });

  it("refuses keys of the wrong length", () => {
    expect(parseScramCredential("$scram-sha-256$i=4096$c2FsdHNhbHQ=$AAAA$AAAA")).toEqual({ ok: false, error: "SCRAM-SHA-256 keys must be 32 bytes" });
  });
});
