const SLASH = 0x2f;
const PLUS = 0x2b;
const HASH = 0x23;
const SHARE_PREFIX = "$share/";

/**
 * True when `name` may be a PUBLISH Topic Name: at least one character and no wildcard
 * [MQTT-3.3.2-2], [MQTT-4.7.3-1]. (U+0000 never reaches here: the UTF-8 rules refuse it.)
 */
export function isValidTopicName(name: string): boolean {
  if (name.length === 0) return false;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c === PLUS || c === HASH) return false;
  }
  return true;
}

/**
 * True when `filter` is a syntactically valid plain Topic Filter: non-empty, `+` only as a whole
 * level, `#` only as the whole last level [MQTT-4.7.1-1..2], [MQTT-4.7.3-1].
 */
export function isValidPlainTopicFilter(filter: string): boolean {
  const n = filter.length;
  if (n === 0) return false;
  for (let i = 0; i < n; i++) {
    const c = filter.charCodeAt(i);
    if (c === PLUS || c === HASH) {
      const levelStart = i === 0 || filter.charCodeAt(i - 1) === SLASH;
      const levelEnd = i === n - 1 || filter.charCodeAt(i + 1) === SLASH;
      if (!levelStart || !levelEnd) return false;
      if (c === HASH && i !== n - 1) return false;
    }
  }
  return true;
}

/**
 * How many levels a topic name or filter has (`a/b` has 2). For a `$share/<group>/<filter>`
 * subscription of MQTT 5, the levels of the filter it routes on.
 */
export function topicLevels(topic: string, protocolVersion: 4 | 5 = 5): number {
  const shared = protocolVersion === 5 ? parseSharedFilter(topic) : undefined;
  const routed = shared ? shared.filter : topic;
  let levels = 1;
  for (let i = 0; i < routed.length; i++) if (routed.charCodeAt(i) === SLASH) levels++;
  return levels;
}

/** A `$share/<group>/<filter>` subscription split into its parts. */
export interface SharedFilter {
  /** The ShareName: at least one character, no `/`, `+` or `#`. */
  readonly group: string;
  /** The Topic Filter the group subscribes to. */
  readonly filter: string;
}

/**
 * Splits a shared subscription filter. Returns undefined when `filter` does not start with
 * `$share/` (it is then a plain filter), and null when it does but is not a valid
 * `$share/<group>/<filter>` [MQTT-4.8.2-1..2].
 */
export function parseSharedFilter(filter: string): SharedFilter | null | undefined {
  if (!filter.startsWith(SHARE_PREFIX)) return undefined;
  const slash = filter.indexOf("/", SHARE_PREFIX.length);
  if (slash <= SHARE_PREFIX.length) return null;
  const group = filter.slice(SHARE_PREFIX.length, slash);
  if (group.includes("+") || group.includes("#")) return null;
  const rest = filter.slice(slash + 1);
  if (!isValidPlainTopicFilter(rest)) return null;
  return { group, filter: rest };
}

/**
 * True when `filter` is valid in a SUBSCRIBE or UNSUBSCRIBE of the given protocol version.
 * Shared subscription syntax is only checked for MQTT 5, where `$share/` is defined; in 3.1.1 a
 * filter starting with `$share/` is an ordinary filter.
 */
export function isValidTopicFilter(filter: string, protocolVersion: 4 | 5): boolean {
  if (protocolVersion === 5) {
    const shared = parseSharedFilter(filter);
    if (shared !== undefined) return shared !== null;
  }
  return isValidPlainTopicFilter(filter);
}
