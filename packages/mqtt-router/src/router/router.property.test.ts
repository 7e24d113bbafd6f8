// Model-based property test of the router invariants (docs/INVARIANTS.md, router invariants 1-5, 7 and 9):
// random sequences of connect (clean | resume, MQTT 3.1.1 | 5, a Receive Maximum each time),
// bind, subscribe, unsubscribe, publish planned now and executed later (and again, and by another
// router), acknowledgements, inbound QoS 2 ids, disconnects, session ends and process restarts
// restored from the store, against a reference model of which session incarnation is owed which
// message (router-model.test-helpers.ts).
import fc from "fast-check";
import { describe, it } from "vitest";
import { runModel } from "./router-model.test-helpers.js";
import { op, restartOp, restartStart, resumeOp, resumeStart } from "./router-model-ops.test-helpers.js";

// Bounded by numRuns, not by time: this is only a safety net for a slow, shared machine, far above
// the few seconds a run takes, so a timeout means a hang, never a slow pass.
const SAFETY_NET = { timeout: 5 * 60_000 };

describe("router invariants over random interleavings", () => {
  it("hold: no stray delivery, no loss on resume or restart, order, only DUP resends, effective QoS, receive maximum, clean means clean, PUBREL never held, plans run once", SAFETY_NET, () => {
    // size "max": sequences up to the full length, long enough for a session to be built up,
    // restarted and resumed (fast-check's default size keeps arrays to about ten steps).
    fc.assert(
      fc.property(fc.array(op, { minLength: 1, maxLength: 60, size: "max" }), (ops) => {
        runModel(ops);
      }),
      { numRuns: 2000 },
    );
  });

  it("hold across restarts: persistent sessions come back with their subscriptions, queues and flows, clean ones end", SAFETY_NET, () => {
    fc.assert(
      // The start is part of the drawn value, so a counterexample prints the whole sequence.
      fc.property(fc.array(restartOp, { minLength: 1, maxLength: 40, size: "max" }).map((ops) => [...restartStart, ...ops]), (ops) => {
        runModel(ops);
      }),
      { numRuns: 1000 },
    );
  });

  it("hold across resumes and restarts with changing Receive Maximum, with QoS 2 flows in both phases", SAFETY_NET, () => {
    fc.assert(
      fc.property(fc.array(resumeOp, { minLength: 1, maxLength: 30, size: "max" }).map((ops) => [...resumeStart, ...ops]), (ops) => {
        runModel(ops);
      }),
      { numRuns: 200 },
    );
  });
});
