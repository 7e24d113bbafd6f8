/**
 * Announces both ways: the peer's ANNOUNCE_REQUESTs served from the origin, and the peer's own
 * announces taken into the origin as routes.
 * @module
 */
export { Announces, type AnnounceRole } from "./announces.js";
