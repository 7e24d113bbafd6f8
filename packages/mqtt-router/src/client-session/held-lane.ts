/**
 * What a held publisher's connection may still do. While its session waits for congested
 * subscribers (flow control), its inbound work stays in order behind the wait — later PUBLISHes
 * are not routed, their acknowledgements not sent — but its own role as a subscriber goes on:
 * deliveries to it (PUBLISH, PUBREL), PINGRESP and its acknowledgements of deliveries pass the
 * wait. Otherwise a client that publishes to a topic it is subscribed to would wait for itself.
 *
 * Passing stops once something that deliveries must not overtake is held (a SUBACK, which its
 * retained messages follow; a DISCONNECT; a close): from then on everything waits, in order.
 * @module
 */
import { PacketType } from "../codec/packet.js";
import type { Action } from "../protocol/effects.js";

/** Bytes read from a held client before its socket is paused (what a conforming client sends stays below it). */
export const HELD_INPUT_BYTES = 64 * 1024;

function packetType(bytes: Uint8Array): number {
  return (bytes[0] ?? 0) >> 4;
}

/** The held state of one connection. */
export class HeldLane {
  #held = false;
  #passing = false;
  #input = 0;

  /** True while the session waits for congested subscribers. */
  get held(): boolean {
    return this.#held;
  }

  /** The session starts waiting. */
  start(): void {
    this.#held = true;
    this.#passing = true;
    this.#input = 0;
  }

  /** The wait is over. */
  end(): void {
    this.#held = false;
    this.#passing = false;
    this.#input = 0;
  }

  /**
   * Whether `action` may be performed now, ahead of the held ones; an action that must wait and
   * that deliveries may not overtake closes the lane for the rest of the wait.
   */
  passes(action: Action): boolean {
    if (!this.#held) return false;
    if (action.kind === "effect") {
      const kind = action.effect.kind;
      return kind === "delivery-acked" || kind === "delivery-rejected" || kind === "delivery-completed" || kind === "delivery-received";
    }
    if (action.kind === "close") {
      this.#passing = false;
      return false;
    }
    const type = packetType(action.bytes);
    if (this.#passing && (type === PacketType.PUBLISH || type === PacketType.PUBREL || type === PacketType.PINGRESP)) return true;
    const ack = type === PacketType.PUBACK || type === PacketType.PUBREC || type === PacketType.PUBCOMP || type === PacketType.UNSUBACK;
    if (!ack) this.#passing = false;
    return false;
  }

  /** Counts input read while held; true once the socket should stop being read. */
  noteInput(bytes: number): boolean {
    if (!this.#held) return false;
    this.#input += bytes;
    return this.#input > HELD_INPUT_BYTES;
  }
}
