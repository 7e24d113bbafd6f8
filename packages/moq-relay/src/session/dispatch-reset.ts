import type { StreamId } from "@handoff/qmux";
import type { Announces } from "../announce/index.js";
import { refuse, type RoleChanges, type SessionContext } from "../context/index.js";
import type { Serving } from "../serve/index.js";
import type { StreamRole } from "./stream-role.js";
import type { Upstreams } from "../upstream/index.js";

/** What the dispatcher hands {@link peerReset}: its table (as role changes) and the modules. */
export interface ResetScope {
  readonly ctx: SessionContext;
  readonly roles: RoleChanges<StreamRole>;
  readonly serving: Serving;
  readonly upstreams: Upstreams;
  readonly announces: Announces;
}

/**
 * The dispatcher's handling of the peer's reset of stream `id` (or, with `stopSending`, its
 * request that we stop sending), by the stream's role `handler`: the role goes first (most do),
 * then the module that owns the stream lets go.
 */
export function peerReset(scope: ResetScope, id: StreamId, handler: StreamRole, code: number, stopSending: boolean): void {
  const { ctx, roles, serving, upstreams, announces } = scope;
  switch (handler.kind) {
    case "group-out":
      // The peer does not want the rest of this group (the framing already reset it).
      serving.abandon(handler.group, code);
      return;
    case "group-in":
      if (stopSending) return;
      roles.drop(id);
      handler.group.reset();
      return;
    case "upstream":
      roles.drop(id);
      upstreams.reset(id, handler.sub, code, stopSending);
      return;
    case "subscribe-serve":
      roles.drop(id);
      if (handler.sub !== undefined) serving.end(handler.sub, code);
      return;
    case "announce-serve":
      roles.drop(id);
      handler.close();
      refuse(ctx.io, id, true, code);
      return;
    case "announce-intake":
      roles.drop(id);
      announces.withdrawAll();
      refuse(ctx.io, id, true, code);
      return;
    case "setup":
      ctx.close(code, "session stream reset");
      return;
    case "setup-in":
      if (stopSending) return;
      ctx.close(code, "setup stream reset");
      return;
    case "uni-pending":
      roles.drop(id);
      return;
    case "fetch-serve":
      roles.drop(id);
      handler.fetch.abandon(code);
      if (!stopSending) ctx.io.stopSending(id, code);
      return;
    case "track-query":
      roles.drop(id);
      handler.query.reset(ctx, id, code, stopSending);
      return;
    case "track-serve":
      roles.drop(id);
      handler.cancel();
      refuse(ctx.io, id, true, code);
      return;
    case "answered":
      // A PROBE or TRACK stream is never reset by us: close our side cleanly.
      roles.drop(id);
      ctx.io.send(id, new Uint8Array(0), true);
      return;
    case "accepted":
    case "ignore":
    case "goaway-out":
      roles.drop(id);
      refuse(ctx.io, id, true, code);
      return;
    default: {
      const never: never = handler;
      throw new Error(`unexpected handler ${JSON.stringify(never)}`);
    }
  }
}
