/**
 * @handoff/mqtt-router: a sans-I/O MQTT 3.1.1 + 5.0 codec, per-connection protocol state machine
 * and router with exact session takeover.
 * @module
 */
export * from "./codec/index.js";
export * from "./protocol/index.js";
export * from "./router/index.js";
/** The client session: one connection's protocol and the router joined, sans I/O (see client-session/). */
export * from "./client-session/index.js";
