// MQTT 5 enhanced authentication end to end: SCRAM-SHA-256 (RFC 7677) over CONNECT/AUTH with
// MQTT.js, against a password file holding a SCRAM credential.
import { createHmac, createHash, pbkdf2Sync, randomBytes } from "node:crypto";
import { join } from "node:path";
import { WAIT_LIMIT_MS } from "@handoff/test-kit";
import mqtt, { type MqttClient } from "mqtt";
import { describe, expect, it } from "vitest";
import { hashScramPassword } from "../auth/index.js";
import type { Server } from "../server.js";
import { serverFixture } from "./server-harness.test-helpers.js";

const fx = serverFixture();

/** A minimal SCRAM-SHA-256 client: just enough to drive the exchange from the test. */
function scramClient(user: string, password: string) {
  const nonce = randomBytes(12).toString("base64");
  const bare = `n=${user},r=${nonce}`;
  return {
    first: Buffer.from(`n,,${bare}`),
    final(serverFirst: string): Buffer {
      const fields = Object.fromEntries(serverFirst.split(",").map((kv) => [kv.slice(0, 1), kv.slice(2)]));
      const salted = pbkdf2Sync(password, Buffer.from(fields["s"] ?? "", "base64"), Number(fields["i"]), 32, "sha256");
      const clientKey = createHmac("sha256", salted).update("Client Key").digest();
      const storedKey = createHash("sha256").update(clientKey).digest();
      const withoutProof = `c=biws,r=${fields["r"] ?? ""}`;
      const signature = createHmac("sha256", storedKey).update(`${bare},${serverFirst},${withoutProof}`).digest();
      const proof = Buffer.from(clientKey.map((b, i) => b ^ (signature[i] ?? 0)));
      return Buffer.from(`${withoutProof},p=${proof.toString("base64")}`);
    },
  };
}

async function start(): Promise<Server> {
  const passwords = `carol:${await hashScramPassword("pencil", 4096)}\n`;
  return fx.start((d) => ["--storage", "memory", "--password-file", join(d, "passwords"), "--allow-anonymous", "false"], { passwords });
}

function connectScram(port: number, password: string): Promise<MqttClient> {
  const scram = scramClient("carol", password);
  const client = fx.track(
    mqtt.connect(`mqtt://127.0.0.1:${String(port)}`, {
      protocolVersion: 5,
      reconnectPeriod: 0,
      connectTimeout: WAIT_LIMIT_MS,
      properties: { authenticationMethod: "SCRAM-SHA-256", authenticationData: scram.first },
    }),
  );
  client.handleAuth = (packet: Parameters<MqttClient["handleAuth"]>[0], callback) => {
    const serverFirst = packet.properties?.authenticationData?.toString() ?? "";
    callback(undefined, {
      cmd: "auth",
      reasonCode: 0x18,
      properties: { authenticationMethod: "SCRAM-SHA-256", authenticationData: scram.final(serverFirst) },
    });
  };
  return new Promise((resolve, reject) => {
    client.once("connect", () => {
      resolve(client);
    });
    client.once("error", reject);
  });
}

describe("SCRAM-SHA-256 enhanced authentication", () => {
  it("admits a client that proves the password over AUTH", async () => {
    const s = await start();
    const client = await connectScram(s.ports.mqtt ?? 0, "pencil");
    expect(client.connected).toBe(true);
  });

  it("refuses a wrong password with CONNACK 0x86", async () => {
    const s = await start();
    await expect(connectScram(s.ports.mqtt ?? 0, "eraser")).rejects.toMatchObject({ code: 0x86 });
  });

  it("refuses an unknown method with CONNACK 0x8C", async () => {
    const s = await start();
    const client = fx.track(
      mqtt.connect(`mqtt://127.0.0.1:${String(s.ports.mqtt ?? 0)}`, {
        protocolVersion: 5,
        reconnectPeriod: 0,
        properties: { authenticationMethod: "KERBEROS" },
      }),
    );
    await expect(
      new Promise((resolve, reject) => {
        client.once("connect", resolve);
        client.once("error", reject);
      }),
    ).rejects.toMatchObject({ code: 0x8c });
  });
});
