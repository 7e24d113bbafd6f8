/**
 * SCRAM-SHA-256 credentials (RFC 5802, RFC 7677) in the password file's text form,
 * `$scram-sha-256$i=4096$<salt base64>$<StoredKey base64>$<ServerKey base64>`. The broker keeps
 * only the keys, never the password; the same entry also verifies a plain CONNECT password.
 * @module
 */
import { createHash, createHmac, pbkdf2 as pbkdf2Callback, randomBytes, timingSafeEqual } from "node:crypto";

/** What the server stores for a SCRAM user. */
export interface ScramCredential {
  readonly salt: Buffer;
  readonly iterations: number;
  readonly storedKey: Buffer;
  readonly serverKey: Buffer;
}

/** RFC 7677's minimum iteration count. */
export const DEFAULT_SCRAM_ITERATIONS = 4096;
// Above this a login costs seconds of CPU: an edited file must not turn logins into a denial of service.
const MAX_ITERATIONS = 1_000_000;
const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** SHA-256 of `data`. */
export function sha256(data: Buffer): Buffer {
  return createHash("sha256").update(data).digest();
}

/** HMAC-SHA-256 of `data` under `key`. */
export function hmac(key: Buffer, data: string | Buffer): Buffer {
  return createHmac("sha256", key).update(data).digest();
}

/** Hi() of RFC 5802: PBKDF2 with HMAC-SHA-256. */
export function saltedPassword(password: string, salt: Buffer, iterations: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    // RFC 5802 asks for SASLprep; NFKC (its normalization step) covers the common cases.
    pbkdf2Callback(password.normalize("NFKC"), salt, iterations, 32, "sha256", (err, key) => {
      if (err === null) resolve(key);
      else reject(err);
    });
  });
}

/** Derives the stored credential for `password`. */
export async function deriveScramCredential(password: string, salt: Buffer, iterations: number): Promise<ScramCredential> {
  const salted = await saltedPassword(password, salt, iterations);
  return { salt, iterations, storedKey: sha256(hmac(salted, "Client Key")), serverKey: hmac(salted, "Server Key") };
}

/** A fresh credential with a random salt, in text form (goes after `user:` in the password file). */
export async function hashScramPassword(password: string, iterations = DEFAULT_SCRAM_ITERATIONS): Promise<string> {
  return formatScramCredential(await deriveScramCredential(password, randomBytes(16), iterations));
}

/** The text form of a credential. */
export function formatScramCredential(credential: ScramCredential): string {
  const b64 = (data: Buffer): string => data.toString("base64");
  return `$scram-sha-256$i=${String(credential.iterations)}$${b64(credential.salt)}$${b64(credential.storedKey)}$${b64(credential.serverKey)}`;
}

/** Reads the text form; never throws. */
export function parseScramCredential(text: string): { readonly ok: true; readonly value: ScramCredential } | { readonly ok: false; readonly error: string } {
  const parts = text.split("$");
  if (parts.length !== 6 || parts[0] !== "" || parts[1] !== "scram-sha-256") {
    return { ok: false, error: "expected $scram-sha-256$i=<iterations>$<salt>$<StoredKey>$<ServerKey>" };
  }
  const [, , iterationText = "", saltText = "", storedText = "", serverText = ""] = parts;
  const iterations = /^i=\d+$/.test(iterationText) ? Number(iterationText.slice(2)) : Number.NaN;
  if (!Number.isInteger(iterations) || iterations < DEFAULT_SCRAM_ITERATIONS || iterations > MAX_ITERATIONS) {
    return { ok: false, error: `SCRAM iterations must be i=${String(DEFAULT_SCRAM_ITERATIONS)}..${String(MAX_ITERATIONS)}` };
  }
  if (![saltText, storedText, serverText].every((part) => BASE64.test(part))) return { ok: false, error: "salt and keys must be base64" };
  const salt = Buffer.from(saltText, "base64");
  const storedKey = Buffer.from(storedText, "base64");
  const serverKey = Buffer.from(serverText, "base64");
  if (salt.length < 8) return { ok: false, error: "salt is shorter than 8 bytes" };
  if (storedKey.length !== 32 || serverKey.length !== 32) return { ok: false, error: "SCRAM-SHA-256 keys must be 32 bytes" };
  return { ok: true, value: { salt, iterations, storedKey, serverKey } };
}

/** Whether a plain `password` matches a SCRAM credential, compared in constant time. */
export async function verifyScramPassword(password: string, credential: ScramCredential): Promise<boolean> {
  const derived = await deriveScramCredential(password, credential.salt, credential.iterations);
  return timingSafeEqual(derived.storedKey, credential.storedKey);
}
