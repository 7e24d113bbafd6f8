/** Outcome of resolving an inbound PUBLISH's topic. */
export type AliasResolution =
  | { readonly ok: true; readonly topic: string }
  | { readonly ok: false; readonly reasonCode: 0x82 | 0x94; readonly detail: string };

/**
 * Topic Aliases the client uses towards the server. They live for one connection only
 * (spec §3.3.2.3.4): a fresh instance per connection.
 */
export class InboundTopicAliases {
  // Made on first use: an idle client never needs it.
  #topics: Map<number, string> | undefined;

  readonly #maximum: number;

  /** @param maximum the Topic Alias Maximum the server announced (0: aliases not allowed) */
  constructor(maximum: number) {
    this.#maximum = maximum;
  }

  /**
   * Resolves a PUBLISH topic: a non-empty topic with an alias (re)binds the alias, an empty topic
   * uses it. An alias above the maximum is Topic Alias invalid [MQTT-3.3.2-9], [MQTT-3.3.2-12]; using an alias that
   * was never bound is a Protocol Error (as for an empty topic without an alias).
   */
  resolve(topic: string, alias: number | undefined): AliasResolution {
    if (alias === undefined) return { ok: true, topic };
    if (alias < 1 || alias > this.#maximum) {
      return { ok: false, reasonCode: 0x94, detail: `topic alias ${alias} outside 1..${this.#maximum}` };
    }
    if (topic.length > 0) {
      (this.#topics ??= new Map()).set(alias, topic);
      return { ok: true, topic };
    }
    const bound = this.#topics?.get(alias);
    if (bound === undefined) return { ok: false, reasonCode: 0x82, detail: `topic alias ${alias} was never set` };
    return { ok: true, topic: bound };
  }
}

/** How to write an outbound PUBLISH's topic. */
export interface OutboundAlias {
  /** The topic name to put in the packet (empty when the alias alone names it). */
  readonly topic: string;
  /** The Topic Alias property to send, if any. */
  readonly alias?: number;
  /** Call once the packet is really sent: records a new alias binding. */
  readonly commit: () => void;
}

/**
 * Topic Aliases the server uses towards the client, never above the client's Topic Alias Maximum
 * [MQTT-3.3.2-11]. Aliases are handed out first come, first served and never rebound, so a busy
 * topic seen early keeps its alias; topics past the maximum go out with their full name.
 */
export class OutboundTopicAliases {
  /** Topic → alias, least recently sent first (a Map keeps insertion order). */
  readonly #aliases = new Map<string, number>();

  readonly #maximum: number;

  /** @param maximum the client's Topic Alias Maximum (0: the client accepts none) */
  constructor(maximum: number) {
    this.#maximum = maximum;
  }

  /**
   * Plans the topic of a PUBLISH: a known topic goes out as alias only; a new topic gets the next
   * free alias along with its name, or, once every alias is taken, the least recently sent
   * topic's alias, rebound to the new topic (the packet carries both, which rebinds it at the
   * client). Bindings change only on `commit`, so a PUBLISH that is never sent does not leave the
   * client with a mapping it never saw.
   */
  plan(topic: string): OutboundAlias {
    const aliases = this.#aliases;
    const known = aliases.get(topic);
    if (known !== undefined) {
      return {
        topic: "",
        alias: known,
        commit: () => {
          // Most recently sent now: last to be rebound.
          aliases.delete(topic);
          aliases.set(topic, known);
        },
      };
    }
    if (this.#maximum === 0) return { topic, commit: noop };
    if (aliases.size < this.#maximum) {
      const next = aliases.size + 1;
      return {
        topic,
        alias: next,
        commit: () => {
          aliases.set(topic, next);
        },
      };
    }
    const oldest = aliases.entries().next();
    if (oldest.done === true) return { topic, commit: noop };
    const [victim, alias] = oldest.value;
    return {
      topic,
      alias,
      commit: () => {
        aliases.delete(victim);
        aliases.set(topic, alias);
      },
    };
  }
}

function noop(): void {
  // nothing to record
}

/**
 * `properties` without a Topic Alias (aliases belong to one connection). Returns the same object
 * when it has none, the common case: a copy per PUBLISH is the hot path's biggest allocation.
 */
export function withoutTopicAlias<P extends { readonly topicAlias?: number }>(properties: P): Omit<P, "topicAlias"> {
  if (properties.topicAlias === undefined) return properties;
  const { topicAlias: _alias, ...rest } = properties;
  return rest;
}
