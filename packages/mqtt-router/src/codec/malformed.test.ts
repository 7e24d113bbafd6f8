import { hex } from "@handoff/test-kit";
import { describe, expect, it } from "vitest";
import { decodePacket } from "./decode.js";
import { PacketDecoder } from "./decoder.js";
import type { ProtocolVersion } from "./packet.js";

/** [what, connection version (undefined: before CONNECT), packet bytes as hex, expected reason code]. */
type Row = readonly [string, ProtocolVersion | undefined, string, number];

const CONNECT_V4_HEAD = "0004 4d515454 04"; // "MQTT" level 4
const CONNECT_V5_HEAD = "0004 4d515454 05";

const rows: readonly Row[] = [
  ["a remaining length with a fifth continuation byte", 4, "30 ff ff ff ff 01", 0x81],
  ["a remaining length of four continuation bytes", 4, "30 80 80 80 80 01", 0x81],
  ["a non-minimal remaining length encoding", 4, "c0 80 00", 0x81],
  ["the reserved packet type 0", 4, "00 00", 0x81],
  ["PINGREQ with flags set", 4, "c1 00", 0x81],
  ["SUBSCRIBE with flags 0 instead of 0b0010", 4, "80 06 0001 0001 61 00", 0x81],
  ["PUBREL with flags 0 instead of 0b0010", 4, "60 02 0001", 0x81],
  ["UNSUBSCRIBE with flags 0 instead of 0b0010", 4, "a0 05 0001 0001 61", 0x81],
  ["PUBLISH with QoS 3", 4, "36 05 0001 61 0001", 0x81],
  ["PUBLISH QoS 0 with DUP set", 4, "38 03 0001 61", 0x81],
  ["a topic that is not UTF-8", 4, "30 03 0001 ff", 0x81],
  ["a topic holding U+0000", 4, "30 03 0001 00", 0x81],
  ["a topic holding an encoded surrogate (ED A0 80)", 4, "30 05 0003 eda080", 0x81],
  ["a topic holding an overlong encoding (C0 AF)", 4, "30 04 0002 c0af", 0x81],
  ["a topic name with #", 4, "30 03 0001 23", 0x90],
  ["a topic name with a + level", 4, "30 05 0003 612f2b", 0x90],
  ["an empty topic name in 3.1.1", 4, "30 02 0000", 0x90],
  ["an empty topic name without Topic Alias in MQTT 5", 5, "30 03 0000 00", 0x82],
  ["a QoS 1 PUBLISH with packet id 0", 4, "32 05 0001 61 0000", 0x82],
  ["a QoS 1 PUBLISH missing its packet id", 4, "32 03 0001 61", 0x81],
  ["a filter with # not last", 4, "82 0a 0001 0005 612f232f62 00", 0x8f],
  ["a filter with + inside a level", 4, "82 07 0001 0002 612b 00", 0x8f],
  ["a shared filter with an empty group", 5, "82 0f 0001 00 0009 2473686172652f2f61 00", 0x8f],
  ["a shared filter without a filter part", 5, "82 0e 0001 00 0008 2473686172652f67 00", 0x8f],
  ["an UNSUBSCRIBE filter with # inside", 4, "a2 07 0001 0003 232f61", 0x8f],
  ["SUBSCRIBE without topic filters", 4, "82 02 0001", 0x82],
  ["UNSUBSCRIBE without topic filters", 4, "a2 02 0001", 0x82],
  ["SUBSCRIBE with packet id 0", 4, "82 06 0000 0001 61 00", 0x82],
  ["PUBACK with packet id 0", 4, "40 02 0000", 0x82],
  ["3.1.1 subscription options with a reserved bit", 4, "82 06 0001 0001 61 04", 0x81],
  ["MQTT 5 subscription options with reserved bits 6-7", 5, "82 07 0001 00 0001 61 c0", 0x81],
  ["subscription QoS 3", 4, "82 06 0001 0001 61 03", 0x81],
  ["Retain Handling 3", 5, "82 07 0001 00 0001 61 30", 0x81],
  ["No Local on a shared subscription", 5, "82 10 0001 00 000a 2473686172652f672f61 04", 0x82],
  ["a duplicate Payload Format Indicator", 5, "30 08 0001 61 04 0100 0100", 0x82],
  ["two Subscription Identifiers in SUBSCRIBE", 5, "82 0b 0001 04 0b01 0b02 0001 61 00", 0x82],
  ["Session Expiry Interval in PUBLISH (wrong packet)", 5, "30 09 0001 61 05 11 00000000", 0x81],
  ["Will Delay Interval in CONNECT properties (wrong place)", undefined, `10 12 ${CONNECT_V5_HEAD} 02 003c 05 18 00000000 0000`, 0x81],
  ["an unknown property identifier", 5, "30 06 0001 61 02 7f 00", 0x81],
  ["a property block longer than the packet", 5, "30 05 0001 61 05 01", 0x81],
  ["Receive Maximum 0", undefined, `10 10 ${CONNECT_V5_HEAD} 02 003c 03 21 0000 0000`, 0x82],
  ["Maximum Packet Size 0", undefined, `10 12 ${CONNECT_V5_HEAD} 02 003c 05 27 00000000 0000`, 0x82],
  ["Payload Format Indicator 2", 5, "30 06 0001 61 02 01 02", 0x82],
  ["Request Problem Information 2", undefined, `10 0f ${CONNECT_V5_HEAD} 02 003c 02 17 02 0000`, 0x82],
  ["Maximum QoS 2 in CONNACK", 5, "20 05 00 00 02 24 02", 0x82],
  ["Subscription Identifier 0", 5, "82 09 0001 02 0b00 0001 61 00", 0x82],
  ["Topic Alias 0", 5, "30 07 0001 61 03 23 0000", 0x94],
  ["a Response Topic with a wildcard", 5, "30 08 0001 61 04 08 0001 23", 0x90],
  ["Authentication Data without Authentication Method", undefined, `10 10 ${CONNECT_V5_HEAD} 02 003c 03 16 0000 0000`, 0x82],
  ["PINGREQ with a body (trailing bytes)", 4, "c0 01 00", 0x81],
  ["3.1.1 PUBACK with a trailing byte", 4, "40 03 0001 00", 0x81],
  ["3.1.1 DISCONNECT with a body", 4, "e0 01 00", 0x81],
  ["a string longer than its packet (short body)", undefined, "10 04 0004 4d51", 0x81],
  ["a packet shorter than its remaining length", 4, "90 03 0001", 0x81],
  ["a bad protocol name", undefined, `10 0c 0004 4d515458 04 02 003c 0000`, 0x84],
  ["an unsupported protocol level", undefined, `10 0c 0004 4d515454 06 02 003c 0000`, 0x84],
  ["MQTT 3.1's name with level 4", undefined, `10 0e 0006 4d5149736470 04 02 003c 0000`, 0x84],
  ["the reserved CONNECT flag", undefined, `10 0c ${CONNECT_V4_HEAD} 03 003c 0000`, 0x81],
  ["Will QoS 3", undefined, `10 0c ${CONNECT_V4_HEAD} 1e 003c 0000`, 0x81],
  ["Will Retain without the Will Flag", undefined, `10 0c ${CONNECT_V4_HEAD} 22 003c 0000`, 0x81],
  ["Will QoS without the Will Flag", undefined, `10 0c ${CONNECT_V4_HEAD} 0a 003c 0000`, 0x81],
  ["a password without a username in 3.1.1", undefined, `10 0e ${CONNECT_V4_HEAD} 42 003c 0000 0000`, 0x81],
  ["a Will Topic with a wildcard", undefined, `10 13 ${CONNECT_V4_HEAD} 06 003c 0000 0003 612f23 0000`, 0x90],
  ["CONNACK reserved acknowledge flags", 4, "20 02 02 00", 0x81],
  ["a 3.1.1 CONNACK return code above 5", 4, "20 02 00 06", 0x81],
  ["a PUBACK reason code PUBACK may not carry", 5, "40 03 0001 92", 0x81],
  ["a 3.1.1 SUBACK return code 3", 4, "90 03 0001 03", 0x81],
  ["an MQTT 5 UNSUBACK without reason codes", 5, "b0 03 0001 00", 0x82],
  ["AUTH on a 3.1.1 connection", 4, "f0 00", 0x81],
  ["a packet other than CONNECT before the version is known", undefined, "c0 00", 0x82],
];

describe("malformed input table", () => {
  it("has at least 30 rows", () => {
    expect(rows.length).toBeGreaterThanOrEqual(30);
  });

  it.each(rows)("refuses %s", (_what, version, bytesHex, code) => {
    const result = decodePacket(hex(bytesHex), { protocolVersion: version });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error.reasonCode).toBe(code);
  });

  // A stream cannot tell a short packet from one whose rest is still to come, so that row is
  // one-shot only (the decoder's own tests cover waiting for the rest).
  const streamRows = rows.filter(([what]) => what !== "a packet shorter than its remaining length");

  it.each(streamRows)("refuses %s in the streaming decoder too", (_what, version, bytesHex, code) => {
    const decoder = new PacketDecoder(version === undefined ? {} : { protocolVersion: version });
    decoder.push(hex(bytesHex));
    const item = decoder.next();
    expect(item?.ok === false ? item.error.reasonCode : item).toBe(code);
  });

  it("refuses an oversize packet from its header with Packet Too Large", () => {
    const result = decodePacket(hex("30 ff ff ff 7f"), { protocolVersion: 4, maxPacketSize: 1024 });
    expect(result.ok ? undefined : result.error.reasonCode).toBe(0x95);
  });
});
