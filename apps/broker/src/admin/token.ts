/**
 * The admin API's bearer token check.
 * @module
 */
/** True when `authorization` is `Bearer <token>` with exactly `token` (app-kit's check, shared with the relay). */
export { bearerMatches } from "@handoff/app-kit";

/** Shortest token `admin.token` accepts. */
export const MIN_TOKEN_LENGTH = 16;
