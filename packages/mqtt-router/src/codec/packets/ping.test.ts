import { describe, expect, it } from "vitest";
import { decodeOk, encodeOk, hex, toHex } from "../test-bytes.test-helpers.js";

describe("PINGREQ and PINGRESP", () => {
  it("encodes PINGREQ as c0 00", () => {
    expect(toHex(encodeOk({ type: "pingreq" }, 4))).toBe("c000");
  });

  it("decodes PINGRESP", () => {
    expect(decodeOk(hex("d000"), 5)).toEqual({ type: "pingresp" });
  });
});
