import type { IncomingMessage } from "node:http";
import type { Duplex } from "node:stream";
import { DEFAULT_LIMITS, normalizePath, pathParts } from "@handoff/moq-resume/lite";
import type { WebSocket, WebSocketServer } from "ws";
import { authenticateWithHook, type RelayAuthHook } from "../auth/hook.js";
import { authenticate, type AuthConfig } from "../auth/jwt.js";
import { versionMode } from "@handoff/moq-relay";
import { createFraming, negotiateSubprotocol } from "@handoff/qmux";
import { attachSession, type AttachContext } from "../connection/attach.js";
import { bindWebSocket, webSocketCarrier } from "../connection/carriers.js";
import { corkPerTick } from "../connection/cork.js";
import { contain } from "../connection/guard.js";
import { refuseUpgrade } from "./refuse.js";
import { parseRequestTarget } from "./request-target.js";

/** What the WebSocket upgrade handler needs from the relay. */
export interface UpgradeDeps {
  readonly ctx: AttachContext;
  readonly auth: AuthConfig;
  /** A service's own authentication, asked before the token (see {@link RelayAuthHook}). */
  readonly authHook?: RelayAuthHook;
  readonly wss: WebSocketServer;
  /** False once the relay stops taking sessions. */
  readonly accepting: () => boolean;
  /** True when one more session would pass the relay's session limit. */
  readonly full: () => boolean;
}

/**
 * The `upgrade` handler of the WebSocket port: checks the request target, the subprotocol and
 * the token, then runs a session over the socket. Every refusal is an HTTP status and a log line;
 * an error escaping it destroys that socket only.
 */
export function upgradeHandler(deps: UpgradeDeps): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const { ctx } = deps;
  const refuse = (socket: Duplex, status: number, reason: string, fields: Record<string, unknown> = {}): void => {
    ctx.metrics.rejected(status);
    ctx.log.info({ status, reason, ...fields }, "connection refused");
    refuseUpgrade(socket, status, reason);
  };
  return (req, socket, head) => {
    const abort = (): void => {
      socket.destroy();
    };
    try {
      if (!deps.accepting()) {
        refuse(socket, 503, "shutting down");
        return;
      }
      if (deps.full()) {
        refuse(socket, 503, "too many sessions");
        return;
      }
      const target = parseRequestTarget(req.url);
      if (target === undefined) {
        refuse(socket, 400, "bad request target", { url: req.url });
        return;
      }
      // Every broadcast path is the root plus a suffix; a root past the wire's part limit could
      // never be announced to anyone.
      if (pathParts(normalizePath(target.path)) > DEFAULT_LIMITS.maxPathParts) {
        refuse(socket, 414, `path has more than ${String(DEFAULT_LIMITS.maxPathParts)} parts`, { path: target.rawPath });
        return;
      }
      const offered = req.headers["sec-websocket-protocol"];
      const choice = negotiateSubprotocol(offered);
      const mode = choice.ok ? versionMode(choice.moqAlpn) : undefined;
      if (!choice.ok || mode === undefined) {
        const reason = choice.ok ? `unsupported moq version ${choice.moqAlpn ?? ""}` : choice.reason;
        ctx.metrics.rejected(400);
        ctx.log.info({ offered: offered ?? "", reason, path: target.rawPath }, "websocket upgrade refused");
        refuseUpgrade(socket, 400, reason);
        return;
      }
      const token = target.query.get("jwt") ?? undefined;
      const remote = `${req.socket.remoteAddress ?? "?"}:${String(req.socket.remotePort ?? 0)}`;
      const checked =
        deps.authHook === undefined
          ? authenticate(deps.auth, target.path, token, Date.now())
          : authenticateWithHook(deps.authHook, deps.auth, { path: target.path, token, headers: req.headers, remote }, Date.now());
      checked
        .then((auth) => {
          if (!auth.ok) {
            refuse(socket, auth.status, auth.reason, { path: target.rawPath });
            return;
          }
          // Checked again: other upgrades may have completed while the token was checked.
          if (deps.full()) {
            refuse(socket, 503, "too many sessions");
            return;
          }
          deps.wss.handleUpgrade(req, socket, head, (ws: WebSocket) => {
            const framing = createFraming(choice.framing, { role: "server", autoConsume: true });
            const session = attachSession(ctx, webSocketCarrier(ws, corkPerTick(socket)), {
              framing,
              mode,
              root: auth.root,
              permissions: auth.permissions,
              transport: "ws",
              expiresAt: auth.expiresAt,
              remote,
              logFields: { subprotocol: choice.subprotocol ?? "", framing: choice.framing },
            });
            bindWebSocket(ws, session);
          });
        })
        .catch((err: unknown) => {
          contain(ctx, "upgrade", err, abort);
        });
    } catch (err) {
      contain(ctx, "upgrade", err, abort);
    }
  };
}
