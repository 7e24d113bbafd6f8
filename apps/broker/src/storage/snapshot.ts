/**
 * The snapshot types of `Router.restore`, re-exported from the router package so storage code
 * names them in one place.
 * @module
 */
export type { RouterSnapshot, SessionSnapshot, StoredDelivery } from "@handoff/mqtt-router";
