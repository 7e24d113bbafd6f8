/**
 * What the broker and the relay share (private to the workspace, bundled into each app): config
 * loading and its errors, log levels, signals and shutdown, the `/health` server.
 * @module
 */
export { bearerMatches } from "./bearer.js";
export { ConfigError } from "./config-error.js";
export { commandLine, runMain, settingsOrExit } from "./entry.js";
export {
  createHttpServer,
  type HealthReport,
  type HttpReply,
  type HttpRequest,
  type HttpRoutes,
  type HttpServer,
  type HttpServerOptions,
  type MetricsSource,
} from "./health-server.js";
export { allPaths, formatIssue, formatIssues, formatPath, knownKeys, type SourceOf } from "./issues.js";
export { loadSettings, type Env, type Loaded, type LoadedOrHelp, type Override, type SettingsSpec } from "./load-settings.js";
export { createLogger, LOG_LEVELS, type LogLevel, type LogSettings } from "./log.js";
export { isSwitch, oneOf, parseOptionValue, type OptionKind, type OptionValue, type OverrideOption } from "./options.js";
export { stopOnSignals, type ShutdownOptions, type SignalTarget, type StopSignal } from "./shutdown.js";
export { closest, didYouMean, editDistance } from "./suggest.js";
export { optionSections } from "./usage.js";
export { parseYaml, parseYamlConfig, readYamlConfig, type ReadFile } from "./yaml-config.js";
