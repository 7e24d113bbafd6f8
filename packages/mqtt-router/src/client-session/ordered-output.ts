/**
 * A session's actions, performed strictly in order. Most effects are handled synchronously; one
 * that has to wait (a CONNECT's verdict, a flow control hold, a commit) stops everything behind
 * it until it settles. Commit barriers keep QoS 1/2 deliveries behind the commit of their routing;
 * while the session is held for flow control, its own deliveries and its acks of them pass the
 * wait through a lane (held-lane.ts), never a commit barrier.
 * @module
 */
import { ReasonCode } from "../codec/reason-codes.js";
import type { MqttConnection } from "../protocol/connection.js";
import type { Action, Effect } from "../protocol/effects.js";
import { HeldLane } from "./held-lane.js";
import type { ClientSessionHost, Commits } from "./host.js";

/**
 * A point in a connection's output that waits for the store's commit of every change recorded
 * before it: the QoS 1/2 PUBLISH or PUBREL behind it promises session state (the delivery is
 * routed, has its packet id, is in the PUBREL phase) that a crash must not take back once the
 * client has seen it.
 */
interface CommitBarrier {
  readonly kind: "commit";
  readonly committed: Promise<void>;
}

type Step = Action | CommitBarrier;

/** What the output performs its actions with. */
export interface OutputPorts {
  readonly conn: MqttConnection;
  readonly host: ClientSessionHost;
  readonly commits: Commits | undefined;
  /** Performs one effect; a promise when what follows must wait for it. */
  perform(effect: Effect): Promise<void> | undefined;
  /** Told of each effect as it is queued, before its turn (early authorization decisions). */
  queued(effect: Effect): void;
  /** Called before each run: input held back for its budget may be taken on a later turn. */
  beforeRun(): void;
  /** Takes what the connection produced and runs it (after a failed commit in the lane). */
  flush(): void;
}

/** The ordered output of one session. */
export class OrderedOutput {
  readonly #p: OutputPorts;
  readonly #pending: Step[] = [];
  #head = 0;
  #busy = false;
  /** Held for flow control: what may pass the hold. */
  readonly lane = new HeldLane();
  /** What passed the hold, with the commit barriers it must still wait for. */
  readonly #laneSteps: Step[] = [];
  /** The commit the last barrier put in #pending waits for (see barrier). */
  #pendingTicket: Promise<void> | undefined;
  /** The same for #laneSteps. */
  #laneTicket: Promise<void> | undefined;
  #laneBusy = false;

  constructor(ports: OutputPorts) {
    this.#p = ports;
  }

  // Queues actions in order; while held for flow control, deliveries to this client and its acks
  // of them go at once instead (held-lane.ts).
  take(actions: readonly Step[]): void {
    for (const action of actions) {
      if (action.kind === "commit") {
        // A barrier taken again when a hold starts holds back the lane as well.
        if (this.lane.held) {
          this.#laneSteps.push(action);
          this.#laneTicket = action.committed;
        }
        this.#pending.push(action);
      } else if (this.lane.passes(action)) {
        this.#laneSteps.push(action);
        this.#runLane();
      } else {
        if (action.kind === "effect") this.#p.queued(action.effect);
        this.#pending.push(action);
      }
    }
  }

  /** A hold began: what already waits may include deliveries to this very client. */
  retake(): void {
    this.take(this.#pending.splice(this.#head));
  }

  /**
   * The connection ended while its CONNECT's verdict is awaited, before any session was claimed:
   * its answer and close go out now, not after a password check that may take long. Nothing else
   * is queued then.
   */
  endBeforeVerdict(): void {
    for (const step of this.#pending.splice(this.#head)) {
      if (step.kind === "send") this.#p.host.send(step.bytes);
      else if (step.kind === "close") this.#p.host.close();
      else if (step.kind === "effect" && step.effect.kind === "closed") void this.#p.perform(step.effect);
    }
  }

  // Performs what passed a flow control wait, in order. The lane bypasses the publisher's hold,
  // never a commit barrier: a delivery waits for its commit here too, and so does the PUBREL after
  // a delivery-received effect (the effect's wait is the commit of the PUBREL phase).
  #runLane(): void {
    if (this.#laneBusy) return;
    this.#laneBusy = true;
    for (;;) {
      const step = this.#laneSteps.shift();
      if (step === undefined) break;
      const waiting = step.kind === "commit" ? step.committed : this.#perform(step);
      if (waiting !== undefined) {
        waiting.then(
          () => {
            this.#laneBusy = false;
            this.#runLane();
          },
          (err: unknown) => {
            this.#laneBusy = false;
            this.withhold(err);
            this.#p.flush();
          },
        );
        return; // the lane stays busy until the wait settles
      }
    }
    this.#laneBusy = false;
  }

  // Performs an action that passes a flow control wait: a send, or an effect (its wait, if any).
  #perform(action: Action): Promise<void> | undefined {
    if (action.kind === "send") this.#p.host.send(action.bytes);
    else if (action.kind === "effect") return this.#p.perform(action.effect);
    return undefined;
  }

  /** Performs pending actions in order; stops at an effect that has to wait, and resumes after it. */
  run(): void {
    this.#p.beforeRun();
    if (this.#busy) return;
    this.#busy = true;
    for (;;) {
      const action = this.#pending[this.#head];
      if (action === undefined) break;
      this.#head += 1;
      switch (action.kind) {
        case "send":
          this.#p.host.send(action.bytes);
          break;
        case "close":
          this.#p.host.close();
          break;
        case "commit":
          action.committed.then(
            () => {
              this.#resume();
            },
            (err: unknown) => {
              this.withhold(err);
              this.#resume();
            },
          );
          return; // stays busy until the commit settles
        case "effect": {
          const waiting = this.#p.perform(action.effect);
          this.take(this.#p.conn.drain());
          if (waiting !== undefined) {
            waiting.then(
              () => {
                this.#resume();
              },
              (err: unknown) => {
                this.#p.host.failed(err);
                this.#p.conn.disconnect(ReasonCode.UnspecifiedError);
                this.#resume();
              },
            );
            return; // stays busy until the effect settles
          }
          break;
        }
        default: {
          const never: never = action;
          throw new Error(`unknown action ${String(never)}`);
        }
      }
    }
    this.#pending.length = 0;
    this.#head = 0;
    this.#busy = false;
  }

  /**
   * The commit behind a barrier failed: what waited for it must not reach the client, which is
   * disconnected (0x80) and gets it again, from what is stored, when it comes back.
   */
  withhold(err: unknown): void {
    this.#p.host.commitFailed(err, "deliveries");
    this.discardUnsent();
    this.#p.conn.disconnect(ReasonCode.UnspecifiedError, "storage unavailable");
  }

  /**
   * Drops every packet not yet handed to the transport (the steps around them stay, in order):
   * what they promise may not be stored, so the client must not see them.
   */
  discardUnsent(): void {
    const rest = this.#pending.splice(this.#head).filter((step) => step.kind !== "send");
    for (const step of rest) this.#pending.push(step);
    const lane = this.#laneSteps.splice(0).filter((step) => step.kind !== "send");
    for (const step of lane) this.#laneSteps.push(step);
  }

  /**
   * Output from here on waits for the commit of what the router recorded so far. The store hands
   * out one ticket per pending batch: while it is the ticket of the last barrier in a queue, that
   * barrier is still ahead (a barrier is passed only once its commit settled, which ends the
   * ticket) and covers this change too, so no further stop is added.
   */
  barrier(): void {
    const commits = this.#p.commits;
    if (commits === undefined) return;
    const committed = commits.flush();
    const barrier: CommitBarrier = { kind: "commit", committed };
    if (this.lane.held) {
      // What follows may pass the hold through the lane or wait behind it: both wait for the
      // commit. Nothing is drained here: the lane may be performing, and order must hold.
      if (this.#laneTicket !== committed) {
        this.#laneSteps.push(barrier);
        this.#laneTicket = committed;
      }
    } else {
      for (const next of this.#p.conn.drain()) this.#pending.push(next);
    }
    if (this.#pendingTicket !== committed) {
      this.#pending.push(barrier);
      this.#pendingTicket = committed;
    }
  }

  #resume(): void {
    this.#busy = false;
    this.take(this.#p.conn.drain());
    this.run();
  }
}
