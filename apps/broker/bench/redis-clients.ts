// Compares the two Redis clients for the broker's cluster mode on what the Redis store does: a
// fenced write script's round trip one at a time, many at once (pipelined), and a group-commit
// sized script argument. Run from apps/broker:
//   ../../node_modules/.bin/tsx --conditions=@handoff/source bench/redis-clients.ts
// Needs redis-server (Debian's redis-server); starts its own on a free loopback port.
import { Redis } from "ioredis";
import { createClient } from "redis";
import { redisInstalled, startRedis } from "../src/cluster/redis-process.js";

// The shape of the fencing check every store write makes: compare a token, then write.
const SCRIPT = "if redis.call('GET', KEYS[1]) == ARGV[1] then redis.call('SET', KEYS[2], ARGV[2]) return 1 end return 0";

interface Client {
  readonly name: string;
  call(args: readonly string[]): Promise<unknown>;
  close(): Promise<void>;
}

async function ioredis(url: string, autoPipelining: boolean): Promise<Client> {
  const r = new Redis(url, { enableAutoPipelining: autoPipelining, lazyConnect: true });
  await r.connect();
  return {
    name: autoPipelining ? "ioredis 6 (auto-pipelining)" : "ioredis 6",
    call: (args) => r.call(args[0] ?? "PING", ...args.slice(1)),
    close: async () => {
      await r.quit();
    },
  };
}

async function nodeRedis(url: string): Promise<Client> {
  const r = createClient({ url });
  await r.connect();
  return {
    name: "redis (node-redis) 6",
    call: (args) => r.sendCommand([...args]),
    close: async () => {
      await r.close();
    },
  };
}

const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? Number.NaN;

async function sequential(c: Client, sha: string, n: number, value: string): Promise<{ p50: number; p99: number; perSecond: number }> {
  const times: number[] = [];
  const started = performance.now();
  for (let i = 0; i < n; i += 1) {
    const t = performance.now();
    await c.call(["EVALSHA", sha, "2", "fence", `k:${String(i % 100)}`, "7", value]);
    times.push(performance.now() - t);
  }
  const elapsed = performance.now() - started;
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 0.5) * 1000, p99: percentile(times, 0.99) * 1000, perSecond: (n / elapsed) * 1000 };
}

async function concurrent(c: Client, sha: string, total: number, window: number): Promise<number> {
  const started = performance.now();
  for (let done = 0; done < total; done += window) {
    const batch: Promise<unknown>[] = [];
    for (let i = 0; i < window; i += 1) batch.push(c.call(["EVALSHA", sha, "2", "fence", `k:${String(i % 100)}`, "7", "v"]));
    await Promise.all(batch);
  }
  return (total / (performance.now() - started)) * 1000;
}

if (!(await redisInstalled())) {
  console.log("redis clients bench skipped: redis-server is not installed (apt-get install redis-server)");
} else {
  const server = await startRedis();
  try {
    const makers = [() => ioredis(server.url, false), () => ioredis(server.url, true), () => nodeRedis(server.url)];
    console.log("Redis client comparison (redis-server 7, loopback, no persistence)");
    console.log("client                        | seq p50 µs | seq p99 µs | seq ops/s | pipelined ops/s | 16 KiB arg p50 µs | p99 µs");
    for (let round = 0; round < 2; round += 1) {
      for (const make of makers) {
        const c = await make();
        await c.call(["SET", "fence", "7"]);
        const sha = String(await c.call(["SCRIPT", "LOAD", SCRIPT]));
        await sequential(c, sha, 2000, "v"); // warm up
        const small = await sequential(c, sha, 10_000, "v");
        const piped = await concurrent(c, sha, 200_000, 1000);
        const big = await sequential(c, sha, 2000, "x".repeat(16 * 1024));
        await c.call(["FLUSHALL"]);
        await c.close();
        if (round === 0) continue; // the first round warms the JIT for every client
        const f = (n: number): string => n.toFixed(0).padStart(10);
        console.log(`${c.name.padEnd(29)} | ${f(small.p50)} | ${f(small.p99)} | ${f(small.perSecond).padStart(9)} | ${f(piped).padStart(15)} | ${f(big.p50).padStart(17)} | ${f(big.p99)}`);
      }
    }
  } finally {
    await server.stop();
  }
}
