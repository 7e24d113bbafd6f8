/**
 * A password file entry's secret: an scrypt hash (the default) or a SCRAM-SHA-256 credential
 * (needed for SCRAM enhanced authentication; it also verifies plain passwords).
 * @module
 */
import { parseScramCredential, verifyScramPassword, type ScramCredential } from "./scram-credential.js";
import { parsePasswordHash, verifyPassword, type PasswordHash } from "./scrypt.js";

/** A stored secret. */
export type Credential =
  | { readonly scheme: "scrypt"; readonly hash: PasswordHash }
  | { readonly scheme: "scram-sha-256"; readonly credential: ScramCredential };

/** Reads `$scrypt$...` or `$scram-sha-256$...`; never throws. */
export function parseCredential(text: string): { readonly ok: true; readonly value: Credential } | { readonly ok: false; readonly error: string } {
  if (text.startsWith("$scram-sha-256$")) {
    const parsed = parseScramCredential(text);
    return parsed.ok ? { ok: true, value: { scheme: "scram-sha-256", credential: parsed.value } } : parsed;
  }
  const parsed = parsePasswordHash(text);
  return parsed.ok ? { ok: true, value: { scheme: "scrypt", hash: parsed.value } } : parsed;
}

/** Whether a plain `password` matches `credential`. */
export function verifyCredential(password: string, credential: Credential): Promise<boolean> {
  switch (credential.scheme) {
    case "scrypt":
      return verifyPassword(password, credential.hash);
    case "scram-sha-256":
      return verifyScramPassword(password, credential.credential);
  }
}
