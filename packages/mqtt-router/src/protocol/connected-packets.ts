/**
 * What an accepted connection does with each packet the client sends: the QoS flows, SUBSCRIBE
 * and UNSUBSCRIBE, PINGREQ, and the violations (a second CONNECT, server-only packets).
 * @module
 */
import type { AuthPacket, DisconnectPacket, Packet } from "../codec/packet.js";
import { ReasonCode } from "../codec/reason-codes.js";
import type { Connected } from "./connection-state.js";
import type { Outbox } from "./outbox.js";

/** What the connection keeps to itself: ending it, and the DISCONNECT and AUTH rules. */
export interface ConnectedPacketHandlers {
  violate(reasonCode: number, detail: string): void;
  disconnect(s: Connected, packet: DisconnectPacket): void;
  auth(s: Connected, packet: AuthPacket): void;
}

/** Handles one packet of a connection past CONNACK. */
export function onConnectedPacket(s: Connected, packet: Packet, outbox: Outbox, on: ConnectedPacketHandlers): void {
  switch (packet.type) {
    case "connect":
      on.violate(ReasonCode.ProtocolError, "second CONNECT"); // [MQTT-3.1.0-2]
      return;
    case "publish": {
      const v = s.inbound.onPublish(packet);
      if (v !== undefined) on.violate(v.reasonCode, v.detail);
      return;
    }
    case "puback":
      s.outbound.onPuback(packet.packetId, packet.reasonCode);
      return;
    case "pubrec":
      s.outbound.onPubrec(packet.packetId, packet.reasonCode);
      return;
    case "pubrel": {
      const v = s.inbound.onPubrel(packet.packetId);
      if (v !== undefined) on.violate(v.reasonCode, v.detail);
      return;
    }
    case "pubcomp":
      s.outbound.onPubcomp(packet.packetId, packet.reasonCode);
      return;
    case "subscribe": {
      const v = s.subscriptions.onSubscribe(packet);
      if (v !== undefined) on.violate(v.reasonCode, v.detail);
      return;
    }
    case "unsubscribe":
      s.subscriptions.onUnsubscribe(packet);
      return;
    case "pingreq":
      outbox.send({ type: "pingresp" });
      return;
    case "disconnect":
      on.disconnect(s, packet);
      return;
    case "auth":
      on.auth(s, packet);
      return;
    case "connack":
    case "suback":
    case "unsuback":
    case "pingresp":
      on.violate(ReasonCode.ProtocolError, `${packet.type.toUpperCase()} from a client`);
      return;
    default: {
      const unreachable: never = packet;
      throw new Error(`unknown packet ${String(unreachable)}`);
    }
  }
}
