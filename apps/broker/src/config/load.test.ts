import { configErrorOf } from "@handoff/app-kit/testing";
import { describe, expect, it } from "vitest";
import { loadConfig, type Env } from "./load.js";
import type { BrokerConfig } from "./types.js";

/** A readFile over an in-memory set of files; anything else fails like a missing file does. */
function files(contents: Record<string, string>): (path: string) => string {
  return (path) => {
    const text = contents[path];
    if (text === undefined) throw new Error(`ENOENT: no such file or directory, open '${path}'`);
    return text;
  };
}

function load(argv: string[], env: Env = {}, contents: Record<string, string> = {}): BrokerConfig {
  const result = loadConfig(argv, env, files(contents));
  if (result.kind !== "run") throw new Error("expected settings, got help");
  return result.config;
}

function failure(argv: string[], env: Env = {}, contents: Record<string, string> = {}): string {
  return configErrorOf(() => loadConfig(argv, env, files(contents)));
}

describe("loadConfig defaults", () => {
  it("starts TCP on 1883, WebSocket on 8080 at /mqtt and HTTP on 9883, on loopback only while anonymous clients are allowed", () => {
    const config = load([]);
    expect(config.listeners.tcp).toEqual({ host: "127.0.0.1", port: 1883 });
    expect(config.listeners.ws).toEqual({ host: "127.0.0.1", port: 8080, path: "/mqtt" });
    expect(config.http).toEqual({ host: "127.0.0.1", port: 9883 });
    expect(config.loopbackOnly).toBe(true);
  });

  it("with a password file turns anonymous access off and listens on every interface, HTTP still on loopback", () => {
    const config = load(["--password-file", "pw"]);
    expect(config.auth.allowAnonymous).toBe(false);
    expect(config.listeners.tcp).toEqual({ host: "0.0.0.0", port: 1883 });
    expect(config.http).toEqual({ host: "127.0.0.1", port: 9883 });
    expect(config.loopbackOnly).toBe(false);
  });

  it("keeps anonymous access with a password file only when asked, and then stays on loopback unless a host is set", () => {
    expect(load(["--password-file", "pw", "--allow-anonymous", "true"])).toMatchObject({ auth: { allowAnonymous: true }, loopbackOnly: true });
    const open = load(["--host", "0.0.0.0"]);
    expect([open.listeners.tcp?.host, open.loopbackOnly, open.http?.host]).toEqual(["0.0.0.0", false, "127.0.0.1"]);
  });

  it("leaves TLS and secure WebSocket off without certificates", () => {
    const config = load([]);
    expect(config.listeners.tls).toBeUndefined();
    expect(config.listeners.wss).toBeUndefined();
  });

  it("defaults to sqlite storage in ./data, anonymous access and drop-oldest queues", () => {
    const config = load([]);
    expect([config.storage, config.dataDir, config.auth.allowAnonymous, config.queue.overflow]).toEqual(["sqlite", "./data", true, "drop-oldest"]);
  });

  it("gives a connection 10 s to complete its CONNECT by default", () => {
    expect(load([]).limits.connectTimeout).toBe(10);
  });

  it("lets a client send 1 MiB of packets before its CONNACK by default, and a config file change that", () => {
    expect(load([]).limits.maxBytesBeforeConnack).toBe(1_048_576);
    expect(load(["--config", "b.yaml"], {}, { "b.yaml": "limits: { maxBytesBeforeConnack: 4096 }\n" }).limits.maxBytesBeforeConnack).toBe(4096);
  });

  it("caps sessions, subscriptions per session and retained messages by default, and gives clients 2 s at shutdown", () => {
    const config = load([]);
    expect(config.limits).toMatchObject({ maxSessions: 100_000, maxSubscriptionsPerSession: 10_000, maxRetainedMessages: 100_000, maxRetainedBytes: 268_435_456 });
    expect(config.shutdownGraceMs).toBe(2000);
    const set = load(["--config", "b.yaml"], {}, { "b.yaml": "shutdownGraceMs: 100\nlimits: { maxSessions: 5, maxSubscriptionsPerSession: 6, maxRetainedMessages: 7, maxRetainedBytes: 8 }\n" });
    expect(set.limits).toMatchObject({ maxSessions: 5, maxSubscriptionsPerSession: 6, maxRetainedMessages: 7, maxRetainedBytes: 8 });
    expect(set.shutdownGraceMs).toBe(100);
  });

  it("records that no config file was read", () => {
    expect(load([]).configFile).toBeUndefined();
  });
});

describe("loadConfig precedence", () => {
  const file = { "broker.yaml": "listeners:\n  tcp:\n    port: 1000\nlogLevel: debug\n" };

  it("takes a value from the config file over the default", () => {
    expect(load(["--config", "broker.yaml"], {}, file).listeners.tcp?.port).toBe(1000);
  });

  it("takes an environment variable over the config file", () => {
    expect(load(["--config", "broker.yaml"], { HANDOFF_BROKER_PORT: "2000" }, file).listeners.tcp?.port).toBe(2000);
  });

  it("takes a flag over the environment and the config file", () => {
    expect(load(["--config", "broker.yaml", "--port", "3000"], { HANDOFF_BROKER_PORT: "2000" }, file).listeners.tcp?.port).toBe(3000);
  });

  it("keeps config file values that nothing overrides", () => {
    expect(load(["--config", "broker.yaml", "--port", "3000"], {}, file).logLevel).toBe("debug");
  });

  it("finds the config file through HANDOFF_BROKER_CONFIG", () => {
    expect(load([], { HANDOFF_BROKER_CONFIG: "broker.yaml" }, file).configFile).toBe("broker.yaml");
  });

  it("accepts port 0 to pick a free port", () => {
    expect(load(["--port", "0"]).listeners.tcp?.port).toBe(0);
  });

  it("binds every listener to --host, even those the file gave a host", () => {
    const config = load(["--config", "b.yaml", "--host", "127.0.0.1"], {}, { "b.yaml": "listeners:\n  ws:\n    host: 10.0.0.1\n" });
    expect([config.listeners.tcp?.host, config.listeners.ws?.host, config.http?.host]).toEqual(["127.0.0.1", "127.0.0.1", "127.0.0.1"]);
  });

  it("lets a listener's own host in the file win over the top-level host of the file", () => {
    const config = load(["--config", "b.yaml"], {}, { "b.yaml": "host: 127.0.0.1\nlisteners:\n  ws:\n    host: 10.0.0.1\n" });
    expect([config.listeners.tcp?.host, config.listeners.ws?.host]).toEqual(["127.0.0.1", "10.0.0.1"]);
  });

  it("reads booleans from the environment in their common spellings", () => {
    expect([load([], { HANDOFF_BROKER_LOG_PRETTY: "yes" }).logPretty, load([], { HANDOFF_BROKER_LOG_PRETTY: "0" }).logPretty]).toEqual([true, false]);
  });

  it("turns --log-pretty on without a value", () => {
    expect(load(["--log-pretty"]).logPretty).toBe(true);
  });

  it("enables TLS when a certificate and a key are given", () => {
    const config = load(["--tls-cert", "c.pem", "--tls-key", "k.pem", "--tls-port", "0"]);
    expect(config.listeners.tls).toMatchObject({ port: 0, cert: "c.pem", key: "k.pem", requireClientCert: false });
  });

  it("resolves relative paths in the config file against its directory", () => {
    const config = load(["--config", "etc/broker.yaml"], {}, { "etc/broker.yaml": "dataDir: state\nauth:\n  aclFile: /abs/acl\n  passwordFile: pw\n" });
    expect([config.dataDir, config.auth.aclFile, config.auth.passwordFile]).toEqual(["etc/state", "/abs/acl", "etc/pw"]);
  });

  it("reads an empty config file as all defaults", () => {
    expect(load(["--config", "empty.yaml"], {}, { "empty.yaml": "" }).listeners.tcp?.port).toBe(1883);
  });

  it("turns a listener off with enabled: false", () => {
    expect(load(["--config", "b.yaml"], {}, { "b.yaml": "listeners:\n  ws:\n    enabled: false\n" }).listeners.ws).toBeUndefined();
  });
});

describe("loadConfig --help", () => {
  it("returns usage text that lists every flag and environment variable", () => {
    const result = loadConfig(["--help"], {}, files({}));
    if (result.kind !== "help") throw new Error("expected help");
    for (const name of ["--config", "--host", "--port", "--tls-port", "--ws-port", "--http-port", "--data-dir", "--log-level", "--log-pretty"]) {
      expect(result.text).toContain(name);
    }
    for (const name of ["HANDOFF_BROKER_CONFIG", "HANDOFF_BROKER_PORT", "HANDOFF_BROKER_HTTP_PORT", "HANDOFF_BROKER_LOG_LEVEL"]) {
      expect(result.text).toContain(name);
    }
  });

  it("wins over an invalid environment", () => {
    expect(loadConfig(["--help"], { HANDOFF_BROKER_PORT: "x" }, files({})).kind).toBe("help");
  });
});

describe("loadConfig errors", () => {
  it("names an unknown top-level key with a spelling hint", () => {
    expect(failure(["--config", "broker.yaml"], {}, { "broker.yaml": "listners: {}\n" })).toBe(
      'config file broker.yaml: unknown key "listners" at top level (did you mean "listeners"?)',
    );
  });

  it("names the object an unknown nested key sits in", () => {
    expect(failure(["--config", "b.yaml"], {}, { "b.yaml": "listeners:\n  tcp:\n    prot: 1\n" })).toBe(
      'config file b.yaml: unknown key "prot" in "listeners.tcp" (did you mean "port"?)',
    );
  });

  it("points a key written at the wrong level to where it belongs", () => {
    expect(failure(["--config", "b.yaml"], {}, { "b.yaml": "tcp:\n  port: 1\n" })).toBe(
      'config file b.yaml: unknown key "tcp" at top level (did you mean "listeners.tcp"?)',
    );
  });

  it("gives no hint for an unknown key that resembles nothing", () => {
    expect(failure(["--config", "b.yaml"], {}, { "b.yaml": "zzzzzzzz: 1\n" })).toBe('config file b.yaml: unknown key "zzzzzzzz" at top level');
  });

  it("names the path and the expected type of a wrong type", () => {
    expect(failure(["--config", "b.yaml"], {}, { "b.yaml": "logPretty: sometimes\n" })).toBe(
      'config file b.yaml: "logPretty" must be true or false (got string "sometimes")',
    );
  });

  it("says a port in the file is not a port number", () => {
    expect(failure(["--config", "b.yaml"], {}, { "b.yaml": "listeners:\n  ws:\n    port: 70000\n" })).toBe(
      'config file b.yaml: "listeners.ws.port": not a port number: number 70000 (expected 0..65535)',
    );
  });

  it("refuses a flag port that is not a number", () => {
    expect(failure(["--port", "nope"])).toMatch(/^--port: not a port number: "nope"/);
  });

  it("refuses an environment port that is out of range, naming the variable", () => {
    expect(failure([], { HANDOFF_BROKER_HTTP_PORT: "65536" })).toMatch(/^HANDOFF_BROKER_HTTP_PORT: not a port number/);
  });

  it("refuses a certificate without a key", () => {
    expect(failure(["--tls-cert", "c.pem"])).toBe('--tls-cert: "listeners.tls": "cert" is set but "key" is not; a TLS listener needs both');
  });

  it("refuses a key without a certificate in the config file", () => {
    expect(failure(["--config", "b.yaml"], {}, { "b.yaml": "listeners:\n  wss:\n    key: k.pem\n" })).toBe(
      'config file b.yaml: "listeners.wss": "key" is set but "cert" is not; a TLS listener needs both',
    );
  });

  it("refuses requiring client certificates without a CA", () => {
    const yaml = "listeners:\n  tls:\n    cert: c\n    key: k\n    requireClientCert: true\n";
    expect(failure(["--config", "b.yaml"], {}, { "b.yaml": yaml })).toMatch(/"requireClientCert" needs "ca"/);
  });

  it("reports a config file that cannot be read", () => {
    expect(failure(["--config", "missing.yaml"])).toBe("cannot read config file missing.yaml: ENOENT: no such file or directory, open 'missing.yaml'");
  });

  it("reports invalid YAML with its position", () => {
    expect(failure(["--config", "b.yaml"], {}, { "b.yaml": "a: [1\n" })).toMatch(/^config file b\.yaml: invalid YAML: .*line 2, column 1/);
  });

  it("reports a key written twice in YAML", () => {
    expect(failure(["--config", "b.yaml"], {}, { "b.yaml": "logLevel: info\nlogLevel: debug\n" })).toMatch(/^config file b\.yaml: invalid YAML: .*unique/i);
  });

  it("refuses a config file whose top level is not a mapping", () => {
    expect(failure(["--config", "b.yaml"], {}, { "b.yaml": "- 1\n" })).toBe("config file b.yaml: the top level must be a mapping of keys to values");
  });

  it("lists every problem of a config file, one per line", () => {
    expect(failure(["--config", "b.yaml"], {}, { "b.yaml": "a: 1\nb: 2\n" }).split("\n")).toHaveLength(2);
  });

  it("refuses an unknown log level with the allowed ones", () => {
    expect(failure(["--log-level", "loud"])).toMatch(/^--log-level: unknown log level "loud", expected one of trace, debug/);
  });

  it("refuses an unknown storage kind with a hint", () => {
    expect(failure([], { HANDOFF_BROKER_STORAGE: "sqlite3" })).toMatch(/did you mean "sqlite"\?/);
  });

  it("refuses a boolean it cannot read", () => {
    expect(failure([], { HANDOFF_BROKER_ALLOW_ANONYMOUS: "maybe" })).toBe('HANDOFF_BROKER_ALLOW_ANONYMOUS: expected true or false, got "maybe"');
  });

  it("refuses an unknown flag with a hint", () => {
    expect(failure(["--prot", "1"])).toBe('unknown flag --prot (did you mean "--port"?); --help lists them');
  });

  it("refuses a flag without its value", () => {
    expect(failure(["--port"])).toBe("--port needs a value; --help lists the flags");
  });

  it("refuses a positional argument", () => {
    expect(failure(["broker.yaml"])).toBe('unexpected argument "broker.yaml"; --help lists the flags');
  });

  it("refuses an unknown HANDOFF_BROKER_ variable with a hint", () => {
    expect(failure([], { HANDOFF_BROKER_PROT: "1" })).toBe('unknown environment variable HANDOFF_BROKER_PROT (did you mean "HANDOFF_BROKER_PORT"?)');
  });

  it("ignores environment variables of other programs", () => {
    expect(load([], { PATH: "/bin", HANDOFF_RELAY_PORT: "1" }).listeners.tcp?.port).toBe(1883);
  });

  it("refuses two listeners on the same port", () => {
    expect(failure(["--ws-port", "1883"])).toBe('--ws-port: "listeners.tcp" and "listeners.ws" both use port 1883');
  });

  it("allows two listeners on port 0", () => {
    expect(load(["--port", "0", "--ws-port", "0"]).listeners.ws?.port).toBe(0);
  });

  it("refuses disabling anonymous access without a password file", () => {
    expect(failure(["--allow-anonymous", "false"])).toMatch(/"auth.allowAnonymous" is false but no "auth.passwordFile" is set/);
  });

  it("refuses a keep alive minimum above the maximum", () => {
    expect(failure(["--config", "b.yaml"], {}, { "b.yaml": "limits:\n  keepAlive:\n    min: 100\n    max: 10\n" })).toMatch(/min \(100\) is above max \(10\)/);
  });

  it("refuses a client id cap below the 23 characters the spec requires", () => {
    expect(failure(["--config", "b.yaml"], {}, { "b.yaml": "limits:\n  maxClientIdLength: 8\n" })).toBe(
      'config file b.yaml: "limits.maxClientIdLength" must be at least 23 (got number 8)',
    );
  });

  it("refuses a WebSocket path without a leading slash", () => {
    expect(failure(["--config", "b.yaml"], {}, { "b.yaml": "listeners:\n  ws:\n    path: mqtt\n" })).toBe(
      'config file b.yaml: "listeners.ws.path" must start with "/" (got string "mqtt")',
    );
  });

  it("refuses a mapping where a number belongs, naming the expected type", () => {
    expect(failure(["--config", "b.yaml"], {}, { "b.yaml": "limits:\n  maxInflight: {a: 1}\n" })).toBe(
      'config file b.yaml: "limits.maxInflight" must be a number (got a mapping)',
    );
  });
});
