/** The relay's origin: broadcasts by path, routes, announce watchers and shared track copies. */
export { Origin, type AnnounceEvent, type OriginSubscription, type SubscribeRefusal } from "./origin.js";
export { bestRoute, compareRoutes, type Route, type RouteSource, type UpstreamTrack } from "./route.js";
