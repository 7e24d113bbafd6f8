/**
 * Packet identifiers for server-to-client QoS 1/2 deliveries: 1..65535, never one still in use
 * [MQTT-2.2.1-3], cycling so a freshly released id is not reused at once (a late duplicate ack
 * for it would otherwise release the wrong message).
 * @module
 */

/** Allocates packet ids for one session. */
export class PacketIds {
  /** Made on the first allocation: an idle session never needs it. */
  #used: Set<number> | undefined;
  #next = 1;

  /** How many ids are in use. */
  get inUse(): number {
    return this.#used?.size ?? 0;
  }

  /** Takes a free id, or undefined when all 65535 are in use. */
  allocate(): number | undefined {
    const used = (this.#used ??= new Set());
    if (used.size >= 65535) return undefined;
    while (used.has(this.#next)) this.#next = this.#next === 65535 ? 1 : this.#next + 1;
    const id = this.#next;
    used.add(id);
    this.#next = id === 65535 ? 1 : id + 1;
    return id;
  }

  /** Marks `id` as in use (restoring a session); returns false if it already was. */
  claim(id: number): boolean {
    const used = (this.#used ??= new Set());
    if (used.has(id)) return false;
    used.add(id);
    return true;
  }

  /** Frees `id`. */
  release(id: number): void {
    this.#used?.delete(id);
  }

  /** Frees every id. */
  clear(): void {
    this.#used?.clear();
  }
}
