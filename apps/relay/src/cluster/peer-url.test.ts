import { describe, expect, it } from "vitest";
import { parsePeerUrl, PeerUrlError, redirectTarget } from "./peer-url.js";

describe("peer URLs", () => {
  it("refuses a GOAWAY URI with a bad percent-escape with a PeerUrlError, not a URIError", () => {
    const from = parsePeerUrl("tcp://127.0.0.1:5000");
    expect(() => redirectTarget(from, "ws://relay.example/%ZZ")).toThrow(PeerUrlError);
  });

  it("reads a raw TCP peer with its link cost", () => {
    expect(parsePeerUrl("tcp://127.0.0.1:5000?cost=3")).toMatchObject({ transport: "tcp", host: "127.0.0.1", port: 5000, cost: 3, path: "" });
  });

  it("reads a WebSocket peer with its path scope and keeps the token but not the cost", () => {
    expect(parsePeerUrl("ws://relay.example:4443/room?jwt=abc&cost=2")).toMatchObject({
      transport: "ws",
      host: "relay.example",
      port: 4443,
      path: "/room",
      search: "?jwt=abc",
      cost: 2,
      secure: false,
    });
  });

  it("reads a qmux-over-TLS peer", () => {
    expect(parsePeerUrl("tls://relay.example:5000")).toMatchObject({ transport: "tcp", secure: true, port: 5000, path: "" });
  });

  it("defaults the link cost to 1 and the port per scheme", () => {
    expect(parsePeerUrl("wss://relay.example")).toMatchObject({ port: 443, cost: 1, secure: true });
    expect(parsePeerUrl("tcp://[::1]")).toMatchObject({ host: "::1", port: 4444 });
  });

  it("refuses what it cannot dial, naming the problem", () => {
    expect(() => parsePeerUrl("http://x:1")).toThrow(/unsupported scheme/);
    expect(() => parsePeerUrl("nope")).toThrow(PeerUrlError);
    expect(() => parsePeerUrl("tcp://x:1?cost=-1")).toThrow(/cost/);
    expect(() => parsePeerUrl("tcp://x:1/path")).toThrow(/no path/);
  });

  it("resolves an empty GOAWAY URI to the same endpoint and keeps the link cost across a redirect", () => {
    const from = parsePeerUrl("tcp://127.0.0.1:5000?cost=4");
    expect(redirectTarget(from, "")).toBe(from);
    expect(redirectTarget(from, "tcp://127.0.0.1:6000")).toMatchObject({ port: 6000, cost: 4 });
    expect(redirectTarget(from, "tcp://127.0.0.1:6000?cost=1")).toMatchObject({ port: 6000, cost: 1 });
  });

  it("reads the qmux version to dial a tcp:// peer with, and leaves it to negotiation elsewhere", () => {
    expect(parsePeerUrl("tcp://127.0.0.1:5000?qmux=00&cost=2")).toMatchObject({ qmux: "qmux-00", cost: 2 });
    expect(parsePeerUrl("tcp://127.0.0.1:5000?qmux=01").qmux).toBe("qmux-01");
    expect(parsePeerUrl("tcp://127.0.0.1:5000").qmux).toBeUndefined();
    expect(() => parsePeerUrl("tcp://127.0.0.1:5000?qmux=03")).toThrow(PeerUrlError);
    expect(() => parsePeerUrl("tls://127.0.0.1:5000?qmux=00")).toThrow(PeerUrlError);
    expect(() => parsePeerUrl("ws://127.0.0.1:5000/?qmux=00")).toThrow(PeerUrlError);
  });
});
