import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { matches } from "./topic-filter.js";
import type { ClientIdentity } from "./access.js";
import { aclAllowsPublish, aclAllowsReceive, aclAllowsSubscribe, parseAcl } from "./acl.js";

const alice: ClientIdentity = { clientId: "dev1", username: "alice" };
const bob: ClientIdentity = { clientId: "dev2", username: "bob" };
const anonymous: ClientIdentity = { clientId: "anon" };

const file = `
# anonymous section
topic read public/#

user alice
topic readwrite sensors/#
deny topic write sensors/secret
topic read $SYS/#

user bob
topic read sensors/+/temperature
topic write cmd/bob

pattern readwrite devices/%c/#
pattern read users/%u/inbox
deny pattern write devices/%c/firmware
`;
const rules = parseAcl(file, "acl");

describe("parseAcl", () => {
  it("puts topic rules in their user's section and patterns aside", () => {
    expect([rules.anonymous.length, rules.users.get("alice")?.length, rules.users.get("bob")?.length, rules.patterns.length]).toEqual([1, 3, 2, 3]);
  });

  it("defaults the access to readwrite", () => {
    expect(parseAcl("topic a/b\n", "acl").anonymous[0]?.access).toBe("readwrite");
  });

  it("reads mosquitto's topic deny as a deny readwrite rule", () => {
    expect(parseAcl("topic deny a/b\n", "acl").anonymous[0]).toMatchObject({ effect: "deny", access: "readwrite", filter: "a/b" });
  });

  it("keeps spaces inside a topic filter", () => {
    expect(parseAcl("topic read my room/lamp\n", "acl").anonymous[0]?.filter).toBe("my room/lamp");
  });

  it("reads a lone word after topic as the filter, not the access", () => {
    expect(parseAcl("topic read\n", "acl").anonymous[0]).toMatchObject({ access: "readwrite", filter: "read" });
  });

  it("returns to the anonymous section after an anonymous line", () => {
    expect(parseAcl("user a\ntopic x\nanonymous\ntopic y\n", "acl").anonymous[0]?.filter).toBe("y");
  });

  it("reports an unknown keyword with its line number", () => {
    expect(() => parseAcl("\ntopic a\ntopik b\n", "acl")).toThrow('ACL file acl line 3: expected "user", "anonymous", "topic", "pattern", "allow" or "deny", got "topik"');
  });

  it("reports an invalid filter", () => {
    expect(() => parseAcl("topic read a/#/b\n", "acl")).toThrow('ACL file acl line 1: "a/#/b" is not a valid topic filter');
  });

  it("reports a rule without a filter", () => {
    expect(() => parseAcl("deny pattern\n", "acl")).toThrow('ACL file acl line 1: "pattern" needs a topic filter');
  });

  it("reports a user line without a name", () => {
    expect(() => parseAcl("user\n", "acl")).toThrow('ACL file acl line 1: "user" needs a user name');
  });
});

describe("aclAllowsPublish", () => {
  it("allows a topic an allow rule matches", () => {
    expect(aclAllowsPublish(rules, alice, "sensors/kitchen/temperature")).toBe(true);
  });

  it("lets deny beat allow", () => {
    expect(aclAllowsPublish(rules, alice, "sensors/secret")).toBe(false);
  });

  it("denies by default what no rule mentions", () => {
    expect(aclAllowsPublish(rules, alice, "elsewhere")).toBe(false);
  });

  it("needs write access, not read", () => {
    expect(aclAllowsPublish(rules, bob, "sensors/kitchen/temperature")).toBe(false);
  });

  it("substitutes the client id in patterns", () => {
    expect([aclAllowsPublish(rules, alice, "devices/dev1/state"), aclAllowsPublish(rules, alice, "devices/dev2/state")]).toEqual([true, false]);
  });

  it("applies deny patterns to every client", () => {
    expect(aclAllowsPublish(rules, bob, "devices/dev2/firmware")).toBe(false);
  });

  it("does not widen a pattern when the client id holds a wildcard", () => {
    expect(aclAllowsPublish(rules, { clientId: "+", username: "alice" }, "devices/dev1/state")).toBe(false);
  });

  it("does not give an anonymous client a user's topic rules", () => {
    expect(aclAllowsPublish(rules, anonymous, "sensors/x")).toBe(false);
  });

  it("gives a user without a section only the patterns", () => {
    const carol = { clientId: "c", username: "carol" };
    expect([aclAllowsPublish(rules, carol, "devices/c/x"), aclAllowsPublish(rules, carol, "cmd/bob")]).toEqual([true, false]);
  });
});

describe("aclAllowsSubscribe", () => {
  it("allows a filter an allow rule covers", () => {
    expect(aclAllowsSubscribe(rules, bob, "sensors/kitchen/temperature")).toBe(true);
  });

  it("grants a wider filter than the rule allows: what it may not read is held back at delivery", () => {
    expect([aclAllowsSubscribe(rules, bob, "sensors/+/#"), aclAllowsSubscribe(rules, bob, "sensors/#")]).toEqual([true, true]);
  });

  it("grants # to a client allowed only a/#, and refuses a filter no allow rule meets", () => {
    const acl = parseAcl("topic read a/#\n", "acl");
    expect([aclAllowsSubscribe(acl, anonymous, "#"), aclAllowsSubscribe(acl, anonymous, "b/#")]).toEqual([true, false]);
  });

  it("allows a/+ and a to a client allowed a/#", () => {
    const acl = parseAcl("topic read a/#\n", "acl");
    expect([aclAllowsSubscribe(acl, anonymous, "a/+"), aclAllowsSubscribe(acl, anonymous, "a")]).toEqual([true, true]);
  });

  it("grants a filter that merely overlaps a deny rule, and refuses one wholly inside it", () => {
    const acl = parseAcl("topic readwrite #\ndeny topic read test/nosubscribe\ndeny topic read private/#\n", "acl");
    const filters = ["#", "+/+", "+/x", "test/#", "test/nosubscribe", "private/#", "private/a/+", "$share/g/test/nosubscribe"];
    expect(filters.map((f) => aclAllowsSubscribe(acl, anonymous, f))).toEqual([true, true, true, true, false, false, false, false]);
  });

  it("refuses a filter when every part an allow rule grants lies inside a deny (nested rules)", () => {
    const acl = parseAcl("topic read a/#\ntopic read b/x\ndeny topic read a/#\nuser u\ntopic read a/b/#\ndeny topic read a/b/c/#\n", "acl");
    expect([aclAllowsSubscribe(acl, anonymous, "+/x"), aclAllowsSubscribe(acl, anonymous, "a/+")]).toEqual([true, false]);
    const u = { clientId: "u1", username: "u" };
    expect([aclAllowsSubscribe(acl, u, "a/b/c/d"), aclAllowsSubscribe(acl, u, "a/b/+/d"), aclAllowsSubscribe(acl, u, "a/#")]).toEqual([false, true, true]);
  });

  it("does not let read # reach $SYS", () => {
    const acl = parseAcl("topic read #\n", "acl");
    expect([aclAllowsSubscribe(acl, anonymous, "$SYS/#"), aclAllowsSubscribe(acl, anonymous, "$SYS/broker/uptime")]).toEqual([false, false]);
    expect(aclAllowsReceive(acl, anonymous, "$SYS/broker/uptime")).toBe(false);
  });

  it("allows $SYS to a client with an explicit $SYS rule", () => {
    expect(aclAllowsSubscribe(rules, alice, "$SYS/broker/+")).toBe(true);
  });

  it("lets # through when a deny rule only concerns $SYS", () => {
    const acl = parseAcl("topic read #\ndeny topic read $SYS/#\n", "acl");
    expect(aclAllowsSubscribe(acl, anonymous, "#")).toBe(true);
  });

  it("checks a shared subscription on the filter inside it", () => {
    expect([aclAllowsSubscribe(rules, bob, "$share/g/sensors/a/temperature"), aclAllowsSubscribe(rules, bob, "$share/g/cmd/#")]).toEqual([true, false]);
  });

  it("grants a client-id pattern's overlap and keeps other clients' topics for delivery checks", () => {
    const acl = parseAcl("pattern read devices/%c/#\n", "acl");
    expect([aclAllowsSubscribe(acl, alice, "devices/+/state"), aclAllowsSubscribe(acl, alice, "devices/dev2/state")]).toEqual([true, false]);
    expect([aclAllowsReceive(acl, alice, "devices/dev1/state"), aclAllowsReceive(acl, alice, "devices/dev2/state")]).toEqual([true, false]);
  });

  it("never substitutes a client id starting with $, so %c/# cannot grant $SYS/#", () => {
    const acl = parseAcl("pattern readwrite %c/#\n", "acl");
    const sys = { clientId: "$SYS" };
    expect([aclAllowsSubscribe(acl, sys, "$SYS/#"), aclAllowsReceive(acl, sys, "$SYS/broker/uptime"), aclAllowsPublish(acl, sys, "$SYS/x")]).toEqual([false, false, false]);
    expect(aclAllowsSubscribe(acl, { clientId: "dev1" }, "dev1/#")).toBe(true);
  });

  it("substitutes the user name in patterns", () => {
    expect([aclAllowsSubscribe(rules, bob, "users/bob/inbox"), aclAllowsSubscribe(rules, bob, "users/alice/inbox")]).toEqual([true, false]);
  });

  it("skips %u patterns for anonymous clients", () => {
    expect(aclAllowsSubscribe(rules, anonymous, "users//inbox")).toBe(false);
  });

  it("needs read access, not write", () => {
    expect(aclAllowsSubscribe(rules, bob, "cmd/bob")).toBe(false);
  });
});

describe("aclAllowsReceive", () => {
  it("checks read access on one concrete topic", () => {
    expect([aclAllowsReceive(rules, anonymous, "public/news"), aclAllowsReceive(rules, anonymous, "private/news")]).toEqual([true, false]);
  });
});

describe("subscribe decisions against per-topic decisions", () => {
  const level = fc.constantFrom("a", "b", "$SYS", "+", "#");
  const filter = fc
    .array(level, { minLength: 1, maxLength: 3 })
    .map((levels) => levels.filter((l, i) => l !== "#" || i === levels.length - 1).join("/"))
    .filter((f) => f !== "");
  const rule = fc.record({ deny: fc.boolean(), filter });
  const topics = ["a", "b", "$SYS", "z"].flatMap((x) => [x, ...["a", "b", "$SYS", "z"].flatMap((y) => [`${x}/${y}`, `${x}/${y}/a`, `${x}/${y}/z/z`])]);

  it("never refuses a subscription that matches a topic the client may read", () => {
    fc.assert(
      fc.property(fc.array(rule, { maxLength: 4 }), filter, (rules, subscription) => {
        const acl = parseAcl(rules.map((r) => `${r.deny ? "deny " : ""}topic read ${r.filter}`).join("\n"), "acl");
        if (aclAllowsSubscribe(acl, anonymous, subscription)) return;
        const readable = topics.filter((topic) => matches(subscription, topic) && aclAllowsReceive(acl, anonymous, topic));
        expect(readable).toEqual([]);
      }),
      { numRuns: 500 },
    );
  });
});
