/**
 * The Redis keys of one cluster's data, all under one prefix (`storage.prefix`), so several
 * clusters (or tests) can share a server.
 * @module
 */

/** Key names by what they hold. */
export class ClusterKeys {
  readonly prefix: string;

  constructor(prefix: string) {
    this.prefix = prefix;
  }

  /** Hash {token, node} of the client id's current owner. */
  owner(clientId: string): string {
    return `${this.prefix}owner:${clientId}`;
  }

  /** The counter fencing tokens are allocated from (never reused: INCR only). */
  get tokens(): string {
    return `${this.prefix}tokens`;
  }

  /** The pub/sub channel a node hears takeovers of its clients on. */
  nodeChannel(nodeId: string): string {
    return `${this.prefix}node:${nodeId}`;
  }

  /** Hash client id → session record (JSON). */
  get sessions(): string {
    return `${this.prefix}sessions`;
  }

  /** Hash filter → subscription (JSON) of one session. */
  subscriptions(clientId: string): string {
    return `${this.prefix}subs:${clientId}`;
  }

  /** Hash seq → queued delivery (binary, see redis-codec.ts) of one session. */
  deliveries(clientId: string): string {
    return `${this.prefix}deliveries:${clientId}`;
  }

  /** Hash seq → "packetId phase" of the session's deliveries that were sent. */
  assigned(clientId: string): string {
    return `${this.prefix}assigned:${clientId}`;
  }

  /** Set of inbound QoS 2 packet ids received and not yet released. */
  inboundQos2(clientId: string): string {
    return `${this.prefix}qos2:${clientId}`;
  }

  /** Hash client id → will (binary). */
  get wills(): string {
    return `${this.prefix}wills`;
  }

  /** Hash topic → retained message (binary). */
  get retained(): string {
    return `${this.prefix}retained`;
  }

  /** Set of the ids of nodes that joined and were not yet found dead (their sessions not yet adopted). */
  get nodes(): string {
    return `${this.prefix}nodes`;
  }

  /** A node's heartbeat (JSON {nodeId, startedAt, lastBeat}), expiring unless renewed: gone means dead. */
  heartbeat(nodeId: string): string {
    return `${this.prefix}alive:${nodeId}`;
  }

  /**
   * The survivor that delivers a dead node's `$share` copies (its id): the first to adopt one of its
   * sessions; gone when that node beats again.
   */
  heir(nodeId: string): string {
    return `${this.prefix}heir:${nodeId}`;
  }

  /** The stream of publishes accepted by any node, in commit order (cluster routing). */
  get routes(): string {
    return `${this.prefix}routes`;
  }

  /** Hash node id → id of the last stream entry that node routed, committed with what it caused. */
  get cursors(): string {
    return `${this.prefix}cursors`;
  }

  /**
   * Hash of where shared groups have members: field JSON [node, group, filter], value "1"; kept
   * with the routes stream's share changes, so a node starting reads the state there and then
   * follows the stream.
   */
  get shares(): string {
    return `${this.prefix}shares`;
  }

  /** The counter a node's incarnations (one per start) are allocated from. */
  get incarnations(): string {
    return `${this.prefix}incarnations`;
  }

  /**
   * Hash {node, cursor, tip} of a session moved to a new node whose replay is not committed yet:
   * what the session's stored queue holds (see routing/handoff.ts).
   */
  routeBase(clientId: string): string {
    return `${this.prefix}routebase:${clientId}`;
  }

  /**
   * Hash client id → the cursor of its unsettled route base: the stream is not trimmed below any
   * of them (a replay reads from there; routing/handoff-rules.ts trimFloor).
   */
  get routeBases(): string {
    return `${this.prefix}routebases`;
  }

  /** Every per-session key of `clientId` (deleted together when the session ends). */
  sessionKeys(clientId: string): string[] {
    return [this.subscriptions(clientId), this.deliveries(clientId), this.assigned(clientId), this.inboundQos2(clientId), this.routeBase(clientId)];
  }
}
