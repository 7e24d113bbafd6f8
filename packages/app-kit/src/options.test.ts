import { describe, expect, it } from "vitest";
import { configErrorOf } from "./testing/config-error.js";
import { parseOptionValue, type OptionKind, type OverrideOption } from "./options.js";
import { optionSections } from "./usage.js";

const option = (kind: OptionKind, extra: Partial<OverrideOption> = {}): OverrideOption => ({ flag: "x", env: "APP_X", path: ["x"], kind, arg: "<v>", help: "x", ...extra });

describe("parseOptionValue", () => {
  it("reads ports, booleans, milliseconds, lists, text and words", () => {
    expect([
      parseOptionValue(option("port"), " 8080 ", "--x"),
      parseOptionValue(option("boolean"), "ON", "--x"),
      parseOptionValue(option("ms"), "250", "--x"),
      parseOptionValue(option("list"), "a, b,,c ", "--x"),
      parseOptionValue(option("text"), "", "--x"),
      parseOptionValue(option({ oneOf: ["red", "blue"], what: "colour" }), "red", "--x"),
    ]).toEqual([8080, true, 250, ["a", "b", "c"], "", "red"]);
  });

  it("refuses what does not fit, naming the source", () => {
    expect([
      configErrorOf(() => parseOptionValue(option("port"), "65536", "APP_X")),
      configErrorOf(() => parseOptionValue(option("ms"), "-1", "--x")),
      configErrorOf(() => parseOptionValue(option("string"), "", "--x")),
      configErrorOf(() => parseOptionValue(option({ oneOf: ["red", "blue"], what: "colour" }), "bleu", "--x")),
    ]).toEqual([
      'APP_X: not a port number: "65536" (expected 0..65535; 0 picks a free port)',
      '--x: not milliseconds: "-1" (expected a whole number, 0 or more)',
      "--x: must not be empty",
      '--x: unknown colour "bleu", expected one of red, blue (did you mean "blue"?)',
    ]);
  });
});

describe("optionSections", () => {
  it("lists flags, then variables with the flag each stands for, environment-only settings and deprecated names last", () => {
    const lines = optionSections([option("port", { deprecatedEnv: "OLD_X" }), { env: "APP_SECRET", path: ["s"], kind: "string", arg: "", help: "the secret" }], "APP_CONFIG");
    expect(lines.map((line) => line.trim().replace(/\s+/g, " "))).toEqual([
      "Options:",
      "--help print this and exit",
      "--config <file> YAML config file (env APP_CONFIG)",
      "--x <v> x",
      "",
      "Environment variables:",
      "APP_CONFIG --config",
      "APP_X --x",
      "APP_SECRET the secret",
      "OLD_X deprecated name of APP_X",
    ]);
  });
});
