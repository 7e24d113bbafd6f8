/**
 * The Redis store's writes waiting for their batch, in the order the router made them: runs of
 * commands for one session (each a fenced group when it goes out) and unfenced runs for shared
 * keys (retained messages). A session's claim (a new connection took it) starts a group of its own.
 * @module
 */
import type { ClusterKeys } from "../cluster/keys.js";
import type { Fence, WriteGroup } from "../cluster/ownership.js";

/** One Redis command: its name and arguments. */
export type Command = readonly (string | Buffer)[];

/** A run of commands for one session (`clientId`) or for shared keys (undefined). */
export interface RecordedGroup {
  readonly clientId: string | undefined;
  /** The group claims the client id for this node before its commands run. */
  readonly claim: boolean;
  readonly commands: Command[];
}

// What one command counts against the pending bound besides its arguments' bytes.
const COMMAND_BYTES = 64;

const commandBytes = (command: Command): number => command.reduce((n, arg) => n + (typeof arg === "string" ? arg.length * 2 : arg.byteLength), COMMAND_BYTES);

/** Recorded writes, in order. */
export class RecordedWrites {
  #groups: RecordedGroup[] = [];
  #bytes = 0;
  #commands = 0;

  /** Estimated bytes of the recorded commands. */
  get bytes(): number {
    return this.#bytes;
  }

  /** How many commands are recorded. */
  get size(): number {
    return this.#commands;
  }

  get isEmpty(): boolean {
    return this.#groups.length === 0;
  }

  /** Appends `command` for `clientId` (undefined: shared keys); `claim` starts a claiming group. */
  add(clientId: string | undefined, command: Command, claim = false): void {
    const last = this.#groups.at(-1);
    if (!claim && last !== undefined && last.clientId === clientId) last.commands.push(command);
    else this.#groups.push({ clientId, claim, commands: [command] });
    this.#bytes += commandBytes(command);
    this.#commands += 1;
  }

  /** Takes every recorded group, leaving none. */
  take(): RecordedGroup[] {
    const groups = this.#groups;
    this.#groups = [];
    this.#bytes = 0;
    this.#commands = 0;
    return groups;
  }

  /** Drops every recorded group of `clientId` (writes of a session copy this node gave up); returns them. */
  drop(clientId: string): RecordedGroup[] {
    const kept = this.#groups.filter((g) => g.clientId !== clientId);
    if (kept.length === this.#groups.length) return [];
    const dropped = this.#groups.filter((g) => g.clientId === clientId);
    this.#groups = [];
    this.#bytes = 0;
    this.#commands = 0;
    this.restore(kept);
    return dropped;
  }

  /** Puts groups back in front (a batch that failed goes again, before what came after it). */
  restore(groups: readonly RecordedGroup[]): void {
    this.#groups = [...groups, ...this.#groups];
    for (const g of groups) {
      for (const c of g.commands) this.#bytes += commandBytes(c);
      this.#commands += g.commands.length;
    }
  }
}

/**
 * The fenced groups of one batch: a claiming group claims for `nodeId`; a later group of the same
 * session in the batch rides on that claim; any other carries the token this node holds for the
 * session, or none (refused) when it never claimed it.
 */
export function toWriteGroups(groups: readonly RecordedGroup[], keys: ClusterKeys, nodeId: string, tokens: ReadonlyMap<string, string>): WriteGroup[] {
  const claimed = new Set<string>();
  return groups.map((g): WriteGroup => {
    if (g.clientId === undefined) return { fence: undefined, commands: g.commands };
    const ownerKey = keys.owner(g.clientId);
    let fence: Fence;
    if (g.claim) {
      claimed.add(g.clientId);
      fence = { kind: "claim", ownerKey, node: nodeId };
    } else if (claimed.has(g.clientId)) fence = { kind: "claimed", ownerKey };
    else fence = { kind: "token", ownerKey, token: tokens.get(g.clientId) ?? "none" };
    return { fence, commands: g.commands };
  });
}

/** What learns each message append's fate (cluster/routing/route-appends.ts RouteAppends). */
export interface AppendFates {
  committed(command: Command, id: string): void;
  dropped(command: Command): void;
}

/**
 * Tells `appends` the fate of each XADD of a batch: committed as the next of `ids` (the script's
 * ids of the XADDs it applied, in order), or dropped with its refused group (its publisher was
 * fenced out: the message was never acknowledged, and is nobody's to replay).
 */
export function appendsSettled(groups: readonly RecordedGroup[], refused: ReadonlySet<number>, ids: readonly string[], appends: AppendFates): void {
  let next = 0;
  groups.forEach((g, index) => {
    for (const command of g.commands) {
      if (command[0] !== "XADD") continue;
      if (refused.has(index)) {
        appends.dropped(command);
        continue;
      }
      const id = ids[next++];
      // A reply shorter than the batch's appends leaves the id unknown: treated as after every claim.
      if (id !== undefined) appends.committed(command, id);
    }
  });
}

/** Tells `appends` that the XADDs of `groups` will never go out (their session was given up). */
export function appendsDropped(groups: readonly RecordedGroup[], appends: AppendFates): void {
  appendsSettled(groups, new Set(groups.keys()), [], appends);
}
