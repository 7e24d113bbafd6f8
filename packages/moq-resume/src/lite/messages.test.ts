import { describe, expect, it } from "vitest";
import { decodeDatagram, encodeDatagram } from "./datagram.js";
import { LiteError } from "./errors.js";
import { FrameEncoder } from "./group.js";
import { encodeMessage } from "./messages.js";
import { selectVersion } from "./session-stream.js";
import { decodeStream } from "./stream-reader.js";
import { LITE_01, LITE_02, LITE_03, LITE_04, LITE_05, LITE_06, LITE_06_WIP, LITE_VERSIONS, liteAlpn, liteVersionName, versionFromAlpn } from "./version.js";
import { ByteWriter } from "./writer.js";

function thrown(fn: () => unknown): [number, string] | undefined {
  try {
    fn();
    return undefined;
  } catch (err) {
    return err instanceof LiteError ? [err.code, err.reason] : undefined;
  }
}

describe("encoding", () => {
  it("refuses a message the version does not have", () => {
    expect(thrown(() => encodeMessage({ type: "goaway", uri: "" }, LITE_03))).toEqual([18, "version"]);
    expect(thrown(() => encodeMessage({ type: "subscribe_start", group: 1 }, LITE_04))).toEqual([18, "version"]);
    expect(thrown(() => encodeMessage({ type: "subscribe_ok", priority: 0, ordered: false, maxLatency: 0, startGroup: undefined, endGroup: undefined }, LITE_05))).toEqual([18, "version"]);
    expect(thrown(() => encodeMessage({ type: "stream_header", kind: "fetch" }, LITE_04))).toEqual([18, "version"]);
  });

  it("refuses an Option value whose +1 would leave the safe range", () => {
    const msg = { type: "subscribe_update", priority: 0, ordered: true, maxLatency: 0, startGroup: Number.MAX_SAFE_INTEGER, endGroup: undefined } as const;
    expect(thrown(() => encodeMessage(msg, LITE_04))).toEqual([18, "unsafe_integer"]);
  });

  it("sends a known zero probe bitrate as 1, since 0 means unknown", () => {
    expect(encodeMessage({ type: "probe", bitrate: 0, rtt: 0 }, LITE_04)).toEqual(Uint8Array.of(2, 1, 1));
  });

  it("writes Option fields as value+1 with 0 for none", () => {
    const bytes = encodeMessage({ type: "subscribe_update", priority: 3, ordered: true, maxLatency: 10, startGroup: 0, endGroup: undefined }, LITE_03);
    expect(bytes).toEqual(Uint8Array.of(5, 3, 1, 10, 1, 0));
  });

  it("writes lite-01/02 SUBSCRIBE_OK untyped, lite-01 with its priority only", () => {
    const ok = { type: "subscribe_ok", priority: 9, ordered: true, maxLatency: 5, startGroup: 1, endGroup: 2 } as const;
    expect(encodeMessage(ok, LITE_01)).toEqual(Uint8Array.of(1, 9));
    expect(encodeMessage(ok, LITE_02)).toEqual(Uint8Array.of(0));
  });

  it("frames the 0x20 SETUP with a varint size under the lite framing", () => {
    const bytes = encodeMessage({ type: "client_setup", versions: [LITE_02], parameters: [] }, LITE_02, { setupFraming: "lite" });
    // type, varint size 10, one version (0xff0dad02 needs the 8-byte form), no parameters.
    expect(Array.from(bytes)).toEqual([0x20, 10, 1, 0xc0, 0, 0, 0, 0xff, 0x0d, 0xad, 0x02, 0]);
  });

  it("encodes lite-05 frame timestamps as zigzag deltas from the previous frame", () => {
    const enc = new FrameEncoder(LITE_05);
    expect(Array.from(enc.header(0, 100))).toEqual([0x40, 200, 0]);
    expect(Array.from(enc.header(0, 60))).toEqual([0x40, 79, 0]);
  });

  it("requires a timestamp for lite-05 frames", () => {
    expect(thrown(() => new FrameEncoder(LITE_05).header(3))).toEqual([18, "invalid_value"]);
  });

  it("inserts a minimal size prefix in front of a body of any length", () => {
    const w = new ByteWriter(4);
    w.sized(() => w.bytes(new Uint8Array(70)));
    expect(Array.from(w.view().subarray(0, 2))).toEqual([0x40, 70]);
    expect(w.length).toBe(72);
  });
});

describe("lite-05 SETUP", () => {
  it("decodes an unknown probe level as increase and an unknown role as both", () => {
    // count 2: probe=7, role=9
    const bytes = Uint8Array.of(1, 7, 2, 1, 1, 7, 3, 1, 9);
    expect(decodeStream([bytes], { role: "accepted-uni", version: LITE_05 }).messages[1]).toMatchObject({ probe: "increase", role: "both" });
  });

  it("decodes origin 0 as no declared origin", () => {
    const bytes = Uint8Array.of(1, 4, 1, 5, 1, 0);
    expect(decodeStream([bytes], { role: "accepted-uni", version: LITE_05 }).messages[1]).toMatchObject({ origin: undefined });
  });

  it("refuses a varint parameter with trailing bytes", () => {
    const bytes = Uint8Array.of(1, 5, 1, 4, 2, 1, 1);
    expect(decodeStream([bytes], { role: "accepted-uni", version: LITE_05 }).error?.reason).toBe("long");
  });
});

describe("datagrams", () => {
  it("round-trip on lite-05 with the payload running to the end", () => {
    const msg = { type: "datagram", subscribe: 3, sequence: 70000, timestamp: 5, payload: Uint8Array.of(1, 2, 3) } as const;
    expect(decodeDatagram(encodeDatagram(msg, LITE_05), LITE_05)).toEqual({ ok: true, value: msg });
  });

  it("do not exist before lite-05", () => {
    const result = decodeDatagram(Uint8Array.of(0, 0, 0), LITE_04);
    expect(result.ok ? undefined : result.error.reason).toBe("version");
  });
});

describe("versions", () => {
  it("map to and from their ALPN strings", () => {
    expect(LITE_VERSIONS.map(liteAlpn)).toEqual(["moql", "moql", "moq-lite-03", "moq-lite-04", "moq-lite-05", "moq-lite-06-wip", "moq-lite-06"]);
    expect(["moql", "moq-lite-04", "moq-lite-06-wip", "moq-lite-06", "h3"].map(versionFromAlpn)).toEqual(["setup", LITE_04, LITE_06_WIP, LITE_06, undefined]);
    expect(LITE_VERSIONS.map(liteVersionName)).toEqual(["lite-01", "lite-02", "lite-03", "lite-04", "lite-05", "lite-06-wip", "lite-06"]);
  });

  it("are selected in the client's preference order", () => {
    expect(selectVersion([LITE_02, LITE_01, 0xff00000e], [LITE_01, LITE_02])).toBe(LITE_02);
    expect(selectVersion([0xff00000e], [LITE_01])).toBeUndefined();
  });
});
