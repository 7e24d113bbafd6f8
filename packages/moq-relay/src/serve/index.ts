/**
 * What the relay serves its peer: subscriptions (their group streams scheduled by priority under
 * the peer's credit), FETCH, PROBE and TRACK_INFO.
 * @module
 */
export { Serving, type ServingRole } from "./serving.js";
export { fetchSettled, serveFetch, type FetchRole, type GroupFetcher } from "./fetch.js";
export { answerProbe } from "./probe.js";
export { serveTrack, type TrackServeRole } from "./track-info.js";
