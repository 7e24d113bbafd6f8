import { LITE_01, LITE_02, LITE_03, LITE_04, LITE_05, LITE_06, LITE_06_WIP } from "@handoff/moq-resume/lite";
import { describe, expect, it } from "vitest";
import { pickSetupVersion, versionMode } from "./version.js";

describe("versionMode", () => {
  it("negotiates in-band when no ALPN was chosen", () => {
    expect(versionMode(undefined)).toEqual({ kind: "setup" });
  });
  it("negotiates in-band for moql", () => {
    expect(versionMode("moql")).toEqual({ kind: "setup" });
  });
  it("fixes lite-05 by ALPN", () => {
    expect(versionMode("moq-lite-05")).toEqual({ kind: "fixed", version: LITE_05 });
  });
  it("fixes lite-04 and lite-03 by ALPN", () => {
    expect(versionMode("moq-lite-04")).toEqual({ kind: "fixed", version: LITE_04 });
    expect(versionMode("moq-lite-03")).toEqual({ kind: "fixed", version: LITE_03 });
  });
  it("fixes lite-06 by ALPN, in both spellings", () => {
    expect(versionMode("moq-lite-06")).toEqual({ kind: "fixed", version: LITE_06 });
    expect(versionMode("moq-lite-06-wip")).toEqual({ kind: "fixed", version: LITE_06_WIP });
  });

  it("refuses ALPNs the relay does not speak", () => {
    expect(versionMode("moq-lite-07-wip")).toBeUndefined();
    expect(versionMode("h3")).toBeUndefined();
  });
});

describe("pickSetupVersion", () => {
  it("takes the client's first supported version", () => {
    expect(pickSetupVersion([0xff00000e, LITE_01, LITE_02])).toBe(LITE_01);
    expect(pickSetupVersion([LITE_02, LITE_01])).toBe(LITE_02);
  });
  it("finds nothing when only IETF drafts are offered", () => {
    expect(pickSetupVersion([0xff00000e])).toBeUndefined();
  });
});
