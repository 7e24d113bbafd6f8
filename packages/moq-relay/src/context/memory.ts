import type { Group, Track } from "@handoff/moq-resume";
import type { BudgetHolder, ByteBudget } from "../origin/index.js";

/** What a session tells the relay's byte budget about the data its peer sends. */
export interface SessionMemory {
  /** A group of the peer's was created in the copy `track`. */
  created(track: Track, group: Group): void;
  /** Payload was filed into (or dropped from) the copy `track`. */
  changed(track: Track): void;
  /** The bytes the session's decoders hold, partial frames and messages, changed by `delta`. */
  inbound(delta: number): void;
}

/** No budget: nothing is counted (tests, and a session built without one). */
export const NO_MEMORY: SessionMemory = {
  created: () => undefined,
  changed: () => undefined,
  inbound: () => undefined,
};

/** What `holder`'s session tells the relay's byte budget. */
export function budgetMemory(budget: ByteBudget, holder: BudgetHolder): SessionMemory {
  return {
    created: (track, group) => {
      budget.created(track, group);
    },
    changed: (track) => {
      budget.changed(track);
    },
    inbound: (delta) => {
      budget.inbound(holder, delta);
    },
  };
}
