/**
 * The relay's rules, below every other folder: the application codes it puts on resets and
 * closes, and what a grant of path prefixes allows.
 * @module
 */
export { RelayCode } from "./relay-code.js";
export { ALLOW_ALL, DENY_ALL, allowed, mergePermissions, normalizePermissions, overlaps, type Permissions } from "./permissions.js";
