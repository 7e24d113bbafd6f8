import { describe, expect, it } from "vitest";
import { MqttCodecError, MqttDecodeError, MqttEncodeError, quote } from "./errors.js";

describe("codec errors", () => {
  it("carry their reason code", () => {
    expect(new MqttDecodeError(0x95, "too large").reasonCode).toBe(0x95);
  });

  it("share the MqttCodecError base", () => {
    expect(new MqttEncodeError(0x81, "bad")).toBeInstanceOf(MqttCodecError);
  });

  it("name themselves for logs", () => {
    expect(new MqttDecodeError(0x81, "bad").name).toBe("MqttDecodeError");
  });

  it("quote at most 64 characters of a string", () => {
    expect(quote("x".repeat(70_000))).toBe(JSON.stringify(`${"x".repeat(64)}…`));
  });
});
