/**
 * The bench's publisher, in its own process: `@moq/lite` (lite-04) publishing the bench broadcast
 * to the relay, or a `ws` client of the broadcast server sending each frame as one message. Both
 * send the same bytes at the same pace.
 * @module
 */
import * as Moq from "@moq/lite";
import WebSocket from "ws";
import { connect, within } from "../src/e2e/harness.test-helpers.js";
import { stampedFrame } from "./stats.js";
import { TARGET } from "./subscribers.js";

/** The publishing pace. */
export interface Pace {
  readonly groupsPerS: number;
  readonly framesPerGroup: number;
  readonly frameBytes: number;
}

/** Calls `send(g)` for g = 0..groups-1 at `groupsPerS`. */
async function drive(pace: Pace, groups: number, send: (g: number) => void): Promise<void> {
  const start = performance.now();
  for (let g = 0; g < groups; g++) {
    const wait = start + (g * 1000) / pace.groupsPerS - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    send(g);
  }
}

/** Connects a publisher to `server` on `port`; the returned function publishes `groups` groups at `pace`, stamped with `round`, and resolves when all is sent. */
export async function publisher(server: "relay" | "ws", port: number, pace: Pace): Promise<(round: number, groups: number) => Promise<void>> {
  if (server === "ws") {
    const ws = new WebSocket(`ws://127.0.0.1:${String(port)}/pub`);
    await new Promise((resolve, reject) => ws.once("open", resolve).once("error", reject));
    return (round, groups) =>
      drive(pace, groups, (g) => {
        for (let f = 0; f < pace.framesPerGroup; f++) ws.send(stampedFrame(pace.frameBytes, g, f, round));
      });
  }
  const conn = await connect(port, "", "lite-04");
  const broadcast = new Moq.Broadcast();
  conn.publish(Moq.Path.from(TARGET.path, TARGET.broadcast), broadcast);
  // The relay asks for the track when the first subscriber subscribes, i.e. before `go`.
  const requested = broadcast.requested();
  return async (round, groups) => {
    const req = await within(requested, 5000, "the relay's request for the track");
    if (!req) throw new Error("broadcast closed before the relay asked for the track");
    await drive(pace, groups, () => {
      const group = req.track.appendGroup();
      for (let f = 0; f < pace.framesPerGroup; f++) group.writeFrame(stampedFrame(pace.frameBytes, group.sequence, f, round));
      group.close();
    });
  };
}
