/**
 * SCRAM-SHA-256 as an MQTT 5 enhanced authentication method: CONNECT carries the client-first
 * message, the server answers AUTH 0x18 with server-first, the client's AUTH carries
 * client-final, and CONNACK carries server-final (the server's proof) in its Authentication Data.
 * Messages follow RFC 5802 without channel binding; user names are taken as sent (no SASLprep).
 * @module
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { ReasonCode } from "@handoff/mqtt-router";
import type { EnhancedAuthExchange, EnhancedAuthMethod, EnhancedAuthStep } from "./access.js";
import { DEFAULT_SCRAM_ITERATIONS, hmac, sha256, type ScramCredential } from "./scram-credential.js";

/** The Authentication Method name. */
export const SCRAM_SHA_256 = "SCRAM-SHA-256";

/** Options of {@link scramSha256Method}. */
export interface ScramMethodOptions {
  /** The SCRAM credential of a user, read at each login so reloads apply. */
  readonly lookup: (username: string) => ScramCredential | undefined;
  /** The server's nonce part (default 18 random bytes, base64); injectable for test vectors. */
  readonly nonce?: () => string;
  /** Iterations announced to an unknown user: those real entries use (default 4096). */
  readonly decoyIterations?: () => number;
}

const decoder = new TextDecoder("utf-8", { fatal: true });
const encoder = new TextEncoder();

function failure(reasonCode: number): EnhancedAuthStep {
  return { kind: "failure", reasonCode };
}

function text(data: Uint8Array | undefined): string | undefined {
  if (data === undefined) return undefined;
  try {
    return decoder.decode(data);
  } catch {
    return undefined;
  }
}

/** `saslname` of RFC 5802: `=2C` is a comma, `=3D` an equals sign, any other `=` is malformed. */
function decodeName(name: string): string | undefined {
  if (/=(?!2C|3D)/.test(name)) return undefined;
  return name.replaceAll("=2C", ",").replaceAll("=3D", "=");
}

/** Printable ASCII except the comma [RFC 5802 §7]. */
const NONCE = /^[\x21-\x2b\x2d-\x7e]+$/;

interface ClientFirst {
  readonly gs2Header: string;
  readonly bare: string;
  readonly username: string;
  readonly nonce: string;
}

function parseClientFirst(message: string): ClientFirst | undefined {
  // gs2-header: "n" or "y" (no channel binding), an empty authzid, then the bare message.
  const match = /^([ny]),,(n=([^,]*),r=([^,]*)(?:,.*)?)$/s.exec(message);
  if (match === null) return undefined;
  const [, flag = "", bare = "", rawName = "", nonce = ""] = match;
  const username = decodeName(rawName);
  if (username === undefined || username === "" || !NONCE.test(nonce)) return undefined;
  return { gs2Header: `${flag},,`, bare, username, nonce };
}

function xor(a: Buffer, b: Buffer): Buffer {
  const out = Buffer.alloc(a.length);
  for (let i = 0; i < a.length; i += 1) out[i] = (a[i] ?? 0) ^ (b[i] ?? 0);
  return out;
}

/** A key only this process knows, so decoy salts for unknown users are stable yet unguessable. */
const decoySecret = randomBytes(32);

function decoyCredential(username: string, iterations: number): ScramCredential {
  const salt = createHmac("sha256", decoySecret).update(username).digest().subarray(0, 16);
  return { salt, iterations, storedKey: randomBytes(32), serverKey: randomBytes(32) };
}

class ScramExchange implements EnhancedAuthExchange {
  #done = false;
  readonly #clientId: string;
  readonly #first: ClientFirst;
  readonly #serverFirst: string;
  readonly #combinedNonce: string;
  readonly #credential: ScramCredential;
  readonly #known: boolean;

  constructor(clientId: string, first: ClientFirst, serverFirst: string, combinedNonce: string, credential: ScramCredential, known: boolean) {
    this.#clientId = clientId;
    this.#first = first;
    this.#serverFirst = serverFirst;
    this.#combinedNonce = combinedNonce;
    this.#credential = credential;
    this.#known = known;
  }

  next(data: Uint8Array | undefined): Promise<EnhancedAuthStep> {
    return Promise.resolve(this.#finish(data));
  }

  #finish(data: Uint8Array | undefined): EnhancedAuthStep {
    if (this.#done) return failure(ReasonCode.NotAuthorized);
    this.#done = true;
    const message = text(data);
    const proofAt = message?.lastIndexOf(",p=") ?? -1;
    if (message === undefined || proofAt < 0) return failure(ReasonCode.NotAuthorized);
    const withoutProof = message.slice(0, proofAt);
    const proofText = message.slice(proofAt + 3);
    const [channel, nonce] = withoutProof.split(",");
    if (channel !== `c=${Buffer.from(this.#first.gs2Header).toString("base64")}` || nonce !== `r=${this.#combinedNonce}`) {
      return failure(ReasonCode.NotAuthorized);
    }
    const proof = Buffer.from(proofText, "base64");
    if (proof.length !== 32) return failure(ReasonCode.NotAuthorized);
    const authMessage = `${this.#first.bare},${this.#serverFirst},${withoutProof}`;
    const clientKey = xor(proof, hmac(this.#credential.storedKey, authMessage));
    const valid = timingSafeEqual(sha256(clientKey), this.#credential.storedKey);
    if (!valid || !this.#known) return failure(ReasonCode.BadUserNameOrPassword);
    const serverSignature = hmac(this.#credential.serverKey, authMessage).toString("base64");
    return { kind: "success", identity: { clientId: this.#clientId, username: this.#first.username }, data: encoder.encode(`v=${serverSignature}`) };
  }
}

/**
 * The SCRAM-SHA-256 method over credentials from `lookup`. An unknown user gets a plausible
 * challenge (stable decoy salt) and fails at the proof, like a wrong password, so the exchange does
 * not reveal which user names exist.
 */
export function scramSha256Method(options: ScramMethodOptions): EnhancedAuthMethod {
  const nonce = options.nonce ?? (() => randomBytes(18).toString("base64"));
  return {
    name: SCRAM_SHA_256,
    start(clientId, data) {
      const message = text(data);
      const first = message === undefined ? undefined : parseClientFirst(message);
      if (first === undefined) {
        const exchange: EnhancedAuthExchange = { next: () => Promise.resolve(failure(ReasonCode.NotAuthorized)) };
        return Promise.resolve({ exchange, step: failure(ReasonCode.NotAuthorized) });
      }
      const stored = options.lookup(first.username);
      const credential = stored ?? decoyCredential(first.username, options.decoyIterations?.() ?? DEFAULT_SCRAM_ITERATIONS);
      const combinedNonce = `${first.nonce}${nonce()}`;
      const serverFirst = `r=${combinedNonce},s=${credential.salt.toString("base64")},i=${String(credential.iterations)}`;
      const exchange = new ScramExchange(clientId, first, serverFirst, combinedNonce, credential, stored !== undefined);
      return Promise.resolve({ exchange, step: { kind: "continue", data: encoder.encode(serverFirst) } });
    },
  };
}
