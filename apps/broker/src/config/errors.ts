/**
 * The error every configuration problem surfaces as: app-kit's, shared with the relay.
 * @module
 */
export { ConfigError } from "@handoff/app-kit";
