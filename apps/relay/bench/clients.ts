/**
 * Entry of a client process of the relay bench (started by processes.ts with a JSON job in
 * argv[2]). It connects at once and replies `{ connected }` over IPC; then
 * - a publisher publishes `groups` groups stamped with `round` on `{ cmd: "go", round, groups }` and
 *   replies `{ sent }` when done;
 * - subscribers reply the frame count of a round on `{ cmd: "count", round }`, and their counts with
 *   the latency histograms of both rounds on `{ cmd: "report" }`, then exit.
 * @module
 */
import { installPolyfills } from "../src/e2e/harness.test-helpers.js";
import { publisher, type Pace } from "./publisher.js";
import { noCounts, subscribeMany, type Counts, type SubscriberKind } from "./subscribers.js";

/** What a client process does. */
export type ClientJob =
  | { readonly role: "publisher"; readonly server: "relay" | "ws"; readonly port: number; readonly pace: Pace }
  | { readonly role: "subscribers"; readonly kind: SubscriberKind; readonly port: number; readonly count: number };

/** A client process's replies. */
export type ClientReply =
  | { readonly connected: number }
  | { readonly sent: true }
  | { readonly count: number }
  | { readonly frames: number; readonly resets: number; readonly latency: [number, number][]; readonly warmLatency: [number, number][] };

installPolyfills();
// The client libraries log every stream; the bench prints its own table.
for (const level of ["debug", "log", "info", "warn", "error"] as const) console[level] = () => undefined;
// @moq/qmux 0.0.6 can enqueue into a stream controller it already closed when frames race its
// teardown (an uncaught ERR_INVALID_STATE): that ends one client, never the run.
process.on("uncaughtException", (err: Error & { code?: string }) => {
  if (err.code !== "ERR_INVALID_STATE") throw err;
});

const reply = (r: ClientReply, then: () => void = () => undefined): void => {
  process.send?.({ reply: r }, then);
};
const fail = (err: unknown): void => {
  process.send?.({ error: err instanceof Error ? err.message : String(err) }, () => process.exit(1));
};

const job = JSON.parse(process.argv[2] ?? "{}") as ClientJob;
process.on("disconnect", () => process.exit(0));
if (job.role === "publisher") {
  publisher(job.server, job.port, job.pace).then((publish) => {
    reply({ connected: 1 });
    process.on("message", (m: { cmd?: string; round?: number; groups?: number }) => {
      if (m.cmd === "go") publish(m.round ?? 1, m.groups ?? 0).then(() => { reply({ sent: true }); }, fail);
    });
  }, fail);
} else {
  const counts: Counts = noCounts();
  const [warm, measured] = counts.rounds;
  subscribeMany(job.kind, job.port, job.count, counts).then((closers) => {
    reply({ connected: closers.length });
    process.on("message", (m: { cmd?: string; round?: number }) => {
      if (m.cmd === "count") reply({ count: (m.round === 0 ? warm : measured).frames });
      if (m.cmd !== "report") return;
      // Exit without closing each client: a thousand clean closes would only slow the next run.
      reply({ frames: measured.frames, resets: counts.resets, latency: [...measured.latency], warmLatency: [...warm.latency] }, () => process.exit(0));
    });
  }, fail);
}
