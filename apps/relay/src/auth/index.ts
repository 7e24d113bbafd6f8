/** Auth: JWT (HS256) path scopes, anonymous public paths, and an embedding service's own hook (the grants they give are `Permissions` of @handoff/moq-relay). */
export { authenticate, type AuthConfig, type AuthResult } from "./jwt.js";
export { authenticateWithHook, type RelayAuthHook, type RelayAuthRequest, type RelayAuthVerdict } from "./hook.js";
