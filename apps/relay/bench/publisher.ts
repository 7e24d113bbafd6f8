/**
 * The bench's publisher, in its own process: the minimal lite-04 publisher (minimal-publisher.ts)
 * publishing the bench broadcast to the relay, or a `ws` client of the broadcast server sending
 * each frame as one message. Both send the same bytes at the same pace, each group's frames at once.
 * @module
 */
import WebSocket from "ws";
import { within } from "../src/e2e/harness.test-helpers.js";
import { minimalPublisher } from "./minimal-publisher.js";
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
  const pub = await minimalPublisher(port, `${TARGET.path}/${TARGET.broadcast}`);
  // Group sequences run on across rounds, as a live track's do.
  let sequence = 0;
  return async (round, groups) => {
    // The relay subscribes when the first subscriber does, i.e. before `go`.
    const id = await within(pub.subscribed, 5000, "the relay's SUBSCRIBE");
    await drive(pace, groups, () => {
      const g = sequence++;
      pub.group(id, g, Array.from({ length: pace.framesPerGroup }, (_, f) => stampedFrame(pace.frameBytes, g, f, round)));
    });
  };
}
