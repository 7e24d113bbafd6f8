/**
 * The client session: the sans-I/O glue between one connection's protocol state machine and the
 * router. It keeps the protocol's orderings (acknowledge only after the commit, CONNACK before the
 * session is bound, SUBACK before the retained messages it brings, a takeover that tells the
 * previous owner to leave) and reads the router's owner of a client id as the one registry of who
 * holds it; the app supplies a {@link ClientSessionHost} for sockets, authentication, the store's
 * commit, timers and logs.
 * @module
 */
export { ClientSession } from "./client-session.js";
export { imposedKeepAlive, type Admission } from "./admission.js";
export { HELD_INPUT_BYTES } from "./held-lane.js";
export { FlowControl } from "./flow-control.js";
export { PublishTemplates } from "./publish-templates.js";
export type { ClientSessionHost, ClientSessionOptions, CommitFailure, Commits, Hold, SubscribeFilters } from "./host.js";
