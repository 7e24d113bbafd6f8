import { entryPointTests, startApp, stopApp } from "@handoff/app-kit/testing";
import { describe, expect, it } from "vitest";

const appDir = new URL("../", import.meta.url).pathname;
const args = ["--host", "127.0.0.1", "--port", "0", "--log-level", "debug"];
interface Line {
  readonly msg: string;
  readonly v8?: string;
}
const heapLine = (lines: readonly Line[]): Line | undefined => lines.find((r) => r.msg.startsWith("V8 heap growth set"));

describe("handoff-relay process", () => {
  entryPointTests({ it, expect }, { appDir, args: ["--host", "127.0.0.1", "--port", "0"], listening: "relay listening", portField: "http" });

  it("sets V8's heap growth at startup and says so", async () => {
    const { child, before } = await startApp<Line>(appDir, args, "relay listening");
    expect(heapLine(before)?.v8).toBe("--heap-growing-percent=200");
    expect(await stopApp(child, "SIGINT")).toBe(0);
  });

  it("leaves V8's heap growth to a node flag of the operator's", async () => {
    const { child, before } = await startApp<Line>(appDir, args, "relay listening", { nodeFlags: ["--heap-growing-percent=50"] });
    expect(heapLine(before)).toBeUndefined();
    expect(await stopApp(child, "SIGINT")).toBe(0);
  });
});
