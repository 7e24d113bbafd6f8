import { describe, expect, it } from "vitest";
import { HEAP_GROWING_PERCENT, heapGrowingFlag } from "./heap-tuning.js";

describe("heapGrowingFlag", () => {
  it("sets V8's heap growing percent", () => {
    expect(heapGrowingFlag(["--enable-source-maps"])).toBe(`--heap-growing-percent=${String(HEAP_GROWING_PERCENT)}`);
  });

  it.each(["--heap-growing-percent=50", "--heap_growing_percent=50", "--heap-growing-percent"])("leaves the operator's %s alone", (flag) => {
    expect(heapGrowingFlag(["--max-old-space-size=512", flag])).toBeUndefined();
  });
});
