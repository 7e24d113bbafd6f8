import { connect } from "node:net";
import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { listen } from "./listener.js";

const log = pino({ level: "silent" });

describe("listen", () => {
  it("binds a free port on loopback when asked for port 0", async () => {
    const listener = await listen({ host: "127.0.0.1", port: 0 }, log);
    try {
      expect(listener.address.port).toBeGreaterThan(0);
      expect(listener.address.address).toBe("127.0.0.1");
    } finally {
      await listener.close();
    }
  });

  it("closes a client's connection instead of leaving it hanging", async () => {
    const listener = await listen({ host: "127.0.0.1", port: 0 }, log);
    try {
      const socket = connect(listener.address.port, "127.0.0.1");
      socket.on("data", () => undefined);
      await new Promise<void>((resolve, reject) => {
        socket.once("error", reject);
        socket.once("close", () => {
          resolve();
        });
      });
      expect(socket.destroyed).toBe(true);
    } finally {
      await listener.close();
    }
  });
});
