/**
 * `@handoff/relay`: handoff's moq-lite relay as a library. `createRelay(config)` takes the config
 * file's settings (same schema, same errors) and an auth hook next to JWT, and serves sessions on
 * its own port (`listen()`) or through a service's own HTTP server (`handleUpgrade`).
 * @module
 */
export { createRelay, type CreateRelayOptions, type EmbeddedRelay } from "./create-relay.js";
export type { RelayAuthHook, RelayAuthRequest, RelayAuthVerdict } from "./auth/hook.js";
export type { FileConfig as RelaySettings } from "./config/schema.js";
export { ConfigError } from "./config/index.js";
export type { DrainOptions, RelayPorts } from "./server/relay.js";
export type { DrainResult } from "./server/drain.js";
