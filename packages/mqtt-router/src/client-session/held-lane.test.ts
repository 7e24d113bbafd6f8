// What passes a flow control hold: the held publisher's role as a subscriber goes on, until
// something deliveries must not overtake is held.
import { describe, expect, it } from "vitest";
import type { Packet } from "../codec/packet.js";
import type { Action } from "../protocol/effects.js";
import { bytesOf } from "../protocol/test-client.test-helpers.js";
import { HELD_INPUT_BYTES, HeldLane } from "./held-lane.js";

const send = (packet: Packet): Action => ({ kind: "send", packet, bytes: bytesOf(packet, 5) });
const publish = send({ type: "publish", topic: "t", payload: new Uint8Array(1), qos: 1, dup: false, packetId: 1, retain: false, properties: {} });
const pubrel = send({ type: "pubrel", packetId: 2, reasonCode: 0, properties: {} });
const pingresp = send({ type: "pingresp" });
const puback = send({ type: "puback", packetId: 3, reasonCode: 0, properties: {} });
const suback = send({ type: "suback", packetId: 4, reasonCodes: [1], properties: {} });
const acked: Action = { kind: "effect", effect: { kind: "delivery-acked", packetId: 1, reasonCode: 0 } };
const close: Action = { kind: "close", reasonCode: 0 };

describe("HeldLane", () => {
  it("lets nothing pass while not held", () => {
    const lane = new HeldLane();
    expect(lane.passes(publish)).toBe(false);
    expect(lane.noteInput(HELD_INPUT_BYTES + 1)).toBe(false);
  });

  it("passes deliveries, PINGRESP and the client's acks of deliveries while held; the publisher's own acks wait", () => {
    const lane = new HeldLane();
    lane.start();
    expect([publish, pubrel, pingresp, acked].map((a) => lane.passes(a))).toEqual([true, true, true, true]);
    expect(lane.passes(puback)).toBe(false);
    // A PUBACK waiting is no reason to stop passing: deliveries may overtake acknowledgements.
    expect(lane.passes(publish)).toBe(true);
  });

  it("stops passing deliveries once a SUBACK or a close is held, until the next hold", () => {
    const lane = new HeldLane();
    lane.start();
    expect(lane.passes(suback)).toBe(false);
    expect(lane.passes(publish)).toBe(false);
    expect(lane.passes(acked)).toBe(true);
    lane.end();
    lane.start();
    expect(lane.passes(publish)).toBe(true);
    expect(lane.passes(close)).toBe(false);
    expect(lane.passes(pubrel)).toBe(false);
  });

  it("asks to stop reading once the held client sent more than HELD_INPUT_BYTES", () => {
    const lane = new HeldLane();
    lane.start();
    expect(lane.noteInput(HELD_INPUT_BYTES)).toBe(false);
    expect(lane.noteInput(1)).toBe(true);
    lane.end();
    lane.start();
    expect(lane.noteInput(1)).toBe(false);
  });
});
