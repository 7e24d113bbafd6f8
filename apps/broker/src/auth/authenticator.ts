/**
 * The broker's authentication and authorization: checks CONNECT credentials against the password
 * file, decides topic access from the ACL file, and reloads both on demand (the app calls
 * {@link Authenticator.reload} on SIGHUP). It is the broker's {@link AccessControl} when no
 * embedding service lays hooks over it.
 * @module
 */
import { ReasonCode } from "@handoff/mqtt-router";
import { type AccessControl, type AuthenticateRequest, type AuthVerdict, type ClientIdentity, type EnhancedAuthMethod, type EnhancedAuthStart } from "./access.js";
import { aclAllowsPublish, aclAllowsReceive, aclAllowsSubscribe, parseAcl, type AclRules } from "./acl.js";
import { parsePasswordFile, type PasswordTable } from "./password-file.js";
import { verifyCredential } from "./credential.js";
import { scramSha256Method } from "./scram-method.js";
import { decoyVerify } from "./scrypt.js";
import { CheckLimiter } from "./check-limiter.js";
import { DEFAULT_SCRAM_ITERATIONS } from "./scram-credential.js";
import { AuthFileError } from "./errors.js";

/** Where the authenticator reads its files from (mirrors the `auth` config section). */
export interface AuthOptions {
  /** Whether a client without a user name may connect. */
  readonly allowAnonymous: boolean;
  /** Path of the password file; unset: user names are not checked and every client is anonymous. */
  readonly passwordFile: string | undefined;
  /** Path of the ACL file; unset: every client may use every topic (except publishing to `$SYS`). */
  readonly aclFile: string | undefined;
  /**
   * Further enhanced authentication methods. SCRAM-SHA-256 is built in whenever there is a
   * password file (it serves the users whose entry is a `$scram-sha-256$` credential).
   */
  readonly enhancedMethods?: readonly EnhancedAuthMethod[];
  /** Password checks (scrypt) running at once; the rest queue (default 4, libuv's pool size). */
  readonly maxConcurrentChecks?: number;
}

/** Reads a file as UTF-8 text (node:fs/promises `readFile(path, "utf8")` in the app). */
export type ReadTextFile = (path: string) => Promise<string>;

/** What a (re)load found, for the log. */
export interface AuthSummary {
  /** Users in the password file. */
  readonly users: number;
  /** Rules in the ACL file. */
  readonly aclRules: number;
}

// A refusal: 0x86 for credentials that do not check out, 0x87 for a client not let in at all.
function deny(reasonCode: ReasonCode, reason: string): AuthVerdict {
  return { ok: false, reasonCode, reason };
}

function countRules(rules: AclRules | undefined): number {
  if (rules === undefined) return 0;
  let count = rules.anonymous.length + rules.patterns.length;
  for (const list of rules.users.values()) count += list.length;
  return count;
}

/** `$SYS` belongs to the broker: no client publishes there, whatever the ACL says. */
function isSysTopic(topic: string): boolean {
  return topic === "$SYS" || topic.startsWith("$SYS/");
}

/**
 * Authentication and authorization over a password file and an ACL file. Create with
 * {@link Authenticator.load}; the files are read again by {@link Authenticator.reload}, which
 * keeps the previous tables when the new files are bad.
 */
export class Authenticator implements AccessControl {
  readonly #options: AuthOptions;
  readonly #readFile: ReadTextFile;
  #passwords: PasswordTable | undefined;
  #acl: AclRules | undefined;
  readonly #methods: readonly EnhancedAuthMethod[];
  readonly #checks: CheckLimiter;

  private constructor(options: AuthOptions, readFile: ReadTextFile) {
    this.#options = options;
    this.#readFile = readFile;
    this.#checks = new CheckLimiter(options.maxConcurrentChecks ?? 4);
    // The lookup reads the current table, so a reload applies to the next SCRAM login.
    const scram = scramSha256Method({
      lookup: (username) => {
        const entry = this.#passwords?.get(username);
        return entry?.scheme === "scram-sha-256" ? entry.credential : undefined;
      },
      decoyIterations: () => commonScramIterations(this.#passwords),
    });
    this.#methods = [...(options.passwordFile === undefined ? [] : [scram]), ...(options.enhancedMethods ?? [])];
  }

  /** Reads the configured files; throws {@link AuthFileError} when one is unreadable or malformed. */
  static async load(options: AuthOptions, readFile: ReadTextFile): Promise<Authenticator> {
    const authenticator = new Authenticator(options, readFile);
    await authenticator.reload();
    return authenticator;
  }

  /**
   * Reads both files again and swaps them in together, only if both are valid. On failure the
   * previous tables stay in force and the {@link AuthFileError} is thrown for the caller to log.
   */
  async reload(): Promise<AuthSummary> {
    const { passwordFile, aclFile } = this.#options;
    const [passwords, acl] = await Promise.all([
      passwordFile === undefined ? undefined : this.#read(passwordFile, "password").then((text) => parsePasswordFile(text, passwordFile)),
      aclFile === undefined ? undefined : this.#read(aclFile, "ACL").then((text) => parseAcl(text, aclFile)),
    ]);
    this.#passwords = passwords;
    this.#acl = acl;
    return { users: passwords?.size ?? 0, aclRules: countRules(acl) };
  }

  async #read(path: string, what: string): Promise<string> {
    try {
      return await this.#readFile(path);
    } catch (err) {
      throw new AuthFileError(`cannot read ${what} file ${path}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }

  /**
   * Checks a CONNECT. A user name is verified against the password file when there is one (the
   * password read as UTF-8); a client without one (or any client when there is no password file)
   * is anonymous, admitted only if `allowAnonymous`. An unverified user name never selects a
   * user's ACL section.
   */
  async authenticate(request: AuthenticateRequest): Promise<AuthVerdict> {
    const { clientId, username, password } = request;
    const passwords = this.#passwords;
    if (passwords === undefined || username === undefined) {
      if (this.#options.allowAnonymous) return { ok: true, identity: { clientId } };
      return deny(ReasonCode.NotAuthorized, "anonymous clients are not allowed");
    }
    if (password === undefined) return deny(ReasonCode.BadUserNameOrPassword, `user "${username}" sent no password`);
    const text = Buffer.from(password).toString("utf8");
    const hash = passwords.get(username);
    const valid = await this.#checks.run(() => (hash === undefined ? decoyVerify(text) : verifyCredential(text, hash)));
    if (!valid) return deny(ReasonCode.BadUserNameOrPassword, hash === undefined ? `unknown user "${username}"` : `wrong password for user "${username}"`);
    return { ok: true, identity: { clientId, username } };
  }

  /**
   * Starts the exchange of the enhanced authentication method a CONNECT names; undefined when this
   * broker does not offer it (the connection is refused with 0x8C).
   */
  startEnhanced(clientId: string, method: string, data: Uint8Array | undefined): Promise<EnhancedAuthStart | undefined> {
    const offered = this.#methods.find((m) => m.name === method);
    return offered === undefined ? Promise.resolve(undefined) : offered.start(clientId, data);
  }

  /** Whether `client` may publish to `topic` (refuse with 0x87 Not authorized). */
  canPublish(client: ClientIdentity, topic: string): boolean {
    if (isSysTopic(topic)) return false;
    return this.#acl === undefined || aclAllowsPublish(this.#acl, client, topic);
  }

  /** Whether `client` may subscribe to `filter` (refuse with SUBACK 0x87, or 0x80 in 3.1.1). */
  canSubscribe(client: ClientIdentity, filter: string): boolean {
    return this.#acl === undefined || aclAllowsSubscribe(this.#acl, client, filter);
  }

  /** Whether `client` may receive a message on `topic`, for a per-delivery check. */
  canReceive(client: ClientIdentity, topic: string): boolean {
    return this.#acl === undefined || aclAllowsReceive(this.#acl, client, topic);
  }
}

/**
 * The iteration count most SCRAM entries use, for the decoy challenge of an unknown user: a decoy
 * with a count no real entry has would tell an attacker the user does not exist.
 */
function commonScramIterations(table: PasswordTable | undefined): number {
  const counts = new Map<number, number>();
  for (const entry of table?.values() ?? []) {
    if (entry.scheme === "scram-sha-256") counts.set(entry.credential.iterations, (counts.get(entry.credential.iterations) ?? 0) + 1);
  }
  let best = DEFAULT_SCRAM_ITERATIONS;
  let seen = 0;
  for (const [iterations, n] of counts) {
    if (n > seen) {
      best = iterations;
      seen = n;
    }
  }
  return best;
}
