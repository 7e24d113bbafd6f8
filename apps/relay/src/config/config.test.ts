import { describe, expect, it } from "vitest";
import { ConfigError, defaults, parseConfig, parseConfigFile } from "./config.js";

describe("parseConfig", () => {
  it("binds the internal ports to loopback, checks raw TCP like an anonymous WebSocket, and requires exp by default", () => {
    expect(defaults).toMatchObject({ internalHost: "127.0.0.1", tcpAccess: "public", adminToken: undefined, auth: { requireExp: true } });
  });

  it("reads the access settings from flags, env and the file", () => {
    const file = "internalHost: 10.0.0.5\nadmin:\n  token: admin-token-0123456789\nauth:\n  key: 0123456789abcdef\n  audience: relay\n  issuer: [a, b]\n  requireExp: false\n";
    const parsed = parseConfig(["--config", "r.yaml"], {}, () => file);
    expect(parsed).toMatchObject({
      kind: "run",
      config: { internalHost: "10.0.0.5", adminToken: "admin-token-0123456789", auth: { audience: ["relay"], issuer: ["a", "b"], requireExp: false } },
    });
    expect(parseConfig(["--internal-host", "::1"], { HANDOFF_RELAY_ADMIN_TOKEN: "env-admin-token-0123" })).toMatchObject({
      config: { internalHost: "::1", adminToken: "env-admin-token-0123" },
    });
    expect(() => parseConfig([], { HANDOFF_RELAY_ADMIN_TOKEN: "short" })).toThrow(ConfigError);
  });

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

  it("reads --log-pretty from the flag, the environment or the file, and refuses a bad env value", () => {
    const pretty = (argv: string[], env: NodeJS.ProcessEnv, file = ""): boolean | undefined => {
      const parsed = parseConfig(argv, env, () => file);
      return parsed.kind === "run" ? parsed.config.logPretty : undefined;
    };
    expect([pretty([], {}), pretty(["--log-pretty"], {}), pretty([], { HANDOFF_RELAY_LOG_PRETTY: "1" })]).toEqual([false, true, true]);
    expect(pretty(["--config", "r.yaml"], {}, "logPretty: true\n")).toBe(true);
    expect(() => parseConfig([], { HANDOFF_RELAY_LOG_PRETTY: "maybe" })).toThrow(/HANDOFF_RELAY_LOG_PRETTY: expected true or false/);
  });

  it("turns the demo page on with --demo, HANDOFF_RELAY_DEMO or the file; off by default", () => {
    const demo = (argv: string[], env: NodeJS.ProcessEnv, file = ""): boolean | undefined => {
      const parsed = parseConfig(argv, env, () => file);
      return parsed.kind === "run" ? parsed.config.demo : undefined;
    };
    expect([demo([], {}), demo(["--demo"], {}), demo([], { HANDOFF_RELAY_DEMO: "1" }), demo(["--config", "r.yaml"], {}, "demo: true\n")]).toEqual([false, true, true, true]);
    expect(() => parseConfig([], { HANDOFF_RELAY_DEMO: "maybe" })).toThrow(/HANDOFF_RELAY_DEMO: expected true or false/);
  });

  it("reads tcp and metrics ports from flags", () => {
    const parsed = parseConfig(["--tcp-port", "4444", "--metrics-port", "0"], {});
    expect(parsed.kind === "run" && [parsed.config.tcpPort, parsed.config.metricsPort]).toEqual([4444, 0]);
  });

  it("reads auth settings from the file and the key from the environment", () => {
    const file = "auth:\n  publicSubscribe: [anon]\n";
    const parsed = parseConfig(["--config", "r.yaml"], { HANDOFF_RELAY_AUTH_KEY: "0123456789abcdef" }, () => file);
    expect(parsed.kind === "run" && parsed.config.auth).toEqual({
      key: "0123456789abcdef",
      publicSubscribe: ["anon"],
      publicPublish: [],
      audience: [],
      issuer: [],
      requireExp: true,
    });
  });

  it("reads peers from repeated flags, the environment or the file, and checks their URLs", () => {
    const flags = parseConfig(["--peer", "tcp://10.0.0.2:4444?cost=2", "--peer", "ws://10.0.0.3:4443/anon"], {});
    expect(flags.kind === "run" && flags.config.cluster.peers).toEqual(["tcp://10.0.0.2:4444?cost=2", "ws://10.0.0.3:4443/anon"]);
    const env = parseConfig([], { HANDOFF_RELAY_PEERS: "tcp://a:1, tcp://b:2" });
    expect(env.kind === "run" && env.config.cluster.peers).toEqual(["tcp://a:1", "tcp://b:2"]);
    const file = parseConfig(["--config", "r.yaml"], {}, () => "cluster:\n  peers: [tcp://c:3]\n  handoverTimeoutMs: 200\n");
    expect(file.kind === "run" && [file.config.cluster.peers, file.config.cluster.handoverTimeoutMs]).toEqual([["tcp://c:3"], 200]);
    expect(() => parseConfig(["--peer", "http://x:1"], {})).toThrow(/peer: unsupported scheme/);
  });

  it("reads the drain redirect and window", () => {
    const parsed = parseConfig(["--redirect", "tcp://sibling:4444", "--drain-timeout", "0"], {});
    expect(parsed.kind === "run" && [parsed.config.cluster.redirect, parsed.config.cluster.drainTimeoutMs]).toEqual(["tcp://sibling:4444", 0]);
    expect(() => parseConfig(["--drain-timeout", "soon"], {})).toThrow(/not milliseconds/);
  });

  it("reads TLS files from flags or the file, and refuses a certificate without a key", () => {
    const flags = parseConfig(["--tls-cert", "c.pem", "--tls-key", "k.pem"], {});
    expect(flags.kind === "run" && flags.config.tls).toEqual({ cert: "c.pem", key: "k.pem", ca: undefined });
    const file = parseConfig(["--config", "r.yaml"], {}, () => "tls:\n  cert: c.pem\n  key: k.pem\n  ca: ca.pem\n");
    expect(file.kind === "run" && file.config.tls).toEqual({ cert: "c.pem", key: "k.pem", ca: "ca.pem" });
    expect(() => parseConfig(["--tls-cert", "c.pem"], {})).toThrow(/both a certificate/);
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
    ).toThrow(/cannot read config file missing.yaml: ENOENT/);
  });
});

describe("parseConfigFile", () => {
  it("names the field that is wrong", () => {
    expect(() => parseConfigFile("port: 70000\n", "relay.yaml")).toThrow(/^config file relay.yaml: "port": not a port number: number 70000 \(expected 0..65535\)$/);
  });

  it("refuses unknown keys", () => {
    expect(() => parseConfigFile("prot: 1\n", "relay.yaml")).toThrow(ConfigError);
    expect(() => parseConfigFile("prot: 1\n", "relay.yaml")).toThrow('config file relay.yaml: unknown key "prot" at top level (did you mean "port"?)');
  });

  it("refuses invalid YAML", () => {
    expect(() => parseConfigFile("port: [1,\n", "relay.yaml")).toThrow(/config file relay.yaml: invalid YAML/);
  });

  it("accepts an empty file", () => {
    expect(parseConfigFile("", "relay.yaml")).toEqual({});
  });
});
