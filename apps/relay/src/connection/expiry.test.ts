import { afterEach, describe, expect, it, vi } from "vitest";
import { atExpiry } from "./expiry.js";

const DAY = 24 * 60 * 60 * 1000;

afterEach(() => {
  vi.useRealTimers();
});

describe("atExpiry", () => {
  it("fires at the expiry even past setTimeout's 24.8-day limit, and not before", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    let fired = 0;
    atExpiry(Date.now() + 30 * DAY, () => (fired += 1));
    vi.advanceTimersByTime(25 * DAY);
    expect(fired).toBe(0);
    vi.advanceTimersByTime(5 * DAY);
    expect(fired).toBe(1);
  });

  it("fires at once (on the next turn) for a token already expired, and not after a cancel", () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "Date"] });
    let fired = 0;
    atExpiry(Date.now() - 1, () => (fired += 1));
    expect(fired).toBe(0);
    vi.advanceTimersByTime(0);
    expect(fired).toBe(1);
    const cancel = atExpiry(Date.now() + DAY, () => (fired += 1));
    cancel();
    vi.advanceTimersByTime(2 * DAY);
    expect(fired).toBe(1);
  });
});
