// Acknowledgements wait for the store's commit: CONNACK, SUBACK and PUBACK are never sent for
// what is not yet durable, and a failed commit sends none (the client is disconnected instead).
import { memoryOnlyStore } from "@handoff/mqtt-router";
import { afterEach, describe, expect, it } from "vitest";
import { collect, startBroker, until, type Harness } from "./harness.test-helpers.js";

/** A store whose commits the test releases (or fails) by hand. */
function gatedStore() {
  const waiting: { resolve: () => void; reject: (err: Error) => void }[] = [];
  let open = false;
  return {
    ...memoryOnlyStore,
    /** False: the store says it takes no commits (as after a failure, or when too much waits). */
    admitting: true,
    flush: () =>
      open
        ? Promise.resolve()
        : new Promise<void>((resolve, reject) => {
            waiting.push({ resolve, reject });
          }),
    /** Commits everything pending and every later flush at once. */
    openGate(): void {
      open = true;
      for (const w of waiting.splice(0)) w.resolve();
    },
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

/**
 * A store that, like SqliteStore, hands every flush the same ticket until the test commits the
 * batch; counts how often anyone waits on a ticket.
 */
function ticketStore() {
  let ticket: { readonly committed: Promise<void>; readonly resolve: () => void } | undefined;
  let waits = 0;
  return {
    ...memoryOnlyStore,
    flush: (): Promise<void> => {
      if (ticket === undefined) {
        let resolve: () => void = () => undefined;
        const committed = new Promise<void>((r) => {
          resolve = r;
        });
        const then = committed.then.bind(committed);
        committed.then = ((...args: Parameters<typeof then>) => {
          waits += 1;
          return then(...args);
        }) as typeof committed.then;
        ticket = { committed, resolve };
      }
      return ticket.committed;
    },
    commit(): void {
      ticket?.resolve();
      ticket = undefined;
    },
    get pending(): boolean {
      return ticket !== undefined;
    },
    get waits(): number {
      return waits;
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

  it("keeps a subscriber's retained message ahead of a newer one published while its SUBACK waits for the commit", async () => {
    const store = gatedStore();
    h = await startBroker({ store });
    const connect = async (clientId: string) => {
      const connecting = h?.client({ clientId });
      await until(() => store.pending > 0, 3000, `${clientId}'s session claim`);
      store.commitAll();
      const client = await connecting;
      if (client === undefined) throw new Error("no harness");
      return client;
    };
    const pub = await connect("pub");
    const sub = await connect("sub");
    const retained = pub.publishAsync("news", "old", { qos: 1, retain: true });
    await until(() => store.pending > 0, 3000, "the retained message's commit");
    store.commitAll();
    await retained;
    const got = collect(sub);
    const subscribing = sub.subscribeAsync("news", { qos: 1 });
    await until(() => store.pending > 0, 3000, "the subscription's commit");
    // Published while the SUBACK (and the retained copy behind it) waits for the store.
    const fresh = pub.publishAsync("news", "new", { qos: 1 });
    await new Promise((resolve) => setTimeout(resolve, 50));
    store.openGate();
    await subscribing;
    await fresh;
    await until(() => got.length === 2, 3000, "both messages");
    expect(got.map((m) => m.payload)).toEqual(["old", "new"]);
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

  it("answers a CONNECT whose claim commit failed once the store's retry lands, not with 0x88", async () => {
    const store = gatedStore();
    h = await startBroker({ store });
    const connecting = h.client({ clientId: "c" });
    await until(() => store.pending === 1);
    store.failAll();
    // The claim was applied; the CONNACK waits for the retry instead of saying nothing happened.
    await until(() => store.pending === 1, 3000, "the retried commit");
    store.commitAll();
    const client = await connecting;
    expect(client.connected).toBe(true);
  });

  it("refuses the CONNECT with 0x88 while the store takes no commits, before anything is applied", async () => {
    const store = gatedStore();
    store.admitting = false;
    h = await startBroker({ store });
    await expect(h.client({ clientId: "c" })).rejects.toMatchObject({ code: 0x88 });
    expect(store.pending).toBe(0);
  });
});

describe("commit tickets", () => {
  it("holds many copies to one subscriber, routed in one batch, behind one wait on the batch's commit", async () => {
    const store = ticketStore();
    h = await startBroker({ store });
    const connecting = h.client({ clientId: "sub" });
    await until(() => store.pending, 3000, "the session claim's commit");
    store.commit();
    const sub = await connecting;
    const subscribing = sub.subscribeAsync("t", { qos: 1 });
    await until(() => store.pending, 3000, "the subscription's commit");
    store.commit();
    await subscribing;
    const got = collect(sub);
    const before = store.waits;
    for (let i = 0; i < 50; i++) h.broker.router.publish({ topic: "t", payload: new TextEncoder().encode(String(i)), qos: 1, retain: false, properties: {} });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(got).toEqual([]); // nothing leaves before the commit
    store.commit();
    await until(() => got.length === 50, 3000, "every copy");
    expect(got.map((m) => m.payload)).toEqual(Array.from({ length: 50 }, (_, i) => String(i)));
    expect(store.waits - before).toBe(1);
  });
});

describe("a delivery racing the close of its connection", () => {
  it("stays in flight for the session and is resent (DUP) on the next connection, not dropped", async () => {
    const store = gatedStore();
    h = await startBroker({ store });
    const sessionOptions = { clientId: "sub", clean: false, properties: { sessionExpiryInterval: 300 } };
    const subConnecting = h.client(sessionOptions);
    await until(() => store.pending > 0, 3000, "the subscriber's claim");
    store.commitAll();
    const sub = await subConnecting;
    const subscribing = sub.subscribeAsync("t", { qos: 1 });
    await until(() => store.pending > 0, 3000, "the SUBSCRIBE");
    store.commitAll();
    await subscribing;
    // The subscriber's own QoS 2 publish: its PUBREL holds the connection's pipeline on a commit,
    // so the close that follows waits behind it while the router still sees an owner.
    void sub.publishAsync("elsewhere", "q2", { qos: 2 }).catch(() => undefined);
    await until(() => store.pending > 0, 3000, "the QoS 2 publish's commit");
    store.commitAll(); // PUBREC goes out; the client answers with PUBREL
    await until(() => store.pending > 0, 3000, "the PUBREL's commit");
    sub.stream.destroy();
    await new Promise((resolve) => setTimeout(resolve, 50));
    // A publish routed now reaches a connection that is closed but not yet released.
    h.broker.router.publish({ topic: "t", payload: new TextEncoder().encode("raced"), qos: 1, retain: false, properties: {} });
    expect(h.broker.router.stats.dropped["refused-by-connection"]).toBe(0);
    store.openGate();
    await until(() => h?.broker.router.session("sub")?.connected === false, 3000, "the subscriber's release");
    const resumed = await h.client(sessionOptions);
    const got = collect(resumed);
    await until(() => got.some((m) => m.payload === "raced"), 3000, "the resend");
    expect(got.find((m) => m.payload === "raced")?.dup).toBe(true);
  });
});

describe("the connection limit", () => {
  it("refuses a CONNECT beyond it with CONNACK 0x97 (Quota exceeded), not a bare close", async () => {
    h = await startBroker({ maxConnections: 1 });
    await h.client({ clientId: "first" });
    await expect(h.client({ clientId: "second" })).rejects.toMatchObject({ code: 0x97 });
  });
});
