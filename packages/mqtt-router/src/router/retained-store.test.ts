import { describe, expect, it } from "vitest";
import { RetainedStore } from "./retained-store.js";
import { message } from "./router.test-helpers.js";

const topics = (store: RetainedStore, filter: string, now = 0): string[] => store.match(filter, now).map((m) => m.topic).sort();

describe("RetainedStore", () => {
  it("keeps one message per topic, the latest", () => {
    const store = new RetainedStore();
    store.set(message("a/b", "1"));
    store.set(message("a/b", "2"));
    expect(store.size).toBe(1);
    expect(new TextDecoder().decode(store.get("a/b")?.payload)).toBe("2");
  });

  it("deletes a topic's retained message on an empty payload [MQTT-3.3.1-6]", () => {
    const store = new RetainedStore();
    store.set(message("a/b", "1"));
    expect(store.set(message("a/b", ""))).toBeUndefined();
    expect(store.size).toBe(0);
    expect(store.get("a/b")).toBeUndefined();
  });

  it("finds the topics a filter matches with + and #", () => {
    const store = new RetainedStore();
    for (const t of ["a", "a/b", "a/b/c", "a/x/c", "b/b"]) store.set(message(t, "x"));
    expect(topics(store, "a/+/c")).toEqual(["a/b/c", "a/x/c"]);
    expect(topics(store, "a/#")).toEqual(["a", "a/b", "a/b/c", "a/x/c"]);
    expect(topics(store, "#")).toEqual(["a", "a/b", "a/b/c", "a/x/c", "b/b"]);
    expect(topics(store, "+")).toEqual(["a"]);
  });

  it("does not give $-topics to a leading wildcard [MQTT-4.7.2-1]", () => {
    const store = new RetainedStore();
    store.set(message("$SYS/uptime", "1"));
    store.set(message("x", "1"));
    expect(topics(store, "#")).toEqual(["x"]);
    expect(topics(store, "+/uptime")).toEqual([]);
    expect(topics(store, "$SYS/#")).toEqual(["$SYS/uptime"]);
  });

  it("drops expired retained messages instead of sending them", () => {
    const store = new RetainedStore();
    store.set(message("a", "old", 1, { expiresAt: 100 }));
    const expired: string[] = [];
    expect(store.match("a", 100, (t) => expired.push(t))).toEqual([]);
    expect(expired).toEqual(["a"]);
    expect(store.size).toBe(0);
  });

  it("finds a retained message 100,000 levels deep with #, + and an exact filter without overflowing the stack", () => {
    const store = new RetainedStore();
    const topic = Array.from({ length: 100_000 }, () => "x").join("/");
    store.set(message(topic, "deep"));
    store.set(message("a", "shallow"));
    const lengths = (filter: string): number[] => store.match(filter, 0).map((m) => m.topic.length);
    expect(lengths("#")).toEqual([topic.length, 1]);
    expect(lengths(Array.from({ length: 100_000 }, () => "+").join("/"))).toEqual([topic.length]);
    expect(lengths(`${topic.slice(0, 999)}/#`)).toEqual([topic.length]);
    expect(store.delete(topic)).toBe(true);
    expect(store.size).toBe(1);
  });

  it("returns matches in the order the topics were first retained", () => {
    const store = new RetainedStore();
    for (const t of ["b", "a/2", "a/1", "a", "c/x"]) store.set(message(t, "x"));
    expect(store.match("#", 0).map((m) => m.topic)).toEqual(["b", "a", "a/2", "a/1", "c/x"]);
    expect(store.match("+/+", 0).map((m) => m.topic)).toEqual(["a/2", "a/1", "c/x"]);
  });
});
