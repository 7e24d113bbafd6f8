// Acknowledgements wait for the store's commit: CONNACK, SUBACK and PUBACK are never sent for
// what is not yet durable, and a failed commit sends none (the client is disconnected instead).
import { memoryOnlyStore } from "@handoff/mqtt-router";
import { afterEach, describe, expect, it } from "vitest";
import { startBroker, until, type Harness } from "./harness.js";

/** A store whose commits the test releases (or fails) by hand. */
function gatedStore() {
  const waiting: { resolve: () => void; reject: (err: Error) => void }[] = [];
  return {
    ...memoryOnlyStore,
    flush: () =>
      new Promise<void>((resolve, reject) => {
        waiting.push({ resolve, reject });
      }),
    commitAll(): void {
      for (const w of waiting.splice(0)) w.resolve();
    },
    failAll(): void {
      for (const w of waiting.splice(0)) w.reject(new Error("disk full"));
    },
    get pending(): number {
      return waiting.length;
    },
  };
}

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("acknowledgements wait for the store", () => {
  it("sends PUBACK only after the commit that stores the message", async () => {
    const store = gatedStore();
    h = await startBroker({ store });
    const connecting = h.client({ clientId: "pub" });
    await until(() => store.pending === 1, 3000, "the session claim's commit");
    store.commitAll();
    const pub = await connecting;
    let acked = false;
    const publishing = pub.publishAsync("t", "x", { qos: 1 }).then(() => {
      acked = true;
    });
    await until(() => store.pending === 1, 3000, "the message's commit");
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(acked).toBe(false);
    store.commitAll();
    await publishing;
    expect(acked).toBe(true);
  });

  it("sends no PUBACK when the commit fails, and disconnects the publisher", async () => {
    const store = gatedStore();
    h = await startBroker({ store });
    const connecting = h.client({ clientId: "pub" });
    await until(() => store.pending === 1);
    store.commitAll();
    const pub = await connecting;
    const reason = new Promise<number | undefined>((resolve) => {
      pub.once("disconnect", (packet) => {
        resolve(packet.reasonCode);
      });
    });
    void pub.publishAsync("t", "x", { qos: 1 }).catch(() => undefined);
    await until(() => store.pending === 1);
    store.failAll();
    expect(await reason).toBe(0x80);
  });

  it("refuses the CONNECT with 0x88 when the session claim cannot be committed", async () => {
    const store = gatedStore();
    h = await startBroker({ store });
    const connecting = h.client({ clientId: "c" });
    await until(() => store.pending === 1);
    store.failAll();
    await expect(connecting).rejects.toMatchObject({ code: 0x88 });
  });
});

describe("the connection limit", () => {
  it("refuses a CONNECT beyond it with CONNACK 0x97 (Quota exceeded), not a bare close", async () => {
    h = await startBroker({ maxConnections: 1 });
    await h.client({ clientId: "first" });
    await expect(h.client({ clientId: "second" })).rejects.toMatchObject({ code: 0x97 });
  });
});
