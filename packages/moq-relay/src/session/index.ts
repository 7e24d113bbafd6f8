/**
 * One moq-lite session per connection, over the transport's framing: its lifecycle, version
 * negotiation (ALPN, qmux parameters, in-band SETUP) and the dispatch of every stream to the part
 * that owns it. Sans-I/O apart from the sink it writes to.
 * @module
 */
export { LiteSession } from "./lite-session.js";
export type { SessionOptions, SessionSink } from "./session-options.js";
export { SETUP_VERSIONS, pickSetupVersion, versionMode, type VersionMode } from "./version.js";
// The session's settings and counters, defined where its parts read them.
export { DEFAULT_SESSION_LIMITS, NO_STATS, type SessionLimits, type SessionStats } from "../context/index.js";
