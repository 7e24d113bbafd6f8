/**
 * MQTT topic-filter algebra for access control: does a filter match a topic, does one filter
 * cover every topic another can match, can two filters match a common topic. All three follow
 * the spec's rule that `#` and `+` at the first level do not match topics starting with `$`
 * [MQTT-4.7.2-1], so `#` never covers `$SYS/...`.
 * @module
 */

/** Whether `filter` is a well-formed topic filter (`#` last and alone in its level, `+` alone in its level). */
export function isValidFilter(filter: string): boolean {
  if (filter === "" || filter.includes("\u0000")) return false;
  const levels = filter.split("/");
  return levels.every((level, i) => {
    if (level === "#") return i === levels.length - 1;
    if (level === "+") return true;
    return !level.includes("#") && !level.includes("+");
  });
}

/** Whether `topic` (a topic name, no wildcards) matches `filter`. */
export function matches(filter: string, topic: string): boolean {
  const f = filter.split("/");
  const t = topic.split("/");
  if (topic.startsWith("$") && (f[0] === "+" || f[0] === "#")) return false;
  for (let i = 0; i < f.length; i += 1) {
    const level = f[i];
    if (level === "#") return true;
    if (i >= t.length) return false;
    if (level !== "+" && level !== t[i]) return false;
  }
  return f.length === t.length;
}

/** Whether a level is a wildcard. */
function wild(level: string | undefined): boolean {
  return level === "+" || level === "#";
}

/**
 * Whether every topic `inner` can match is also matched by `outer`: a subscription to `inner`
 * receives nothing `outer` does not allow. `a/#` covers `a/+/b` and `a` itself; `+` does not
 * cover `#`; `#` does not cover `$SYS/x`.
 */
export function covers(outer: string, inner: string): boolean {
  const o = outer.split("/");
  const n = inner.split("/");
  // A `$` topic can only be reached by an inner filter with a literal first level.
  if (wild(o[0]) && !wild(n[0]) && (n[0] ?? "").startsWith("$")) return false;
  for (let i = 0; i < o.length; i += 1) {
    const level = o[i];
    if (level === "#") return true;
    const other = n[i];
    if (other === undefined) return false;
    // Inner `#` reaches every depth from here; at the first level (where a topic always has a
    // level) `+/#` does too, deeper `+/#` misses the parent that `#` includes.
    if (other === "#") return i === 0 && level === "+" && o.length === 2 && o[1] === "#";
    if (level === "+") continue;
    if (other === "+" || other !== level) return false;
  }
  return n.length === o.length;
}

/** Whether some topic is matched by both `a` and `b`. */
export function intersects(a: string, b: string): boolean {
  const x = a.split("/");
  const y = b.split("/");
  // Wildcards at the first level cannot reach `$` topics, so they meet a literal `$` level nowhere.
  if ((wild(x[0]) && (y[0] ?? "").startsWith("$")) || (wild(y[0]) && (x[0] ?? "").startsWith("$"))) return false;
  const length = Math.max(x.length, y.length);
  for (let i = 0; i < length; i += 1) {
    const p = x[i];
    const q = y[i];
    if (p === "#" || q === "#") return true;
    if (p === undefined || q === undefined) return false;
    if (p !== "+" && q !== "+" && p !== q) return false;
  }
  return true;
}

/**
 * The filter matching exactly the topics both `a` and `b` match, or undefined when they share
 * none: `a/+` and `+/b` meet in `a/b`; `a/#` and `a` in `a`.
 */
export function intersection(a: string, b: string): string | undefined {
  if (!intersects(a, b)) return undefined;
  const x = a.split("/");
  const y = b.split("/");
  const levels: string[] = [];
  for (let i = 0; ; i += 1) {
    const p = x[i];
    const q = y[i];
    // `#` matches the parent level too, so the other side's remainder (even none) is the rest.
    if (p === "#") return [...levels, ...y.slice(i)].join("/");
    if (q === "#") return [...levels, ...x.slice(i)].join("/");
    if (p === undefined || q === undefined) return levels.join("/");
    levels.push(p === "+" ? q : p);
  }
}

/** For a `$share/<group>/<filter>` subscription, the filter it routes on; any other filter as is. */
export function unshare(filter: string): string {
  if (!filter.startsWith("$share/")) return filter;
  const rest = filter.slice("$share/".length);
  const slash = rest.indexOf("/");
  return slash < 0 ? filter : rest.slice(slash + 1);
}
