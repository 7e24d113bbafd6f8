import { DEFAULT_LIMITS, isLite06, joinPath, LiteErrorCode, type LiteStreamReader, normalizePath, pathParts, type Setup, type SetupRole } from "@handoff/moq-resume/lite";
import { overlaps, type Permissions, RelayCode } from "../rules/index.js";
import type { StreamId } from "@handoff/qmux";
import type { SessionContext } from "../context/index.js";

/** What the relay makes of the peer's SETUP (lite-05). */
export type SetupVerdict =
  | { readonly ok: true; readonly root: string; readonly role: SetupRole }
  | { readonly ok: false; readonly code: number; readonly reason: string };

/**
 * Judges the peer's SETUP against what the connection already grants. A Path parameter narrows
 * the root scope (it is joined under it, so it can never widen it; its `?query` is not for the
 * session and is dropped); a Role the grant cannot have is refused, so a token/role mismatch
 * fails at setup rather than on the first request.
 */
export function judgeSetup(setup: Setup, root: string, permissions: Permissions): SetupVerdict {
  const narrowed = setup.path === undefined ? normalizePath(root) : joinPath(root, setup.path.split("?", 1)[0] ?? "");
  if (pathParts(narrowed) > DEFAULT_LIMITS.maxPathParts) return { ok: false, code: RelayCode.PathTooLong, reason: "setup path has too many parts" };
  const canPublish = overlaps(permissions.publish, narrowed);
  const canSubscribe = overlaps(permissions.subscribe, narrowed);
  if (setup.role === "publisher" && !canPublish) return { ok: false, code: RelayCode.Unauthorized, reason: "publisher role not granted" };
  if (setup.role === "subscriber" && !canSubscribe) return { ok: false, code: RelayCode.Unauthorized, reason: "subscriber role not granted" };
  if (!canPublish && !canSubscribe) return { ok: false, code: RelayCode.Unauthorized, reason: "setup path outside the grant" };
  return { ok: true, root: narrowed, role: setup.role };
}

/** The role of the peer's lite-05 SETUP stream. */
export interface SetupInRole {
  readonly kind: "setup-in";
  readonly reader: LiteStreamReader;
}

/**
 * The lite-05 SETUP exchange: one uni stream (type 1) each way carrying one SETUP, then FIN.
 * The relay sends its own once the transport is up and reads the peer's; the session acts on
 * nothing else the peer asks before that (see {@link SetupExchange.complete}).
 */
export class SetupExchange {
  readonly #ctx: SessionContext;
  readonly #root: string;
  readonly #ready: (root: string, role: SetupRole) => void;
  #sent = false;
  #peerStream: StreamId | undefined;
  #complete = false;

  /**
   * @param root the connection's root scope, before any Path parameter
   * @param ready called once the peer's SETUP is accepted, with the (possibly narrowed) root
   */
  constructor(ctx: SessionContext, root: string, ready: (root: string, role: SetupRole) => void) {
    this.#ctx = ctx;
    this.#root = root;
    this.#ready = ready;
  }

  /** True once the peer's SETUP was read and accepted. */
  get complete(): boolean {
    return this.#complete;
  }

  /** Sends the relay's SETUP (once): no probing, no parameters a server may not send. */
  send(): void {
    const ctx = this.#ctx;
    const writer = ctx.writer;
    if (this.#sent || writer === undefined || ctx.closed) return;
    const id = ctx.io.open(false);
    if (id === undefined) return;
    this.#sent = true;
    // lite-06 declares our hop id session-wide (SETUP Origin); before, it rides the announce stream.
    const origin = ctx.version !== undefined && isLite06(ctx.version) ? ctx.origin.hopId : undefined;
    const setup: Setup = { type: "setup", probe: "none", path: undefined, role: "both", cost: undefined, origin, unknown: [] };
    ctx.io.send(id, writer.encodeAll([{ type: "stream_header", kind: "setup" }, setup]), true);
  }

  /** Claims uni stream `id` as the peer's SETUP stream; false (and the session closed) for a second one. */
  claim(id: StreamId): boolean {
    if (this.#peerStream !== undefined) {
      this.#ctx.close(LiteErrorCode.ProtocolViolation, "second setup stream");
      return false;
    }
    this.#peerStream = id;
    return true;
  }

  /**
   * Reads the peer's SETUP stream; a malformed or empty one closes the session. Returns false
   * once the stream is over (the dispatcher then forgets it).
   */
  read(reader: LiteStreamReader): boolean {
    const ctx = this.#ctx;
    while (!ctx.closed) {
      const step = reader.next();
      switch (step.kind) {
        case "need_more":
          return true;
        case "error":
          ctx.close(step.error.code, step.error.message);
          return false;
        case "end":
          if (!this.#complete) ctx.close(LiteErrorCode.ProtocolViolation, "setup stream ended without SETUP");
          return false;
        case "message":
          if (step.message.type === "setup" && !this.#complete) this.#accept(step.message);
          continue;
        default: {
          const never: never = step;
          throw new Error(`unexpected read step ${JSON.stringify(never)}`);
        }
      }
    }
    return true;
  }

  #accept(setup: Setup): void {
    const verdict = judgeSetup(setup, this.#root, this.#ctx.permissions);
    if (!verdict.ok) {
      this.#ctx.close(verdict.code, verdict.reason);
      return;
    }
    this.#complete = true;
    this.#ready(verdict.root, verdict.role);
  }
}
