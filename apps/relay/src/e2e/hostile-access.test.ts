// Access on the HTTP endpoints, the internal port's POST /goaway, and shutdown with sockets that
// never close: each attempt gets its 4xx (or its socket destroyed) and a bystander still gets served.
import { ManualClock } from "@handoff/seqlog";
import { connect as tcpConnect } from "node:net";
import { Track } from "@handoff/moq-resume";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import type { RouteSource } from "@handoff/moq-relay";
import { bystanderRoundTrip } from "./bystander.test-helpers.js";
import { e2eSetup, testRelay, within } from "./harness.test-helpers.js";

const cleanup = e2eSetup();
const KEY = "0123456789abcdef0123456789abcdef";
const ADMIN = "admin-token-0123456789";

function token(claims: Record<string, unknown>): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: "HS256" })
    .setExpirationTime(Math.floor(Date.now() / 1000) + 600)
    .sign(new TextEncoder().encode(KEY));
}

function holding(track: Track): RouteSource {
  return {
    id: 99,
    subscribeUpstream: (_path, _track, _priority, place) => {
      place(track);
      return { track, cancel: () => undefined, cap: () => undefined };
    },
  };
}

describe("HTTP endpoints under JWT", () => {
  it("lists and serves only what the token's subscribe grant covers", async () => {
    const r = await testRelay(cleanup, { key: KEY, publicSubscribe: ["anon"], publicPublish: ["anon"] });
    const track = new Track("video", { clock: new ManualClock() });
    for (const path of ["room/a", "secret/b"]) {
      r.origin.announce(path, holding(track), []);
      expect(r.origin.subscribe(path, "video", 0, undefined).ok).toBe(true);
    }
    const group = track.createGroup(0);
    group.write(Uint8Array.of(7));
    group.finish();
    const base = `http://127.0.0.1:${String(r.ports.http)}`;
    // No token and nothing public under the prefix: 401, as a session would get.
    expect((await fetch(`${base}/announced/secret`)).status).toBe(401);
    expect((await fetch(`${base}/fetch/secret/b/video?group=0`)).status).toBe(401);
    // No token at the top: only the public paths.
    expect(await (await fetch(`${base}/announced/`)).json()).toEqual([]);
    const jwt = await token({ root: "", subscribe: ["room"] });
    expect(await (await fetch(`${base}/announced/?jwt=${jwt}`)).json()).toEqual(["room/a"]);
    expect(await (await fetch(`${base}/announced/`, { headers: { authorization: `Bearer ${jwt}` } })).json()).toEqual(["room/a"]);
    expect((await fetch(`${base}/fetch/room/a/video?group=0&jwt=${jwt}`)).status).toBe(200);
    expect((await fetch(`${base}/fetch/secret/b/video?group=0&jwt=${jwt}`)).status).toBe(403);
    expect((await fetch(`${base}/fetch/secret/b/video?group=0&jwt=not-a-token`)).status).toBe(401);
    expect(await bystanderRoundTrip(r.ports.http)).toBe(true);
  });
});

describe("POST /goaway on the internal port", () => {
  it("needs a configured admin token, the right bearer, and a configured target", async () => {
    const open = await testRelay(cleanup, undefined, { metricsPort: 0 });
    const post = (port: number | undefined, query: string, bearer?: string) =>
      fetch(`http://127.0.0.1:${String(port)}/goaway${query}`, {
        method: "POST",
        headers: bearer === undefined ? {} : { authorization: `Bearer ${bearer}` },
      });
    expect((await post(open.ports.metrics, "?uri=tcp://attacker.example:1")).status).toBe(403);
    const r = await testRelay(cleanup, undefined, { metricsPort: 0, adminToken: ADMIN, redirect: "tcp://sibling.internal:4444" });
    expect((await post(r.ports.metrics, "?uri=tcp://sibling.internal:4444")).status).toBe(401);
    expect((await post(r.ports.metrics, "?uri=tcp://sibling.internal:4444", "wrong-token-0123456789")).status).toBe(401);
    expect((await post(r.ports.metrics, "?uri=tcp://attacker.example:4444", ADMIN)).status).toBe(400);
    expect((await post(r.ports.metrics, "?uri=%ZZ", ADMIN)).status).toBe(400);
    expect((await post(r.ports.metrics, "?uri=tcp://sibling.internal:4444&timeout=1", ADMIN)).status).toBe(202);
    expect(await bystanderRoundTrip(r.ports.http)).toBe(true);
  });
});

describe("shutdown", () => {
  it("destroys sockets that never finish their request once the close grace is over", async () => {
    const r = await testRelay(cleanup, undefined, { metricsPort: 0, closeGraceMs: 300 });
    expect(await bystanderRoundTrip(r.ports.http)).toBe(true);
    const halfOpen = [r.ports.http, r.ports.metrics ?? 0].map((port) => {
      const socket = tcpConnect({ host: "127.0.0.1", port, allowHalfOpen: true });
      socket.on("error", () => undefined);
      socket.write("GET /metrics HTTP/1.1\r\nHost: relay\r\n");
      cleanup.push(() => socket.destroy());
      // allowHalfOpen: the relay ending its side is all there is to see.
      return new Promise((resolve) => socket.once("end", resolve));
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await within(r.close(), 3000, "relay closed");
    await within(Promise.all(halfOpen), 1000, "the unfinished requests' sockets closed");
  });
});
