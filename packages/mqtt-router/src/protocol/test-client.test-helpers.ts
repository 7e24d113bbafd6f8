// Test support: plays the client side of a connection with bytes encoded by the codec.
import { ManualClock } from "@handoff/seqlog";
import { decodePacket } from "../codec/decode.js";
import { encodePacket } from "../codec/encode.js";
import type { ConnectPacket, Packet, ProtocolVersion } from "../codec/packet.js";
import { MqttConnection } from "./connection.js";
import type { Action, Effect } from "./effects.js";
import type { AcceptParams } from "./connect.js";
import type { ProtocolOptions } from "./options.js";

/** Encodes `packet` as a client of `version` would; fails the test if it cannot be encoded. */
export function bytesOf(packet: Packet, version: ProtocolVersion): Uint8Array {
  const r = encodePacket(packet, { protocolVersion: version });
  if (!r.ok) throw new Error(`test packet cannot be encoded: ${r.error.message}`);
  return r.bytes;
}

/** The packets of the `send` actions, after checking that their bytes decode to a packet. */
export function sentPackets(actions: readonly Action[], version: ProtocolVersion): Packet[] {
  const out: Packet[] = [];
  for (const a of actions) {
    if (a.kind !== "send") continue;
    const d = decodePacket(a.bytes, { protocolVersion: version });
    if (!d.ok) throw new Error(`server sent undecodable bytes: ${d.error.message}`);
    out.push(a.packet);
  }
  return out;
}

/** The effects among `actions`. */
export function effectsOf(actions: readonly Action[]): Effect[] {
  return actions.flatMap((a) => (a.kind === "effect" ? [a.effect] : []));
}

/** The reason code of the `close` action, or undefined when there is none. */
export function closeOf(actions: readonly Action[]): number | undefined {
  for (const a of actions) if (a.kind === "close") return a.reasonCode;
  return undefined;
}

/** The kinds of the actions, in order: `send:<type>`, `effect:<kind>` or `close`. */
export function kindsOf(actions: readonly Action[]): string[] {
  return actions.map((a) => (a.kind === "send" ? `send:${a.packet.type}` : a.kind === "effect" ? `effect:${a.effect.kind}` : "close"));
}

/** A CONNECT with sensible defaults. */
export function connectPacket(version: ProtocolVersion, overrides: Partial<ConnectPacket> = {}): ConnectPacket {
  return { type: "connect", protocolVersion: version, cleanStart: true, keepAlive: 60, clientId: "c1", properties: {}, ...overrides };
}

/** A connection under test with a manual clock, speaking as a client of one version. */
export class TestClient {
  readonly clock = new ManualClock(1_000);
  readonly conn: MqttConnection;
  #ids = 0;

  constructor(
    readonly version: ProtocolVersion,
    options: Partial<ProtocolOptions> = {},
  ) {
    this.conn = new MqttConnection({
      clock: this.clock,
      generateClientId: () => `auto-${String(++this.#ids)}`,
      ...options,
    });
  }

  /** Sends packets as bytes and returns the actions they caused. */
  send(...packets: Packet[]): Action[] {
    for (const p of packets) this.conn.receiveBytes(bytesOf(p, this.version));
    return this.conn.drain();
  }

  /** Sends raw bytes and returns the actions they caused. */
  sendBytes(bytes: Uint8Array): Action[] {
    this.conn.receiveBytes(bytes);
    return this.conn.drain();
  }

  /** Sends CONNECT and returns the actions. */
  connect(overrides: Partial<ConnectPacket> = {}): Action[] {
    return this.send(connectPacket(this.version, overrides));
  }

  /** Sends CONNECT, accepts it and returns the actions of the accept (the CONNACK first). */
  connectAccepted(overrides: Partial<ConnectPacket> = {}, params: AcceptParams = { sessionPresent: false }): Action[] {
    this.connect(overrides);
    this.conn.accept(params);
    return this.conn.drain();
  }

  /** Drains and returns the pending actions. */
  drain(): Action[] {
    return this.conn.drain();
  }
}
