import { describe, expect, it } from "vitest";
import { createFraming, REFERENCE_PARAMS } from "./index.js";
import { drainFrames } from "./framing-session.test-helpers.js";

describe("createFraming", () => {
  it("starts a qmux-00 connection by sending the reference transport parameters", () => {
    const framing = createFraming("qmux-00", { role: "server" });
    expect(drainFrames(framing).frames).toEqual([{ type: "transport-parameters", params: REFERENCE_PARAMS }]);
  });

  it("starts a legacy connection ready and silent", () => {
    const framing = createFraming("webtransport", { role: "server" });
    expect(framing.poll()).toEqual([{ kind: "ready" }]);
  });

  it("refuses the legacy framing on a byte stream, which it was never defined for", () => {
    expect(() => createFraming("webtransport", { role: "client", carrier: "stream" })).toThrow(RangeError);
  });
});
