/**
 * Sessions claimed by this node and never installed in its router: the claim's script ran, then
 * Redis failed before the replay was read (the client's CONNECT was refused with 0x88, or a dead
 * node's adoption round failed). Redis says this node owns each, under the token kept here, and
 * its route base still holds what it is owed; the router has no copy. Left alone, a connect here
 * would find its token current and skip the install (Session Present 0, the queue and the replay
 * lost), and its will and expiry would run nowhere. So the claim's token is dropped from the store
 * (the next connect here claims again and installs), and each liveness round installs the rest as
 * stopped sessions, conditional on the token being still the owner's (wills-adoption.ts).
 * @module
 */

/** The store's tokens of this node's claims (RedisStore.tokenOf, RedisStore.dropClaim). */
export interface ClaimTokens {
  tokenOf(clientId: string): string | undefined;
  dropClaim(clientId: string): void;
}

/** The claims not installed, by client id, and one lane of work per client id. */
export class UninstalledClaims {
  readonly #tokens = new Map<string, string>();
  readonly #lanes = new Map<string, Promise<unknown>>();

  /** How many there are (for tests and the log). */
  get size(): number {
    return this.#tokens.size;
  }

  /**
   * The install of `clientId`'s claim failed: its token leaves `store`, so the next connect here
   * claims it again instead of finding it current, and is kept here for the liveness rounds.
   */
  left(clientId: string, store: ClaimTokens): void {
    const token = store.tokenOf(clientId);
    store.dropClaim(clientId);
    if (token !== undefined) this.#tokens.set(clientId, token);
  }

  /** The token of `clientId`'s claim not installed, if any. */
  tokenOf(clientId: string): string | undefined {
    return this.#tokens.get(clientId);
  }

  /** `clientId` was installed here, or another node owns it now. */
  delete(clientId: string): void {
    this.#tokens.delete(clientId);
  }

  /** The client ids with their tokens, as they are now. */
  entries(): [string, string][] {
    return [...this.#tokens];
  }

  /**
   * Runs `work` after the work queued earlier for `clientId` has settled, so a connect's load and
   * a round's install of the same id never interleave (each reads the claim the other left).
   */
  exclusive<T>(clientId: string, work: () => Promise<T>): Promise<T> {
    const before = this.#lanes.get(clientId);
    const run = before === undefined ? work() : before.then(work, work);
    const settled = run.then(
      () => undefined,
      () => undefined,
    );
    this.#lanes.set(clientId, settled);
    void settled.then(() => {
      if (this.#lanes.get(clientId) === settled) this.#lanes.delete(clientId);
    });
    return run;
  }
}
