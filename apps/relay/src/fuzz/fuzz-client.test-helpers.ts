// Drives one fuzz case against a LiteSession in memory, at the transport seam: the client side
// runs a real framing of the same kind, and every byte goes through the session's receive. Test helper.
import { ALLOW_ALL, LiteSession, type Origin } from "@handoff/moq-relay";
import { createFraming, type StreamId } from "@handoff/qmux";
import type { FuzzCase } from "./arbitraries.test-helpers.js";
import { play, type Player } from "./play.test-helpers.js";

/** What went wrong in a case: only bugs count (a refusal, reset or close of bad input is the answer). */
export interface CaseResult {
  /** Contained errors (`where`: message) and internal-error closes: each is a relay bug. */
  readonly bugs: readonly string[];
  /** The session was closed by the relay (bad input often is). */
  readonly closed: boolean;
}

/**
 * Runs `c` as session `id` of `origin`; throws only if the session itself threw (a bug).
 * `afterAction` runs after each action (a test lets other sessions react: subscribe to what the
 * case announced).
 */
export function runCase(origin: Origin, id: number, c: FuzzCase, afterAction?: () => void): CaseResult {
  const kind = c.connection.framing;
  const client = createFraming(kind, { role: "client", autoConsume: true });
  const bugs: string[] = [];
  const toClient: Uint8Array[] = [];
  const deferred: (() => void)[] = [];
  let closed = false;
  const session = new LiteSession({
    id,
    framing: createFraming(kind, { role: "server", autoConsume: true }),
    mode: c.connection.version === undefined ? { kind: "setup" } : { kind: "fixed", version: c.connection.version },
    origin,
    root: "",
    permissions: ALLOW_ALL,
    defer: (fn) => deferred.push(fn),
    fault: (where, error) => {
      bugs.push(`${where}: ${String(error)}`);
    },
    sink: {
      send: (bytes) => toClient.push(bytes),
      closed: (_code, reason) => {
        closed = true;
        if (reason.startsWith("internal error")) bugs.push(`closed: ${reason}`);
      },
    },
  });
  const ours: StreamId[] = [];
  const theirs: StreamId[] = [];
  const pump = (): void => {
    // Bounded: a relay that never stops talking to a silent client would be a bug of its own.
    for (let round = 0; round < 10_000; round++) {
      const bytes = toClient.shift();
      if (bytes !== undefined) client.receive(bytes);
      let sent = false;
      for (const e of client.poll()) {
        if (e.kind === "send") {
          session.receive(e.bytes);
          sent = true;
        } else if (e.kind === "stream-opened" && e.bidi) theirs.push(e.streamId);
      }
      const later = deferred.splice(0);
      for (const fn of later) fn();
      if (bytes === undefined && !sent && later.length === 0 && toClient.length === 0) return;
    }
    bugs.push("the exchange did not settle");
  };
  let now = 0;
  const player: Player = {
    client,
    ours,
    theirs,
    flush: pump,
    raw: (bytes) => {
      session.receive(bytes);
    },
    tick: (ms) => {
      now += ms;
      session.tick(now);
      client.tick(now);
    },
  };
  session.start();
  pump();
  for (const action of c.actions) {
    play(player, action);
    pump();
    afterAction?.();
    pump();
  }
  const closedByRelay = closed;
  session.close(0, "case over");
  pump();
  return { bugs, closed: closedByRelay };
}
