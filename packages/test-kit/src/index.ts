/**
 * `@handoff/test-kit`: the helpers the tests of every package and app share (private, test-only).
 * @packageDocumentation
 */
export { concat, hex, toHex } from "./bytes.js";
export { chunked } from "./chunks.js";
export { applyEdits, byteEdits, mutated, type ByteEdit } from "./mutate.js";
export { installWithResolvers } from "./with-resolvers.js";
export { TEST_TIMEOUT_MS, WAIT_LIMIT_MS, waitLimit } from "./patience.js";
