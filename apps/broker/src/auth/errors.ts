/**
 * Errors of the authentication files.
 * @module
 */

/** A password or ACL file that cannot be used; the message names the file and the line. */
export class AuthFileError extends Error {
  override readonly name = "AuthFileError";
}
