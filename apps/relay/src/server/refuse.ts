import type { ServerResponse } from "node:http";
import type { Duplex } from "node:stream";

const STATUS_TEXT: Readonly<Record<number, string>> = {
  400: "Bad Request",
  401: "Unauthorized",
  403: "Forbidden",
  404: "Not Found",
  405: "Method Not Allowed",
  414: "URI Too Long",
  503: "Service Unavailable",
};

/** Answers an upgrade request on its raw socket with an HTTP error and closes it. */
export function refuseUpgrade(socket: Duplex, status: number, reason: string): void {
  const text = STATUS_TEXT[status] ?? "Error";
  socket.end(`HTTP/1.1 ${String(status)} ${text}\r\nConnection: close\r\nContent-Type: text/plain\r\n\r\n${reason}\n`);
}

/** Answers a plain HTTP request with a JSON body. */
export function json(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
}
