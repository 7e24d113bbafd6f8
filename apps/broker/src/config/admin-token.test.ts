import { configErrorOf } from "@handoff/app-kit/testing";
import { describe, expect, it } from "vitest";
import { loadConfig, type Env } from "./load.js";

function load(argv: string[], env: Env = {}, file?: string) {
  const result = loadConfig(file === undefined ? argv : ["--config", "b.yaml", ...argv], env, () => file ?? "");
  if (result.kind !== "run") throw new Error("expected settings, got help");
  return result.config;
}

function failure(argv: string[], env: Env = {}): string {
  return configErrorOf(() => loadConfig(argv, env, () => ""));
}

describe("admin.token", () => {
  it("is unset by default, which keeps the admin API off", () => {
    expect(load([]).admin).toEqual({ token: undefined });
  });

  it("comes from the config file, HANDOFF_BROKER_ADMIN_TOKEN or --admin-token, the flag winning", () => {
    const secret = "a-secret-of-24-characters";
    expect([
      load([], {}, `admin: { token: ${secret} }\n`).admin.token,
      load([], { HANDOFF_BROKER_ADMIN_TOKEN: secret }).admin.token,
      load(["--admin-token", `${secret}-flag`], { HANDOFF_BROKER_ADMIN_TOKEN: secret }).admin.token,
    ]).toEqual([secret, secret, `${secret}-flag`]);
  });

  it("refuses a token shorter than 16 characters, naming where it came from but not echoing it", () => {
    const message = failure([], { HANDOFF_BROKER_ADMIN_TOKEN: "short-secret" });
    expect([message.includes("short-secret"), message]).toEqual([false, expect.stringMatching(/^HANDOFF_BROKER_ADMIN_TOKEN: .*admin\.token.*16 to 4096 characters/)]);
  });

  it("refuses a token with spaces, which no bearer header could carry", () => {
    expect(failure(["--admin-token", "sixteen chars and more"])).toMatch(/--admin-token.*must not contain spaces/);
  });
});
