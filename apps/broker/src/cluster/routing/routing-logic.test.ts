// The cursor logic of cross-node routing, without Redis: stream ids in the server's order, resent
// appends dropped by origin tag, shared-group decisions and membership changes in the entries, the
// own appends a moving session is owed, and its replay.
import { shareKey, type Message, type SessionSnapshot } from "@handoff/mqtt-router";
import { describe, expect, it } from "vitest";
import { ClusterKeys } from "../keys.js";
import { RouteAppends } from "./route-appends.js";
import { OriginsSeen, parseEntry, parseShareFields, shareField } from "./route-entry.js";
import { replayInto, sessionShareKeys } from "./replay.js";
import { compareIds, earliestId, laterId } from "./stream-id.js";

const message = (topic: string, payload: string, extra: Partial<Message> = {}): Message => ({ topic, payload: new TextEncoder().encode(payload), qos: 1, retain: false, properties: {}, ...extra });
const text = (m: Message): string => new TextDecoder().decode(m.payload);
const NO_SHARES = new Map<string, string>();
const parse = (fields: readonly (string | Buffer)[]) => parseEntry(Buffer.from("5-0"), fields.map((f) => (typeof f === "string" ? Buffer.from(f) : f)));

describe("stream ids", () => {
  it("compare as numbers per part, not as strings or floats", () => {
    expect(compareIds("9-0", "10-0")).toBeLessThan(0);
    expect(compareIds("10-2", "10-10")).toBeLessThan(0);
    expect(compareIds("1700000000000-5", "1700000000000-5")).toBe(0);
    expect(compareIds("18446744073709551615-1", "18446744073709551615-0")).toBeGreaterThan(0);
    expect(laterId("0-0", "5-1")).toBe("5-1");
  });

  it("trim at the slowest cursor", () => {
    expect(earliestId(["12-0", "9-3", "10-0"])).toBe("9-3");
    expect(earliestId([])).toBeUndefined();
  });
});

describe("origin tags", () => {
  it("drop an entry appended again by a resent batch, and keep a new incarnation's", () => {
    const seen = new OriginsSeen();
    const tag = (incarnation: number, counter: number, node = "n1") => ({ node, incarnation, counter });
    expect([tag(1, 1), tag(1, 2), tag(1, 2), tag(1, 1), tag(1, 1, "n2"), tag(2, 1), tag(1, 3)].map((t) => seen.fresh(t))).toEqual([true, true, false, false, true, true, false]);
  });

  it("round-trip through the entry fields", () => {
    const appends = new RouteAppends("node one", 7);
    const [, , , ...fields] = appends.command("routes", message("a/b", "x", { origin: "c1", retain: true }), NO_SHARES);
    const entry = parse(fields);
    if (entry?.kind !== "message") throw new Error("not a message entry");
    expect(entry.origin).toEqual({ node: "node one", incarnation: 7, counter: 1 });
    expect(entry.message.origin).toBe("c1");
    expect(entry.message.retain).toBe(true);
    expect(text(entry.message)).toBe("x");
    expect(entry.shares).toEqual(NO_SHARES);
  });
});

describe("shared groups in the stream", () => {
  it("a message carries the node chosen for each group's copy, whatever the names hold", () => {
    const shares = new Map([
      [shareKey("g", "a/#"), "n2"],
      [shareKey('odd "name" \n', "a/+"), "node \u00e9"],
    ]);
    const [, , , ...fields] = new RouteAppends("n1", 1).command("routes", message("a/b", "x"), shares);
    const entry = parse(fields);
    expect(entry?.kind === "message" ? entry.shares : undefined).toEqual(shares);
  });

  it("a membership change round-trips, counted in the node's order of appends, and the hash's fields parse back", () => {
    const appends = new RouteAppends("n1", 2);
    appends.command("routes", message("t", "m"), NO_SHARES);
    const change = { node: "n3", group: "g", filter: "a/+", present: false };
    const [hash, xadd] = appends.shareCommands(new ClusterKeys("k:"), change);
    expect(hash).toEqual(["HDEL", "k:shares", shareField("n3", "g", "a/+")]);
    const [, , , ...fields] = xadd ?? [];
    const entry = parse(fields);
    expect(entry).toMatchObject({ kind: "share", origin: { node: "n1", incarnation: 2, counter: 2 }, change });
    expect(appends.unread().map((u) => text(u.message))).toEqual(["m"]);
    expect(parseShareFields([shareField("n3", "g", "a/+"), "not json", '["too","few"]'])).toEqual([{ node: "n3", group: "g", filter: "a/+", present: true }]);
  });

  it("a malformed decision field decides nothing", () => {
    const [, , , ...fields] = new RouteAppends("n1", 1).command("routes", message("a/b", "x"), NO_SHARES);
    const entry = parse([...fields, "s", "{broken"]);
    expect(entry?.kind === "message" ? entry.shares.size : undefined).toBe(0);
  });
});

describe("own appends", () => {
  it("stay unread until the reader passes them, in order", () => {
    const appends = new RouteAppends("n1", 3);
    for (const p of ["a", "b", "c"]) appends.command("routes", message("t", p), NO_SHARES);
    appends.passed(3, 1);
    expect(appends.unread().map((u) => text(u.message))).toEqual(["b", "c"]);
    appends.passed(2, 3); // an entry of an earlier start of this node says nothing of these
    expect(appends.unread().map((u) => text(u.message))).toEqual(["b", "c"]);
    appends.passed(3, 3);
    expect(appends.unread()).toEqual([]);
  });

  it("keep the unpassed ones exactly while the reader passes thousands, one at a time", () => {
    const appends = new RouteAppends("n1", 1);
    for (let i = 1; i <= 5000; i++) appends.command("routes", message("t", String(i)), NO_SHARES);
    for (let counter = 1; counter <= 3000; counter++) appends.passed(1, counter);
    const left = appends.unread().map((u) => text(u.message));
    expect(left).toHaveLength(2000);
    expect(left[0]).toBe("3001");
    appends.command("routes", message("t", "5001"), NO_SHARES);
    appends.passed(1, 4999);
    expect(appends.unread().map((u) => text(u.message))).toEqual(["5000", "5001"]);
    appends.passed(1, 5001);
    expect(appends.unread()).toEqual([]);
  });
});

describe("own appends' fates", () => {
  it("carry their stream id once their batch committed, and leave the unread when they will never be appended", () => {
    const appends = new RouteAppends("n1", 4);
    const [a, b, c] = ["a", "b", "c"].map((p) => appends.command("routes", message("t", p), NO_SHARES));
    if (a === undefined || b === undefined || c === undefined) throw new Error("no commands");
    appends.committed(a, "7-0");
    appends.dropped(b); // its publisher was fenced out: never acknowledged, nobody's to replay
    expect(appends.unread().map((u) => [text(u.message), u.id])).toEqual([
      ["a", "7-0"],
      ["c", undefined],
    ]);
  });

  it("of an earlier start, after the node's cursor, stay unread until the reader passes an entry of this start", () => {
    const earlier = [{ tag: { node: "n1", incarnation: 2, counter: 9 }, message: message("t", "old"), shares: NO_SHARES, id: "5-0" }];
    const appends = new RouteAppends("n1", 3, earlier);
    appends.command("routes", message("t", "new"), NO_SHARES);
    expect(appends.unread().map((u) => text(u.message))).toEqual(["old", "new"]);
    appends.passed(2, 9);
    expect(appends.unread().map((u) => text(u.message))).toEqual(["new"]);
    appends.passed(3, 1);
    expect(appends.unread()).toEqual([]);
  });
});

describe("a moving session's replay", () => {
  const session: SessionSnapshot = {
    record: { clientId: "s", expiryInterval: 60, generation: 1, disconnectedAt: 5 },
    subscriptions: [
      { filter: "a/#", qos: 1, noLocal: true, retainAsPublished: true, retainHandling: 0, subscriptionId: 4 },
      { filter: "a/+", qos: 2, noLocal: false, retainAsPublished: false, retainHandling: 0 },
      { filter: "$share/g/a/#", qos: 2, noLocal: false, retainAsPublished: false, retainHandling: 0, share: { group: "g", filter: "a/#" } },
    ],
    deliveries: [{ seq: 7, delivery: { message: message("a/x", "stored"), qos: 1, retain: false, subscriptionIds: [] } }],
    inboundQos2: [],
  };

  it("appends after the stored queue the copies the router would queue: merged QoS and ids, no-local per filter, no QoS 0, no expired, no shared", () => {
    const { snapshot, added } = replayInto(
      session,
      [
        message("a/x", "q2", { qos: 2, retain: true }),
        message("a/x/y", "own deep", { origin: "s" }),
        message("a/x", "own shallow", { origin: "s" }),
        message("a/x", "q0", { qos: 0 }),
        message("a/x", "expired", { expiresAt: 10 }),
        message("b", "unmatched"),
      ].map((m) => ({ message: m })),
      100,
    );
    expect(added.map((d) => [d.seq, text(d.delivery.message), d.delivery.qos, d.delivery.retain, d.delivery.subscriptionIds])).toEqual([
      [8, "q2", 2, true, [4]],
      [9, "own shallow", 1, false, []],
    ]);
    expect(snapshot.deliveries.map((d) => d.seq)).toEqual([7, 8, 9]);
  });

  it("replays a 3.1.1 subscription to a literal $share/ filter, which is a plain subscription there", () => {
    const literal: SessionSnapshot = { ...session, subscriptions: [{ filter: "$share/x/t", qos: 1, noLocal: false, retainAsPublished: false, retainHandling: 0 }], deliveries: [] };
    expect(replayInto(literal, [{ message: message("$share/x/t", "m") }], 100).added.map((d) => text(d.delivery.message))).toEqual(["m"]);
  });

  it("adds a shared group's copy only where the caller names the group (a dead node's copies), after the plain copy", () => {
    expect([...sessionShareKeys(session)]).toEqual([shareKey("g", "a/#")]);
    const { added } = replayInto(
      session,
      [
        { message: message("a/x", "named", { qos: 2 }), shareKeys: new Set([shareKey("g", "a/#")]) },
        { message: message("a/x", "not named", { qos: 2 }) },
        { message: message("a/x", "other group", { qos: 1 }), shareKeys: new Set([shareKey("h", "a/#")]) },
      ],
      100,
    );
    expect(added.map((d) => [text(d.delivery.message), d.delivery.qos])).toEqual([
      ["named", 2],
      ["named", 2],
      ["not named", 2],
      ["other group", 1],
    ]);
  });
});
