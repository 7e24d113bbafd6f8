/**
 * The broker's settings: a zod-validated model loaded from defaults < YAML config file <
 * `HANDOFF_BROKER_*` environment variables < command-line flags.
 * @module
 */
export { ConfigError } from "./errors.js";
export { loadConfig, type Env, type LoadResult } from "./load.js";
export type { ReadFile } from "./file.js";
export { usage } from "./usage.js";
export { DEFAULTS, configSchema, type ConfigInput } from "./schema.js";
export { OVERRIDES, ENV_PREFIX, CONFIG_ENV, type OverrideOption } from "./options.js";
export type {
  AdminConfig,
  AuthConfig,
  BrokerConfig,
  Endpoint,
  LimitsConfig,
  ListenersConfig,
  LogLevel,
  OverflowPolicy,
  QueueConfig,
  StorageKind,
  TlsFiles,
  WsEndpoint,
} from "./types.js";
