/**
 * Settings given as an object (an embedding service's `createBroker(config)`): the config file's
 * schema and cross-key rules, with the same messages, each prefixed by the given label instead of
 * a file name or a flag.
 * @module
 */
import { formatIssues } from "@handoff/app-kit";
import type { z } from "zod";
import { ConfigError } from "./errors.js";
import { resolveConfig } from "./resolve.js";
import { configSchema } from "./schema.js";
import type { BrokerConfig } from "./types.js";

/** Settings as a service writes them: the config file's keys, every one optional. */
export type BrokerSettings = z.input<typeof configSchema>;

/** Validates `input` like a config file; throws a {@link ConfigError} naming every problem. */
export function configFromObject(input: unknown, label = "createBroker config"): BrokerConfig {
  const sourceOf = (): string => label;
  const parsed = configSchema.safeParse(input);
  if (!parsed.success) throw new ConfigError(formatIssues(parsed.error, input, configSchema, sourceOf));
  const resolved = resolveConfig(parsed.data, undefined);
  if (!resolved.ok) throw new ConfigError(resolved.problems.map((problem) => `${label}: ${problem.message}`).join("\n"));
  return resolved.config;
}
