/**
 * A `$share/<group>/<filter>` group: its members and the round-robin choice among them.
 * @module
 */
import type { Session } from "./mqtt-session.js";
import type { SessionSubscription } from "./subscription.js";

/** One member of a shared group. */
export interface Member {
  readonly session: Session;
  readonly subscription: SessionSubscription;
}

/** The members of one shared subscription group for one filter. */
export class SharedGroup {
  readonly members = new Map<string, Member>();
  #cursor = 0;

  /** `name` is the ShareName, `filter` the topic filter it shares. */
  constructor(
    readonly name: string,
    readonly filter: string,
  ) {}

  /**
   * Picks the member to receive the next message: round-robin among connected members,
   * preferring one that is not behind; an offline member only when none is connected (and only
   * if `allowOffline`, i.e. the copy is QoS 1/2 and worth queueing).
   */
  pick(allowOffline: boolean): Member | undefined {
    const list = [...this.members.values()];
    const n = list.length;
    if (n === 0) return undefined;
    const start = this.#cursor % n;
    let connected: Member | undefined;
    let offline: Member | undefined;
    for (let i = 0; i < n; i++) {
      const index = (start + i) % n;
      const member = list[index];
      if (member === undefined) continue;
      if (member.session.connected) {
        if (!member.session.behind) {
          this.#cursor = index + 1;
          return member;
        }
        connected ??= member;
      } else {
        offline ??= member;
      }
    }
    const chosen = connected ?? (allowOffline ? offline : undefined);
    if (chosen !== undefined) this.#cursor = list.indexOf(chosen) + 1;
    return chosen;
  }
}
