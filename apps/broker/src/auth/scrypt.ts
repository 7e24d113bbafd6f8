/**
 * Password hashes: scrypt from node:crypto in a self-describing text form,
 * `$scrypt$N=16384,r=8,p=1$<salt base64>$<hash base64>`, so the cost can be raised later without
 * invalidating existing entries. Verification compares in constant time.
 * @module
 */
import { randomBytes, scrypt as scryptCallback, timingSafeEqual, type ScryptOptions } from "node:crypto";

/** scrypt cost parameters. */
export interface ScryptParams {
  /** CPU/memory cost, a power of two. */
  readonly N: number;
  /** Block size. */
  readonly r: number;
  /** Parallelism. */
  readonly p: number;
}

/** A parsed password hash. */
export interface PasswordHash {
  readonly params: ScryptParams;
  readonly salt: Buffer;
  readonly hash: Buffer;
}

/** The scrypt paper's parameters for interactive logins: 16 MiB and some tens of ms per check. */
export const DEFAULT_SCRYPT_PARAMS: ScryptParams = { N: 16_384, r: 8, p: 1 };

const SALT_BYTES = 16;
const HASH_BYTES = 32;
// Bounds on what a hash line may ask for, so an edited file cannot make each login cost seconds or GiBs.
const MAX_N = 1 << 20;
const MAX_R = 32;
const MAX_P = 16;
const MAX_MEMORY = 256 * 1024 * 1024;

function scrypt(password: string, salt: Buffer, length: number, params: ScryptParams): Promise<Buffer> {
  // Node refuses a derivation above maxmem (32 MiB by default); allow what the parameters need.
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r + 1024 * 1024 };
  return new Promise((resolve, reject) => {
    scryptCallback(password.normalize("NFC"), salt, length, options, (err, key) => {
      if (err === null) resolve(key);
      else reject(err);
    });
  });
}

/** Why a hash string could not be parsed, or the parsed hash. */
export type ParsedHash = { readonly ok: true; readonly value: PasswordHash } | { readonly ok: false; readonly error: string };

const BASE64 = /^[A-Za-z0-9+/]+={0,2}$/;

/** Reads the `$scrypt$...` text form; never throws. */
export function parsePasswordHash(text: string): ParsedHash {
  const parts = text.split("$");
  if (parts.length !== 5 || parts[0] !== "" || parts[1] !== "scrypt") {
    return { ok: false, error: "expected $scrypt$N=<n>,r=<r>,p=<p>$<salt>$<hash>" };
  }
  const [, , paramText = "", saltText = "", hashText = ""] = parts;
  const params = new Map(paramText.split(",").map((pair) => pair.split("=", 2) as [string, string | undefined]));
  const N = Number(params.get("N"));
  const r = Number(params.get("r"));
  const p = Number(params.get("p"));
  if (params.size !== 3 || !Number.isInteger(N) || !Number.isInteger(r) || !Number.isInteger(p)) {
    return { ok: false, error: `bad scrypt parameters "${paramText}", expected N=<n>,r=<r>,p=<p>` };
  }
  if (N < 2 || N > MAX_N || (N & (N - 1)) !== 0) return { ok: false, error: `scrypt N must be a power of two up to ${String(MAX_N)}` };
  if (r < 1 || r > MAX_R || p < 1 || p > MAX_P) return { ok: false, error: `scrypt r must be 1..${String(MAX_R)} and p 1..${String(MAX_P)}` };
  if (128 * N * r > MAX_MEMORY) return { ok: false, error: "scrypt parameters need more than 256 MiB" };
  if (!BASE64.test(saltText) || !BASE64.test(hashText)) return { ok: false, error: "salt and hash must be base64" };
  const salt = Buffer.from(saltText, "base64");
  const hash = Buffer.from(hashText, "base64");
  if (salt.length < 8) return { ok: false, error: "salt is shorter than 8 bytes" };
  if (hash.length < 16 || hash.length > 64) return { ok: false, error: "hash must be 16 to 64 bytes" };
  return { ok: true, value: { params: { N, r, p }, salt, hash } };
}

/** The text form of a hash. */
export function formatPasswordHash(hash: PasswordHash): string {
  const { N, r, p } = hash.params;
  return `$scrypt$N=${String(N)},r=${String(r)},p=${String(p)}$${hash.salt.toString("base64")}$${hash.hash.toString("base64")}`;
}

/** Hashes `password` with a fresh random salt; the result goes after `user:` in a password file. */
export async function hashPassword(password: string, params: ScryptParams = DEFAULT_SCRYPT_PARAMS): Promise<string> {
  const salt = randomBytes(SALT_BYTES);
  const hash = await scrypt(password, salt, HASH_BYTES, params);
  return formatPasswordHash({ params, salt, hash });
}

/** Whether `password` matches `hash`, compared in constant time. */
export async function verifyPassword(password: string, hash: PasswordHash): Promise<boolean> {
  const derived = await scrypt(password, hash.salt, hash.hash.length, hash.params);
  return timingSafeEqual(derived, hash.hash);
}

const decoySalt = randomBytes(SALT_BYTES);

/**
 * Spends the time a real check would, for a user name that does not exist, so the answer's
 * latency does not reveal which names are valid.
 */
export async function decoyVerify(password: string): Promise<false> {
  await scrypt(password, decoySalt, HASH_BYTES, DEFAULT_SCRYPT_PARAMS);
  return false;
}
