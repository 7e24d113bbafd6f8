/**
 * @handoff/moq-relay: a moq-lite relay's core, sans-I/O. Its folders, lowest first: `rules`
 * (relay codes, path-prefix grants), `origin` (routing, shared resumed tracks, the byte budget),
 * `context` (what a session shares with its parts), then the parts — `serve` (what the peer
 * subscribes to, fetches, probes, asks the info of), `upstream` (what the relay subscribes to on
 * the peer), `announce` (announces both ways) — and `session` on top (one per connection:
 * lifecycle, version, dispatch). The parts are the session's own; this entry is the three folders
 * an app uses, each folder's index naming what it exports. The app keeps sockets, HTTP, timers,
 * config, metrics and token checks, and drives each session with bytes, ticks and a deferral it
 * injects.
 * @module
 */
/** The relay's rules: the codes on its resets and closes, and what a grant of path prefixes allows. */
export * from "./rules/index.js";
/** The origin: broadcasts by path, routes by cost and hops, shared tracks resumed across upstream copies, the byte budget. */
export * from "./origin/index.js";
/** One moq-lite session per connection: lifecycle, version negotiation, stream dispatch, its limits and stats. */
export * from "./session/index.js";
