/**
 * Parsing the admin API's query parameters and path segments: anything malformed is a 400
 * naming the parameter, never an exception escaping the request.
 * @module
 */
import { AdminError } from "./reply.js";

/** Default page size of the listing endpoints. */
export const DEFAULT_LIMIT = 100;
/** Largest page size a listing endpoint accepts. */
export const MAX_LIMIT = 1000;

/** The `limit` and `cursor` of a listing. */
export interface Paging {
  readonly limit: number;
  readonly after: string | undefined;
}

/** Reads `limit` (1..{@link MAX_LIMIT}, default {@link DEFAULT_LIMIT}) and `cursor`. */
export function paging(query: URLSearchParams): Paging {
  const text = query.get("limit");
  let limit = DEFAULT_LIMIT;
  if (text !== null) {
    if (!/^\d{1,7}$/.test(text) || Number(text) < 1 || Number(text) > MAX_LIMIT) {
      throw new AdminError(400, `limit must be a whole number from 1 to ${String(MAX_LIMIT)}, got ${JSON.stringify(text)}`);
    }
    limit = Number(text);
  }
  const cursor = query.get("cursor");
  return { limit, after: cursor === null || cursor === "" ? undefined : cursor };
}

/** Percent-decodes one path segment; a malformed escape is a 400. */
export function decodeSegment(segment: string, what: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    throw new AdminError(400, `${what} is not validly percent-encoded`);
  }
}
