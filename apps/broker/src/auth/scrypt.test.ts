import { describe, expect, it } from "vitest";
import { formatPasswordHash, hashPassword, parsePasswordHash, verifyPassword, type PasswordHash } from "./scrypt.js";

// Cheap parameters keep the tests fast; the format and the check are the same at any cost.
const fast = { N: 1024, r: 8, p: 1 };

function parsed(text: string): PasswordHash {
  const result = parsePasswordHash(text);
  if (!result.ok) throw new Error(result.error);
  return result.value;
}

describe("hashPassword", () => {
  it("writes the self-describing $scrypt$ form", async () => {
    expect(await hashPassword("secret", fast)).toMatch(/^\$scrypt\$N=1024,r=8,p=1\$[A-Za-z0-9+/]+=*\$[A-Za-z0-9+/]+=*$/);
  });

  it("salts each hash differently", async () => {
    expect(await hashPassword("secret", fast)).not.toBe(await hashPassword("secret", fast));
  });

  it("uses N=16384, r=8, p=1 by default", async () => {
    expect(await hashPassword("secret")).toMatch(/^\$scrypt\$N=16384,r=8,p=1\$/);
  });
});

describe("verifyPassword", () => {
  it("accepts the right password", async () => {
    expect(await verifyPassword("secret", parsed(await hashPassword("secret", fast)))).toBe(true);
  });

  it("refuses a wrong password", async () => {
    expect(await verifyPassword("Secret", parsed(await hashPassword("secret", fast)))).toBe(false);
  });

  it("treats composed and decomposed accents as the same password", async () => {
    expect(await verifyPassword("e\u0301", parsed(await hashPassword("\u00e9", fast)))).toBe(true);
  });
});

describe("parsePasswordHash", () => {
  it("round-trips through formatPasswordHash", async () => {
    const text = await hashPassword("x", fast);
    expect(formatPasswordHash(parsed(text))).toBe(text);
  });

  it("refuses another algorithm", () => {
    expect(parsePasswordHash("$2b$10$abcdefghijklmnopqrstuv")).toEqual({ ok: false, error: "expected $scrypt$N=<n>,r=<r>,p=<p>$<salt>$<hash>" });
  });

  it("refuses an N that is not a power of two", () => {
    expect(parsePasswordHash("$scrypt$N=1000,r=8,p=1$c2FsdHNhbHQ=$aGFzaGhhc2hoYXNoaGFzaA==")).toMatchObject({ ok: false, error: expect.stringMatching(/power of two/) as unknown });
  });

  it("refuses parameters that would cost too much memory", () => {
    expect(parsePasswordHash("$scrypt$N=1048576,r=32,p=1$c2FsdHNhbHQ=$aGFzaGhhc2hoYXNoaGFzaA==")).toMatchObject({ ok: false, error: "scrypt parameters need more than 256 MiB" });
  });

  it("refuses a salt that is not base64", () => {
    expect(parsePasswordHash("$scrypt$N=1024,r=8,p=1$not base64$aGFzaGhhc2hoYXNoaGFzaA==")).toMatchObject({ ok: false, error: "salt and hash must be base64" });
  });

  it("refuses a missing parameter", () => {
    expect(parsePasswordHash("$scrypt$N=1024,r=8$c2FsdHNhbHQ=$aGFzaGhhc2hoYXNoaGFzaA==")).toMatchObject({ ok: false, error: expect.stringMatching(/bad scrypt parameters/) as unknown });
  });
});
