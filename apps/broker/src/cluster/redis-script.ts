/**
 * A Lua script run by its SHA1 (EVALSHA), loaded with EVAL the first time a server does not know
 * it (a fresh or restarted Redis forgets loaded scripts).
 * @module
 */
import { createHash } from "node:crypto";
import type { Redis } from "ioredis";

/** One script, runnable on any connection. */
export class RedisScript {
  readonly #source: string;
  readonly #sha: string;

  constructor(source: string) {
    this.#source = source;
    this.#sha = createHash("sha1").update(source).digest("hex");
  }

  /** Runs the script with `keys` as KEYS and `args` as ARGV (binary-safe). */
  async run(redis: Redis, keys: readonly string[], args: readonly (string | Buffer)[]): Promise<unknown> {
    try {
      return await redis.evalsha(this.#sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith("NOSCRIPT")) throw err;
      return redis.eval(this.#source, keys.length, ...keys, ...args);
    }
  }

  /** {@link RedisScript.run} with bulk replies as Buffers (binary values stay intact). */
  async runBuffer(redis: Redis, keys: readonly string[], args: readonly (string | Buffer)[]): Promise<unknown> {
    try {
      return await redis.callBuffer("EVALSHA", this.#sha, keys.length, ...keys, ...args);
    } catch (err) {
      if (!(err instanceof Error) || !err.message.startsWith("NOSCRIPT")) throw err;
      return redis.callBuffer("EVAL", this.#source, keys.length, ...keys, ...args);
    }
  }
}
