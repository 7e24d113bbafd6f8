/**
 * Authentication (scrypt password file, anonymous policy, an enhanced-auth hook) and
 * authorization (ACL file with topic-filter semantics) for the broker.
 * @module
 */
export {
  Authenticator,
  type AuthDenial,
  type AuthOptions,
  type AuthResult,
  type AuthSummary,
  type ConnectCredentials,
  type ReadTextFile,
} from "./authenticator.js";
export { parseAcl, aclAllowsPublish, aclAllowsReceive, aclAllowsSubscribe, type Access, type AclRule, type AclRules, type AclSubject } from "./acl.js";
export type { EnhancedAuthExchange, EnhancedAuthMethod, EnhancedAuthStep } from "./enhanced.js";
export { AuthFileError } from "./errors.js";
export { parsePasswordFile, type PasswordTable } from "./password-file.js";
export * from "./reason-codes.js";
export {
  DEFAULT_SCRYPT_PARAMS,
  formatPasswordHash,
  hashPassword,
  parsePasswordHash,
  verifyPassword,
  type ParsedHash,
  type PasswordHash,
  type ScryptParams,
} from "./scrypt.js";
export { parseCredential, verifyCredential, type Credential } from "./credential.js";
export {
  DEFAULT_SCRAM_ITERATIONS,
  deriveScramCredential,
  formatScramCredential,
  hashScramPassword,
  parseScramCredential,
  verifyScramPassword,
  type ScramCredential,
} from "./scram-credential.js";
export { SCRAM_SHA_256, scramSha256Method, type ScramMethodOptions } from "./scram-method.js";
export { covers, intersects, isValidFilter, matches, unshare } from "./topic-filter.js";
