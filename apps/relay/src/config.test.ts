import { describe, expect, it } from "vitest";
import { ConfigError, defaults, parseConfig } from "./config.js";

describe("parseConfig", () => {
  it("uses the defaults when nothing is given", () => {
    expect(parseConfig([], {})).toEqual({ kind: "run", config: defaults });
  });

  it("lets a flag override the environment", () => {
    const parsed = parseConfig(["--port", "0"], { HANDOFF_RELAY_PORT: "1999" });
    expect(parsed.kind === "run" && parsed.config.port).toBe(0);
  });

  it("reads the port from the environment when no flag is given", () => {
    const parsed = parseConfig([], { HANDOFF_RELAY_PORT: "1999" });
    expect(parsed.kind === "run" && parsed.config.port).toBe(1999);
  });

  it("refuses an unknown flag with the usage text", () => {
    expect(() => parseConfig(["--bogus"], {})).toThrow(ConfigError);
  });

  it("refuses a port that is not a number", () => {
    expect(() => parseConfig(["--port", "80a"], {})).toThrow(/not a port number/);
  });

  it("refuses an unknown log level", () => {
    expect(() => parseConfig(["--log-level", "loud"], {})).toThrow(/unknown log level/);
  });

  it("returns help text for --help", () => {
    const parsed = parseConfig(["--help"], {});
    expect(parsed.kind === "help" && parsed.text).toMatch(/--port/);
  });
});
