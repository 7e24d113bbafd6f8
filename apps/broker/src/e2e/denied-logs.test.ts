// Denied publishes and subscriptions (issue 17, item 16) are logged at debug one by one and summed
// up at info once per 10 s per client, so a client repeating them cannot flood the log.
import { ManualClock } from "@handoff/seqlog";
import { pino } from "pino";
import { afterEach, describe, expect, it } from "vitest";
import { allowAll, type AccessControl } from "../auth/access.js";
import { roundTrip } from "./bystander.test-helpers.js";
import { startBroker, until, type Harness } from "./harness.test-helpers.js";

interface Line {
  readonly level: number;
  readonly msg: string;
  readonly [field: string]: unknown;
}

const DEBUG = 20;
const INFO = 30;
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const noSecrets: AccessControl = {
  ...allowAll,
  canPublish: (_client, topic) => !topic.startsWith("secret"),
  canSubscribe: (_client, filter) => !filter.startsWith("secret"),
};

describe("denied requests in the log", () => {
  it("go to debug one by one, and to info as one line per client and kind every 10 s", async () => {
    const lines: Line[] = [];
    const log = pino({ level: "debug" }, { write: (text: string) => lines.push(JSON.parse(text) as Line) });
    const clock = new ManualClock(Date.now());
    h = await startBroker({ log, clock, access: noSecrets });
    const client = await h.client({ clientId: "nosy" });
    for (let i = 0; i < 50; i++) await client.publishAsync("secret/x", "psst", { qos: 1 }).catch(() => undefined); // PUBACK 0x87
    await client.subscribeAsync("secret/#", { qos: 0 }).catch(() => undefined);
    await client.subscribeAsync("secret/y", { qos: 0 }).catch(() => undefined);
    expect(lines.filter((l) => l.msg === "publish denied")).toHaveLength(50);
    expect(lines.filter((l) => l.msg === "publish denied").every((l) => l.level === DEBUG)).toBe(true);
    expect(lines.filter((l) => l.msg === "subscribe denied")).toHaveLength(2);
    expect(lines.filter((l) => l.level >= INFO && l.msg.includes("denied"))).toEqual([]);

    clock.advance(10_000);
    await until(() => lines.some((l) => l.msg.includes("publishes denied")), 5000, "the summary");
    const summaries = lines.filter((l) => l.level === INFO && l.msg.includes("denied"));
    expect(summaries.map((l) => l.msg)).toEqual(["50 publishes denied for client nosy in the last 10 s", "2 subscriptions denied for client nosy in the last 10 s"]);
    expect(summaries[0]).toMatchObject({ clientId: "nosy", kind: "publish", denied: 50, seconds: 10 });
    await roundTrip(client);
  });
});
