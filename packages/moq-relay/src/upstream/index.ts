/**
 * What the relay asks of its peer as a publisher: upstream subscriptions filling track copies from
 * its group streams and datagrams, and TRACK_INFO queries.
 * @module
 */
export { Upstreams, type UpstreamRole } from "./upstreams.js";
export { InboundGroup } from "./inbound-group.js";
export { askTrackInfo, type TrackQueryRole } from "./track-query.js";
