import * as Moq from "@moq/lite";
import { connect, within } from "./harness.test-helpers.js";

let next = 0;

/**
 * A bystander's round trip through the relay on `port`: a @moq/lite publisher announces a fresh
 * broadcast, a second client discovers it, subscribes, and reads back the one frame written.
 * Resolves true when the frame came back intact; rejects (bounded in time) when the relay does not
 * serve it.
 */
export async function bystanderRoundTrip(port: number, path = "anon"): Promise<boolean> {
  const name = `bystander-${String(next++)}`;
  const pub = await connect(port, path);
  const sub = await connect(port, path);
  try {
    const broadcast = new Moq.Broadcast();
    pub.publish(Moq.Path.from(name), broadcast);
    const announced = sub.announced(Moq.Path.from(name));
    for (;;) {
      const entry = await within(announced.next(), 3000, "bystander announce");
      if (entry === undefined) return false;
      if (entry.active) break;
    }
    const track = sub.consume(Moq.Path.from(name)).subscribe("t", 0);
    const req = await within(broadcast.requested(), 3000, "bystander track requested");
    if (!req) return false;
    const group = req.track.appendGroup();
    const sent = new TextEncoder().encode(name);
    group.writeFrame(sent);
    group.close();
    const got = await within(track.nextGroupOrdered(), 3000, "bystander group");
    const frame = await within(got?.readFrame() ?? Promise.resolve(undefined), 3000, "bystander frame");
    return frame !== undefined && Buffer.from(frame).equals(sent);
  } finally {
    pub.close();
    sub.close();
  }
}

