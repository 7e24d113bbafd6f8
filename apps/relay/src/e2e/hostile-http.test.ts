// Hostile HTTP request lines against the relay as a real process: each gets a 4xx and a log line,
// the process stays up and a bystander still completes a round trip.
import { connect as tcpConnect } from "node:net";
import { describe, expect, it } from "vitest";
import { bystanderRoundTrip } from "./bystander.test-helpers.js";
import { childRelay, type ChildRelay } from "./child-relay.test-helpers.js";
import { e2eSetup, until, within } from "./harness.test-helpers.js";

const cleanup = e2eSetup();

/** Sends `request` as raw bytes and resolves with the status line of the answer. */
export async function rawRequest(port: number, request: string): Promise<string> {
  const socket = tcpConnect({ host: "127.0.0.1", port });
  cleanup.push(() => socket.destroy());
  let text = "";
  const answered = new Promise<string>((resolve) => {
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString("latin1");
      if (text.includes("\r\n")) resolve(text.slice(0, text.indexOf("\r\n")));
    });
    socket.on("close", () => {
      resolve(text);
    });
    socket.on("error", () => undefined);
  });
  socket.write(request);
  return within(answered, 3000, `answer to ${JSON.stringify(request.slice(0, 40))}`);
}

const UPGRADE = "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n";

async function expectServing(relay: ChildRelay): Promise<void> {
  expect(relay.alive()).toBe(true);
  expect(await bystanderRoundTrip(relay.ports.http)).toBe(true);
}

describe("hostile request targets", () => {
  it("answers /%ZZ and //[ without throwing on the main and internal ports, upgrade or not, and keeps serving", async () => {
    const relay = await childRelay(cleanup, ["--metrics-port", "0"]);
    const metrics = relay.ports.metrics;
    if (metrics === undefined) throw new Error("no metrics port");
    const bad = "HTTP/1.1 400 Bad Request";
    // `//[` parsed against a fixed origin is the path "//[": not found, or a session at root "[".
    const cases: [number, string, string][] = [
      [relay.ports.http, "GET /%ZZ HTTP/1.1\r\nHost: relay\r\n\r\n", bad],
      [relay.ports.http, "GET /%ZZ?jwt=x HTTP/1.1\r\nHost: relay\r\n\r\n", bad],
      [relay.ports.http, `GET /%ZZ HTTP/1.1\r\nHost: relay\r\n${UPGRADE}\r\n`, bad],
      [relay.ports.http, "GET //[ HTTP/1.1\r\nHost: relay\r\n\r\n", "HTTP/1.1 404 Not Found"],
      [relay.ports.http, "GET //[/fetch/a/b?group=1 HTTP/1.1\r\nHost: relay\r\n\r\n", "HTTP/1.1 404 Not Found"],
      [relay.ports.http, `GET //[ HTTP/1.1\r\nHost: relay\r\n${UPGRADE}\r\n`, "HTTP/1.1 101 Switching Protocols"],
      [relay.ports.http, "GET http://[ HTTP/1.1\r\nHost: relay\r\n\r\n", bad],
      [metrics, "GET /%ZZ HTTP/1.1\r\nHost: relay\r\n\r\n", bad],
      [metrics, "GET //[ HTTP/1.1\r\nHost: relay\r\n\r\n", "HTTP/1.1 404 Not Found"],
      [metrics, "POST //[ HTTP/1.1\r\nHost: relay\r\nContent-Length: 0\r\n\r\n", "HTTP/1.1 404 Not Found"],
      [metrics, "GET http://[ HTTP/1.1\r\nHost: relay\r\n\r\n", bad],
      [relay.ports.http, "CONNECT relay:443 HTTP/1.1\r\nHost: relay\r\n\r\n", "HTTP/1.1 405 Method Not Allowed"],
      [metrics, "CONNECT / HTTP/1.1\r\nHost: relay\r\n\r\n", "HTTP/1.1 405 Method Not Allowed"],
    ];
    for (const [port, request, status] of cases) expect(await rawRequest(port, request), request).toBe(status);
    await expectServing(relay);
    // The child's log lines come on their own pipe, maybe after the answers.
    await until(() => relay.logs.filter((l) => l["msg"] === "bad request target" || l["msg"] === "connection refused").length >= 4, 3000, "the refusals logged");
  });

  it("refuses a WebSocket path of more than 32 parts with 414", async () => {
    const relay = await childRelay(cleanup);
    const deep = `/${Array.from({ length: 33 }, (_, i) => `p${String(i)}`).join("/")}`;
    expect(await rawRequest(relay.ports.http, `GET ${deep} HTTP/1.1\r\nHost: relay\r\n${UPGRADE}Sec-WebSocket-Protocol: qmux-00\r\n\r\n`)).toBe(
      "HTTP/1.1 414 URI Too Long",
    );
    await expectServing(relay);
  });
});
