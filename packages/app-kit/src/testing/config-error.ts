/**
 * Reading a configuration error's message in tests.
 * @module
 */
import { ConfigError } from "../config-error.js";

/** The message of the {@link ConfigError} `load` throws; anything else (or nothing) fails the test. */
export function configErrorOf(load: () => unknown): string {
  try {
    load();
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error("expected a ConfigError");
}
