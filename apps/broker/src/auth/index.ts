/**
 * Access for the broker, in one vocabulary (`access.ts`): authentication (scrypt password file,
 * anonymous policy, enhanced methods such as SCRAM-SHA-256), authorization (ACL file with
 * topic-filter semantics), and an embedding service's hooks laid over both.
 * @module
 */
export {
  allowAll,
  type AccessControl,
  type AuthenticateRequest,
  type AuthVerdict,
  type ClientIdentity,
  type EnhancedAuthExchange,
  type EnhancedAuthMethod,
  type EnhancedAuthStart,
  type EnhancedAuthStep,
} from "./access.js";
export { Authenticator, type AuthOptions, type AuthSummary, type ReadTextFile } from "./authenticator.js";
export { withHooks, type AuthenticateResult, type BrokerHooks } from "./embed-hooks.js";
export { parseAcl, aclAllowsPublish, aclAllowsReceive, aclAllowsSubscribe, type Access, type AclRule, type AclRules } from "./acl.js";
export { AuthFileError } from "./errors.js";
export { parsePasswordFile, type PasswordTable } from "./password-file.js";
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
