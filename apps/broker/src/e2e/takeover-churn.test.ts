// Takeover churn on one broker (see takeover-churn.test-helpers.ts): 20 client ids taken over
// again and again, clean or resuming, while a QoS 1 publisher sends about 2,000 msg/s to them.
import { describe, it } from "vitest";
import { serverFixture } from "./server-harness.test-helpers.js";
import { takeoverChurn } from "./takeover-churn.test-helpers.js";

const fx = serverFixture();

// SQLite (the default) makes acknowledgements and deliveries wait for commits; memory storage
// takes that wait away, so the same schedule meets the broker at other moments.
describe.each(["sqlite", "memory"] as const)("takeover churn while a QoS 1 publisher sends (%s storage)", (storage) => {
  for (const version of [5, 4] as const) {
    it(`MQTT ${version === 5 ? "5" : "3.1.1"}: session present exactly when resumable, no strays, nothing lost, repeats only as DUP`, async () => {
      const server = await fx.start(["--storage", storage]);
      const url = `mqtt://127.0.0.1:${String(server.ports.mqtt ?? 0)}`;
      await takeoverChurn({ version, label: storage, track: fx.track, publishers: [url], urlFor: () => url, rate: 2000, churnMs: 3000, routedAtAck: true });
    });
  }
});
