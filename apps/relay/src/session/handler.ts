import type { LiteStreamReader } from "@handoff/moq-resume/lite";
import type { FetchServe } from "./fetch.js";
import type { OutboundGroup } from "./outbound-group.js";
import type { ServedSubscription } from "./served-subscription.js";
import type { TrackQuery } from "./track-query.js";
import type { InboundGroup, UpstreamSubscription } from "./upstream.js";

/** What a session does with one stream: the stream's role, decided when it opens or on its header. */
export type Handler =
  | { readonly kind: "setup"; readonly reader: LiteStreamReader }
  | { readonly kind: "accepted"; readonly reader: LiteStreamReader }
  | { readonly kind: "announce-serve"; readonly reader: LiteStreamReader; close: () => void }
  | { readonly kind: "subscribe-serve"; readonly reader: LiteStreamReader; sub: ServedSubscription | undefined }
  | { readonly kind: "ignore"; readonly reader: LiteStreamReader }
  /** A TRACK or PROBE stream we answered: read on to the peer's FIN, answering each PROBE. */
  | { readonly kind: "answered"; readonly reader: LiteStreamReader }
  /** A TRACK waiting for the publisher's info (asked upstream); `cancel` stops waiting. */
  | { readonly kind: "track-serve"; readonly reader: LiteStreamReader; cancel: () => void }
  /** A TRACK stream we opened on the peer, waiting for its TRACK_INFO. */
  | { readonly kind: "track-query"; readonly query: TrackQuery }
  /** A FETCH being answered with the group's frames. */
  | { readonly kind: "fetch-serve"; readonly reader: LiteStreamReader; readonly fetch: FetchServe }
  /** A lite-05 uni stream whose type (group or SETUP) is not known yet. */
  | { readonly kind: "uni-pending" }
  /** The peer's lite-05 SETUP stream. */
  | { readonly kind: "setup-in"; readonly reader: LiteStreamReader }
  | { readonly kind: "announce-intake"; readonly reader: LiteStreamReader }
  | { readonly kind: "upstream"; readonly sub: UpstreamSubscription }
  | { readonly kind: "group-in"; readonly group: InboundGroup }
  | { readonly kind: "group-out"; readonly group: OutboundGroup }
  | { readonly kind: "goaway-out" };
