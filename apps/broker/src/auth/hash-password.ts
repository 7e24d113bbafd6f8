/**
 * Prints a password file line for a user:
 *
 * ```sh
 * pnpm --filter broker exec tsx src/auth/hash-password.ts alice >> passwords
 * pnpm --filter broker exec tsx src/auth/hash-password.ts --scram bob >> passwords
 * ```
 *
 * The default is an scrypt hash; `--scram` writes a SCRAM-SHA-256 credential instead, which a
 * user needs to log in with MQTT 5 enhanced authentication (it also works for plain passwords).
 *
 * The password is read from standard input (the first line; type it, or pipe it in) so it does
 * not end up in the shell history or the process list.
 * @module
 */
import { createInterface } from "node:readline";
import { hashScramPassword } from "./scram-credential.js";
import { hashPassword } from "./scrypt.js";

const usage = "usage: hash-password.ts [--scram] <username>   (the password is read from standard input)";

async function readFirstLine(): Promise<string | undefined> {
  const lines = createInterface({ input: process.stdin, terminal: false });
  if (process.stdin.isTTY) process.stderr.write("password: ");
  for await (const line of lines) {
    lines.close();
    // A password piped from a Windows file would otherwise keep its carriage return.
    return line.replace(/\r$/, "");
  }
  return undefined;
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const scram = args[0] === "--scram";
  const [username, ...extra] = scram ? args.slice(1) : args;
  if (username === undefined || username === "--help" || extra.length > 0) {
    process.stderr.write(`${usage}\n`);
    return username === "--help" ? 0 : 2;
  }
  if (username === "" || /[\r\n]/.test(username)) {
    process.stderr.write("hash-password: the user name must be one non-empty line\n");
    return 2;
  }
  const password = await readFirstLine();
  if (password === undefined || password === "") {
    process.stderr.write("hash-password: no password on standard input\n");
    return 2;
  }
  const secret = scram ? await hashScramPassword(password) : await hashPassword(password);
  process.stdout.write(`${username}:${secret}\n`);
  return 0;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`hash-password: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exitCode = 1;
  },
);
