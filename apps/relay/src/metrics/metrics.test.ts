import { describe, expect, it } from "vitest";
import { RelayMetrics } from "./metrics.js";

describe("RelayMetrics", () => {
  it("counts frames and their bytes by direction", async () => {
    const m = new RelayMetrics();
    m.frame("out", 10);
    m.frame("out", 5);
    const text = await m.render();
    expect(text).toMatch(/relay_frames_total\{direction="out"\} 2/);
    expect(text).toMatch(/relay_frame_bytes_total\{direction="out"\} 15/);
  });

  it("keeps frame counts monotonic across scrapes", async () => {
    const m = new RelayMetrics();
    m.frame("in", 1);
    await m.render();
    m.frame("in", 1);
    m.group("in");
    const text = await m.render();
    expect(text).toMatch(/relay_frames_total\{direction="in"\} 2/);
    expect(text).toMatch(/relay_groups_total\{direction="in"\} 1/);
  });

  it("tracks open sessions as a gauge", async () => {
    const m = new RelayMetrics();
    m.sessionOpened("ws");
    m.sessionOpened("tcp");
    m.sessionClosed();
    const text = await m.render();
    expect(text).toMatch(/relay_sessions 1/);
    expect(text).toMatch(/relay_sessions_total\{transport="tcp"\} 1/);
  });

  it("tracks served subscriptions", async () => {
    const m = new RelayMetrics();
    m.subscription(1);
    m.subscription(1);
    m.subscription(-1);
    expect(await m.render()).toMatch(/relay_subscriptions 1/);
  });

  it("counts groups reset downstream because frames were missing, and every group reset by its code", async () => {
    const m = new RelayMetrics();
    m.incomplete();
    expect(await m.render()).toMatch(/relay_groups_incomplete_total 1/);
    m.groupReset(430);
    m.groupReset(430);
    m.groupReset(422);
    const text = await m.render();
    expect(text).toMatch(/relay_groups_reset_total\{code="430"\} 2/);
    expect(text).toMatch(/relay_groups_reset_total\{code="422"\} 1/);
  });
});
