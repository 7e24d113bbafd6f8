// The README against the code: the reset-code table lists exactly the relay's codes, sorted, with
// the codec's; the configuration table names every flag and variable the relay reads.
import { readFileSync } from "node:fs";
import { LiteErrorCode } from "@handoff/moq-resume/lite";
import { describe, expect, it } from "vitest";
import { CONFIG_ENV, OVERRIDES } from "./config/options.js";
import { RelayCode } from "@handoff/moq-relay";

const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");

/** The text of the README section under `## <title>`. */
function section(title: string): string {
  return readme.split(/^## /m).find((part) => part.startsWith(`${title}\n`)) ?? "";
}

describe("the relay README", () => {
  it("lists every reset and close code the relay uses, once each, in numeric order, and the codec's codes", () => {
    const text = section("Reset and close codes");
    const codes = [...text.matchAll(/^\| (\d+) \|/gm)].map((match) => Number(match[1]));
    const sorted = [...new Set(Object.values(RelayCode))].sort((a, b) => a - b);
    const codec = /codec's own code \(([\d, ]+)\)/.exec(text)?.[1]?.split(", ").map(Number);
    expect([codes, codec]).toEqual([sorted, Object.values(LiteErrorCode).sort((a, b) => a - b)]);
  });

  it("documents every flag and environment variable in the configuration table, old names included", () => {
    const text = section("Configuration");
    const names = [CONFIG_ENV, "--config", ...OVERRIDES.flatMap((option) => [option.env, ...(option.flag === undefined ? [] : [`--${option.flag}`]), ...(option.deprecatedEnv === undefined ? [] : [option.deprecatedEnv])])];
    expect(names.filter((name) => !text.includes(`\`${name}\``))).toEqual([]);
  });
});
