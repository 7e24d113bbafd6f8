/** The relay's listeners: WebSocket + HTTP, qmux over raw TCP, Prometheus metrics. */
export { startRelay, type Relay } from "./relay.js";
export type { RelayOptions } from "./relay-options.js";
