import { describe, expect, it } from "vitest";
import { negotiateSubprotocol, supportedSubprotocols, TCP_MOQ_ALPNS } from "./subprotocol.js";

describe("negotiateSubprotocol", () => {
  it("picks qmux-00.moq-lite-04 from what @moq/qmux offers for moq-lite-04", () => {
    const offer = ["qmux-00", "webtransport", "qmux-00.moq-lite-04", "webtransport.moq-lite-04"];
    expect(negotiateSubprotocol(offer)).toEqual({ ok: true, subprotocol: "qmux-00.moq-lite-04", framing: "qmux-00", moqAlpn: "moq-lite-04" });
  });

  it("prefers lite-05 when the client offers it with older versions", () => {
    expect(negotiateSubprotocol(["qmux-00.moq-lite-04", "qmux-00.moq-lite-05", "qmux-00"])).toEqual({
      ok: true,
      subprotocol: "qmux-00.moq-lite-05",
      framing: "qmux-00",
      moqAlpn: "moq-lite-05",
    });
  });

  it("prefers the server's order over the client's", () => {
    expect(negotiateSubprotocol("qmux-00.moq-lite-03, qmux-00.moq-lite-04")).toMatchObject({ subprotocol: "qmux-00.moq-lite-04" });
  });

  it("leaves the version to in-band SETUP on bare qmux-00 (what @moq/lite offers by default)", () => {
    expect(negotiateSubprotocol(["qmux-00", "webtransport"])).toEqual({ ok: true, subprotocol: "qmux-00", framing: "qmux-00", moqAlpn: undefined });
  });

  it("selects the legacy framing for a client offering only webtransport", () => {
    expect(negotiateSubprotocol("webtransport")).toEqual({ ok: true, subprotocol: "webtransport", framing: "webtransport", moqAlpn: undefined });
  });

  it("upgrades a client that offers nothing with the legacy framing and no subprotocol", () => {
    expect(negotiateSubprotocol(undefined)).toEqual({ ok: true, subprotocol: undefined, framing: "webtransport", moqAlpn: undefined });
    expect(negotiateSubprotocol(" ")).toMatchObject({ ok: true, subprotocol: undefined });
  });

  it("refuses a client whose offers are all unknown", () => {
    expect(negotiateSubprotocol(["qmux-03.moq-lite-05", "mqtt"])).toMatchObject({ ok: false });
  });

  it("picks qmux-02 with lite-05 from what @moq/net 0.3 offers by default", () => {
    const offer = ["qmux-02.moq-lite-05", "qmux-01.moq-lite-05", "qmux-00.moq-lite-05", "qmux-02.moq-lite-04", "qmux-02", "qmux-01", "qmux-00", "webtransport"];
    expect(negotiateSubprotocol(offer)).toEqual({ ok: true, subprotocol: "qmux-02.moq-lite-05", framing: "qmux-02", moqAlpn: "moq-lite-05" });
  });

  it("prefers lite-06 (either spelling) over lite-05", () => {
    expect(negotiateSubprotocol(["qmux-02.moq-lite-05", "qmux-02.moq-lite-06-wip"])).toMatchObject({ moqAlpn: "moq-lite-06-wip", framing: "qmux-02" });
    expect(negotiateSubprotocol(["qmux-02.moq-lite-06-wip", "qmux-01.moq-lite-06"])).toMatchObject({ moqAlpn: "moq-lite-06", framing: "qmux-01" });
  });

  it("ranks the moq version above the qmux version", () => {
    expect(negotiateSubprotocol(["qmux-02.moq-lite-04", "qmux-00.moq-lite-05"])).toMatchObject({ subprotocol: "qmux-00.moq-lite-05", framing: "qmux-00" });
  });

  it("takes qmux-01 when the client offers it and not qmux-02", () => {
    expect(negotiateSubprotocol(["qmux-01.moq-lite-05", "qmux-00.moq-lite-05"])).toMatchObject({ framing: "qmux-01", moqAlpn: "moq-lite-05" });
  });

  it("runs the in-band SETUP over a bare qmux-02", () => {
    expect(negotiateSubprotocol(["qmux-02", "qmux-00"])).toEqual({ ok: true, subprotocol: "qmux-02", framing: "qmux-02", moqAlpn: undefined });
  });

  it("does not pick a moq version it was not configured with", () => {
    expect(negotiateSubprotocol(["qmux-00.moq-lite-04", "qmux-00"], ["moq-lite-03"])).toMatchObject({ subprotocol: "qmux-00", moqAlpn: undefined });
  });

  it("advertises versioned entries before the bare fallbacks", () => {
    expect(supportedSubprotocols(["moq-lite-04"])).toEqual([
      "qmux-02.moq-lite-04",
      "qmux-01.moq-lite-04",
      "qmux-00.moq-lite-04",
      "qmux-02",
      "qmux-01",
      "qmux-00",
      "webtransport",
    ]);
  });
});

describe("TCP_MOQ_ALPNS", () => {
  it("offers lite-06 first, then its -wip spelling, and leaves the in-band SETUP out", () => {
    expect(TCP_MOQ_ALPNS).toEqual(["moq-lite-06", "moq-lite-06-wip", "moq-lite-05", "moq-lite-04", "moq-lite-03"]);
  });
});
