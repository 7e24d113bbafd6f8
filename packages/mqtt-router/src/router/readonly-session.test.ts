// Router.session() hands out the live session read-only: what it shows follows the router, and its
// type offers nothing that changes it (the type assertions are checked by `pnpm run typecheck`).
import { describe, expect, expectTypeOf, it } from "vitest";
import type { ReadonlySession } from "./mqtt-session.js";
import type { SessionSubscription } from "./subscription.js";
import { message, newRouter, online, sub } from "./router.test-helpers.js";

describe("Router.session", () => {
  it("is the live session, typed read-only", () => {
    const { router } = newRouter();
    const c = online(router, "c", { receiveMaximum: 1 });
    const session = router.session("c");
    expectTypeOf(session).toEqualTypeOf<ReadonlySession | undefined>();
    expectTypeOf<ReadonlySession["subscriptions"]>().toEqualTypeOf<ReadonlyMap<string, SessionSubscription>>();
    expectTypeOf<ReadonlySession>().not.toHaveProperty("discard");
    expectTypeOf<ReadonlySession["queue"]>().not.toHaveProperty("clear");
    router.subscribe("c", c.generation, [sub("t")]);
    router.publish(message("t", "a"));
    router.publish(message("t", "b"));
    expect(session?.subscriptions.size).toBe(1);
    expect(session?.queue.inflightCount).toBe(1);
    expect(session?.queue.queuedCount).toBe(1);
    expect(session?.generation).toBe(c.generation);
  });
});
