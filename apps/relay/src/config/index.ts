/** Relay settings: YAML file (zod-validated), flags and environment. */
export { ConfigError, defaults, parseConfig, parseConfigFile, usage, type RelayConfig } from "./config.js";
