import { describe, expect, it } from "vitest";
import { createFraming } from "./index.js";
import { sniffStreamQmux, STREAM_SNIFF_BYTES } from "./stream-sniff.js";
import type { QmuxVersion } from "./events.js";

const hex = (text: string): Uint8Array => Uint8Array.from(text.split(" ").map((b) => parseInt(b, 16)));

/** The first bytes an end of `version` puts on a byte stream (its transport parameters). */
function opening(version: QmuxVersion): Uint8Array {
  const framing = createFraming(version, { role: "client", carrier: "stream", params: { applicationProtocols: ["moq-lite-06"] } });
  const [first] = framing.poll();
  if (first?.kind !== "send") throw new Error("no transport parameters sent");
  return first.bytes;
}

describe("sniffStreamQmux", () => {
  it("reads qmux-00 from the bare QX_TRANSPORT_PARAMETERS type (golden bytes)", () => {
    expect(sniffStreamQmux(hex("ff 51 53 30 0d 0a 0d 0a 3a"))).toEqual({ kind: "qmux-00" });
  });

  it("reads qmux-01/02 records from a Size then the same type (golden bytes, 1- and 2-byte Size)", () => {
    expect(sniffStreamQmux(hex("3e ff 51 53 30 0d 0a 0d 0a"))).toEqual({ kind: "records" });
    expect(sniffStreamQmux(hex("40 4a ff 51 53 30 0d 0a 0d 0a"))).toEqual({ kind: "records" });
  });

  it("takes a Size in a longer encoding than needed, as the varint rules allow", () => {
    expect(sniffStreamQmux(hex("c0 00 00 00 00 00 00 3e ff 51 53 30 0d 0a 0d 0a"))).toEqual({ kind: "records" });
  });

  it("tells what our own framings open with", () => {
    expect(sniffStreamQmux(opening("qmux-00"))).toEqual({ kind: "qmux-00" });
    expect(sniffStreamQmux(opening("qmux-01"))).toEqual({ kind: "records" });
    expect(sniffStreamQmux(opening("qmux-02"))).toEqual({ kind: "records" });
  });

  it("waits while every byte so far agrees, one byte at a time", () => {
    for (const version of ["qmux-00", "qmux-02"] as const) {
      const bytes = opening(version);
      // The Size takes 1 << (top two bits) bytes.
      const needed = version === "qmux-00" ? 8 : (1 << ((bytes[0] ?? 0) >> 6)) + 8;
      for (let n = 0; n < needed; n++) expect(sniffStreamQmux(bytes.subarray(0, n))).toEqual({ kind: "short" });
      expect(sniffStreamQmux(bytes.subarray(0, needed)).kind).toBe(version === "qmux-00" ? "qmux-00" : "records");
    }
  });

  it("refuses HTTP at its third byte, naming the bytes seen", () => {
    const got = sniffStreamQmux(new TextEncoder().encode("GET / HTTP/1.1\r\n\r\n"));
    expect(got).toEqual({ kind: "not-qmux", reason: "not qmux (no QX_TRANSPORT_PARAMETERS first): first bytes 47 45 54 20 2f 20 48 54 54 50 2f 31 2e 31 0d 0a" });
    expect(sniffStreamQmux(new TextEncoder().encode("GET")).kind).toBe("not-qmux");
  });

  it("refuses a TLS ClientHello (a TLS dialer on the plain port)", () => {
    expect(sniffStreamQmux(hex("16 03 01 02 00 01")).kind).toBe("not-qmux");
  });

  it("refuses a first byte 0xff that does not go on as the type", () => {
    expect(sniffStreamQmux(hex("ff 51 53 31"))).toMatchObject({ kind: "not-qmux" });
  });

  it("refuses a first record too small to hold the type, or larger than our max_record_size", () => {
    expect(sniffStreamQmux(hex("00"))).toEqual({ kind: "not-qmux", reason: "not qmux (a first record of 0 bytes): first bytes 00" });
    expect(sniffStreamQmux(hex("08 ff"))).toMatchObject({ kind: "not-qmux" });
    expect(sniffStreamQmux(hex("7f ff"))).toMatchObject({ kind: "not-qmux", reason: expect.stringContaining("16383 bytes") as unknown });
    expect(sniffStreamQmux(hex("7f ff ff 51 53 30 0d 0a 0d 0a"), 20_000)).toEqual({ kind: "records" });
  });

  it("needs no more than STREAM_SNIFF_BYTES bytes for any answer", () => {
    const long = hex("c0 00 00 00 00 00 00 3e ff 51 53 30 0d 0a 0d 0a");
    expect(long.length).toBe(STREAM_SNIFF_BYTES);
    expect(sniffStreamQmux(long.subarray(0, STREAM_SNIFF_BYTES - 1))).toEqual({ kind: "short" });
  });
});
