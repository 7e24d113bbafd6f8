import { configErrorOf } from "@handoff/app-kit/testing";
import { describe, expect, it } from "vitest";
import { parseConfig, type RelayConfig } from "./config.js";

function load(argv: string[], env: Record<string, string>, file = ""): { config: RelayConfig; warnings: string[] } {
  const warnings: string[] = [];
  const parsed = parseConfig(argv, env, () => file, (warning) => warnings.push(warning));
  if (parsed.kind !== "run") throw new Error("expected settings, got help");
  return { config: parsed.config, warnings };
}

function failure(argv: string[], env: Record<string, string> = {}, file = ""): string {
  return configErrorOf(() => parseConfig(argv, env, () => file));
}

describe("environment variable names: HANDOFF_RELAY_ plus the flag", () => {
  it("reads every flag's variable", () => {
    const { config, warnings } = load([], {
      HANDOFF_RELAY_LOG_LEVEL: "debug",
      HANDOFF_RELAY_PEER: "tcp://a:1,tcp://b:2",
      HANDOFF_RELAY_DRAIN_TIMEOUT: "250",
      HANDOFF_RELAY_CORS_ORIGIN: "https://app.example, http://localhost:5173",
    });
    expect([config.logLevel, config.cluster.peers, config.cluster.drainTimeoutMs, config.corsOrigins, warnings]).toEqual([
      "debug",
      ["tcp://a:1", "tcp://b:2"],
      250,
      ["https://app.example", "http://localhost:5173"],
      [],
    ]);
  });

  it("still reads the old names, with one warning each, and the new name wins over the old", () => {
    const old = load([], { HANDOFF_LOG_LEVEL: "warn", HANDOFF_RELAY_PEERS: "tcp://c:3" });
    expect([old.config.logLevel, old.config.cluster.peers, old.warnings]).toEqual([
      "warn",
      ["tcp://c:3"],
      ["HANDOFF_LOG_LEVEL is deprecated and will go away: use HANDOFF_RELAY_LOG_LEVEL", "HANDOFF_RELAY_PEERS is deprecated and will go away: use HANDOFF_RELAY_PEER"],
    ]);
    const both = load([], { HANDOFF_LOG_LEVEL: "warn", HANDOFF_RELAY_LOG_LEVEL: "error" });
    expect([both.config.logLevel, both.warnings]).toEqual(["error", ["HANDOFF_LOG_LEVEL is deprecated and will go away: use HANDOFF_RELAY_LOG_LEVEL (set too, and used instead)"]]);
  });

  it("refuses an unknown HANDOFF_RELAY_ variable with a did-you-mean", () => {
    expect(failure([], { HANDOFF_RELAY_PROT: "1" })).toBe('unknown environment variable HANDOFF_RELAY_PROT (did you mean "HANDOFF_RELAY_PORT"?)');
  });
});

describe("errors read like the broker's: where, the key path, what was expected", () => {
  it("suggests the flag meant", () => {
    expect(failure(["--metric-port", "1"])).toBe('unknown flag --metric-port (did you mean "--metrics-port"?); --help lists them');
  });

  it("names the variable and the key of a value the schema refuses, without echoing a secret", () => {
    const message = failure([], { HANDOFF_RELAY_ADMIN_TOKEN: "short-secret" });
    expect([message, message.includes("short-secret")]).toEqual(['HANDOFF_RELAY_ADMIN_TOKEN: "admin.token" must be at least 16 characters long', false]);
  });

  it("names the file and the key, with the expected type and a did-you-mean for a value", () => {
    expect(failure(["--config", "r.yaml"], {}, "cluster:\n  dialTimeoutMs: soon\n")).toBe('config file r.yaml: "cluster.dialTimeoutMs" must be a number (got string "soon")');
    expect(failure(["--config", "r.yaml"], {}, "tcpAccess: trusty\n")).toBe('config file r.yaml: "tcpAccess" must be one of "trusted", "public" (got string "trusty") (did you mean "trusted"?)');
    expect(failure(["--log-level", "inf"])).toBe('--log-level: unknown log level "inf", expected one of trace, debug, info, warn, error, fatal, silent (did you mean "info"?)');
  });

  it("checks CORS origins: * or a bare origin", () => {
    expect(load(["--cors-origin", "*", "--cors-origin", "https://a.example:8443"], {}).config.corsOrigins).toEqual(["*", "https://a.example:8443"]);
    expect(failure(["--cors-origin", "https://a.example/page"])).toMatch(/^--cors-origin: "corsOrigins.0": must be \* or an origin/);
  });
});
