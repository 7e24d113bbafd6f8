/**
 * Checking a bearer token (the broker's admin API, the relay's admin endpoints and `/metrics`).
 * @module
 */
import { createHash, timingSafeEqual } from "node:crypto";

const digest = (text: string): Buffer => createHash("sha256").update(text, "utf8").digest();

/**
 * True when `authorization` is `Bearer <token>` with exactly `token`. The comparison takes the
 * same time whatever the guess: both sides are hashed to equal-length digests first, so neither
 * the length nor a matching prefix of the token leaks through timing.
 */
export function bearerMatches(authorization: string | undefined, token: string): boolean {
  if (authorization === undefined) return false;
  const match = /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(authorization);
  const given = match?.[1] ?? "";
  // Compared even when the header is malformed, so a malformed guess costs the same.
  const equal = timingSafeEqual(digest(given), digest(token));
  return match !== null && equal;
}
