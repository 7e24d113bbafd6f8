/**
 * The admin API's answers: JSON bodies, and the typed error a handler throws to answer with a
 * status and a message (`{"error": "..."}`).
 * @module
 */
import type { HttpReply } from "../http/index.js";

/** An answer other than success, with the HTTP status it carries. */
export class AdminError extends Error {
  constructor(
    readonly status: 400 | 401 | 404 | 405 | 503,
    message: string,
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(message);
    this.name = "AdminError";
  }
}

/** A JSON answer. */
export function json(status: number, value: unknown, headers: Readonly<Record<string, string>> = {}): HttpReply {
  return { status, contentType: "application/json; charset=utf-8", body: `${JSON.stringify(value)}\n`, headers };
}

/** The JSON answer for an {@link AdminError}. */
export function errorReply(err: AdminError): HttpReply {
  return json(err.status, { error: err.message }, err.headers);
}
