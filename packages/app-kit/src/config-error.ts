/**
 * The error every configuration problem surfaces as.
 * @module
 */

/**
 * A setting an app cannot use: an unknown key, a wrong type, a bad port, an unreadable file.
 * The message is meant for a person and names where the bad value came from; the entry point
 * prints it and exits with status 2 ({@link settingsOrExit}).
 */
export class ConfigError extends Error {
  override readonly name = "ConfigError";
}
