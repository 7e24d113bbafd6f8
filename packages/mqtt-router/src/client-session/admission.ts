/**
 * An authenticated CONNECT becomes the session's owner: claim the session (taking it over from
 * the connection that held it), wait for the claim's commit, send CONNACK, and only then bind, so
 * that the resends and the queue follow the CONNACK.
 * @module
 */
import { ReasonCode } from "../codec/reason-codes.js";
import type { ConnectRequestEffect } from "../protocol/effects.js";
import { messageProperties, own } from "./received-message.js";
import type { Commits } from "./host.js";
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
  const commits = options.commits;
  // A store known to be failing refuses before anything is applied: 0x88 then means "nothing
  // happened" (the session is as it was), which is what a client may read into a refusal.
  if (commits?.admitting === false) {
    host.commitFailed(new Error("the store is not taking commits"), "connect");
    s.conn.reject(ReasonCode.ServerUnavailable, "storage unavailable");
    return;
  }
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
  // CONNACK only after the session claim is on disk. The connect is applied (a clean start has
  // discarded the old session) and the store retries a failed batch until it lands, so a failure
  // is not answered with a refusal, which would promise that nothing happened: the CONNACK waits
  // for the retry, within the connect timeout, which ends the wait without a CONNACK (the client
  // then knows nothing, and the next CONNACK's Session Present tells it what landed).
  if (commits !== undefined && !(await committedWhileConnecting(s, commits))) return;
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

/**
 * Failed commits a pending CONNECT waits through. A store retries after a backoff, so the connect
 * timeout ends the wait long before this; the bound is for a store that fails at once (closed).
 */
const CONNECT_COMMIT_ATTEMPTS = 16;

/**
 * Waits for the commit of what is recorded, through the store's retries, while the CONNECT is
 * still pending; false when the connection ended first (timed out, or the client went), or is
 * ended here, without a CONNACK, after {@link CONNECT_COMMIT_ATTEMPTS} failures.
 */
async function committedWhileConnecting(s: SessionState, commits: Commits): Promise<boolean> {
  for (let failures = 0; ; ) {
    try {
      await commits.flush();
      // Re-read after the await: the client may have gone while the claim was being committed.
      return s.conn.phase === "connecting";
    } catch (err) {
      s.host.commitFailed(err, "connect");
      if (s.conn.phase !== "connecting") return false;
      failures += 1;
      if (failures === CONNECT_COMMIT_ATTEMPTS) {
        // Before CONNACK a disconnect is a plain close: no CONNACK, no will.
        const { clientId, generation } = s;
        if (clientId !== undefined && generation !== undefined) s.router.disconnect(clientId, generation, { publishWill: false });
        s.generation = undefined;
        s.conn.disconnect(ReasonCode.UnspecifiedError, "storage unavailable");
        return false;
      }
    }
  }
}
