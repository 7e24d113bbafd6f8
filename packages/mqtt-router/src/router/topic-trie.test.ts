import { describe, expect, it } from "vitest";
import { TopicTrie } from "./topic-trie.js";

function matches(filters: string[], topic: string): string[] {
  const trie = new TopicTrie<string>();
  for (const f of filters) trie.set(f, "c", f);
  const out: string[] = [];
  trie.match(topic, (value) => out.push(value));
  return out.sort();
}

describe("TopicTrie", () => {
  it("matches an exact filter", () => {
    expect(matches(["a/b", "a/c"], "a/b")).toEqual(["a/b"]);
  });

  it("matches + as exactly one level, including an empty one", () => {
    expect(matches(["a/+/c", "+/+"], "a/b/c")).toEqual(["a/+/c"]);
    expect(matches(["a/+/c"], "a//c")).toEqual(["a/+/c"]);
  });

  it("matches # as the rest of the topic and its parent level [MQTT-4.7.1-2]", () => {
    expect(matches(["a/#", "#", "a/b/#"], "a/b")).toEqual(["#", "a/#", "a/b/#"]);
    expect(matches(["sport/tennis/#"], "sport/tennis")).toEqual(["sport/tennis/#"]);
  });

  it("does not match $-topics with a leading wildcard [MQTT-4.7.2-1]", () => {
    expect(matches(["#", "+/monitor/Clients", "$SYS/#", "$SYS/monitor/+"], "$SYS/monitor/Clients")).toEqual([
      "$SYS/#",
      "$SYS/monitor/+",
    ]);
  });

  it("keeps one entry per id and filter, replacing on re-subscribe", () => {
    const trie = new TopicTrie<number>();
    expect(trie.set("a", "c1", 1)).toBe(false);
    expect(trie.set("a", "c1", 2)).toBe(true);
    trie.set("a", "c2", 3);
    const seen: [number, string][] = [];
    trie.match("a", (v, id) => seen.push([v, id]));
    expect(seen).toEqual([
      [2, "c1"],
      [3, "c2"],
    ]);
    expect(trie.size).toBe(2);
  });

  it("prunes empty branches on delete so memory follows live subscriptions", () => {
    const trie = new TopicTrie<number>();
    trie.set("a/b/c/d", "c1", 1);
    expect(trie.delete("a/b/c/d", "c1")).toBe(true);
    expect(trie.delete("a/b/c/d", "c1")).toBe(false);
    expect(trie.size).toBe(0);
    expect(trie.get("a/b/c/d", "c1")).toBeUndefined();
  });

  it("visits only the matching branch, not every subscription", () => {
    const trie = new TopicTrie<number>();
    for (let i = 0; i < 1000; i++) trie.set(`dev/${String(i)}/temp`, "c", i);
    let visited = 0;
    trie.match("dev/7/temp", () => visited++);
    expect(visited).toBe(1);
  });

  it("matches a 100,000-level topic against a 100,000-level + filter without overflowing the stack", () => {
    const deep = Array.from({ length: 100_000 }, () => "+").join("/");
    const topic = Array.from({ length: 100_000 }, () => "x").join("/");
    const found = matches([deep, "#", `${topic}/#`, `${topic}/y`], topic);
    expect(found.map((f) => f.length)).toEqual(["#", deep, `${topic}/#`].sort().map((f) => f.length));
  });

  it("visits exact branches before + branches, as a recursive walk would", () => {
    const trie = new TopicTrie<string>();
    for (const f of ["+/b", "a/b", "a/+", "#", "+/+"]) trie.set(f, "c", f);
    const out: string[] = [];
    trie.match("a/b", (value) => out.push(value));
    expect(out).toEqual(["#", "a/b", "a/+", "+/b", "+/+"]);
  });
});
