import { describe, expect, it } from "vitest";
import { TEST_TIMEOUT_MS, WAIT_LIMIT_MS, waitLimit } from "./patience.js";

describe("patience", () => {
  it("raises a wait's limit to the safety net and keeps a longer one", () => {
    expect(waitLimit(3000)).toBe(WAIT_LIMIT_MS);
    expect(waitLimit(2 * WAIT_LIMIT_MS)).toBe(2 * WAIT_LIMIT_MS);
  });

  it("leaves a test time for a few waits in a row before vitest stops it", () => {
    expect(TEST_TIMEOUT_MS).toBeGreaterThanOrEqual(4 * WAIT_LIMIT_MS);
  });
});
