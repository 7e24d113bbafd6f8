// Drives the broker with mosquitto's own command-line clients (Debian `mosquitto-clients`) when
// they are installed; CI installs them. Without them the test is skipped and says why.
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { promisify } from "node:util";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startBroker, type Harness } from "./harness.test-helpers.js";

const run = promisify(execFile);
const installed = await run("mosquitto_pub", ["--help"]).then(
  () => true,
  (err: unknown) => (err as { code?: unknown }).code !== "ENOENT",
);
if (!installed) console.warn("mosquitto-clients test skipped: mosquitto_pub / mosquitto_sub are not installed (apt-get install mosquitto-clients)");

let h: Harness;
beforeEach(async () => {
  h = await startBroker();
});
afterEach(async () => {
  await h.close();
});

describe.skipIf(!installed)("mosquitto_pub and mosquitto_sub against the broker", () => {
  for (const version of ["mqttv5", "mqttv311"] as const) {
    it(`deliver QoS 1 messages in order (${version})`, async () => {
      const port = String(h.tcpPort);
      const sub = spawn("mosquitto_sub", ["-h", "127.0.0.1", "-p", port, "-V", version, "-q", "1", "-t", "mosq/#", "-C", "3", "-W", "10"], { stdio: ["ignore", "pipe", "pipe"] });
      const exited = once(sub, "exit"); // before publishing: it may exit as soon as it has 3
      let out = "";
      sub.stdout.on("data", (b: Buffer) => (out += b.toString()));
      // Wait until the subscription exists before publishing.
      const deadline = Date.now() + 5000;
      while (h.broker.router.subscriptionCount === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
      for (const n of ["1", "2", "3"]) {
        await run("mosquitto_pub", ["-h", "127.0.0.1", "-p", port, "-V", version, "-q", "1", "-t", "mosq/x", "-m", n], { timeout: 5000 });
      }
      const [code] = (await exited) as [number | null];
      expect(code).toBe(0);
      expect(out.trim().split("\n")).toEqual(["1", "2", "3"]);
    });
  }

  it("keeps a retained message for a later mosquitto_sub", async () => {
    const port = String(h.tcpPort);
    await run("mosquitto_pub", ["-h", "127.0.0.1", "-p", port, "-V", "mqttv5", "-q", "1", "-r", "-t", "mosq/state", "-m", "on"], { timeout: 5000 });
    const { stdout } = await run("mosquitto_sub", ["-h", "127.0.0.1", "-p", port, "-V", "mqttv5", "-t", "mosq/state", "-C", "1", "-W", "5"], { timeout: 8000 });
    expect(stdout.trim()).toBe("on");
  });
});
