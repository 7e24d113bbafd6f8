import { describe, expect, it } from "vitest";
import { Authenticator, type AuthOptions } from "./authenticator.js";
import type { EnhancedAuthMethod } from "./access.js";
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

/** A password as the CONNECT carries it: bytes. */
const pw = (text: string): Uint8Array => new TextEncoder().encode(text);

function options(overrides: Partial<AuthOptions>): AuthOptions {
  return { allowAnonymous: true, passwordFile: undefined, aclFile: undefined, ...overrides };
}

describe("Authenticator.authenticate", () => {
  it("admits the right password with the user name in the identity", async () => {
    const auth = await Authenticator.load(options({ passwordFile: "pw" }), disk({ pw: passwords }));
    expect(await auth.authenticate({ clientId: "c", username: "alice", password: pw("wonderland") })).toEqual({
      ok: true,
      identity: { clientId: "c", username: "alice" },
    });
  });

  it("reads the password bytes as UTF-8", async () => {
    const file = `zoë:${await hashPassword("grüße", fast)}\n`;
    const auth = await Authenticator.load(options({ passwordFile: "pw" }), disk({ pw: file }));
    expect((await auth.authenticate({ clientId: "c", username: "zoë", password: pw("grüße") })).ok).toBe(true);
  });

  it("refuses a wrong password with 0x86", async () => {
    const auth = await Authenticator.load(options({ passwordFile: "pw" }), disk({ pw: passwords }));
    expect(await auth.authenticate({ clientId: "c", username: "alice", password: pw("nope") })).toEqual({
      ok: false,
      reasonCode: 0x86,
      reason: 'wrong password for user "alice"',
    });
  });

  it("refuses an unknown user the same way as a wrong password", async () => {
    const auth = await Authenticator.load(options({ passwordFile: "pw" }), disk({ pw: passwords }));
    expect(await auth.authenticate({ clientId: "c", username: "mallory", password: pw("x") })).toMatchObject({ ok: false, reasonCode: 0x86, reason: 'unknown user "mallory"' });
  });

  it("refuses a user name without a password", async () => {
    const auth = await Authenticator.load(options({ passwordFile: "pw" }), disk({ pw: passwords }));
    expect(await auth.authenticate({ clientId: "c", username: "alice" })).toMatchObject({ ok: false, reasonCode: 0x86 });
  });

  it("admits an anonymous client when anonymous access is allowed", async () => {
    const auth = await Authenticator.load(options({ passwordFile: "pw" }), disk({ pw: passwords }));
    expect(await auth.authenticate({ clientId: "c" })).toEqual({ ok: true, identity: { clientId: "c" } });
  });

  it("refuses an anonymous client with 0x87 when anonymous access is off", async () => {
    const auth = await Authenticator.load(options({ allowAnonymous: false, passwordFile: "pw" }), disk({ pw: passwords }));
    expect(await auth.authenticate({ clientId: "c" })).toEqual({ ok: false, reasonCode: 0x87, reason: "anonymous clients are not allowed" });
  });

  it("treats a claimed user name as anonymous when there is no password file", async () => {
    const auth = await Authenticator.load(options({}), disk({}));
    expect(await auth.authenticate({ clientId: "c", username: "admin", password: pw("x") })).toEqual({ ok: true, identity: { clientId: "c" } });
  });
});

describe("Authenticator.startEnhanced", () => {
  it("offers no authentication method it was not given (the connection is refused with 0x8C)", async () => {
    const auth = await Authenticator.load(options({}), disk({}));
    expect(await auth.startEnhanced("c", "SCRAM-SHA-1", undefined)).toBeUndefined();
  });

  it("starts the exchange of an offered method, with the client id and data of the CONNECT", async () => {
    const started: unknown[] = [];
    const step = { kind: "failure", reasonCode: 0x87 } as const;
    const exchange = { next: () => Promise.resolve(step) };
    const method: EnhancedAuthMethod = {
      name: "TEST",
      start: (clientId, data) => {
        started.push(clientId, data);
        return Promise.resolve({ exchange, step });
      },
    };
    const auth = await Authenticator.load(options({ enhancedMethods: [method] }), disk({}));
    expect(await auth.startEnhanced("c", "TEST", Uint8Array.of(1))).toEqual({ exchange, step });
    expect(started).toEqual(["c", Uint8Array.of(1)]);
  });
});

const scramFile = `${passwords}bob:${await hashScramPassword("builder")}\n`;

describe("Authenticator with SCRAM credentials", () => {
  it("verifies a plain password against a SCRAM entry", async () => {
    const auth = await Authenticator.load(options({ passwordFile: "pw" }), disk({ pw: scramFile }));
    expect((await auth.authenticate({ clientId: "c", username: "bob", password: pw("builder") })).ok).toBe(true);
  });

  it("offers SCRAM-SHA-256 when there is a password file", async () => {
    const auth = await Authenticator.load(options({ passwordFile: "pw" }), disk({ pw: scramFile }));
    const started = await auth.startEnhanced("c", "SCRAM-SHA-256", new TextEncoder().encode("n,,n=bob,r=abc"));
    expect(started?.step.kind).toBe("continue");
  });

  it("does not offer SCRAM-SHA-256 without a password file", async () => {
    const auth = await Authenticator.load(options({}), disk({}));
    expect(await auth.startEnhanced("c", "SCRAM-SHA-256", new TextEncoder().encode("n,,n=bob,r=abc"))).toBeUndefined();
  });

  it("challenges an unknown SCRAM user with the iteration count the real entries use", async () => {
    const file = `bob:${await hashScramPassword("builder", 10_000)}\ncarol:${await hashScramPassword("x", 10_000)}\n`;
    const auth = await Authenticator.load(options({ passwordFile: "pw" }), disk({ pw: file }));
    const started = await auth.startEnhanced("c", "SCRAM-SHA-256", new TextEncoder().encode("n,,n=ghost,r=abc"));
    if (started === undefined) throw new Error("expected the SCRAM method");
    const { step } = started;
    expect(step.kind === "continue" ? new TextDecoder().decode(step.data) : "").toMatch(/,i=10000$/);
  });

  it("admits many logins at once through a cap of one concurrent password check", async () => {
    const auth = await Authenticator.load(options({ passwordFile: "pw", maxConcurrentChecks: 1 }), disk({ pw: passwords }));
    const results = await Promise.all(["wonderland", "nope", "wonderland"].map((password) => auth.authenticate({ clientId: "c", username: "alice", password: pw(password) })));
    expect(results.map((r) => r.ok)).toEqual([true, false, true]);
  });

  it("challenges a user with an scrypt entry with a decoy, since SCRAM needs a SCRAM entry", async () => {
    const auth = await Authenticator.load(options({ passwordFile: "pw" }), disk({ pw: scramFile }));
    const started = await auth.startEnhanced("c", "SCRAM-SHA-256", new TextEncoder().encode("n,,n=alice,r=abc"));
    if (started === undefined) throw new Error("expected the SCRAM method");
    const { exchange } = started;
    const step = await exchange.next(new TextEncoder().encode(`c=biws,r=abc,p=${Buffer.alloc(32).toString("base64")}`));
    expect(step.kind).toBe("failure");
  });
});

describe("Authenticator authorization", () => {
  it("allows every topic without an ACL file", async () => {
    const auth = await Authenticator.load(options({}), disk({}));
    const subject = { clientId: "c" };
    expect([auth.canPublish(subject, "a/b"), auth.canSubscribe(subject, "#"), auth.canReceive(subject, "a")]).toEqual([true, true, true]);
  });

  it("never lets a client publish under $SYS", async () => {
    const auth = await Authenticator.load(options({}), disk({}));
    expect(auth.canPublish({ clientId: "c" }, "$SYS/broker/uptime")).toBe(false);
  });

  it("denies by default once an ACL file is configured", async () => {
    const auth = await Authenticator.load(options({ aclFile: "acl" }), disk({ acl: "topic read a/#\n" }));
    const subject = { clientId: "c" };
    expect([auth.canPublish(subject, "a/b"), auth.canSubscribe(subject, "b"), auth.canSubscribe(subject, "a/b")]).toEqual([false, false, true]);
  });
});

describe("Authenticator.reload", () => {
  it("picks up a changed password file", async () => {
    const files: Record<string, string> = { pw: passwords };
    const auth = await Authenticator.load(options({ passwordFile: "pw" }), disk(files));
    files["pw"] = `bob:${await hashPassword("builder", fast)}\n`;
    const summary = await auth.reload();
    expect([summary.users, (await auth.authenticate({ clientId: "c", username: "bob", password: pw("builder") })).ok]).toEqual([1, true]);
  });

  it("keeps the previous tables when the new file is malformed", async () => {
    const files: Record<string, string> = { pw: passwords, acl: "topic a\n" };
    const auth = await Authenticator.load(options({ passwordFile: "pw", aclFile: "acl" }), disk(files));
    files["acl"] = "topic b\n";
    files["pw"] = "garbage\n";
    await expect(auth.reload()).rejects.toThrow(AuthFileError);
    expect(auth.canPublish({ clientId: "c" }, "a")).toBe(true);
  });

  it("reports a file it cannot read, naming it", async () => {
    await expect(Authenticator.load(options({ aclFile: "missing.acl" }), disk({}))).rejects.toThrow("cannot read ACL file missing.acl: ENOENT: missing.acl");
  });

  it("counts the users and rules it loaded", async () => {
    const auth = await Authenticator.load(options({ passwordFile: "pw", aclFile: "acl" }), disk({ pw: passwords, acl: "topic a\nuser alice\ntopic b\npattern c/%c\n" }));
    expect(await auth.reload()).toEqual({ users: 1, aclRules: 3 });
  });
});
