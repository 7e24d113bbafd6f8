import type { Clock } from "@handoff/seqlog";
import { MAX_PACKET_SIZE } from "../codec/frame.js";
import { SESSION_NEVER_EXPIRES, type ProtocolVersion, type QoS } from "../codec/packet.js";

/**
 * What the server offers a connection: announced in CONNACK (MQTT 5) and enforced on what the
 * client sends. Set once in {@link ProtocolOptions}; `accept` may narrow them per connection.
 */
export interface ServerLimits {
  /** Inbound QoS 1/2 PUBLISHes the client may have unacknowledged at once (1..65535). */
  readonly receiveMaximum: number;
  /** Largest packet the server accepts, in bytes. */
  readonly maximumPacketSize: number;
  /** Highest inbound Topic Alias the client may use (0 disables inbound aliases). */
  readonly topicAliasMaximum: number;
  /** Highest QoS the server supports for PUBLISH and Will messages. */
  readonly maximumQoS: QoS;
  /** Whether retained messages are supported. */
  readonly retainAvailable: boolean;
  /** Whether wildcard subscriptions are supported. */
  readonly wildcardSubscriptionAvailable: boolean;
  /** Whether Subscription Identifiers are supported. */
  readonly subscriptionIdentifiersAvailable: boolean;
  /** Whether `$share/` subscriptions are supported. */
  readonly sharedSubscriptionAvailable: boolean;
  /** Keep alive the server imposes, seconds; undefined keeps the client's value. */
  readonly serverKeepAlive: number | undefined;
  /** Cap on the Session Expiry Interval a client may ask for, seconds. */
  readonly maximumSessionExpiryInterval: number;
  /**
   * Most levels a topic name or filter may have (not announced: MQTT has no property for it). A
   * deeper PUBLISH topic ends the connection with 0x90, a deeper filter with 0x8F, a deeper Will
   * Topic gets CONNACK 0x90.
   */
  readonly maximumTopicLevels: number;
  /** Most topic filters in one SUBSCRIBE; more end the connection with 0x97 (Quota exceeded). */
  readonly maximumFiltersPerSubscribe: number;
}

/** Configuration of a {@link MqttConnection}. Everything but the clock and the id generator is optional. */
export interface ProtocolOptions extends Partial<ServerLimits> {
  /** Injected clock (milliseconds): keepalive and connect timeouts are measured against it. */
  readonly clock: Clock;
  /** Generates a unique client identifier for a client that sent an empty one. */
  readonly generateClientId: () => string;
  /** Protocol levels the server speaks (default both 4 and 5). */
  readonly protocolVersions?: readonly ProtocolVersion[];
  /** Whether an empty client id is accepted and replaced by a generated one (default true). */
  readonly allowEmptyClientId?: boolean;
  /** Longest client id accepted, in UTF-16 code units (default 65535). */
  readonly clientIdMaxLength?: number;
  /** Pattern every client-supplied id must match (default: any). */
  readonly clientIdPattern?: RegExp;
  /** Whether reason strings are sent on failures (default true). */
  readonly reasonStrings?: boolean;
  /** Whether the server uses Topic Aliases on PUBLISHes it sends (default true). */
  readonly outboundTopicAliases?: boolean;
  /**
   * Close a connection whose CONNECT is not accepted within this many ms of opening: no CONNECT,
   * or an authentication (enhanced or not) that does not finish (default: never).
   */
  readonly connectTimeoutMs?: number;
  /**
   * Bytes of packets held while the CONNECT awaits the app's verdict, those that came in the same
   * chunk as the CONNECT included (default 1 MiB); beyond that, CONNACK 0x97 and close.
   */
  readonly maxPendingBytes?: number;
  /**
   * Bytes of packets one call to `receiveBytes`, `accept` or `resume` processes, at least one
   * packet (default: no bound). What is left, packets held before CONNACK included, waits until
   * `resume`: while `backlogged` is true the app calls it on a later turn of its event loop, so a
   * client that sent a hundred thousand small packets before CONNACK cannot stall it in one go.
   */
  readonly inputBudgetBytes?: number;
}

/** {@link ProtocolOptions} with every default filled in. */
export interface ResolvedOptions extends ServerLimits {
  readonly clock: Clock;
  readonly generateClientId: () => string;
  readonly protocolVersions: readonly ProtocolVersion[];
  readonly allowEmptyClientId: boolean;
  readonly clientIdMaxLength: number;
  readonly clientIdPattern: RegExp | undefined;
  readonly reasonStrings: boolean;
  readonly outboundTopicAliases: boolean;
  readonly connectTimeoutMs: number | undefined;
  readonly maxPendingBytes: number;
  readonly inputBudgetBytes: number;
}

/** Default {@link ServerLimits.maximumTopicLevels}. */
export const DEFAULT_MAX_TOPIC_LEVELS = 128;

/** Default {@link ServerLimits.maximumFiltersPerSubscribe}. */
export const DEFAULT_MAX_FILTERS_PER_SUBSCRIBE = 256;

/** Default {@link ProtocolOptions.maxPendingBytes}: 1 MiB. */
export const DEFAULT_MAX_PENDING_BYTES = 1 << 20;

/** Fills in the defaults of `options`. */
export function resolveOptions(options: ProtocolOptions): ResolvedOptions {
  // One server passes one options object to all its connections: they share the result
  // (about 200 bytes per connection otherwise).
  const known = resolved.get(options);
  if (known !== undefined) return known;
  const result = resolveFresh(options);
  resolved.set(options, result);
  return result;
}

const resolved = new WeakMap<ProtocolOptions, ResolvedOptions>();

function resolveFresh(options: ProtocolOptions): ResolvedOptions {
  return {
    clock: options.clock,
    generateClientId: options.generateClientId,
    receiveMaximum: options.receiveMaximum ?? 65_535,
    maximumPacketSize: options.maximumPacketSize ?? MAX_PACKET_SIZE,
    topicAliasMaximum: options.topicAliasMaximum ?? 0,
    maximumQoS: options.maximumQoS ?? 2,
    retainAvailable: options.retainAvailable ?? true,
    wildcardSubscriptionAvailable: options.wildcardSubscriptionAvailable ?? true,
    subscriptionIdentifiersAvailable: options.subscriptionIdentifiersAvailable ?? true,
    sharedSubscriptionAvailable: options.sharedSubscriptionAvailable ?? true,
    serverKeepAlive: options.serverKeepAlive,
    maximumSessionExpiryInterval: options.maximumSessionExpiryInterval ?? SESSION_NEVER_EXPIRES,
    maximumTopicLevels: options.maximumTopicLevels ?? DEFAULT_MAX_TOPIC_LEVELS,
    maximumFiltersPerSubscribe: options.maximumFiltersPerSubscribe ?? DEFAULT_MAX_FILTERS_PER_SUBSCRIBE,
    protocolVersions: options.protocolVersions ?? [4, 5],
    allowEmptyClientId: options.allowEmptyClientId ?? true,
    clientIdMaxLength: options.clientIdMaxLength ?? 65_535,
    clientIdPattern: options.clientIdPattern,
    reasonStrings: options.reasonStrings ?? true,
    outboundTopicAliases: options.outboundTopicAliases ?? true,
    connectTimeoutMs: options.connectTimeoutMs,
    maxPendingBytes: options.maxPendingBytes ?? DEFAULT_MAX_PENDING_BYTES,
    inputBudgetBytes: options.inputBudgetBytes ?? Number.POSITIVE_INFINITY,
  };
}

/** Picks the {@link ServerLimits} part of resolved options, with per-connection overrides applied. */
export function limitsOf(options: ResolvedOptions, overrides?: Partial<Omit<ServerLimits, "maximumPacketSize">>): ServerLimits {
  // Without overrides the resolved options are the limits (they extend ServerLimits), shared by
  // every connection of the server; nothing reads more of them than the ServerLimits fields.
  if (overrides === undefined) return options;
  return {
    receiveMaximum: overrides.receiveMaximum ?? options.receiveMaximum,
    maximumPacketSize: options.maximumPacketSize,
    topicAliasMaximum: overrides.topicAliasMaximum ?? options.topicAliasMaximum,
    maximumQoS: overrides.maximumQoS ?? options.maximumQoS,
    retainAvailable: overrides.retainAvailable ?? options.retainAvailable,
    wildcardSubscriptionAvailable: overrides.wildcardSubscriptionAvailable ?? options.wildcardSubscriptionAvailable,
    subscriptionIdentifiersAvailable:
      overrides.subscriptionIdentifiersAvailable ?? options.subscriptionIdentifiersAvailable,
    sharedSubscriptionAvailable: overrides.sharedSubscriptionAvailable ?? options.sharedSubscriptionAvailable,
    serverKeepAlive: "serverKeepAlive" in overrides ? overrides.serverKeepAlive : options.serverKeepAlive,
    maximumSessionExpiryInterval: overrides.maximumSessionExpiryInterval ?? options.maximumSessionExpiryInterval,
    maximumTopicLevels: overrides.maximumTopicLevels ?? options.maximumTopicLevels,
    maximumFiltersPerSubscribe: overrides.maximumFiltersPerSubscribe ?? options.maximumFiltersPerSubscribe,
  };
}
