import { describe, expect, it } from "vitest";
import { installWithResolvers } from "./with-resolvers.js";

describe("installWithResolvers", () => {
  it("installs a working Promise.withResolvers only where it is missing, and removes only its own", async () => {
    const native: unknown = Reflect.get(Promise, "withResolvers");
    Reflect.deleteProperty(Promise, "withResolvers");
    try {
      const uninstall = installWithResolvers();
      const make = Reflect.get(Promise, "withResolvers") as () => { promise: Promise<number>; resolve: (v: number) => void };
      const { promise, resolve } = make();
      resolve(7);
      await expect(promise).resolves.toBe(7);
      const again = installWithResolvers();
      again();
      expect(Reflect.get(Promise, "withResolvers")).toBe(make);
      uninstall();
      expect(Reflect.get(Promise, "withResolvers")).toBeUndefined();
    } finally {
      if (native !== undefined) Reflect.set(Promise, "withResolvers", native);
    }
  });
});
