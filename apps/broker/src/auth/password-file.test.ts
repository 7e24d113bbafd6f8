import { describe, expect, it } from "vitest";
import { AuthFileError } from "./errors.js";
import { parsePasswordFile } from "./password-file.js";

const hash = "$scrypt$N=1024,r=8,p=1$c2FsdHNhbHQ=$aGFzaGhhc2hoYXNoaGFzaA==";

describe("parsePasswordFile", () => {
  it("reads one user per line and skips comments and blank lines", () => {
    const table = parsePasswordFile(`# users\n\nalice:${hash}\n  bob:${hash}  \n`, "pw");
    expect([...table.keys()]).toEqual(["alice", "bob"]);
  });

  it("keeps colons inside a user name", () => {
    expect([...parsePasswordFile(`urn:dev:7:${hash}\n`, "pw").keys()]).toEqual(["urn:dev:7"]);
  });

  it("reports a line without a colon with its line number", () => {
    expect(() => parsePasswordFile(`alice:${hash}\n# ok\nbroken\n`, "pw")).toThrow('password file pw line 3: expected "username:hash"');
  });

  it("reports a malformed hash with the user and line", () => {
    expect(() => parsePasswordFile("alice:plaintext\n", "pw")).toThrow(/^password file pw line 1: user "alice": expected \$scrypt\$/);
  });

  it("reports a user defined twice", () => {
    expect(() => parsePasswordFile(`a:${hash}\na:${hash}\n`, "pw")).toThrow('password file pw line 2: user "a" is already defined on line 1');
  });

  it("throws an AuthFileError listing every bad line", () => {
    let error: unknown;
    try {
      parsePasswordFile("x\ny\n", "pw");
    } catch (err) {
      error = err;
    }
    expect(error instanceof AuthFileError && error.message.split("\n").length).toBe(2);
  });

  it("accepts Windows line endings", () => {
    expect(parsePasswordFile(`alice:${hash}\r\nbob:${hash}\r\n`, "pw").size).toBe(2);
  });
});
