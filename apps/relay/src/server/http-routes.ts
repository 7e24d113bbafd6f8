import type { ServerResponse } from "node:http";
import { normalizePath } from "@handoff/moq-resume/lite";
import type { Origin } from "../origin/origin.js";
import { json } from "./refuse.js";
import type { RequestTarget } from "./request-target.js";
import { varintBytes } from "./varint.js";

/**
 * The relay's plain HTTP endpoints, on the WebSocket port:
 * - `GET /health` → `{"status":"ok"}`
 * - `GET /announced/<prefix>` → JSON list of the broadcast paths routable under the prefix
 * - `GET /fetch/<broadcast>/<track>?group=N` → the frames of group N of a track the relay is
 *   currently carrying, each prefixed with its QUIC-varint length (the moq-lite frame layout),
 *   `x-moq-frames` giving the count. 404 when the relay does not hold the group, 425 while it is
 *   still open.
 * Returns false for any other path (a WebSocket-only path gets 404 from the caller).
 */
export function handleHttp(origin: Origin, target: RequestTarget, res: ServerResponse): boolean {
  const path = target.path;
  if (path === "/health") {
    json(res, 200, { status: "ok" });
    return true;
  }
  if (path === "/announced" || path.startsWith("/announced/")) {
    const prefix = normalizePath(path.slice("/announced".length));
    json(res, 200, origin.announced(prefix).map((e) => e.path));
    return true;
  }
  if (path.startsWith("/fetch/")) {
    fetchGroup(origin, path.slice("/fetch/".length), target.query.get("group"), res);
    return true;
  }
  return false;
}

function fetchGroup(origin: Origin, rest: string, groupParam: string | null, res: ServerResponse): void {
  const normal = normalizePath(rest);
  const cut = normal.lastIndexOf("/");
  if (cut <= 0 || groupParam === null || !/^\d+$/.test(groupParam)) {
    json(res, 400, { error: "use /fetch/<broadcast>/<track>?group=N" });
    return;
  }
  const reader = origin.fetchGroup(normal.slice(0, cut), normal.slice(cut + 1), Number(groupParam));
  if (reader === undefined) {
    json(res, 404, { error: "group not held by this relay" });
    return;
  }
  // Read across every copy that holds the group (it may have been continued after a takeover).
  const parts: Uint8Array[] = [];
  for (;;) {
    const event = reader.readFrame();
    if (event.kind === "frame") {
      parts.push(varintBytes(event.payload.length), event.payload);
      continue;
    }
    if (event.kind === "end") break;
    if (event.kind === "pending") {
      json(res, 425, { error: "group still open" });
      return;
    }
    json(res, 404, { error: event.kind === "gap" ? "group incomplete on this relay" : "group not held by this relay" });
    return;
  }
  res.writeHead(200, { "content-type": "application/octet-stream", "x-moq-frames": String(parts.length / 2) });
  res.end(Buffer.concat(parts));
}
