/** Relay settings: YAML file (zod-validated), flags and environment. */
export { ConfigError, configFromObject, defaults, parseConfig, parseConfigFile, type RelayConfig } from "./config.js";
export { usage } from "./options.js";
