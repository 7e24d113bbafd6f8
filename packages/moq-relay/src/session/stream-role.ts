import type { LiteStreamReader } from "@handoff/moq-resume/lite";
import type { StreamId } from "@handoff/qmux";
import type { AnnounceRole } from "../announce/index.js";
import type { FetchRole, ServingRole, TrackServeRole } from "../serve/index.js";
import type { AnsweredRole, IgnoreRole } from "../context/index.js";
import type { SetupInRole } from "./setup-stream.js";
import type { TrackQueryRole, UpstreamRole } from "../upstream/index.js";

/**
 * What a session does with one stream: the stream's role, decided when it opens or on its header.
 * The dispatcher routes each stream's events by it; each module declares the roles it gives.
 */
export type StreamRole =
  /** The pre-lite-05 SETUP stream the peer opened (in-band version negotiation). */
  | { readonly kind: "setup"; readonly reader: LiteStreamReader }
  /** A bidi stream the peer opened, its request not read yet. */
  | { readonly kind: "accepted"; readonly reader: LiteStreamReader }
  /** A lite-05 uni stream whose type (group or SETUP) is not known yet. */
  | { readonly kind: "uni-pending" }
  /** Our GOAWAY stream. */
  | { readonly kind: "goaway-out" }
  | IgnoreRole
  | AnsweredRole
  | AnnounceRole
  | ServingRole
  | TrackServeRole
  | TrackQueryRole
  | FetchRole
  | SetupInRole
  | UpstreamRole;

/** The session's stream table: every live stream's role. */
export type StreamTable = Map<StreamId, StreamRole>;

/** The roles that read control messages off an accepted bidi stream. */
export type ControlHandler = Extract<StreamRole, { kind: "accepted" | "announce-serve" | "subscribe-serve" | "ignore" | "answered" | "track-serve" | "fetch-serve" }>;

/** True for the roles that read control messages off an accepted bidi stream. */
export function isControl(handler: StreamRole): handler is ControlHandler {
  switch (handler.kind) {
    case "accepted":
    case "announce-serve":
    case "subscribe-serve":
    case "ignore":
    case "answered":
    case "track-serve":
    case "fetch-serve":
      return true;
    case "setup":
    case "track-query":
    case "announce-intake":
    case "upstream":
    case "group-in":
    case "group-out":
    case "goaway-out":
    case "uni-pending":
    case "setup-in":
      return false;
    default: {
      const never: never = handler;
      throw new Error(`unexpected handler ${JSON.stringify(never)}`);
    }
  }
}

/** Bytes a stream's decoder holds that do not make a whole message or frame yet. */
export function undecoded(handler: StreamRole | undefined): number {
  if (handler === undefined) return 0;
  if (isControl(handler)) return handler.reader.buffered;
  switch (handler.kind) {
    case "setup":
    case "setup-in":
    case "announce-intake":
      return handler.reader.buffered;
    case "track-query":
      return handler.query.buffered;
    case "upstream":
      return handler.sub.buffered;
    case "group-in":
      return handler.group.buffered;
    case "uni-pending":
    case "group-out":
    case "goaway-out":
      return 0;
    default: {
      const never: never = handler;
      throw new Error(`unexpected handler ${JSON.stringify(never)}`);
    }
  }
}
