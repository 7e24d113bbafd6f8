/**
 * Log levels and the apps' logger: JSON lines by default, pino-pretty for development.
 * @module
 */
import { pino, type Logger } from "pino";

/** Log levels pino knows, plus `silent`. */
export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;

/** A pino log level (or `silent`). */
export type LogLevel = (typeof LOG_LEVELS)[number];

/** How an app logs. */
export interface LogSettings {
  readonly level: LogLevel;
  /** Human-readable lines (pino-pretty) instead of JSON. */
  readonly pretty: boolean;
}

/** The app's root logger, every line tagged with `name` (`broker`, `relay`). */
export function createLogger(name: string, settings: LogSettings): Logger {
  return pino({
    name,
    level: settings.level,
    ...(settings.pretty ? { transport: { target: "pino-pretty" } } : {}),
  });
}
