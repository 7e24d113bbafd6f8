/**
 * The comparison server: a plain `ws` broadcast that sends every message a publisher (`/pub`)
 * sends to every other client, unchanged. Prints `port=<n>` once listening; exits on SIGINT.
 * @module
 */
import { WebSocketServer } from "ws";

const wss = new WebSocketServer({ port: 0, host: "127.0.0.1" });
wss.on("listening", () => {
  const address = wss.address();
  process.stdout.write(`port=${String(typeof address === "object" && address !== null ? address.port : 0)}\n`);
});
wss.on("connection", (ws, req) => {
  if (req.url !== "/pub") return;
  ws.on("message", (data: Buffer) => {
    for (const c of wss.clients) if (c !== ws) c.send(data);
  });
});
process.on("SIGINT", () => {
  wss.close();
  process.exit(0);
});
