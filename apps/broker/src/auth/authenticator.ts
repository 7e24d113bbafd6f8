/**
 * The broker's authentication and authorization: checks CONNECT credentials against the password
 * file, decides topic access from the ACL file, and reloads both on demand (the app calls
 * {@link Authenticator.reload} on SIGHUP).
 * @module
 */
import { aclAllowsPublish, aclAllowsReceive, aclAllowsSubscribe, parseAcl, type AclRules, type AclSubject } from "./acl.js";
import type { EnhancedAuthMethod } from "./enhanced.js";
import { parsePasswordFile, type PasswordTable } from "./password-file.js";
import {
  BAD_AUTHENTICATION_METHOD,
  BAD_USER_NAME_OR_PASSWORD,
  NOT_AUTHORIZED,
  V311_BAD_USER_NAME_OR_PASSWORD,
  V311_NOT_AUTHORIZED,
} from "./reason-codes.js";
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

/** The credentials of a CONNECT. */
export interface ConnectCredentials {
  readonly clientId: string;
  readonly username?: string | undefined;
  /** The Password field; MQTT carries binary data, read as UTF-8 here. */
  readonly password?: string | Uint8Array | undefined;
  /** MQTT 5 Authentication Method, when the client asks for enhanced authentication. */
  readonly authenticationMethod?: string | undefined;
}

/** Why a CONNECT was refused. */
export type AuthDenial = "bad-credentials" | "not-authorized" | "bad-method";

/** The verdict on a CONNECT. */
export type AuthResult =
  /** The CONNECT names a method this broker offers: run its exchange (AUTH packets) to decide. */
  | { readonly ok: "enhanced"; readonly method: EnhancedAuthMethod }
  | {
      readonly ok: true;
      /** Pass this to {@link Authenticator.canPublish} and {@link Authenticator.canSubscribe}. */
      readonly subject: AclSubject;
    }
  | {
      readonly ok: false;
      readonly reason: AuthDenial;
      /** MQTT 5 CONNACK reason code (0x86, 0x87 or 0x8C). */
      readonly reasonCode: number;
      /** MQTT 3.1.1 CONNACK return code (4 or 5). */
      readonly returnCode: number;
      /** For the log; never sent to the client (it would help a guesser). */
      readonly detail: string;
    };

/** What a (re)load found, for the log. */
export interface AuthSummary {
  /** Users in the password file. */
  readonly users: number;
  /** Rules in the ACL file. */
  readonly aclRules: number;
}

function deny(reason: AuthDenial, detail: string): AuthResult {
  switch (reason) {
    case "bad-credentials":
      return { ok: false, reason, reasonCode: BAD_USER_NAME_OR_PASSWORD, returnCode: V311_BAD_USER_NAME_OR_PASSWORD, detail };
    case "not-authorized":
      return { ok: false, reason, reasonCode: NOT_AUTHORIZED, returnCode: V311_NOT_AUTHORIZED, detail };
    case "bad-method":
      // 3.1.1 has no enhanced authentication; a client could not send a method there.
      return { ok: false, reason, reasonCode: BAD_AUTHENTICATION_METHOD, returnCode: V311_NOT_AUTHORIZED, detail };
  }
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
export class Authenticator {
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
   * Checks a CONNECT. A user name is verified against the password file when there is one; a
   * client without one (or any client when there is no password file) is anonymous, admitted only
   * if `allowAnonymous`. An unverified user name never selects a user's ACL section. A CONNECT
   * with an Authentication Method gets the method back (`ok: "enhanced"`) or 0x8C if none matches.
   */
  async authenticate(credentials: ConnectCredentials): Promise<AuthResult> {
    const { clientId, username, password, authenticationMethod } = credentials;
    if (authenticationMethod !== undefined) {
      const method = this.#methods.find((m) => m.name === authenticationMethod);
      if (method === undefined) return deny("bad-method", `authentication method "${authenticationMethod}" is not supported`);
      return { ok: "enhanced", method };
    }
    const passwords = this.#passwords;
    if (passwords === undefined || username === undefined) {
      if (this.#options.allowAnonymous) return { ok: true, subject: { clientId, username: undefined } };
      return deny("not-authorized", "anonymous clients are not allowed");
    }
    if (password === undefined) return deny("bad-credentials", `user "${username}" sent no password`);
    const text = typeof password === "string" ? password : Buffer.from(password).toString("utf8");
    const hash = passwords.get(username);
    const valid = await this.#checks.run(() => (hash === undefined ? decoyVerify(text) : verifyCredential(text, hash)));
    if (!valid) return deny("bad-credentials", hash === undefined ? `unknown user "${username}"` : `wrong password for user "${username}"`);
    return { ok: true, subject: { clientId, username } };
  }

  /** Whether `subject` may publish to `topic` (refuse with 0x87 Not authorized). */
  canPublish(subject: AclSubject, topic: string): boolean {
    if (isSysTopic(topic)) return false;
    return this.#acl === undefined || aclAllowsPublish(this.#acl, subject, topic);
  }

  /** Whether `subject` may subscribe to `filter` (refuse with SUBACK 0x87, or 0x80 in 3.1.1). */
  canSubscribe(subject: AclSubject, filter: string): boolean {
    return this.#acl === undefined || aclAllowsSubscribe(this.#acl, subject, filter);
  }

  /** Whether `subject` may receive a message on `topic`, for a per-delivery check. */
  canReceive(subject: AclSubject, topic: string): boolean {
    return this.#acl === undefined || aclAllowsReceive(this.#acl, subject, topic);
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
