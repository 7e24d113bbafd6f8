// Fuzz over real sockets against the relay as a process: random and damaged moq-lite
// connections (WebSocket, every subprotocol, and raw TCP) and HTTP requests (the WebSocket and
// metrics ports). No crash, no error escaping a handler, every well-formed request answered, and
// afterwards /health answers and a bystander completes a round trip.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bystanderRoundTrip } from "../e2e/bystander.test-helpers.js";
import { childRelay } from "../e2e/child-relay.test-helpers.js";
import { e2eSetup } from "../e2e/harness.test-helpers.js";
import { fuzzCase, httpRequest } from "./arbitraries.test-helpers.js";
import { runOverSocket, sendHttp } from "./socket-client.test-helpers.js";

const cleanup = e2eSetup();

const CONNECTION_RUNS = 400;
const HTTP_RUNS = 800;

describe("fuzz over real sockets", () => {
  it(`survives ${String(CONNECTION_RUNS)} hostile connections and ${String(HTTP_RUNS)} hostile HTTP requests, and serves a bystander after`, async () => {
    const relay = await childRelay(cleanup, ["--tcp-port", "0", "--metrics-port", "0"], 180_000);
    const metricsPort = relay.ports.metrics;
    if (metricsPort === undefined) throw new Error("no metrics port");
    const ports = { http: relay.ports.http, tcp: relay.ports.tcp };
    await fc.assert(
      fc.asyncProperty(fuzzCase(), fc.boolean(), async (c, tcp) => {
        await runOverSocket(ports, c, tcp);
        expect(relay.alive()).toBe(true);
      }),
      { numRuns: CONNECTION_RUNS },
    );
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(httpRequest, fc.boolean(), async (request, metrics) => {
        const status = await sendHttp(metrics ? metricsPort : relay.ports.http, request.bytes, request.wellFormed ? 3000 : 500);
        if (status !== "") answered += 1;
        // A request that parses is always answered (no hang); a damaged one may just be dropped.
        if (request.wellFormed) expect(status).toMatch(/^HTTP\/1\.1 \d{3} /);
        expect(relay.alive()).toBe(true);
      }),
      { numRuns: HTTP_RUNS },
    );
    expect(answered).toBeGreaterThan(HTTP_RUNS / 2);
    expect(relay.alive()).toBe(true);
    const health = await fetch(`http://127.0.0.1:${String(relay.ports.http)}/health`);
    expect(health.status).toBe(200);
    const metrics = await (await fetch(`http://127.0.0.1:${String(metricsPort)}/metrics`)).text();
    // Bad input gets the protocol's answer; an error escaping a handler would be a bug.
    expect(metrics.split("\n").filter((l) => l.startsWith("relay_handler_errors_total{"))).toEqual([]);
    expect(relay.logs.filter((l) => l["msg"] === "connection handler failed: closing that connection")).toEqual([]);
    expect(await bystanderRoundTrip(relay.ports.http)).toBe(true);
  }, 180_000);
});
