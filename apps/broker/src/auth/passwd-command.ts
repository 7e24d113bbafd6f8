/**
 * `handoff-broker passwd`: prints a password file line for a user, as `mosquitto_passwd` does:
 *
 * ```sh
 * handoff-broker passwd alice >> passwords
 * handoff-broker passwd --scram bob >> passwords
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
import type { Readable, Writable } from "node:stream";
import { hashScramPassword } from "./scram-credential.js";
import { hashPassword } from "./scrypt.js";

/** The `passwd` usage line. */
export const passwdUsage = "usage: handoff-broker passwd [--scram] <username>   (the password is read from standard input)";

/** Where the command reads the password and writes its line and its errors. */
export interface PasswdIo {
  readonly stdin: Readable & { readonly isTTY?: boolean };
  readonly stdout: Writable;
  readonly stderr: Writable;
}

async function readFirstLine(io: PasswdIo): Promise<string | undefined> {
  const lines = createInterface({ input: io.stdin, terminal: false });
  if (io.stdin.isTTY === true) io.stderr.write("password: ");
  for await (const line of lines) {
    lines.close();
    // A password piped from a Windows file would otherwise keep its carriage return.
    return line.replace(/\r$/, "");
  }
  return undefined;
}

/** Runs `passwd` with the arguments after the subcommand; resolves to the exit code. */
export async function runPasswd(args: readonly string[], io: PasswdIo): Promise<number> {
  const scram = args[0] === "--scram";
  const [username, ...extra] = scram ? args.slice(1) : args;
  if (username === undefined || username === "--help" || extra.length > 0) {
    (username === "--help" ? io.stdout : io.stderr).write(`${passwdUsage}\n`);
    return username === "--help" ? 0 : 2;
  }
  if (username === "" || /[\r\n]/.test(username)) {
    io.stderr.write("handoff-broker passwd: the user name must be one non-empty line\n");
    return 2;
  }
  const password = await readFirstLine(io);
  if (password === undefined || password === "") {
    io.stderr.write("handoff-broker passwd: no password on standard input\n");
    return 2;
  }
  const secret = scram ? await hashScramPassword(password) : await hashPassword(password);
  io.stdout.write(`${username}:${secret}\n`);
  return 0;
}
