/**
 * `@handoff/mqtt-router/testing`: the package's own test helpers, for the tests of the apps built on
 * it (the broker's store tests and its fuzzer), so that each helper exists once. Workspace-only:
 * it resolves through the `@handoff/source` condition alone and is neither built nor published,
 * because its generators need fast-check (a development dependency, which a build would bundle or
 * a consumer would have to install) and because test helpers are no API to keep stable. Nothing
 * in the package's other entries imports it.
 * @module
 */
// fast-check generators of valid packets of every type (the codec's round-trip and oracle tests use them).
export { anyPacket, connectPacket, publishPacket } from "../codec/arbitraries.test-helpers.js";
// A sink that records deliveries, clients connected and bound in one step, messages and subscriptions in short.
export { message, online, recordingSink, sub, type RecordingSink } from "../router/router.test-helpers.js";
