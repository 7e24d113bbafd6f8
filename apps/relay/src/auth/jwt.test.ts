import { SignJWT } from "jose";
import { describe, expect, it } from "vitest";
import { authenticate, type AuthConfig } from "./jwt.js";

const KEY = "0123456789abcdef0123456789abcdef";
const NOW = 1_800_000_000_000;
const config: AuthConfig = { key: KEY, publicSubscribe: ["anon"], publicPublish: [] };

/** Signs `claims`, expiring in an hour unless `exp` says otherwise (null: no `exp`). */
function sign(claims: Record<string, unknown>, exp: number | null = NOW / 1000 + 3600): Promise<string> {
  let jwt = new SignJWT(claims).setProtectedHeader({ alg: "HS256" });
  if (exp !== null) jwt = jwt.setExpirationTime(exp);
  return jwt.sign(new TextEncoder().encode(KEY));
}

describe("authenticate", () => {
  it("allows everything when no key is configured", async () => {
    const r = await authenticate({ key: undefined, publicPublish: [], publicSubscribe: [] }, "/x", undefined, NOW);
    expect(r).toEqual({ ok: true, root: "x", permissions: { publish: [""], subscribe: [""] }, expiresAt: undefined });
  });

  it("gives an anonymous connection the public paths under its root", async () => {
    const r = await authenticate(config, "/anon/room", undefined, NOW);
    expect(r).toMatchObject({ ok: true, permissions: { publish: [], subscribe: ["anon/room"] } });
  });

  it("refuses an anonymous connection with nothing public under it", async () => {
    expect(await authenticate(config, "/private", undefined, NOW)).toMatchObject({ ok: false, status: 401 });
  });

  it("scopes a token's grants under its root", async () => {
    const token = await sign({ root: "room", publish: ["cams"], subscribe: [""] }, NOW / 1000 + 60);
    const r = await authenticate(config, "/room", token, NOW);
    expect(r).toEqual({ ok: true, root: "room", permissions: { publish: ["room/cams"], subscribe: ["room"] }, expiresAt: NOW + 60_000 });
  });

  it("reads moq-token style put/get claims", async () => {
    const token = await sign({ root: "", put: "a", get: ["b"] });
    expect(await authenticate(config, "/", token, NOW)).toMatchObject({ ok: true, permissions: { publish: ["a"], subscribe: ["b", "anon"] } });
  });

  it("refuses a token whose root does not cover the path", async () => {
    const token = await sign({ root: "room", subscribe: [""] });
    expect(await authenticate(config, "/other", token, NOW)).toMatchObject({ ok: false, status: 403 });
  });

  it("refuses an expired token", async () => {
    const token = await sign({ root: "", subscribe: [""] }, NOW / 1000 - 1);
    expect(await authenticate(config, "/", token, NOW)).toEqual({ ok: false, status: 401, reason: "token expired" });
  });

  it("refuses a token signed with another key", async () => {
    const token = await new SignJWT({ root: "" }).setProtectedHeader({ alg: "HS256" }).sign(new TextEncoder().encode("x".repeat(32)));
    expect(await authenticate(config, "/", token, NOW)).toEqual({ ok: false, status: 401, reason: "invalid token" });
  });

  it("refuses malformed claims", async () => {
    const token = await sign({ root: 5 });
    expect(await authenticate(config, "/", token, NOW)).toMatchObject({ ok: false, status: 401 });
  });

  it("refuses a token without exp unless the config allows it", async () => {
    const token = await sign({ root: "", subscribe: [""] }, null);
    expect(await authenticate(config, "/", token, NOW)).toMatchObject({ ok: false, status: 401, reason: expect.stringContaining("exp") as unknown });
    expect(await authenticate({ ...config, requireExp: false }, "/", token, NOW)).toMatchObject({ ok: true, expiresAt: undefined });
  });

  it("checks aud and iss when they are configured", async () => {
    const strict: AuthConfig = { ...config, audience: ["relay"], issuer: ["https://issuer.example"] };
    const good = await new SignJWT({ root: "", subscribe: [""] })
      .setProtectedHeader({ alg: "HS256" })
      .setAudience("relay")
      .setIssuer("https://issuer.example")
      .setExpirationTime(NOW / 1000 + 60)
      .sign(new TextEncoder().encode(KEY));
    expect(await authenticate(strict, "/", good, NOW)).toMatchObject({ ok: true });
    const other = await sign({ root: "", subscribe: [""], aud: "someone-else", iss: "https://issuer.example" });
    expect(await authenticate(strict, "/", other, NOW)).toMatchObject({ ok: false, status: 401, reason: expect.stringContaining("aud") as unknown });
    const noIssuer = await sign({ root: "", subscribe: [""], aud: "relay" });
    expect(await authenticate(strict, "/", noIssuer, NOW)).toMatchObject({ ok: false, status: 401, reason: expect.stringContaining("iss") as unknown });
  });
});
