import { LITE_05, LiteStreamReader } from "@handoff/moq-resume/lite";
import { describe, expect, it } from "vitest";
import type { StreamId } from "@handoff/qmux";
import { serveFetch } from "../serve/fetch.js";
import { Harness, subscribeMsg } from "../testing/harness.test-helpers.js";
import { RelayCode } from "../rules/relay-code.js";
import type { RoleChanges } from "../context/role-table.js";
import type { StreamRole } from "./stream-role.js";
import { serveTrack } from "../serve/track-info.js";

/** Role changes that only record what a module reported: the table is the dispatcher's. */
function recorder(): { changes: RoleChanges<StreamRole>; calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    changes: {
      file: (id, role) => calls.push(`file ${String(id)} ${role.kind}`),
      drop: (id) => calls.push(`drop ${String(id)}`),
      holds: () => true,
    },
  };
}

const reader = (): LiteStreamReader => new LiteStreamReader({ role: "accepted-bidi", version: LITE_05 });

describe("modules return the roles of the streams they serve; the dispatcher files them", () => {
  it("Serving returns a served SUBSCRIBE's role, and a refused one's, without writing the table", () => {
    const h = new Harness();
    h.publisher("live");
    const served = h.serving.serve(0, reader(), subscribeMsg(1, "live"));
    expect(typeof served === "object" ? served.kind : served).toBe("subscribe-serve");
    const refused = h.serving.serve(4, reader(), subscribeMsg(2, "nowhere"));
    expect(typeof refused === "object" ? refused.kind : refused).toBe("ignore");
    expect(h.io.stream(4).resets).toEqual([RelayCode.NotFound]);
    expect(h.handlers.size).toBe(0);
  });

  it("serveTrack returns the refusal's role for a broadcast nobody routes, reporting nothing", () => {
    const h = new Harness({ version: LITE_05 });
    const { changes, calls } = recorder();
    const role = serveTrack(h.ctx, changes, 0, reader(), { type: "track", broadcast: "nowhere", track: "video" });
    expect(typeof role === "object" ? role.kind : role).toBe("ignore");
    expect(calls).toEqual([]);
  });

  it("serveFetch returns the refusal's role past the fetch budget, reporting nothing", () => {
    const h = new Harness({ version: LITE_05, limits: { maxSubscriptions: 1 } });
    const { changes, calls } = recorder();
    const id: StreamId = 0;
    const role = serveFetch(h.ctx, changes, h.origin, () => undefined, 1, id, reader(), { type: "fetch", broadcast: "live", track: "video", priority: 0, group: 0 });
    expect(typeof role === "object" ? role.kind : role).toBe("ignore");
    expect(h.io.stream(id).resets).toEqual([RelayCode.TooMany]);
    expect(calls).toEqual([]);
  });
});
