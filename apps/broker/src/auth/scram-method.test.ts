import { describe, expect, it } from "vitest";
import type { EnhancedAuthStep } from "./access.js";
import { deriveScramCredential, hmac, saltedPassword, sha256, type ScramCredential } from "./scram-credential.js";
import { scramSha256Method } from "./scram-method.js";

const enc = (s: string): Uint8Array => new TextEncoder().encode(s);
const dec = (step: EnhancedAuthStep): string => (step.kind === "continue" || (step.kind === "success" && step.data) ? new TextDecoder().decode(step.kind === "continue" ? step.data : step.data) : "");

// RFC 7677 §3 test vector.
const salt = Buffer.from("W22ZaJ0SNY7soEsUEjb6gQ==", "base64");
const pencil = await deriveScramCredential("pencil", salt, 4096);
const serverNonce = "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0";
const combined = `rOprNGfwEbeRWgbNEkqO${serverNonce}`;

function method(users: Record<string, ScramCredential> = { user: pencil }) {
  return scramSha256Method({ lookup: (name) => users[name], nonce: () => serverNonce });
}

/** The client side of RFC 5802, written independently of the server, for round trips. */
async function clientFinal(password: string, bare: string, serverFirst: string): Promise<string> {
  const fields = Object.fromEntries(serverFirst.split(",").map((kv) => [kv.slice(0, 1), kv.slice(2)]));
  const salted = await saltedPassword(password, Buffer.from(fields["s"] ?? "", "base64"), Number(fields["i"]));
  const clientKey = hmac(salted, "Client Key");
  const withoutProof = `c=biws,r=${fields["r"] ?? ""}`;
  const signature = hmac(sha256(clientKey), `${bare},${serverFirst},${withoutProof}`);
  const proof = Buffer.from(clientKey.map((byte, i) => byte ^ (signature[i] ?? 0)));
  return `${withoutProof},p=${proof.toString("base64")}`;
}

describe("SCRAM-SHA-256", () => {
  it("answers the RFC 7677 client-first with the expected server-first", async () => {
    const { step } = await method().start("c", enc("n,,n=user,r=rOprNGfwEbeRWgbNEkqO"));
    expect(dec(step)).toBe(`r=${combined},s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096`);
  });

  it("accepts the RFC 7677 client proof and returns its server signature", async () => {
    const { exchange } = await method().start("c", enc("n,,n=user,r=rOprNGfwEbeRWgbNEkqO"));
    const step = await exchange.next(enc(`c=biws,r=${combined},p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=`));
    expect([step.kind, dec(step)]).toEqual(["success", "v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="]);
  });

  it("names the user in the identity it admits", async () => {
    const { exchange, step } = await method().start("dev1", enc("n,,n=user,r=abc"));
    const final = await exchange.next(enc(await clientFinal("pencil", "n=user,r=abc", dec(step))));
    expect(final).toMatchObject({ kind: "success", identity: { clientId: "dev1", username: "user" } });
  });

  it("refuses a wrong password with 0x86", async () => {
    const { exchange, step } = await method().start("c", enc("n,,n=user,r=abc"));
    expect(await exchange.next(enc(await clientFinal("crayon", "n=user,r=abc", dec(step))))).toEqual({ kind: "failure", reasonCode: 0x86 });
  });

  it("challenges an unknown user like a known one and refuses at the proof", async () => {
    const { exchange, step } = await method().start("c", enc("n,,n=ghost,r=abc"));
    expect(dec(step)).toMatch(/^r=abc.+,s=[A-Za-z0-9+/=]+,i=4096$/);
    expect(await exchange.next(enc(await clientFinal("pencil", "n=ghost,r=abc", dec(step))))).toEqual({ kind: "failure", reasonCode: 0x86 });
  });

  it("announces the decoy iteration count it is given, so an unknown user looks like the real entries", async () => {
    const m = scramSha256Method({ lookup: () => undefined, nonce: () => serverNonce, decoyIterations: () => 10_000 });
    const { step } = await m.start("c", enc("n,,n=ghost,r=abc"));
    expect(dec(step)).toMatch(/,i=10000$/);
  });

  it("refuses a client-final with a different nonce", async () => {
    const { exchange } = await method().start("c", enc("n,,n=user,r=abc"));
    expect(await exchange.next(enc("c=biws,r=other,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ="))).toEqual({ kind: "failure", reasonCode: 0x87 });
  });

  it("refuses channel binding, which it does not support", async () => {
    const { step } = await method().start("c", enc("p=tls-unique,,n=user,r=abc"));
    expect(step).toEqual({ kind: "failure", reasonCode: 0x87 });
  });

  it("refuses a client-first that is not UTF-8", async () => {
    const { step } = await method().start("c", new Uint8Array([0xff, 0xfe]));
    expect(step).toEqual({ kind: "failure", reasonCode: 0x87 });
  });

  it("decodes =2C and =3D in user names", async () => {
    const looked: string[] = [];
    const m = scramSha256Method({ lookup: (name) => (looked.push(name), undefined) });
    await m.start("c", enc("n,,n=a=2Cb=3Dc,r=abc"));
    expect(looked).toEqual(["a,b=c"]);
  });

  it("refuses a second client-final on the same exchange", async () => {
    const { exchange, step } = await method().start("c", enc("n,,n=user,r=abc"));
    const final = enc(await clientFinal("pencil", "n=user,r=abc", dec(step)));
    await exchange.next(final);
    expect(await exchange.next(final)).toEqual({ kind: "failure", reasonCode: 0x87 });
  });
});
