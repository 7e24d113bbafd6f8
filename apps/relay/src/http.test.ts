import { pino } from "pino";
import { describe, expect, it } from "vitest";
import { listenHttp } from "./http.js";

const log = pino({ level: "silent" });

describe("listenHttp", () => {
  it("answers /health with ok", async () => {
    const listener = await listenHttp({ host: "127.0.0.1", port: 0 }, log);
    try {
      const res = await fetch(`http://127.0.0.1:${listener.address.port}/health`);
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ status: "ok" });
    } finally {
      await listener.close();
    }
  });

  it("answers an unknown path with 404", async () => {
    const listener = await listenHttp({ host: "127.0.0.1", port: 0 }, log);
    try {
      const res = await fetch(`http://127.0.0.1:${listener.address.port}/nope`);
      expect(res.status).toBe(404);
      await res.text();
    } finally {
      await listener.close();
    }
  });
});
