/** The relay's listeners: WebSocket + HTTP, qmux over raw TCP, Prometheus metrics. */
export { startRelay, type Relay, type RelayOptions } from "./relay.js";
