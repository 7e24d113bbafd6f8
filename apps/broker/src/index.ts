/**
 * `@handoff/broker`: handoff's MQTT 5 broker as a library. `createBroker(config)` takes the config
 * file's settings (same schema, same errors) plus hooks, and runs on its own listeners
 * (`listen()`) or on streams a service accepted itself (`handle(stream)`).
 * @module
 */
import { ConfigError as SettingsError } from "@handoff/app-kit";
export {
  createBroker,
  type BrokerEventMap,
  type BrokerPorts,
  type CreateBrokerOptions,
  type EmbeddedBroker,
  type HandleOptions,
  type PublishedMessage,
} from "./create-broker.js";
export type { AuthenticateRequest, ClientIdentity } from "./auth/access.js";
export type { AuthenticateResult, BrokerHooks } from "./auth/embed-hooks.js";
export type { BrokerSettings } from "./config/from-object.js";
export { StoreOpenError } from "./storage/index.js";
export type { ConnectionInfo, DisconnectInfo } from "./mqtt/connection-info.js";
export type { TrafficTotals } from "./metrics/index.js";
export type { AuthSummary } from "./auth/index.js";
export { VERSION } from "./version.js";

/** A setting the package cannot use: the message names the key, what was expected and a "did you mean". */
export interface ConfigError extends Error {
  /** Tells it from other errors. */
  readonly name: "ConfigError";
}
// The shared class itself (so `instanceof` holds), typed without the private package it lives in.
/** The class of {@link ConfigError}s, for `instanceof`. */
export const ConfigError: new (message?: string) => ConfigError = SettingsError;
