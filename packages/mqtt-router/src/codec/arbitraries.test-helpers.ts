// fast-check arbitraries of valid packets, shared by the round-trip, oracle and fuzz tests (and,
// through the workspace-only `@handoff/mqtt-router/testing`, by the broker's fuzzer).
// Not named *.test.ts so vitest does not collect it; tsc and eslint still check it.
import fc from "fast-check";
import type { Packet, ProtocolVersion, QoS, Subscription, Will } from "./packet.js";
import type {
  AckProperties,
  AuthProperties,
  ConnackProperties,
  ConnectProperties,
  DisconnectProperties,
  PublishProperties,
  SubscribeProperties,
  UnsubscribeProperties,
  UserProperty,
  WillProperties,
} from "./property-types.js";
import { validReasonCodes, validSubackReturnCodesV4 } from "./reason-codes.js";
import { MAX_VARINT } from "./varint.js";

/** Any MQTT-legal string: well-formed, no U+0000 (the `u` flag makes the class match lone surrogates only). */
export const mqttString = (maxLength = 12): fc.Arbitrary<string> =>
  fc.string({ unit: "binary", maxLength }).filter((s) => !s.includes("\u0000") && !/[\uD800-\uDFFF]/u.test(s));

/** ASCII-only strings, where most real traffic lives. */
export const asciiString = (maxLength = 12): fc.Arbitrary<string> =>
  fc.string({ unit: "binary-ascii", maxLength }).filter((s) => !s.includes("\u0000"));

const levelText = fc
  .oneof(asciiString(6), mqttString(4))
  .map((s) => s.replace(/[+#/]/g, "x"));

/** A valid Topic Name: one or more levels, no wildcards, non-empty. */
export const topicName: fc.Arbitrary<string> = fc
  .array(levelText, { minLength: 1, maxLength: 4 })
  .map((levels) => levels.join("/"))
  .filter((t) => t.length > 0);

/** A valid plain Topic Filter (with `+` levels and maybe a trailing `#`). */
export const plainTopicFilter: fc.Arbitrary<string> = fc
  .tuple(fc.array(fc.oneof(levelText, fc.constant("+")), { minLength: 1, maxLength: 4 }), fc.boolean())
  .map(([levels, hash]) => (hash ? [...levels, "#"] : levels).join("/"))
  .filter((t) => t.length > 0);

const shareName = asciiString(6)
  .map((s) => s.replace(/[+#/]/g, "g"))
  .filter((s) => s.length > 0);

/** A valid Topic Filter for the version (MQTT 5 adds `$share/<group>/<filter>`). */
export const topicFilter = (version: ProtocolVersion): fc.Arbitrary<string> =>
  version === 5
    ? fc.oneof(
        { weight: 4, arbitrary: plainTopicFilter },
        { weight: 1, arbitrary: fc.tuple(shareName, plainTopicFilter).map(([g, f]) => `$share/${g}/${f}`) },
      )
    : plainTopicFilter;

const bytes = (maxLength = 16): fc.Arbitrary<Uint8Array> => fc.uint8Array({ maxLength });
const u16 = fc.integer({ min: 0, max: 0xffff });
const u32 = fc.integer({ min: 0, max: 0xffff_ffff });
const packetId = fc.integer({ min: 1, max: 0xffff });
const qos = fc.constantFrom<QoS>(0, 1, 2);
const userProperties: fc.Arbitrary<UserProperty[]> = fc.array(
  fc.tuple(mqttString(6), mqttString(6)).map(([k, v]): UserProperty => [k, v]),
  { minLength: 1, maxLength: 3 },
);
const reasonString = mqttString(10);
const none = { requiredKeys: [] as never[] };

const authPair = fc.option(fc.tuple(mqttString(8), fc.option(bytes(), { nil: undefined })), { nil: undefined }).map(
  (pair): { authenticationMethod?: string; authenticationData?: Uint8Array } =>
    pair === undefined
      ? {}
      : pair[1] === undefined
        ? { authenticationMethod: pair[0] }
        : { authenticationMethod: pair[0], authenticationData: pair[1] },
);

/** CONNECT properties (authentication data only with a method, as the spec requires). */
export const connectProperties: fc.Arbitrary<ConnectProperties> = fc
  .tuple(
    fc.record(
      {
        sessionExpiryInterval: u32,
        receiveMaximum: fc.integer({ min: 1, max: 0xffff }),
        maximumPacketSize: fc.integer({ min: 1, max: 0xffff_ffff }),
        topicAliasMaximum: u16,
        requestResponseInformation: fc.boolean(),
        requestProblemInformation: fc.boolean(),
        userProperties,
      },
      none,
    ),
    authPair,
  )
  .map(([p, a]) => ({ ...p, ...a }));

/** Will properties. */
export const willProperties: fc.Arbitrary<WillProperties> = fc.record(
  {
    willDelayInterval: u32,
    payloadFormatIndicator: fc.constantFrom<0 | 1>(0, 1),
    messageExpiryInterval: u32,
    contentType: mqttString(8),
    responseTopic: topicName,
    correlationData: bytes(),
    userProperties,
  },
  none,
);

/** CONNACK properties. */
export const connackProperties: fc.Arbitrary<ConnackProperties> = fc
  .tuple(
    fc.record(
      {
        sessionExpiryInterval: u32,
        receiveMaximum: fc.integer({ min: 1, max: 0xffff }),
        maximumQoS: fc.constantFrom<0 | 1>(0, 1),
        retainAvailable: fc.boolean(),
        maximumPacketSize: fc.integer({ min: 1, max: 0xffff_ffff }),
        assignedClientIdentifier: mqttString(10),
        topicAliasMaximum: u16,
        reasonString,
        userProperties,
        wildcardSubscriptionAvailable: fc.boolean(),
        subscriptionIdentifiersAvailable: fc.boolean(),
        sharedSubscriptionAvailable: fc.boolean(),
        serverKeepAlive: u16,
        responseInformation: mqttString(8),
        serverReference: mqttString(8),
      },
      none,
    ),
    authPair,
  )
  .map(([p, a]) => ({ ...p, ...a }));

/** PUBLISH properties (Topic Alias is added by the PUBLISH arbitrary when the topic is empty). */
export const publishProperties: fc.Arbitrary<PublishProperties> = fc.record(
  {
    payloadFormatIndicator: fc.constantFrom<0 | 1>(0, 1),
    messageExpiryInterval: u32,
    topicAlias: fc.integer({ min: 1, max: 0xffff }),
    responseTopic: topicName,
    correlationData: bytes(),
    userProperties,
    subscriptionIdentifiers: fc.array(fc.integer({ min: 1, max: MAX_VARINT }), { minLength: 1, maxLength: 3 }),
    contentType: mqttString(8),
  },
  none,
);

/** Properties of the acknowledgement family. */
export const ackProperties: fc.Arbitrary<AckProperties> = fc.record({ reasonString, userProperties }, none);

const subscribeProperties: fc.Arbitrary<SubscribeProperties> = fc.record(
  { subscriptionIdentifier: fc.integer({ min: 1, max: MAX_VARINT }), userProperties },
  none,
);
const unsubscribeProperties: fc.Arbitrary<UnsubscribeProperties> = fc.record({ userProperties }, none);
const disconnectProperties: fc.Arbitrary<DisconnectProperties> = fc.record(
  { sessionExpiryInterval: u32, reasonString, userProperties, serverReference: mqttString(8) },
  none,
);
const authProperties: fc.Arbitrary<AuthProperties> = fc
  .tuple(fc.record({ reasonString, userProperties }, none), authPair)
  .map(([p, a]) => ({ ...p, ...a }));

const codeOf = (set: ReadonlySet<number>): fc.Arbitrary<number> => fc.constantFrom(...set);

/** `arb` in MQTT 5, the empty property set in 3.1.1. */
function props<T>(version: ProtocolVersion, arb: fc.Arbitrary<T>): fc.Arbitrary<T | Record<string, never>> {
  return version === 5 ? arb : fc.constant({});
}

/** A valid CONNECT of the version (3.1.1 also yields some MQTT 3.1 CONNECTs). */
export function connectPacket(version: ProtocolVersion): fc.Arbitrary<Packet> {
  const will: fc.Arbitrary<Will> = fc.record({
    topic: topicName,
    payload: bytes(),
    qos,
    retain: fc.boolean(),
    properties: props(version, willProperties),
  });
  return fc
    .record({
      protocolVersion: version === 5 ? fc.constant<5>(5) : fc.constantFrom<3 | 4>(4, 4, 3),
      cleanStart: fc.boolean(),
      keepAlive: u16,
      clientId: mqttString(23),
      will: fc.option(will, { nil: undefined }),
      username: fc.option(mqttString(10), { nil: undefined }),
      password: fc.option(bytes(), { nil: undefined }),
      properties: props(version, connectProperties),
    })
    .map(({ will: w, username, password, ...rest }): Packet => ({
      type: "connect",
      ...rest,
      ...(w === undefined ? {} : { will: w }),
      ...(username === undefined ? {} : { username }),
      // 3.1.1 forbids a password without a username.
      ...(password === undefined || (version === 4 && username === undefined) ? {} : { password }),
    }));
}

/** A valid PUBLISH of the version. */
export function publishPacket(version: ProtocolVersion, payloadMax = 32): fc.Arbitrary<Packet> {
  return fc
    .record({
      qos,
      retain: fc.boolean(),
      dup: fc.boolean(),
      topic: version === 5 ? fc.oneof({ weight: 5, arbitrary: topicName }, { weight: 1, arbitrary: fc.constant("") }) : topicName,
      packetId,
      payload: bytes(payloadMax),
      properties: props(version, publishProperties),
      alias: fc.integer({ min: 1, max: 0xffff }),
    })
    .map(({ qos: q, dup, packetId: id, alias, topic, properties, ...rest }): Packet => {
      const withAlias = topic === "" && !("topicAlias" in properties) ? { ...properties, topicAlias: alias } : properties;
      return q === 0
        ? { type: "publish", qos: 0, dup: false, topic, ...rest, properties: withAlias }
        : { type: "publish", qos: q, dup, topic, packetId: id, ...rest, properties: withAlias };
    });
}

/** A valid packet of any of the 15 types for the version (AUTH only in MQTT 5). */
export function anyPacket(version: ProtocolVersion): fc.Arbitrary<Packet> {
  const v5 = version === 5;
  const ackTypes = ["puback", "pubrec", "pubrel", "pubcomp"] as const;
  const subscription: fc.Arbitrary<Subscription> = fc
    .record({
      topicFilter: topicFilter(version),
      qos,
      noLocal: v5 ? fc.boolean() : fc.constant(false),
      retainAsPublished: v5 ? fc.boolean() : fc.constant(false),
      retainHandling: v5 ? fc.constantFrom<0 | 1 | 2>(0, 1, 2) : fc.constant<0>(0),
    })
    // No Local is a protocol error on shared subscriptions [MQTT-3.8.3-4].
    .map((s) => (s.topicFilter.startsWith("$share/") ? { ...s, noLocal: false } : s));
  const arbs: fc.Arbitrary<Packet>[] = [
    connectPacket(version),
    fc
      .record({
        sessionPresent: fc.boolean(),
        reasonCode: v5 ? codeOf(validReasonCodes.connack) : fc.integer({ min: 0, max: 5 }),
        properties: props(version, connackProperties),
      })
      .map((p): Packet => ({ type: "connack", ...p })),
    publishPacket(version),
    fc.constantFrom(...ackTypes).chain((type) =>
      fc
        .record({
          packetId,
          reasonCode: v5 ? codeOf(validReasonCodes[type]) : fc.constant(0),
          properties: props(version, ackProperties),
        })
        .map((p): Packet => ({ type, ...p })),
    ),
    fc
      .record({
        packetId,
        subscriptions: fc.array(subscription, { minLength: 1, maxLength: 4 }),
        properties: props(version, subscribeProperties),
      })
      .map((p): Packet => ({ type: "subscribe", ...p })),
    fc
      .record({
        packetId,
        reasonCodes: fc.array(codeOf(v5 ? validReasonCodes.suback : validSubackReturnCodesV4), { minLength: 1, maxLength: 4 }),
        properties: props(version, ackProperties),
      })
      .map((p): Packet => ({ type: "suback", ...p })),
    fc
      .record({
        packetId,
        topicFilters: fc.array(topicFilter(version), { minLength: 1, maxLength: 4 }),
        properties: props(version, unsubscribeProperties),
      })
      .map((p): Packet => ({ type: "unsubscribe", ...p })),
    fc
      .record({
        packetId,
        reasonCodes: v5 ? fc.array(codeOf(validReasonCodes.unsuback), { minLength: 1, maxLength: 4 }) : fc.constant([]),
        properties: props(version, ackProperties),
      })
      .map((p): Packet => ({ type: "unsuback", ...p })),
    fc.constant<Packet>({ type: "pingreq" }),
    fc.constant<Packet>({ type: "pingresp" }),
    fc
      .record({
        reasonCode: v5 ? codeOf(validReasonCodes.disconnect) : fc.constant(0),
        properties: props(version, disconnectProperties),
      })
      .map((p): Packet => ({ type: "disconnect", ...p })),
  ];
  if (v5) {
    arbs.push(
      fc
        .record({ reasonCode: codeOf(validReasonCodes.auth), properties: authProperties })
        .map((p): Packet => ({ type: "auth", ...p })),
    );
  }
  return fc.oneof(...arbs);
}
