/** Auth: JWT (HS256) path scopes and anonymous public paths. */
export { authenticate, type AuthConfig, type AuthResult } from "./jwt.js";
export { ALLOW_ALL, DENY_ALL, allowed, overlaps, type Permissions } from "./permissions.js";
