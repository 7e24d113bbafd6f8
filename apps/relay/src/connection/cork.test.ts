import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import { corkPerTick } from "./cork.js";

describe("corkPerTick", () => {
  it("holds the writes of one tick and releases them on the next", async () => {
    const socket = new PassThrough();
    const cork = corkPerTick(socket);
    cork();
    socket.write("a");
    cork();
    socket.write("b");
    expect(socket.writableCorked).toBe(1);
    await new Promise<void>((resolve) => {
      process.nextTick(resolve);
    });
    expect(socket.writableCorked).toBe(0);
    expect(String(socket.read())).toBe("ab");
  });

  it("does nothing on a destroyed socket", () => {
    const socket = new PassThrough();
    socket.destroy();
    corkPerTick(socket)();
    expect(socket.writableCorked).toBe(0);
  });
});
