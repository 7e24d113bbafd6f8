/**
 * The password file: one `username:hash` per line, `#` starts a comment line, blank lines are
 * ignored. The hash is the `$scrypt$...` form `hashPassword` writes, or a `$scram-sha-256$...`
 * credential (`hashScramPassword`) for users who log in with SCRAM. The user name is
 * everything before the last `:` (hashes contain none), so a name may itself contain colons.
 * @module
 */
import { AuthFileError } from "./errors.js";
import { parseCredential, type Credential } from "./credential.js";

/** User name → hash. */
export type PasswordTable = ReadonlyMap<string, Credential>;

/** Parses a password file; throws {@link AuthFileError} naming `source` and the line of the first problems. */
export function parsePasswordFile(text: string, source: string): PasswordTable {
  const users = new Map<string, Credential>();
  const lineOf = new Map<string, number>();
  const problems: string[] = [];
  text.split(/\r?\n/).forEach((raw, index) => {
    const line = raw.trim();
    const number = index + 1;
    if (line === "" || line.startsWith("#")) return;
    const colon = line.lastIndexOf(":");
    if (colon <= 0) {
      problems.push(`password file ${source} line ${String(number)}: expected "username:hash"`);
      return;
    }
    const user = line.slice(0, colon);
    const parsed = parseCredential(line.slice(colon + 1));
    if (!parsed.ok) {
      problems.push(`password file ${source} line ${String(number)}: user "${user}": ${parsed.error}`);
      return;
    }
    const earlier = lineOf.get(user);
    if (earlier !== undefined) {
      problems.push(`password file ${source} line ${String(number)}: user "${user}" is already defined on line ${String(earlier)}`);
      return;
    }
    users.set(user, parsed.value);
    lineOf.set(user, number);
  });
  if (problems.length > 0) throw new AuthFileError(problems.join("\n"));
  return users;
}
