import { describe, expect, it } from "vitest";
import { ConfigError, defaults, parseConfig, parseConfigFile } from "./config.js";

describe("parseConfig", () => {
  it("uses the defaults when nothing is given", () => {
    expect(parseConfig([], {})).toEqual({ kind: "run", config: defaults });
  });

  it("lets a flag override the environment", () => {
    const parsed = parseConfig(["--port", "0"], { HANDOFF_RELAY_PORT: "1999" });
    expect(parsed.kind === "run" && parsed.config.port).toBe(0);
  });

  it("lets the environment override the file", () => {
    const parsed = parseConfig(["--config", "r.yaml"], { HANDOFF_RELAY_HOST: "::1" }, () => "host: 10.0.0.1\nport: 7000\n");
    expect(parsed.kind === "run" && [parsed.config.host, parsed.config.port]).toEqual(["::1", 7000]);
  });

  it("reads tcp and metrics ports from flags", () => {
    const parsed = parseConfig(["--tcp-port", "4444", "--metrics-port", "0"], {});
    expect(parsed.kind === "run" && [parsed.config.tcpPort, parsed.config.metricsPort]).toEqual([4444, 0]);
  });

  it("reads auth settings from the file and the key from the environment", () => {
    const file = "auth:\n  publicSubscribe: [anon]\n";
    const parsed = parseConfig(["--config", "r.yaml"], { HANDOFF_RELAY_AUTH_KEY: "0123456789abcdef" }, () => file);
    expect(parsed.kind === "run" && parsed.config.auth).toEqual({ key: "0123456789abcdef", publicSubscribe: ["anon"], publicPublish: [] });
  });

  it("refuses an unknown flag", () => {
    expect(() => parseConfig(["--bogus"], {})).toThrow(ConfigError);
  });

  it("refuses a port that is not a number", () => {
    expect(() => parseConfig(["--port", "80a"], {})).toThrow(/not a port number/);
  });

  it("refuses an unknown log level", () => {
    expect(() => parseConfig(["--log-level", "loud"], {})).toThrow(/unknown log level/);
  });

  it("returns help text naming every flag", () => {
    const parsed = parseConfig(["--help"], {});
    const text = parsed.kind === "help" ? parsed.text : "";
    for (const flag of ["--config", "--port", "--tcp-port", "--metrics-port", "--log-level", "--host"]) expect(text).toContain(flag);
  });

  it("reports an unreadable config file", () => {
    expect(() =>
      parseConfig(["--config", "missing.yaml"], {}, () => {
        throw new Error("ENOENT");
      }),
    ).toThrow(/missing.yaml: cannot read/);
  });
});

describe("parseConfigFile", () => {
  it("names the field that is wrong", () => {
    expect(() => parseConfigFile("port: 70000\n", "relay.yaml")).toThrow(/relay.yaml: port:/);
  });

  it("refuses unknown keys", () => {
    expect(() => parseConfigFile("prot: 1\n", "relay.yaml")).toThrow(ConfigError);
  });

  it("refuses invalid YAML", () => {
    expect(() => parseConfigFile("port: [1,\n", "relay.yaml")).toThrow(/not valid YAML/);
  });

  it("accepts an empty file", () => {
    expect(parseConfigFile("", "relay.yaml")).toEqual({});
  });
});
