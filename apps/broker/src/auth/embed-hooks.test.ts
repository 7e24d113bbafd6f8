import pino from "pino";
import { describe, expect, it } from "vitest";
import type { AccessControl, EnhancedAuthStart } from "./access.js";
import { withHooks } from "./embed-hooks.js";

const silent = pino({ level: "silent" });
const alice = { clientId: "c", username: "alice" };
const started: EnhancedAuthStart = { exchange: { next: () => Promise.resolve({ kind: "failure", reasonCode: 0x87 }) }, step: { kind: "continue", data: Uint8Array.of(1) } };

/** A base with its decisions as class methods (as the Authenticator has them), which a spread would lose. */
class Base implements AccessControl {
  authenticate(): { ok: false; reasonCode: number; reason: string } {
    return { ok: false, reasonCode: 0x86, reason: "base" };
  }
  startEnhanced(): Promise<EnhancedAuthStart> {
    return Promise.resolve(started);
  }
  canPublish(_client: unknown, topic: string): boolean {
    return topic !== "acl-denied";
  }
  canSubscribe(): boolean {
    return true;
  }
  canReceive(_client: unknown, topic: string): boolean {
    return topic !== "unreadable";
  }
}

describe("withHooks", () => {
  it("keeps the base's enhanced authentication and read check, and its password check without an authenticate hook", async () => {
    const access = withHooks(new Base(), { authorizePublish: () => true }, silent);
    expect(await access.startEnhanced?.("c", "TEST", undefined)).toBe(started);
    expect([access.canReceive?.(alice, "a"), access.canReceive?.(alice, "unreadable")]).toEqual([true, false]);
    expect(await access.authenticate({ clientId: "c" })).toEqual({ ok: false, reasonCode: 0x86, reason: "base" });
  });

  it("asks the publish hook after the base, and both must allow", async () => {
    const asked: string[] = [];
    const access = withHooks(new Base(), { authorizePublish: (_client, topic) => (asked.push(topic), topic !== "hook-denied") }, silent);
    expect([access.canPublish(alice, "a"), access.canPublish(alice, "acl-denied"), access.canPublish(alice, "hook-denied")]).toEqual([true, false, false]);
    expect(asked).toEqual(["a", "hook-denied"]);
    expect(await access.authenticate({ clientId: "c" })).toMatchObject({ ok: false, reasonCode: 0x86 });
  });

  it("reads an authenticate hook's answer into the access verdict", async () => {
    const access = withHooks(new Base(), { authenticate: ({ username }) => (username === "svc" ? { ok: true, username: "service" } : false) }, silent);
    expect(await access.authenticate({ clientId: "c", username: "svc" })).toEqual({ ok: true, identity: { clientId: "c", username: "service" } });
    expect(await access.authenticate({ clientId: "c", username: "bob" })).toMatchObject({ ok: false, reasonCode: 0x86 });
  });
});
