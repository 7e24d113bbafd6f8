import { describe, expect, it } from "vitest";
import { Authenticator, type AuthOptions } from "./authenticator.js";
import type { EnhancedAuthMethod } from "./enhanced.js";
import { AuthFileError } from "./errors.js";
import { hashScramPassword } from "./scram-credential.js";
import { hashPassword } from "./scrypt.js";

const fast = { N: 1024, r: 8, p: 1 };
const passwords = `alice:${await hashPassword("wonderland", fast)}\n`;

/** An in-memory filesystem whose files the test can change between reloads. */
function disk(files: Record<string, string>): (path: string) => Promise<string> {
  return (path) => {
    const text = files[path];
    return text === undefined ? Promise.reject(new Error(`ENOENT: ${path}`)) : Promise.resolve(text);
  };
}

function options(overrides: Partial<AuthOptions>): AuthOptions {
  return { allowAnonymous: true, passwordFile: undefined, aclFile: undefined, ...overrides };
}

describe("Authenticator.authenticate", () => {
  it("admits the right password with the user name as subject", async () => {
    const auth = await Authenticator.load(options({ passwordFile: "pw" }), disk({ pw: passwords }));
    expect(await auth.authenticate({ clientId: "c", username: "alice", password: "wonderland" })).toEqual({
      ok: true,
      subject: { clientId: "c", username: "alice" },
    });
  });

  it("takes a binary password as UTF-8", async () => {
    const auth = await Authenticator.load(options({ passwordFile: "pw" }), disk({ pw: passwords }));
    const result = await auth.authenticate({ clientId: "c", username: "alice", password: new TextEncoder().encode("wonderland") });
    expect(result.ok).toBe(true);
  });

  it("refuses a wrong password with 0x86 and 3.1.1 code 4", async () => {
    const auth = await Authenticator.load(options({ passwordFile: "pw" }), disk({ pw: passwords }));
    expect(await auth.authenticate({ clientId: "c", username: "alice", password: "nope" })).toMatchObject({
      ok: false,
      reason: "bad-credentials",
      reasonCode: 0x86,
      returnCode: 4,
    });
  });

  it("refuses an unknown user the same way as a wrong password", async () => {
    const auth = await Authenticator.load(options({ passwordFile: "pw" }), disk({ pw: passwords }));
    expect(await auth.authenticate({ clientId: "c", username: "mallory", password: "x" })).toMatchObject({ ok: false, reasonCode: 0x86, detail: 'unknown user "mallory"' });
  });

  it("refuses a user name without a password", async () => {
    const auth = await Authenticator.load(options({ passwordFile: "pw" }), disk({ pw: passwords }));
    expect(await auth.authenticate({ clientId: "c", username: "alice" })).toMatchObject({ ok: false, reasonCode: 0x86 });
  });

  it("admits an anonymous client when anonymous access is allowed", async () => {
    const auth = await Authenticator.load(options({ passwordFile: "pw" }), disk({ pw: passwords }));
    expect(await auth.authenticate({ clientId: "c" })).toEqual({ ok: true, subject: { clientId: "c", username: undefined } });
  });

  it("refuses an anonymous client with 0x87 and 3.1.1 code 5 when anonymous access is off", async () => {
    const auth = await Authenticator.load(options({ allowAnonymous: false, passwordFile: "pw" }), disk({ pw: passwords }));
    expect(await auth.authenticate({ clientId: "c" })).toMatchObject({ ok: false, reason: "not-authorized", reasonCode: 0x87, returnCode: 5 });
  });

  it("treats a claimed user name as anonymous when there is no password file", async () => {
    const auth = await Authenticator.load(options({}), disk({}));
    expect(await auth.authenticate({ clientId: "c", username: "admin", password: "x" })).toEqual({ ok: true, subject: { clientId: "c", username: undefined } });
  });

  it("refuses an authentication method it does not offer with 0x8C", async () => {
    const auth = await Authenticator.load(options({}), disk({}));
    expect(await auth.authenticate({ clientId: "c", authenticationMethod: "SCRAM-SHA-1" })).toMatchObject({ ok: false, reason: "bad-method", reasonCode: 0x8c });
  });

  it("hands back an offered enhanced method so the protocol layer runs its exchange", async () => {
    const method: EnhancedAuthMethod = { name: "TEST", start: () => Promise.reject(new Error("unused")) };
    const auth = await Authenticator.load(options({ enhancedMethods: [method] }), disk({}));
    expect(await auth.authenticate({ clientId: "c", authenticationMethod: "TEST" })).toEqual({ ok: "enhanced", method });
  });
});

const scramFile = `${passwords}bob:${await hashScramPassword("builder")}\n`;

describe("Authenticator with SCRAM credentials", () => {
  it("verifies a plain password against a SCRAM entry", async () => {
    const auth = await Authenticator.load(options({ passwordFile: "pw" }), disk({ pw: scramFile }));
    expect((await auth.authenticate({ clientId: "c", username: "bob", password: "builder" })).ok).toBe(true);
  });

  it("offers SCRAM-SHA-256 when there is a password file", async () => {
    const auth = await Authenticator.load(options({ passwordFile: "pw" }), disk({ pw: scramFile }));
    const result = await auth.authenticate({ clientId: "c", authenticationMethod: "SCRAM-SHA-256" });
    expect(result.ok === "enhanced" && result.method.name).toBe("SCRAM-SHA-256");
  });

  it("does not offer SCRAM-SHA-256 without a password file", async () => {
    const auth = await Authenticator.load(options({}), disk({}));
    expect(await auth.authenticate({ clientId: "c", authenticationMethod: "SCRAM-SHA-256" })).toMatchObject({ ok: false, reasonCode: 0x8c });
  });

  it("challenges an unknown SCRAM user with the iteration count the real entries use", async () => {
    const file = `bob:${await hashScramPassword("builder", 10_000)}\ncarol:${await hashScramPassword("x", 10_000)}\n`;
    const auth = await Authenticator.load(options({ passwordFile: "pw" }), disk({ pw: file }));
    const result = await auth.authenticate({ clientId: "c", authenticationMethod: "SCRAM-SHA-256" });
    if (result.ok !== "enhanced") throw new Error("expected the SCRAM method");
    const { step } = await result.method.start("c", new TextEncoder().encode("n,,n=ghost,r=abc"));
    expect(step.kind === "continue" ? new TextDecoder().decode(step.data) : "").toMatch(/,i=10000$/);
  });

  it("admits many logins at once through a cap of one concurrent password check", async () => {
    const auth = await Authenticator.load(options({ passwordFile: "pw", maxConcurrentChecks: 1 }), disk({ pw: passwords }));
    const results = await Promise.all(["wonderland", "nope", "wonderland"].map((password) => auth.authenticate({ clientId: "c", username: "alice", password })));
    expect(results.map((r) => r.ok)).toEqual([true, false, true]);
  });

  it("challenges a user with an scrypt entry with a decoy, since SCRAM needs a SCRAM entry", async () => {
    const auth = await Authenticator.load(options({ passwordFile: "pw" }), disk({ pw: scramFile }));
    const result = await auth.authenticate({ clientId: "c", authenticationMethod: "SCRAM-SHA-256" });
    if (result.ok !== "enhanced") throw new Error("expected the SCRAM method");
    const { exchange } = await result.method.start("c", new TextEncoder().encode("n,,n=alice,r=abc"));
    const step = await exchange.next(new TextEncoder().encode(`c=biws,r=abc,p=${Buffer.alloc(32).toString("base64")}`));
    expect(step.kind).toBe("failure");
  });
});

describe("Authenticator authorization", () => {
  it("allows every topic without an ACL file", async () => {
    const auth = await Authenticator.load(options({}), disk({}));
    const subject = { clientId: "c", username: undefined };
    expect([auth.canPublish(subject, "a/b"), auth.canSubscribe(subject, "#"), auth.canReceive(subject, "a")]).toEqual([true, true, true]);
  });

  it("never lets a client publish under $SYS", async () => {
    const auth = await Authenticator.load(options({}), disk({}));
    expect(auth.canPublish({ clientId: "c", username: undefined }, "$SYS/broker/uptime")).toBe(false);
  });

  it("denies by default once an ACL file is configured", async () => {
    const auth = await Authenticator.load(options({ aclFile: "acl" }), disk({ acl: "topic read a/#\n" }));
    const subject = { clientId: "c", username: undefined };
    expect([auth.canPublish(subject, "a/b"), auth.canSubscribe(subject, "b"), auth.canSubscribe(subject, "a/b")]).toEqual([false, false, true]);
  });
});

describe("Authenticator.reload", () => {
  it("picks up a changed password file", async () => {
    const files: Record<string, string> = { pw: passwords };
    const auth = await Authenticator.load(options({ passwordFile: "pw" }), disk(files));
    files["pw"] = `bob:${await hashPassword("builder", fast)}\n`;
    const summary = await auth.reload();
    expect([summary.users, (await auth.authenticate({ clientId: "c", username: "bob", password: "builder" })).ok]).toEqual([1, true]);
  });

  it("keeps the previous tables when the new file is malformed", async () => {
    const files: Record<string, string> = { pw: passwords, acl: "topic a\n" };
    const auth = await Authenticator.load(options({ passwordFile: "pw", aclFile: "acl" }), disk(files));
    files["acl"] = "topic b\n";
    files["pw"] = "garbage\n";
    await expect(auth.reload()).rejects.toThrow(AuthFileError);
    expect(auth.canPublish({ clientId: "c", username: undefined }, "a")).toBe(true);
  });

  it("reports a file it cannot read, naming it", async () => {
    await expect(Authenticator.load(options({ aclFile: "missing.acl" }), disk({}))).rejects.toThrow("cannot read ACL file missing.acl: ENOENT: missing.acl");
  });

  it("counts the users and rules it loaded", async () => {
    const auth = await Authenticator.load(options({ passwordFile: "pw", aclFile: "acl" }), disk({ pw: passwords, acl: "topic a\nuser alice\ntopic b\npattern c/%c\n" }));
    expect(await auth.reload()).toEqual({ users: 1, aclRules: 3 });
  });
});
