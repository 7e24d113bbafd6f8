/**
 * An authenticated CONNECT becomes the session's owner: claim the session (taking it over from
 * the connection that held it), wait for the claim's commit, send CONNACK, and only then bind, so
 * that the resends and the queue follow the CONNACK.
 * @module
 */
import { ReasonCode } from "../codec/reason-codes.js";
import type { ConnectRequestEffect } from "../protocol/effects.js";
import { messageProperties, own } from "./received-message.js";
import type { SessionSink, SessionState } from "./session-state.js";

/** What the app decided about an authenticated CONNECT, beyond the packet itself. */
export interface Admission {
  /** Authentication data for the CONNACK (enhanced authentication). */
  readonly authenticationData?: Uint8Array;
  /**
   * Whether this client may read `topic` (the ACL at delivery); absent: everything is readable.
   */
  readonly readable?: (topic: string) => boolean;
}

/**
 * The keep alive the server imposes, if the client's is outside the bounds (0 means "none", which
 * counts as above any finite maximum).
 */
export function imposedKeepAlive(asked: number, bounds: { readonly min: number; readonly max: number }): number | undefined {
  if (asked === 0) return bounds.max < 65_535 ? bounds.max : undefined;
  if (asked < bounds.min) return bounds.min;
  if (asked > bounds.max) return bounds.max;
  return undefined;
}

/**
 * Claims the session for `request` (loaded first, in a cluster), commits, CONNACKs, binds.
 * `previousOwner` names the connection here that holds the session, read once it is loaded.
 */
export async function admit(s: SessionState, request: ConnectRequestEffect, admission: Admission, previousOwner: () => SessionSink | undefined): Promise<void> {
  const { router, host, options } = s;
  if (options.loadSession !== undefined) {
    try {
      await options.loadSession(request.clientId);
    } catch (err) {
      host.commitFailed(err, "connect");
      s.conn.reject(ReasonCode.ServerUnavailable, "storage unavailable");
      return;
    }
    // The client may have gone while its session was loaded.
    if (s.conn.phase !== "connecting") return;
  }
  const previous = previousOwner();
  // A new session past the cap (limits.maxSessions): 0x97 Quota exceeded (3.1.1: 3 Server unavailable).
  if (!router.admitsSession(request.clientId)) {
    host.sessionLimitReached(request.clientId);
    s.conn.reject(ReasonCode.QuotaExceeded, "session limit reached");
    return;
  }
  const will = request.will;
  const outcome = router.connect({
    clientId: request.clientId,
    cleanStart: request.cleanStart,
    sessionExpiryInterval: request.sessionExpiryInterval,
    receiveMaximum: Math.min(request.receiveMaximum, options.outboundInflight),
    protocolVersion: request.protocolVersion,
    sink: s.sink,
    ...(admission.readable === undefined ? {} : { readable: admission.readable }),
    ...(will === undefined
      ? {}
      : {
          will: {
            message: {
              topic: will.topic,
              payload: own(will.payload),
              qos: will.qos,
              retain: will.retain,
              properties: messageProperties(will.properties),
              origin: request.clientId,
            },
            delaySeconds: will.properties.willDelayInterval ?? 0,
            ...(will.properties.messageExpiryInterval === undefined ? {} : { expirySeconds: will.properties.messageExpiryInterval }),
          },
        }),
  });
  if (outcome.displaced !== undefined) {
    host.takenOver(request.clientId, request.cleanStart);
    previous?.disconnect(ReasonCode.SessionTakenOver); // [MQTT-3.1.4-3]
  }
  s.clientId = request.clientId;
  s.generation = outcome.generation;
  const commits = options.commits;
  if (commits !== undefined) {
    try {
      await commits.flush(); // CONNACK only after the session claim is on disk
    } catch (err) {
      host.commitFailed(err, "connect");
      router.disconnect(request.clientId, outcome.generation, { publishWill: false });
      s.generation = undefined;
      s.conn.reject(ReasonCode.ServerUnavailable, "storage unavailable");
      return;
    }
    // Re-read after the await: the client may have gone while the claim was being committed.
    if (s.conn.phase !== "connecting") return;
  }
  const serverKeepAlive = imposedKeepAlive(request.keepAlive, options.keepAlive);
  s.conn.accept({
    sessionPresent: outcome.sessionPresent,
    ...(admission.authenticationData === undefined ? {} : { authenticationData: admission.authenticationData }),
    ...(serverKeepAlive === undefined ? {} : { limits: { serverKeepAlive } }),
    inboundQos2PacketIds: outcome.inboundQos2,
    ...(outcome.sessionExpiryInterval === request.sessionExpiryInterval ? {} : { sessionExpiryInterval: outcome.sessionExpiryInterval }),
  });
  // CONNACK is queued first; only then may the router resend and drain the session.
  router.bind(request.clientId, outcome.generation);
  host.connected(request, serverKeepAlive ?? request.keepAlive, outcome.sessionPresent);
}
