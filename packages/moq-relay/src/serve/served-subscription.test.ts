import { ManualClock } from "@handoff/seqlog";
import { ResumeTrack, Track, type GroupReader } from "@handoff/moq-resume";
import type { SubscribeUpdate } from "@handoff/moq-resume/lite";
import { describe, expect, it } from "vitest";
import { RelayCode } from "../rules/relay-code.js";
import { ServedSubscription, type ServeHost } from "./served-subscription.js";
import { subscribeMsg } from "../testing/harness.test-helpers.js";

/** A host that records what the subscription asked of it. */
class RecordingHost implements ServeHost {
  readonly groups: number[] = [];
  readonly readers: GroupReader[] = [];
  finishedCalls = 0;
  readonly failures: number[] = [];
  kicks = 0;

  startGroup(_sub: ServedSubscription, group: GroupReader): void {
    this.groups.push(group.sequence);
    this.readers.push(group);
  }

  finished(): void {
    this.finishedCalls += 1;
  }

  failed(_sub: ServedSubscription, code: number): void {
    this.failures.push(code);
  }

  readonly drops: number[] = [];

  dropped(_sub: ServedSubscription, sequence: number): void {
    this.drops.push(sequence);
  }

  kick(): void {
    this.kicks += 1;
  }

  readonly contained: string[] = [];

  contain(where: string, fn: () => void): void {
    this.contained.push(where);
    fn();
  }
}

/** A subscription (fields of the SUBSCRIBE as given) over a resumed track fed by one copy. */
function setup(fields: Parameters<typeof subscribeMsg>[2] = {}) {
  const resume = new ResumeTrack({ clock: new ManualClock() });
  const copy = new Track("video", { clock: new ManualClock() });
  resume.switch(copy, undefined);
  const host = new RecordingHost();
  let released = 0;
  const sub = new ServedSubscription(5, subscribeMsg(3, "cam", fields), resume, () => (released += 1), host);
  sub.pump();
  return { resume, copy, host, sub, released: () => released };
}

function update(fields: Partial<Omit<SubscribeUpdate, "type">>): SubscribeUpdate {
  return { type: "subscribe_update", priority: 0, ordered: false, maxLatency: 0, startGroup: undefined, endGroup: undefined, ...fields };
}

describe("ServedSubscription", () => {
  it("takes its id, priority and stream from the SUBSCRIBE", () => {
    const { sub } = setup({ priority: 6 });
    expect([sub.id, sub.priority, sub.streamId]).toEqual([3, 6, 5]);
  });

  it("hands each group to the host as it arrives, a late lower group included", () => {
    const { copy, host } = setup({ startGroup: 0 });
    copy.createGroup(0);
    copy.createGroup(2);
    copy.createGroup(1);
    expect(host.groups).toEqual([0, 2, 1]);
  });

  it("does not hand out groups below the SUBSCRIBE's start group", () => {
    const { copy, host } = setup({ startGroup: 2 });
    for (let g = 0; g < 4; g += 1) copy.createGroup(g);
    expect(host.groups).toEqual([2, 3]);
  });

  it("stops after the SUBSCRIBE's end group and tells the host it finished, once", () => {
    const { copy, host, sub } = setup({ startGroup: 0, endGroup: 1 });
    for (let g = 0; g < 4; g += 1) copy.createGroup(g);
    expect(host.groups).toEqual([0, 1]);
    expect(host.finishedCalls).toBe(1);
    expect(sub.ended).toBe(true);
  });

  it("kicks the host when it has handed out everything available now", () => {
    const { copy, host } = setup({ startGroup: 0 });
    const before = host.kicks;
    copy.createGroup(0);
    expect(host.kicks).toBe(before + 1);
  });

  it("hands out the groups parked above the end once a SUBSCRIBE_UPDATE raises it", () => {
    const { copy, host, sub } = setup({ startGroup: 0, endGroup: 0 });
    copy.createGroup(1);
    copy.createGroup(2);
    expect(host.groups).toEqual([]);
    sub.update(update({ endGroup: 2 }));
    expect(host.groups).toEqual([1, 2]);
    // Group 0 is still owed: the subscription ends only once it is accounted for.
    expect(host.finishedCalls).toBe(0);
    copy.createGroup(0);
    expect(host.groups).toEqual([1, 2, 0]);
    expect(host.finishedCalls).toBe(1);
  });

  it("keeps going when a SUBSCRIBE_UPDATE raises the end while the old end group is still being sent", () => {
    const { copy, host, sub } = setup({ startGroup: 0, endGroup: 1 });
    copy.createGroup(0);
    copy.createGroup(1);
    expect(host.finishedCalls).toBe(1);
    sub.update(update({ endGroup: 3 }));
    copy.createGroup(2);
    copy.createGroup(3);
    expect(host.groups).toEqual([0, 1, 2, 3]);
    expect(host.finishedCalls).toBe(2);
  });

  it("ends at the lower end of a SUBSCRIBE_UPDATE", () => {
    const { copy, host, sub } = setup({ startGroup: 0, endGroup: 9 });
    copy.createGroup(0);
    sub.update(update({ endGroup: 1 }));
    copy.createGroup(1);
    copy.createGroup(2);
    expect(host.groups).toEqual([0, 1]);
    expect(host.finishedCalls).toBe(1);
  });

  it("lifts the end when a SUBSCRIBE_UPDATE carries none", () => {
    const { copy, host, sub } = setup({ startGroup: 0, endGroup: 0 });
    copy.createGroup(1);
    sub.update(update({ endGroup: undefined }));
    copy.createGroup(2);
    expect(host.groups).toEqual([1, 2]);
    expect(host.finishedCalls).toBe(0);
  });

  it("raises its start to a SUBSCRIBE_UPDATE's start group", () => {
    const { copy, host, sub } = setup({ startGroup: 0, endGroup: 0 });
    copy.createGroup(1);
    copy.createGroup(2);
    sub.update(update({ startGroup: 2, endGroup: 5 }));
    expect(host.groups).toEqual([2]);
  });

  it("applies the priority of a SUBSCRIBE_UPDATE", () => {
    const { sub } = setup({ priority: 1 });
    sub.update(update({ priority: 8 }));
    expect(sub.priority).toBe(8);
  });

  it("tells the host it finished when the track finishes", () => {
    const { resume, copy, host, sub } = setup({ startGroup: 0 });
    copy.finish();
    resume.finish();
    expect(host.finishedCalls).toBe(1);
    expect(sub.ended).toBe(true);
  });

  it("tells the host the track failed, with the upstream's abort code", () => {
    const { resume, host } = setup({ startGroup: 0 });
    resume.abort(77);
    expect(host.failures).toEqual([77]);
  });

  it("tells the host a track whose publisher went away (no route left) failed with not-found", () => {
    const { resume, copy, host } = setup({ startGroup: 0 });
    copy.drop();
    resume.drop();
    expect(host.failures).toEqual([RelayCode.NotFound]);
  });

  it("close releases its share once and hands out nothing more", () => {
    const { copy, host, sub, released } = setup({ startGroup: 0 });
    sub.close();
    sub.close();
    copy.createGroup(0);
    sub.pump();
    expect(released()).toBe(1);
    expect(host.groups).toEqual([]);
  });

  it("hands nothing more once it ended, though the track goes on", () => {
    const { copy, host, sub } = setup({ startGroup: 0, endGroup: 0 });
    copy.createGroup(0);
    copy.createGroup(1);
    sub.pump();
    expect(host.groups).toEqual([0]);
  });
});
