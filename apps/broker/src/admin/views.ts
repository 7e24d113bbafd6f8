/**
 * The admin API's JSON shapes, built from the router's read-only views and the broker's
 * connection info. Times are ISO 8601 strings (the broker clock is the wall clock); absent
 * values are `null`, so every field is always there.
 * @module
 */
import type { RetainedView, SessionView, SubscriptionView } from "@handoff/mqtt-router";
import type { ConnectionInfo } from "../mqtt/connection-info.js";

const PROTOCOL_NAMES = { 3: "MQTT 3.1", 4: "MQTT 3.1.1", 5: "MQTT 5.0" } as const;
/** Bytes of a retained payload shown in a listing. */
export const PREVIEW_BYTES = 256;

const iso = (ms: number | undefined): string | null => (ms === undefined ? null : new Date(ms).toISOString());

/** A connected client. */
export interface ClientJson {
  readonly clientId: string;
  readonly username: string | null;
  readonly address: string;
  readonly listener: string;
  readonly protocol: string;
  readonly protocolVersion: number;
  readonly connectedAt: string | null;
  readonly keepAlive: number;
  readonly cleanStart: boolean;
  readonly inflight: number;
  readonly queued: number;
  readonly subscriptions: number;
}

/** A connected client with its session's queue numbers. */
export function clientJson(info: ConnectionInfo, session: SessionView | undefined): ClientJson {
  return {
    clientId: info.clientId,
    username: info.username ?? null,
    address: info.remote,
    listener: info.listener,
    protocol: PROTOCOL_NAMES[info.protocolVersion],
    protocolVersion: info.protocolVersion,
    connectedAt: iso(info.connectedAt),
    keepAlive: info.keepAlive,
    cleanStart: info.cleanStart,
    inflight: session?.inflight ?? 0,
    queued: session?.queued ?? 0,
    subscriptions: session?.subscriptions ?? 0,
  };
}

/** A session, online or offline. */
export function sessionJson(view: SessionView) {
  return {
    clientId: view.clientId,
    connected: view.connected,
    protocolVersion: view.protocolVersion ?? null,
    expiryInterval: view.expiryInterval,
    disconnectedAt: iso(view.disconnectedAt),
    expiresAt: iso(view.expiresAt),
    queued: view.queued,
    inflight: view.inflight,
    queuedBytes: view.queuedBytes,
    subscriptions: view.subscriptions,
    willArmed: view.willArmed,
  };
}

/** One subscription. */
export function subscriptionJson(view: SubscriptionView) {
  return {
    filter: view.filter,
    qos: view.qos,
    noLocal: view.noLocal,
    retainAsPublished: view.retainAsPublished,
    retainHandling: view.retainHandling,
    subscriptionId: view.subscriptionId ?? null,
    shareGroup: view.share?.group ?? null,
    sharedFilter: view.share?.filter ?? null,
  };
}

// The first bytes as text when they are UTF-8 (a character cut at the end is left out), else base64.
function preview(payload: Uint8Array): { readonly payload: string; readonly payloadEncoding: "utf8" | "base64"; readonly truncated: boolean } {
  const head = payload.subarray(0, PREVIEW_BYTES);
  const truncated = payload.byteLength > head.byteLength;
  try {
    return { payload: new TextDecoder("utf-8", { fatal: true }).decode(head, { stream: truncated }), payloadEncoding: "utf8", truncated };
  } catch {
    return { payload: Buffer.from(head).toString("base64"), payloadEncoding: "base64", truncated };
  }
}

/** One retained message, its payload previewed. */
export function retainedJson(view: RetainedView) {
  return {
    topic: view.topic,
    qos: view.qos,
    bytes: view.payload.byteLength,
    ...preview(view.payload),
    contentType: view.contentType ?? null,
    expiresAt: iso(view.expiresAt),
  };
}
