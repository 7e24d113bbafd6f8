/**
 * The relay's origin: broadcasts by path, routes by cost and hops, announce watchers, one shared
 * track per track resumed across upstream copies, the publishers' track infos, and the byte
 * budget over every copy.
 * @module
 */
export { Origin, type AnnounceEvent, type OriginOptions, type OriginSubscription, type SubscribeRefusal } from "./origin.js";
export { bestRoute, compareRoutes, type PlaceCopy, type Route, type RouteSource, type UpstreamTrack } from "./route.js";
export type { MoveReason, TrackMove } from "./shared-track.js";
export { UNADVERTISED_TRACK_INFO, type TrackInfoAnswer, type TrackInfoResult } from "./track-infos.js";
export { ByteBudget, type Budget, type BudgetEvents, type BudgetHolder, type ByteLimits } from "./byte-budget.js";
