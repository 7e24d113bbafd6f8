/**
 * The admin API's actions: disconnecting a client, ending a session, clearing a retained topic.
 * Protocol rules stay in the broker and the router; this is the order of the steps and the
 * answer. Each action is logged at info with who asked (the peer address).
 * @module
 */
import { type Router } from "@handoff/mqtt-router";
import { isValidTopicName } from "@handoff/mqtt-router/codec";
import type { Logger } from "pino";
import type { ConnectionInfo } from "../mqtt/connection-info.js";
import { AdminError } from "./reply.js";

/** What the admin API needs of the broker (the app's `Broker` has it all). */
export interface AdminBroker {
  readonly router: Router;
  clients(): readonly ConnectionInfo[];
  client(clientId: string): ConnectionInfo | undefined;
  /** MQTT 5: DISCONNECT 0x98 Administrative action; 3.1.1: close. False when nobody owns the id. */
  kick(clientId: string): boolean;
  /** Resolves once the store committed everything recorded so far. */
  committed(): Promise<void>;
}

/** What every action gets. */
export interface ActionContext {
  readonly broker: AdminBroker;
  readonly log: Logger;
  /** Who asked, for the log. */
  readonly remote: string;
  /** How long ending a session waits for the client's connection to close, ms. */
  readonly disconnectWaitMs: number;
}

const quoted = (text: string): string => JSON.stringify(text);

async function durable(broker: AdminBroker, what: string): Promise<void> {
  try {
    await broker.committed();
  } catch {
    throw new AdminError(503, `${what} is done in memory but the store could not commit it yet; it is retried`);
  }
}

/** Disconnects a connected client; its session stays. */
export function kickClient(ctx: ActionContext, clientId: string): { readonly clientId: string; readonly reasonCode: number | null } {
  const info = ctx.broker.client(clientId);
  if (info === undefined || !ctx.broker.kick(clientId)) throw new AdminError(404, `no connected client with id ${quoted(clientId)}`);
  ctx.log.info({ clientId, remote: ctx.remote, protocolVersion: info.protocolVersion }, "admin: client disconnected");
  return { clientId, reasonCode: info.protocolVersion === 5 ? 0x98 : null };
}

// Waits until nobody owns the session, or `ms` passed. The kicked connection closes on a later
// turn when it is waiting for a commit; polling costs nothing while that is short.
async function offline(router: Router, clientId: string, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (router.sessionView(clientId)?.connected === true && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/**
 * Ends a session: disconnects its client first if one is connected, then ends it as expiry would
 * (subscriptions and queue discarded, a pending will published), and answers once the store has
 * committed the deletion.
 */
export async function deleteSession(
  ctx: ActionContext,
  clientId: string,
): Promise<{ readonly clientId: string; readonly kicked: boolean; readonly discarded: number }> {
  const { broker, log } = ctx;
  if (broker.router.sessionView(clientId) === undefined && broker.client(clientId) === undefined) {
    throw new AdminError(404, `no session for client id ${quoted(clientId)}`);
  }
  const kicked = broker.kick(clientId);
  if (kicked) await offline(broker.router, clientId, ctx.disconnectWaitMs);
  // Checked and ended in one turn: no client can take the session in between.
  const ended = broker.router.endSession(clientId);
  if (!ended.ok && ended.reason === "connected") {
    throw new AdminError(503, `the connection of ${quoted(clientId)} did not close in time (or the client is back); the session is kept, try again`);
  }
  // "unknown" here: the session ended with its connection (Session Expiry 0), as asked.
  await durable(broker, "the session's end");
  const discarded = ended.ok ? ended.discarded : 0;
  log.info({ clientId, remote: ctx.remote, kicked, discarded }, "admin: session ended");
  return { clientId, kicked, discarded };
}

/** Clears a retained topic; the deletion is committed before the answer. */
export async function clearRetained(ctx: ActionContext, topic: string): Promise<{ readonly topic: string; readonly cleared: true }> {
  if (!isValidTopicName(topic)) throw new AdminError(400, `not a topic name (empty, or with a wildcard): ${quoted(topic)}`);
  if (!ctx.broker.router.clearRetained(topic)) throw new AdminError(404, `no retained message on topic ${quoted(topic)}`);
  await durable(ctx.broker, "the retained message's deletion");
  ctx.log.info({ topic, remote: ctx.remote }, "admin: retained message cleared");
  return { topic, cleared: true };
}
