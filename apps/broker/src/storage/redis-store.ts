/**
 * A {@link RouterStore} in Redis: the broker's state shared by the nodes of a cluster (issue #19).
 * A node restores at start only the sessions it held (or nobody did), and takes any other one
 * from Redis when its client connects there ({@link RedisStore.takeSession}); publishes reach the
 * other nodes through the routes stream this store appends to (cluster/routing/).
 *
 * As with SQLite, the router's changes are only recorded when they happen; one fenced batch script
 * per round trip writes everything recorded so far (group commit: while one batch is in flight the
 * next gathers), and {@link RedisStore.flush} resolves once the batch covering every earlier change
 * has been executed by Redis — and, with `waitReplicas`, acknowledged by that many replicas — so
 * acknowledgements are sent only after Redis committed what they promise. How durable "executed"
 * is depends on the server's persistence settings (README: AOF `appendfsync always` / `everysec`).
 *
 * Every write for a session carries the fencing token this node claimed the client id under (a
 * new connection's session record claims it, inside the same batch); once another node has claimed
 * the id, this node's writes for it are refused and `hooks.onFenced` reports the client id.
 * @module
 */
import type { Assigned, Delivery, Message, RouterStore, SessionRecord, SessionSnapshot, SessionSubscription, ShareDecisions } from "@handoff/mqtt-router";
import { Redis } from "ioredis";
import { ClusterKeys } from "../cluster/keys.js";
import { fencedBatch, Ownership } from "../cluster/ownership.js";
import { openRoute, RouteAppends } from "../cluster/routing/route-appends.js";
import type { ShareChange } from "../cluster/routing/route-entry.js";
import type { RouteBase } from "../cluster/routing/handoff-rules.js";
import { takeOrphanScript, takeSessionScript } from "../cluster/take-session.js";
import { COMMITTED, newTicket, type Ticket } from "./commit-ticket.js";
import { StoreError, StoreOpenError } from "./errors.js";
import { encodeAssigned, encodeDelivery, encodeMessage, encodeSession, encodeSubscription, encodeWill } from "./redis-codec.js";
import { apartUnsettled, decodeRawSession, loadRedisSnapshot, type UnsettledSession } from "./redis-load.js";
import { appendsDropped, appendsSettled, RecordedWrites, toWriteGroups, type RecordedGroup } from "./redis-writes.js";
import type { RouterSnapshot } from "./snapshot.js";
import { DEFAULT_REDIS_PREFIX, where, type RedisStoreHooks, type RedisStoreOptions } from "./redis-store-options.js";
import type { StoreStats } from "./sqlite-store.js";

export { DEFAULT_REDIS_PREFIX, type RedisStoreHooks, type RedisStoreOptions } from "./redis-store-options.js";

/** The Redis {@link RouterStore}. Create with {@link RedisStore.open}. */
export class RedisStore implements RouterStore {
  /** Where the store is (the URL without credentials). */
  readonly file: string;
  readonly stats: StoreStats = { commits: 0, failures: 0, consecutiveFailures: 0 };
  readonly #redis: Redis;
  readonly #keys: ClusterKeys;
  readonly #nodeId: string;
  readonly #snapshot: RouterSnapshot;
  readonly #hooks: RedisStoreHooks;
  readonly #wait: { readonly count: number; readonly timeoutMs: number } | undefined;
  readonly #backoff: { readonly initial: number; readonly max: number };
  readonly #maxPendingBytes: number;
  /** Token this node claimed each client id under. */
  readonly #tokens = new Map<string, string>();
  /** The generation each client id was last claimed for (a new one claims again). */
  readonly #claimedGeneration = new Map<string, number>();
  /** Client ids claimed by {@link RedisStore.takeSession}: the connection's next session record need not claim again. */
  readonly #takenClaims = new Set<string>();
  readonly #pending = new RecordedWrites();
  /** This node's appends to the routes stream. */
  readonly appends: RouteAppends;
  /** True while a message from another node is routed here: its retained change is that node's write. */
  #remote = false;
  /** The routes stream cursor this node had committed when it opened. */
  readonly routeCursor: string;
  /**
   * Sessions this node held whose route base was not settled when it stopped (it crashed between
   * a claim and its replay's commit): not in {@link RedisStore.load}; the broker settles each
   * (cluster routing's `settleMoved`) before it listens.
   */
  readonly unsettled: readonly UnsettledSession[];
  /** Client ids given up while a batch carrying their writes was in flight: a retry drops those writes. */
  readonly #abandoned = new Set<string>();
  #ticket: Ticket | undefined;
  #inFlight: { readonly groups: readonly RecordedGroup[]; readonly ticket: Ticket; readonly bytes: number } | undefined;
  #scheduled: { readonly cancel: () => void } | undefined;
  #retryAt = 0;
  #closed = false;

  private constructor(redis: Redis, options: RedisStoreOptions, snapshot: RouterSnapshot, claims: ReadonlyMap<string, string>, route: Awaited<ReturnType<typeof openRoute>>, unsettled: readonly UnsettledSession[]) {
    this.file = where(options.url);
    this.#redis = redis;
    this.#keys = new ClusterKeys(options.prefix ?? DEFAULT_REDIS_PREFIX);
    this.#nodeId = options.nodeId;
    this.#snapshot = snapshot;
    this.#hooks = options.hooks ?? {};
    this.#wait = options.waitReplicas;
    this.#backoff = options.retryBackoffMs ?? { initial: 100, max: 5000 };
    this.#maxPendingBytes = options.maxPendingBytes ?? 64 * 1024 * 1024;
    this.appends = new RouteAppends(options.nodeId, route.incarnation, route.earlier);
    this.unsettled = unsettled;
    this.routeCursor = route.cursor;
    for (const [clientId, token] of claims) this.#tokens.set(clientId, token);
    for (const s of snapshot.sessions) this.#claimedGeneration.set(s.record.clientId, s.record.generation);
  }

  /**
   * Connects, reads the retained messages and the sessions this node held last (or no node did),
   * and claims those for this node; a session another node holds stays there until its client
   * connects here. Throws {@link StoreOpenError} when Redis cannot be reached or read.
   */
  static async open(options: RedisStoreOptions): Promise<RedisStore> {
    // No offline queue and no resend: a write that cannot go out fails its batch at once, and the
    // store retries the batch itself, in order, after its backoff.
    const redis = new Redis(options.url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, autoResendUnfulfilledCommands: false });
    redis.on("error", () => undefined); // reported through failed batches and /health
    const keys = new ClusterKeys(options.prefix ?? DEFAULT_REDIS_PREFIX);
    try {
      await redis.connect();
      const ownership = new Ownership(redis, keys, options.nodeId);
      const others = new Set<string>();
      for (const clientId of await redis.hkeys(keys.sessions)) {
        const owner = await ownership.owner(clientId);
        if (owner !== undefined && owner.node !== options.nodeId) others.add(clientId);
      }
      const loaded = await loadRedisSnapshot(redis, keys, (clientId) => !others.has(clientId));
      const claims = new Map<string, string>();
      for (const s of loaded.sessions) claims.set(s.record.clientId, (await ownership.claim(s.record.clientId)).token);
      const { snapshot, unsettled } = await apartUnsettled(redis, keys, loaded);
      return new RedisStore(redis, options, snapshot, claims, await openRoute(redis, keys, options.nodeId), unsettled);
    } catch (cause) {
      redis.disconnect();
      throw new StoreOpenError(where(options.url), "unreadable", cause instanceof Error ? cause.message : String(cause), { cause });
    }
  }

  /** What Redis held when the store was opened, for `Router.restore`. */
  load(): RouterSnapshot {
    return this.#snapshot;
  }

  /** Estimated bytes recorded and not yet committed (in flight included). */
  get pendingBytes(): number {
    return this.#pending.bytes + (this.#inFlight?.bytes ?? 0);
  }

  /** Commands recorded and not yet sent. */
  get pendingOperations(): number {
    return this.#pending.size;
  }

  /** False from a failed batch until the next one succeeds. */
  get healthy(): boolean {
    return this.stats.consecutiveFailures === 0;
  }

  /** False while batches fail or too much waits: QoS 1/2 publishes are refused meanwhile. */
  get admitting(): boolean {
    return this.healthy && this.pendingBytes <= this.#maxPendingBytes;
  }

  /** This node's id in the cluster. */
  get nodeId(): string {
    return this.#nodeId;
  }

  /** The cluster's key names. */
  get keys(): ClusterKeys {
    return this.#keys;
  }

  /** The token this node holds for `clientId`, if it claimed it. */
  tokenOf(clientId: string): string | undefined {
    return this.#tokens.get(clientId);
  }

  /**
   * Takes `clientId`'s session for a client connecting here (after authentication, before the
   * router claims it). While this node still holds the newest token for it, this router's copy is
   * the session: `{ current: true }`, and the connection's session record claims it as usual.
   * Otherwise another node served it since (or nobody here ever did): in the same script the id is
   * claimed for this node (the other node is told and closes its connection) and what Redis holds
   * for it is read, returned for `Router.adopt`; `forget` is called first, in the same turn as the
   * new token is taken, to drop this router's stale copy, whose unsent writes are dropped too (they
   * would be refused). One round trip. Rejects when Redis fails.
   */
  async takeSession(clientId: string, forget: () => void): Promise<{ readonly current: true } | { readonly current: false; readonly stored: SessionSnapshot | undefined; readonly routeBase: RouteBase | undefined }> {
    const taken = await takeSessionScript(this.#redis, this.#keys, this.#nodeId, clientId, this.#tokens.get(clientId));
    if (taken.current) return taken;
    // One synchronous run from here: no write of the stale copy can be recorded under the new token.
    forget();
    this.#abandon(clientId);
    this.#tokens.set(clientId, taken.claim.token);
    this.#takenClaims.add(clientId);
    return { current: false, stored: taken.stored === undefined ? undefined : decodeRawSession(clientId, taken.stored), routeBase: taken.routeBase };
  }

  /**
   * Forgets the token of a claim whose session was never installed here (Redis failed before
   * its replay was read), so the next client connecting here claims it again and installs it,
   * instead of finding the token current and taking this router's copy, which does not exist,
   * for the session (cluster/routing/uninstalled-claims.ts).
   */
  dropClaim(clientId: string): void {
    this.#tokens.delete(clientId);
    this.#takenClaims.delete(clientId);
  }

  // --- the routes stream (cluster routing, see cluster/routing/) ---------------------------

  /** A new connection to the same Redis, connecting now, its commands queued until it is up. */
  connection(): Redis {
    const redis = this.#redis.duplicate({ lazyConnect: false, enableOfflineQueue: true, maxRetriesPerRequest: 1 });
    redis.on("error", () => undefined); // its commands fail, and their callers retry
    return redis;
  }

  /**
   * Appends `message`, routed here just now, to the routes stream in the same batch as its
   * deliveries, fenced by its publisher's token (`clientId`): a node fenced out cannot append.
   */
  routeAppended(clientId: string | undefined, message: Message, shares: ShareDecisions): void {
    this.#record(clientId, this.appends.command(this.#keys.routes, message, shares));
  }

  /** Records where a shared group has members and appends the change (RouteAppends.shareCommands), in the next batch. */
  shareChanged(change: ShareChange): void {
    for (const command of this.appends.shareCommands(this.#keys, change)) this.#record(undefined, command);
  }

  /** True while {@link RedisStore.routingRemote} runs. */
  get routingRemotely(): boolean {
    return this.#remote;
  }

  /** Runs `route` (another node's message routed here) without writing its retained change again. */
  routingRemote<T>(route: () => T): T {
    this.#remote = true;
    try {
      return route();
    } finally {
      this.#remote = false;
    }
  }

  /** Records this node's routes cursor, in the batch with the writes routing up to it caused. */
  cursorAdvanced(id: string): void {
    this.#record(undefined, ["HSET", this.#keys.cursors, this.#nodeId, id]);
  }

  /** A moved session's replay is recorded: its route base (and its hold on the trim) goes in the same fenced batch. */
  routeBaseSettled(clientId: string): void {
    this.#record(clientId, ["DEL", this.#keys.routeBase(clientId)]);
    this.#record(clientId, ["HDEL", this.#keys.routeBases, clientId]);
  }

  /**
   * Takes the session a dead node held under `token` (cluster/wills-adoption.ts): claimed for this
   * node only while that token is still the owner's, so a client that reconnected to any node
   * first keeps it; the claim and the read are one script. Resolves with what Redis holds
   * (undefined: no session stored) and its route base, or `lost` when another node holds the id now.
   */
  async takeOrphan(clientId: string, token: string): Promise<{ readonly lost: true } | { readonly lost: false; readonly stored: SessionSnapshot | undefined; readonly routeBase: RouteBase | undefined }> {
    const taken = await takeOrphanScript(this.#redis, this.#keys, this.#nodeId, clientId, token);
    if (taken === undefined) return { lost: true };
    this.#abandon(clientId);
    this.#tokens.set(clientId, taken.claim.token);
    this.#takenClaims.add(clientId);
    return { lost: false, stored: taken.stored === undefined ? undefined : decodeRawSession(clientId, taken.stored), routeBase: taken.routeBase };
  }

  /**
   * Resolves once every change recorded before this call is committed; rejects with a
   * `commit-failed` {@link StoreError} when the batch carrying them failed (they are retried), or
   * `closed`. Every call until a batch goes out gets the same promise.
   */
  flush(): Promise<void> {
    if (this.#closed) return Promise.reject(new StoreError("closed", `${this.file} is closed`));
    if (!this.#pending.isEmpty) {
      this.#ticket ??= newTicket();
      this.#schedule();
      return this.#ticket.committed;
    }
    return this.#inFlight?.ticket.committed ?? COMMITTED;
  }

  /** Commits what is recorded, then disconnects. Rejects like {@link RedisStore.flush}, closing anyway. */
  async close(): Promise<void> {
    if (this.#closed) return;
    try {
      while (!this.#pending.isEmpty || this.#inFlight !== undefined) await this.flush();
    } finally {
      this.#scheduled?.cancel();
      this.#scheduled = undefined;
      this.#closed = true;
      this.#ticket?.reject(new StoreError("closed", `${this.file} closed before a commit`));
      this.#ticket = undefined;
      this.#redis.disconnect();
    }
  }

  // --- RouterStore -------------------------------------------------------------------------

  sessionSaved(record: SessionRecord): void {
    const claim = !this.#takenClaims.delete(record.clientId) && this.#claimedGeneration.get(record.clientId) !== record.generation;
    this.#claimedGeneration.set(record.clientId, record.generation);
    this.#record(record.clientId, ["HSET", this.#keys.sessions, record.clientId, encodeSession(record)], claim);
  }

  sessionDeleted(clientId: string): void {
    const k = this.#keys;
    this.#record(clientId, ["DEL", ...k.sessionKeys(clientId)]);
    this.#record(clientId, ["HDEL", k.routeBases, clientId]);
    this.#record(clientId, ["HDEL", k.sessions, clientId]);
    this.#record(clientId, ["HDEL", k.wills, clientId]);
  }

  subscriptionSaved(clientId: string, subscription: SessionSubscription): void {
    this.#record(clientId, ["HSET", this.#keys.subscriptions(clientId), subscription.filter, encodeSubscription(subscription)]);
  }

  subscriptionDeleted(clientId: string, filter: string): void {
    this.#record(clientId, ["HDEL", this.#keys.subscriptions(clientId), filter]);
  }

  deliveryQueued(clientId: string, seq: number, delivery: Delivery): void {
    // A requeued seq starts unsent again, as in SQLite.
    this.#record(clientId, ["HSET", this.#keys.deliveries(clientId), String(seq), encodeDelivery(delivery)]);
    this.#record(clientId, ["HDEL", this.#keys.assigned(clientId), String(seq)]);
  }

  deliveryRemoved(clientId: string, seq: number): void {
    this.#record(clientId, ["HDEL", this.#keys.deliveries(clientId), String(seq)]);
    this.#record(clientId, ["HDEL", this.#keys.assigned(clientId), String(seq)]);
  }

  deliveryAssigned(clientId: string, seq: number, assigned: Assigned): void {
    // Encoded now: the router mutates its Assigned in place later (PUBREC).
    this.#record(clientId, ["HSET", this.#keys.assigned(clientId), String(seq), encodeAssigned(assigned)]);
  }

  inboundQos2Changed(clientId: string, packetId: number, received: boolean): void {
    this.#record(clientId, [received ? "SADD" : "SREM", this.#keys.inboundQos2(clientId), String(packetId)]);
  }

  retainedChanged(topic: string, message: Message | undefined): void {
    if (this.#remote) return;
    this.#record(undefined, message === undefined ? ["HDEL", this.#keys.retained, topic] : ["HSET", this.#keys.retained, topic, encodeMessage(message)]);
  }

  willChanged(clientId: string, will: { readonly message: Message; readonly delayMs: number } | undefined): void {
    this.#record(clientId, will === undefined ? ["HDEL", this.#keys.wills, clientId] : ["HSET", this.#keys.wills, clientId, encodeWill(will)]);
  }

  // --- internals ---------------------------------------------------------------------------

  #record(clientId: string | undefined, command: readonly (string | Buffer)[], claim = false): void {
    if (this.#closed) throw new StoreError("closed", `${this.file} is closed; a change arrived after close()`);
    this.#pending.add(clientId, command, claim);
    this.#schedule();
  }

  #schedule(): void {
    if (this.#scheduled !== undefined || this.#inFlight !== undefined || this.#pending.isEmpty) return;
    const wait = this.#retryAt - performance.now();
    if (wait > 0) {
      const timer = setTimeout(() => { this.#send(); }, wait);
      this.#scheduled = { cancel: () => { clearTimeout(timer); } };
    } else {
      const immediate = setImmediate(() => { this.#send(); });
      this.#scheduled = { cancel: () => { clearImmediate(immediate); } };
    }
  }

  #send(): void {
    this.#scheduled = undefined;
    if (this.#inFlight !== undefined || this.#pending.isEmpty) return;
    const bytes = this.#pending.bytes;
    const operations = this.#pending.size;
    const groups = this.#pending.take();
    const ticket = this.#ticket ?? newTicket();
    this.#ticket = undefined;
    this.#inFlight = { groups, ticket, bytes };
    this.#abandoned.clear();
    const started = performance.now();
    void this.#commit(groups).then(
      (refused) => {
        this.#inFlight = undefined;
        this.#retryAt = 0;
        this.stats.commits += 1;
        this.stats.consecutiveFailures = 0;
        for (const clientId of refused) this.#hooks.onFenced?.(clientId);
        this.#hooks.onCommit?.({ operations, durationMs: performance.now() - started });
        ticket.resolve();
        this.#schedule();
      },
      (cause: unknown) => {
        // Nothing is known to be written: the groups go again first (every command is
        // idempotent, so a batch that did run and lost its reply is harmless to repeat).
        this.#inFlight = undefined;
        const retried = this.#abandoned.size === 0 ? groups : groups.filter((g) => g.clientId === undefined || !this.#abandoned.has(g.clientId));
        if (retried.length < groups.length) appendsDropped(groups.filter((g) => !retried.includes(g)), this.appends);
        this.#pending.restore(retried);
        this.stats.failures += 1;
        this.stats.consecutiveFailures += 1;
        this.#retryAt = performance.now() + Math.min(this.#backoff.max, this.#backoff.initial * 2 ** (this.stats.consecutiveFailures - 1));
        const detail = cause instanceof Error ? cause.message : String(cause);
        ticket.reject(new StoreError("commit-failed", `batch of ${String(operations)} writes to ${this.file} failed: ${detail}`, { cause }));
        // Waiters on later changes are owed the retry's outcome.
        this.#ticket ??= newTicket();
        if (!this.#closed) this.#schedule();
      },
    );
  }

  // Drops the unsent writes of a session copy this node gave up, also those of a batch in flight
  // should it fail and go again (they would carry the new token then).
  #abandon(clientId: string): void {
    appendsDropped(this.#pending.drop(clientId), this.appends);
    if (this.#inFlight?.groups.some((g) => g.clientId === clientId) === true) this.#abandoned.add(clientId);
  }

  // Runs one batch; resolves with the client ids whose writes were refused.
  async #commit(groups: readonly RecordedGroup[]): Promise<string[]> {
    const result = await fencedBatch(this.#redis, this.#keys, toWriteGroups(groups, this.#keys, this.#nodeId, this.#tokens));
    if (this.#wait !== undefined) {
      const acknowledged = await this.#redis.wait(this.#wait.count, this.#wait.timeoutMs);
      if (acknowledged < this.#wait.count) throw new Error(`WAIT: ${String(acknowledged)} of ${String(this.#wait.count)} replicas acknowledged within ${String(this.#wait.timeoutMs)} ms`);
    }
    for (const [index, claim] of result.claims) {
      const clientId = groups[index]?.clientId;
      if (clientId !== undefined) this.#tokens.set(clientId, claim.token);
    }
    const refused = new Set<string>();
    for (const index of result.refused) {
      const clientId = groups[index]?.clientId;
      if (clientId !== undefined) refused.add(clientId);
    }
    appendsSettled(groups, new Set(result.refused), result.appended, this.appends);
    return [...refused];
  }
}
