// Workspace-only entry (`@handoff/moq-relay/testing`, not published): the doubles the relay app's
// tests share with this package's (a whole session driven by a scripted peer, counting stats), and
// the serving module a guard test spies on.
export { CountingStats } from "./harness.test-helpers.js";
export { TestPeer, testOrigin } from "./test-peer.test-helpers.js";
export { Serving } from "../serve/index.js";
