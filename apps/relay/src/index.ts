/**
 * `@handoff/relay`: handoff's moq-lite relay as a library. `createRelay(config)` takes the config
 * file's settings (same schema, same errors) and an auth hook next to JWT, and serves sessions on
 * its own port (`listen()`) or through a service's own HTTP server (`handleUpgrade`).
 * @module
 */
import { ConfigError as SettingsError } from "@handoff/app-kit";
export { createRelay, type CreateRelayOptions, type EmbeddedRelay } from "./create-relay.js";
export type { RelayAuthHook, RelayAuthRequest, RelayAuthVerdict } from "./auth/hook.js";
export type { FileConfig as RelaySettings } from "./config/schema.js";
export type { RelayPorts } from "./server/relay.js";
export type { DrainOptions } from "./server/relay-options.js";
export type { DrainResult } from "./server/drain.js";

/** A setting the package cannot use: the message names the key, what was expected and a "did you mean". */
export interface ConfigError extends Error {
  /** Tells it from other errors. */
  readonly name: "ConfigError";
}
// The shared class itself (so `instanceof` holds), typed without the private package it lives in.
/** The class of {@link ConfigError}s, for `instanceof`. */
export const ConfigError: new (message?: string) => ConfigError = SettingsError;
