// Message rows shared by object identity, with reference counts.
import { describe, expect, it } from "vitest";
import { MessageRefs } from "./message-refs.js";
import { message } from "./store.test-helpers.js";

describe("MessageRefs", () => {
  it("gives the same object the same id and asks for one write", () => {
    const refs = new MessageRefs(1);
    const m = message("t", "x");
    expect([refs.acquire(m), refs.acquire(m)]).toEqual([
      { id: 1, isNew: true },
      { id: 1, isNew: false },
    ]);
  });

  it("gives equal but distinct objects distinct ids", () => {
    const refs = new MessageRefs(1);
    expect(refs.acquire(message("t", "x")).id).not.toBe(refs.acquire(message("t", "x")).id);
  });

  it("reports the last release only", () => {
    const refs = new MessageRefs(1);
    const m = message("t", "x");
    const { id } = refs.acquire(m);
    refs.acquire(m);
    expect([refs.release(id), refs.release(id)]).toEqual([false, true]);
  });

  it("writes a message again under a new id after its row was released", () => {
    const refs = new MessageRefs(1);
    const m = message("t", "x");
    const first = refs.acquire(m);
    refs.release(first.id);
    expect(refs.acquire(m)).toEqual({ id: 2, isNew: true });
  });

  it("continues ids above the highest adopted one", () => {
    const refs = new MessageRefs(1);
    refs.adopt(41, message("t", "old"));
    expect(refs.acquire(message("t", "new")).id).toBe(42);
  });
});
