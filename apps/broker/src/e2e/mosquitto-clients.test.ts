// Drives the broker with mosquitto's own command-line clients (Debian `mosquitto-clients`) when
// they are installed; CI installs them. Without them the test is skipped and says why.
import { execFile, spawn } from "node:child_process";
import { once } from "node:events";
import { promisify } from "node:util";
import { WAIT_LIMIT_MS } from "@handoff/test-kit";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { startBroker, until, type Harness } from "./harness.test-helpers.js";

const run = promisify(execFile);
const installed = await run("mosquitto_pub", ["--help"]).then(
  () => true,
  (err: unknown) => (err as { code?: unknown }).code !== "ENOENT",
);
if (!installed) console.warn("mosquitto-clients test skipped: mosquitto_pub / mosquitto_sub are not installed (apt-get install mosquitto-clients)");
/** mosquitto_sub's own give-up time (-W, seconds): test-kit's safety net, not a budget. */
const WAIT_S = String(WAIT_LIMIT_MS / 1000);

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
      const sub = spawn("mosquitto_sub", ["-h", "127.0.0.1", "-p", port, "-V", version, "-q", "1", "-t", "mosq/#", "-C", "3", "-W", WAIT_S], { stdio: ["ignore", "pipe", "pipe"] });
      const exited = once(sub, "exit"); // before publishing: it may exit as soon as it has 3
      let out = "";
      sub.stdout.on("data", (b: Buffer) => (out += b.toString()));
      // Wait until the subscription exists before publishing.
      await until(() => h.broker.router.subscriptionCount > 0, 5000, "mosquitto_sub's subscription");
      for (const n of ["1", "2", "3"]) {
        await run("mosquitto_pub", ["-h", "127.0.0.1", "-p", port, "-V", version, "-q", "1", "-t", "mosq/x", "-m", n], { timeout: WAIT_LIMIT_MS });
      }
      const [code] = (await exited) as [number | null];
      expect(code).toBe(0);
      expect(out.trim().split("\n")).toEqual(["1", "2", "3"]);
    });
  }

  it("keeps a retained message for a later mosquitto_sub", async () => {
    const port = String(h.tcpPort);
    await run("mosquitto_pub", ["-h", "127.0.0.1", "-p", port, "-V", "mqttv5", "-q", "1", "-r", "-t", "mosq/state", "-m", "on"], { timeout: WAIT_LIMIT_MS });
    const { stdout } = await run("mosquitto_sub", ["-h", "127.0.0.1", "-p", port, "-V", "mqttv5", "-t", "mosq/state", "-C", "1", "-W", WAIT_S], { timeout: 2 * WAIT_LIMIT_MS });
    expect(stdout.trim()).toBe("on");
  });
});
