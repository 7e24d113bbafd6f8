import type { StreamId } from "@handoff/qmux";
import type { SessionMemory } from "../context/index.js";
import { type StreamRole, undecoded } from "./stream-role.js";

/**
 * The bytes each stream's decoder holds undecoded, as last reported to the relay's budget: the
 * dispatcher reports a stream after each of its events, and now and then all of them (decoders
 * dropped without a byte or reset reaching them).
 */
export class UndecodedBytes {
  readonly #buffered = new Map<StreamId, number>();
  readonly #memory: SessionMemory;

  constructor(memory: SessionMemory) {
    this.#memory = memory;
  }

  /** Streams with bytes reported. */
  get streams(): Iterable<StreamId> {
    return this.#buffered.keys();
  }

  /** Tells the budget how much stream `id`'s decoder (`role`) holds now. */
  account(id: StreamId, role: StreamRole | undefined): void {
    const now = undecoded(role);
    const was = this.#buffered.get(id) ?? 0;
    if (now === was) return;
    if (now === 0) this.#buffered.delete(id);
    else this.#buffered.set(id, now);
    this.#memory.inbound(now - was);
  }

  /** The session ended: nothing it was decoding is held any more. */
  release(): void {
    let total = 0;
    for (const bytes of this.#buffered.values()) total += bytes;
    this.#buffered.clear();
    this.#memory.inbound(-total);
  }
}
