// Plays one fuzz action through a client framing, the same way in memory and over a socket. Test helper.
import type { FramingSession, StreamId } from "@handoff/qmux";
import type { Action } from "./arbitraries.test-helpers.js";

/** What an action works on: the client's framing and streams, and how bytes and time move. */
export interface Player {
  readonly client: FramingSession;
  /** Streams the client opened, in order. */
  readonly ours: StreamId[];
  /** Bidi streams the relay opened, in order. */
  readonly theirs: readonly StreamId[];
  /** Delivers what the client's framing queued (and what comes back). */
  flush(): void;
  /** Puts bytes on the wire as they are. */
  raw(bytes: Uint8Array): void;
  /** Time passes (a no-op where time is real). */
  tick(ms: number): void;
}

function write(p: Player, id: StreamId, chunks: readonly Uint8Array[], fin: boolean): void {
  chunks.forEach((chunk, i) => {
    p.client.write(id, chunk, fin && i === chunks.length - 1);
    p.flush();
  });
}

/** Applies `action`. */
export function play(p: Player, action: Action): void {
  switch (action.kind) {
    case "open": {
      const r = p.client.openStream(action.bidi);
      if (!r.ok) return;
      p.ours.push(r.streamId);
      write(p, r.streamId, action.chunks, action.fin);
      return;
    }
    case "answer": {
      const id = p.theirs[action.nth];
      if (id !== undefined) write(p, id, action.chunks, action.fin);
      return;
    }
    case "reset": {
      const id = p.ours[action.nth];
      if (id === undefined) return;
      if (action.stop) p.client.stopSending(id, action.code);
      else p.client.reset(id, action.code);
      p.flush();
      return;
    }
    case "raw":
      p.raw(action.bytes);
      return;
    case "tick":
      p.tick(action.ms);
      return;
    default: {
      const never: never = action;
      throw new Error(`unexpected action ${JSON.stringify(never)}`);
    }
  }
}
