import { describe, expect, it } from "vitest";
import { fieldFlag, FlagList } from "./flag-list.js";

interface Item {
  readonly name: string;
  listed: boolean;
}

const LISTED = fieldFlag("listed");

const item = (name: string): Item => ({ name, listed: false });

/** An empty list and three items "a", "b", "c" in none. */
function fresh(): { list: FlagList<Item>; a: Item; b: Item; c: Item } {
  return { list: new FlagList<Item>(LISTED), a: item("a"), b: item("b"), c: item("c") };
}

function takeAll(list: FlagList<Item>): string[] {
  const out: string[] = [];
  for (let item = list.take(); item !== undefined; item = list.take()) out.push(item.name);
  return out;
}

describe("FlagList", () => {
  it("takes each item once, in the order added, and keeps the flag as its membership", () => {
    const { list, a, b, c } = fresh();
    list.add(a);
    list.add(b);
    list.add(a);
    list.add(c);
    expect(a.listed && b.listed && c.listed).toBe(true);
    expect(takeAll(list)).toEqual(["a", "b", "c"]);
    expect(a.listed || b.listed || c.listed).toBe(false);
  });

  it("skips a deleted item, and takes one deleted and added again once", () => {
    const { list, a, b, c } = fresh();
    list.add(a);
    list.add(b);
    list.add(c);
    list.delete(b);
    list.delete(a);
    list.add(a);
    expect(b.listed).toBe(false);
    expect(takeAll(list)).toEqual(["a", "c"]);
  });

  it("takes an item added while taking, and starts again empty once emptied", () => {
    const { list, a, b, c } = fresh();
    list.add(a);
    expect(list.take()).toBe(a);
    list.add(b);
    list.add(a);
    expect(takeAll(list)).toEqual(["b", "a"]);
    list.add(c);
    expect(takeAll(list)).toEqual(["c"]);
  });

  it("clear() empties the list and lowers every flag", () => {
    const { list, a, b } = fresh();
    const all = [a, b];
    for (const one of all) list.add(one);
    list.clear();
    expect(all.map((item) => item.listed)).toEqual([false, false]);
    expect(list.take()).toBeUndefined();
  });
});
