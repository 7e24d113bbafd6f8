import { describe, expect, it } from "vitest";
import { MqttEncodeError } from "./errors.js";
import { MAX_PACKET_SIZE, finishPacket, startPacket } from "./frame.js";
import { MAX_VARINT } from "./varint.js";

describe("packet framing", () => {
  it("writes the fixed header and leaves the writer after it", () => {
    const w = startPacket(0x30, 200, MAX_PACKET_SIZE);
    expect([w.buf[0], w.buf[1], w.buf[2], w.pos, w.buf.length]).toEqual([0x30, 0xc8, 0x01, 3, 203]);
  });

  it("refuses a body the Remaining Length cannot express", () => {
    expect(() => startPacket(0x30, MAX_VARINT + 1, Infinity)).toThrow(MqttEncodeError);
  });

  it("refuses a packet over the maximum size before allocating", () => {
    expect(() => startPacket(0x30, 10, 11)).toThrow(/exceeds the maximum/);
  });

  it("refuses to hand out a packet with unwritten bytes", () => {
    const w = startPacket(0x30, 2, MAX_PACKET_SIZE);
    w.u8(1);
    expect(() => finishPacket(w)).toThrow(/size mismatch/);
  });

  it("hands out an exactly written packet", () => {
    const w = startPacket(0xc0, 0, MAX_PACKET_SIZE);
    expect([...finishPacket(w)]).toEqual([0xc0, 0x00]);
  });
});
