import { type LiteMessage, LiteStreamReader, type LiteVersion } from "@handoff/moq-resume/lite";
import type { StreamId } from "../transport/index.js";
import type { Announces } from "./announces.js";
import { refuse, type SessionContext } from "./context.js";
import type { Handler } from "./handler.js";
import type { Serving } from "./serving.js";
import { InboundGroup } from "./upstream.js";
import type { Upstreams } from "./upstreams.js";

/** What the dispatcher leaves to the session itself. */
export interface DispatchHooks {
  /** Bytes on the SETUP stream (version negotiation). */
  setupData(id: StreamId, reader: LiteStreamReader, bytes: Uint8Array, fin: boolean): void;
  /** The peer sent GOAWAY. */
  goaway(uri: string): void;
}

/** The handlers that read control messages off an accepted bidi stream. */
type ControlHandler = Extract<Handler, { kind: "accepted" | "announce-serve" | "subscribe-serve" | "ignore" }>;

/**
 * Routes each stream's events to the module that owns its kind: control streams the peer opened
 * (ANNOUNCE_REQUEST, SUBSCRIBE), our announce and subscribe streams, and group streams both ways.
 */
export class StreamDispatch {
  constructor(
    private readonly ctx: SessionContext,
    private readonly announces: Announces,
    private readonly serving: Serving,
    private readonly upstreams: Upstreams,
    private readonly hooks: DispatchHooks,
  ) {}

  /** A stream the peer opened once the version is known: bidi is control, uni is a group. */
  opened(id: StreamId, bidi: boolean, version: LiteVersion): void {
    if (bidi) this.ctx.handlers.set(id, { kind: "accepted", reader: new LiteStreamReader({ role: "accepted-bidi", version }) });
    else this.ctx.handlers.set(id, { kind: "group-in", group: new InboundGroup(version, this.ctx.limits.maxGroupBytes) });
  }

  /** Bytes (and FIN) on stream `id`. */
  data(id: StreamId, bytes: Uint8Array, fin: boolean): void {
    const handler = this.ctx.handlers.get(id);
    if (handler === undefined) return;
    switch (handler.kind) {
      case "setup":
        this.hooks.setupData(id, handler.reader, bytes, fin);
        return;
      case "accepted":
      case "announce-serve":
      case "subscribe-serve":
      case "ignore":
        handler.reader.push(bytes);
        if (fin) handler.reader.end();
        this.#control(id);
        return;
      case "announce-intake":
        handler.reader.push(bytes);
        if (fin) handler.reader.end();
        this.announces.intake(id, handler.reader);
        return;
      case "upstream":
        this.upstreams.receive(id, handler.sub, bytes, fin);
        return;
      case "group-in":
        this.upstreams.receiveGroup(id, handler.group, bytes, fin);
        return;
      case "group-out":
      case "goaway-out":
        return;
      default: {
        const never: never = handler;
        throw new Error(`unexpected handler ${JSON.stringify(never)}`);
      }
    }
  }

  /** The peer reset stream `id` (or, with `stopSending`, asked us to stop sending on it). */
  reset(id: StreamId, code: number, stopSending: boolean): void {
    const ctx = this.ctx;
    const handler = ctx.handlers.get(id);
    if (handler === undefined) return;
    switch (handler.kind) {
      case "group-out":
        // The peer does not want the rest of this group (the framing already reset it).
        this.serving.abandon(handler.group, code);
        return;
      case "group-in":
        if (stopSending) return;
        ctx.handlers.delete(id);
        handler.group.reset();
        return;
      case "upstream":
        this.upstreams.reset(id, handler.sub, code, stopSending);
        return;
      case "subscribe-serve":
        ctx.handlers.delete(id);
        if (handler.sub !== undefined) this.serving.end(handler.sub, code);
        return;
      case "announce-serve":
        ctx.handlers.delete(id);
        handler.close();
        refuse(ctx.io, id, true, code);
        return;
      case "announce-intake":
        ctx.handlers.delete(id);
        this.announces.withdrawAll();
        refuse(ctx.io, id, true, code);
        return;
      case "setup":
        ctx.close(code, "session stream reset");
        return;
      case "accepted":
      case "ignore":
      case "goaway-out":
        ctx.handlers.delete(id);
        refuse(ctx.io, id, true, code);
        return;
      default: {
        const never: never = handler;
        throw new Error(`unexpected handler ${JSON.stringify(never)}`);
      }
    }
  }

  #control(id: StreamId): void {
    for (;;) {
      const handler = this.ctx.handlers.get(id);
      if (handler === undefined) return;
      if (handler.kind !== "accepted" && handler.kind !== "announce-serve" && handler.kind !== "subscribe-serve" && handler.kind !== "ignore") return;
      const step = handler.reader.next();
      switch (step.kind) {
        case "need_more":
          return;
        case "end":
          this.#controlEnd(id, handler);
          return;
        case "error":
          this.#controlFailed(id, handler, step.error.code);
          return;
        case "message":
          this.#controlMessage(id, handler, step.message);
          continue;
        default: {
          const never: never = step;
          throw new Error(`unexpected step ${JSON.stringify(never)}`);
        }
      }
    }
  }

  #controlMessage(id: StreamId, handler: ControlHandler, msg: LiteMessage): void {
    if (msg.type === "stream_header") {
      // PROBE (answered by leaving it open: an error there closes @moq/lite's whole session),
      // GOAWAY and the rest are read and otherwise ignored.
      if (msg.kind !== "announce" && msg.kind !== "subscribe" && handler.kind === "accepted") {
        this.ctx.handlers.set(id, { kind: "ignore", reader: handler.reader });
      }
    } else if (msg.type === "announce_request") {
      if (handler.kind === "accepted") this.announces.serve(id, handler.reader, msg);
    } else if (msg.type === "subscribe") {
      if (handler.kind === "accepted") this.serving.serve(id, handler.reader, msg);
    } else if (msg.type === "subscribe_update") {
      if (handler.kind === "subscribe-serve") handler.sub?.update(msg);
    } else if (msg.type === "goaway") {
      this.hooks.goaway(msg.uri);
    }
    // Anything else on an accepted stream (PROBE reports) needs no answer.
  }

  #controlEnd(id: StreamId, handler: ControlHandler): void {
    const ctx = this.ctx;
    ctx.handlers.delete(id);
    if (handler.kind === "subscribe-serve" && handler.sub !== undefined) {
      // The peer unsubscribed (FIN): stop sending and close our side too.
      this.serving.end(handler.sub, undefined);
      return;
    }
    if (handler.kind === "announce-serve") handler.close();
    ctx.io.write(id, new Uint8Array(0), true);
  }

  #controlFailed(id: StreamId, handler: ControlHandler, code: number): void {
    const ctx = this.ctx;
    ctx.handlers.delete(id);
    if (handler.kind === "subscribe-serve" && handler.sub !== undefined) this.serving.end(handler.sub, code);
    else {
      if (handler.kind === "announce-serve") handler.close();
      refuse(ctx.io, id, true, code);
    }
  }
}
