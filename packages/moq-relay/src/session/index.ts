/** One moq-lite session per connection, over the transport's framing (sans-I/O apart from its sink). */
export { DEFAULT_SESSION_LIMITS, RelayCode, type SessionLimits } from "./limits.js";
export { LiteSession } from "./lite-session.js";
export type { SessionOptions, SessionSink } from "./session-options.js";
export { NO_STATS, type SessionStats } from "./stats.js";
export { SETUP_VERSIONS, pickSetupVersion, versionMode, type VersionMode } from "./version.js";
