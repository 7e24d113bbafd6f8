import type { LiteStreamReader } from "@handoff/moq-resume/lite";
import type { StreamId } from "@handoff/qmux";
import type { AnnounceRole } from "./announces.js";
import type { FetchRole } from "./fetch.js";
import type { AnsweredRole, IgnoreRole } from "./role-table.js";
import type { ServingRole } from "./serving.js";
import type { SetupInRole } from "./setup-stream.js";
import type { TrackServeRole } from "./track-info.js";
import type { TrackQueryRole } from "./track-query.js";
import type { UpstreamRole } from "./upstreams.js";

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
