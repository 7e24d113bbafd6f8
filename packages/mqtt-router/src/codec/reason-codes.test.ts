import { describe, expect, it } from "vitest";
import { ReasonCode, isValidReasonCode } from "./reason-codes.js";

describe("reason codes", () => {
  it("allows Packet Identifier not found in PUBREL", () => {
    expect(isValidReasonCode("pubrel", ReasonCode.PacketIdentifierNotFound)).toBe(true);
  });

  it("does not allow Session taken over in CONNACK", () => {
    expect(isValidReasonCode("connack", ReasonCode.SessionTakenOver)).toBe(false);
  });

  it("allows Disconnect with Will Message in DISCONNECT", () => {
    expect(isValidReasonCode("disconnect", ReasonCode.DisconnectWithWillMessage)).toBe(true);
  });

  it("does not allow Disconnect with Will Message in PUBACK", () => {
    expect(isValidReasonCode("puback", ReasonCode.DisconnectWithWillMessage)).toBe(false);
  });

  it("names the malformed-packet code 0x81", () => {
    expect(ReasonCode.MalformedPacket).toBe(0x81);
  });
});
