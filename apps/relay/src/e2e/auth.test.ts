import * as Moq from "@moq/lite";
import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import WebSocket from "ws";
import { connect, e2eSetup, testRelay, until, within } from "./harness.test-helpers.js";

const KEY = "test-secret-key-for-hs256-of-32-bytes!";

const cleanup = e2eSetup();

async function token(claims: Record<string, unknown>, expiresInS = 3600): Promise<string> {
  let jwt = new SignJWT(claims).setProtectedHeader({ alg: "HS256" }).setIssuedAt();
  jwt = jwt.setExpirationTime(Math.floor(Date.now() / 1000) + expiresInS);
  return jwt.sign(new TextEncoder().encode(KEY));
}

/** The HTTP status of a WebSocket upgrade attempt (101 when accepted). */
async function upgradeStatus(port: number, path: string): Promise<number> {
  const ws = new WebSocket(`ws://127.0.0.1:${String(port)}/${path}`, ["qmux-00.moq-lite-04"]);
  const status = await within(
    new Promise<number>((resolve) => {
      ws.once("open", () => {
        resolve(101);
      });
      ws.once("unexpected-response", (_req, res) => {
        resolve(res.statusCode ?? 0);
      });
      ws.once("error", () => {
        resolve(0);
      });
    }),
    3000,
    "upgrade",
  );
  ws.terminate();
  return status;
}

describe("auth", () => {
  it("refuses a connection without a token outside the public paths", async () => {
    const r = await testRelay(cleanup, { key: KEY, publicSubscribe: ["public"] });
    expect(await upgradeStatus(r.ports.http, "private")).toBe(401);
  });

  it("accepts an anonymous connection on a public path", async () => {
    const r = await testRelay(cleanup, { key: KEY, publicSubscribe: ["public"] });
    expect(await upgradeStatus(r.ports.http, "public")).toBe(101);
  });

  it("refuses a token whose root does not cover the path", async () => {
    const r = await testRelay(cleanup, { key: KEY, publicSubscribe: ["public"] });
    const jwt = await token({ root: "room", subscribe: [""], publish: [""] }, 60);
    expect(await upgradeStatus(r.ports.http, `other?jwt=${jwt}`)).toBe(403);
  });

  it("refuses a token signed with another key", async () => {
    const r = await testRelay(cleanup, { key: KEY, publicSubscribe: ["public"] });
    const jwt = await new SignJWT({ root: "" }).setProtectedHeader({ alg: "HS256" }).sign(new TextEncoder().encode("another key entirely, 32 bytes+"));
    expect(await upgradeStatus(r.ports.http, `room?jwt=${jwt}`)).toBe(401);
  });

  it("does not route a publish outside the token's publish scope", async () => {
    const r = await testRelay(cleanup, { key: KEY, publicSubscribe: ["public"] });
    const jwt = await token({ root: "room", subscribe: [""], publish: ["cams"] }, 60);
    const conn = await connect(r.ports.http, "room", "lite-04", `?jwt=${jwt}`);
    cleanup.push(() => {
      conn.close();
    });
    conn.publish(Moq.Path.from("cams/one"), new Moq.Broadcast());
    conn.publish(Moq.Path.from("mics/one"), new Moq.Broadcast());
    await until(() => r.origin.broadcasts >= 1, 2000, "allowed broadcast routable");
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(r.origin.announced("").map((e) => e.path)).toEqual(["room/cams/one"]);
  });

  it("closes a live session when its token expires", async () => {
    const r = await testRelay(cleanup, { key: KEY, publicSubscribe: ["public"] });
    // The token must outlive its own connect, however slow this machine is right now: a first
    // connect measures that here (and warms up), and the token lives ten times as long, at least
    // three seconds (whole seconds: a JWT's expiry may come up to one early).
    const started = performance.now();
    const warm = await connect(r.ports.http, "room", "lite-04", `?jwt=${await token({ root: "room", subscribe: [""] })}`);
    const connectS = (performance.now() - started) / 1000;
    warm.close();
    await until(() => r.sessions.size === 0, 1000, "the warm-up session gone");
    const lifetimeS = 3 + Math.ceil(10 * connectS);
    const jwt = await token({ root: "room", subscribe: [""] }, lifetimeS);
    const conn = await connect(r.ports.http, "room", "lite-04", `?jwt=${jwt}`);
    cleanup.push(() => {
      conn.close();
    });
    expect(r.sessions.size).toBe(1);
    await within(conn.closed.catch(() => undefined), lifetimeS * 1000, "session closed at expiry");
    await until(() => r.sessions.size === 0, 1000, "relay dropped the session");
  });
});
