/**
 * Topic access rules (ACLs), in a text format close to mosquitto's `acl_file`:
 *
 * ```text
 * # Rules before the first `user` line apply to anonymous clients.
 * topic read $SYS/#
 *
 * user alice
 * topic readwrite sensors/#
 * deny topic write sensors/secret
 *
 * # `pattern` rules apply to every client, wherever they appear; %c is the client id, %u the user.
 * pattern readwrite devices/%c/#
 * deny pattern write devices/%c/firmware
 * ```
 *
 * A rule line is `[allow|deny] topic|pattern [read|write|readwrite] <filter>`; the access defaults
 * to `readwrite`, and mosquitto's `topic deny <filter>` is read as `deny topic readwrite <filter>`.
 * The filter is the rest of the line, so it may contain spaces. `user <name>` starts the section
 * of one user; `anonymous` starts the anonymous section again.
 *
 * Evaluation: publishing needs `write` on the topic; receiving a message needs `read` on its topic,
 * checked at delivery. Deny beats allow; with no matching allow the answer is no. A subscription
 * is refused only when nothing it can match is readable, as in mosquitto: `#` is granted beside a
 * `deny ... test/nosubscribe` and simply never receives that topic.
 * @module
 */
import type { ClientIdentity } from "./access.js";
import { AuthFileError } from "./errors.js";
import { covers, intersection, isValidFilter, matches, unshare } from "./topic-filter.js";

/** What a rule grants or refuses. */
export type Access = "read" | "write" | "readwrite";

/** One rule. */
export interface AclRule {
  readonly effect: "allow" | "deny";
  /** `topic` rules bind to their section; `pattern` rules apply to everyone and substitute %c and %u. */
  readonly kind: "topic" | "pattern";
  readonly access: Access;
  readonly filter: string;
  /** Line number in the file, for diagnostics. */
  readonly line: number;
}

/** The parsed file. */
export interface AclRules {
  /** `topic` rules for anonymous clients. */
  readonly anonymous: readonly AclRule[];
  /** `topic` rules per user name. */
  readonly users: ReadonlyMap<string, readonly AclRule[]>;
  /** `pattern` rules, for every client. */
  readonly patterns: readonly AclRule[];
}

const ACCESS = new Set<string>(["read", "write", "readwrite"]);

/** Parses an ACL file; throws {@link AuthFileError} listing every bad line of `source`. */
export function parseAcl(text: string, source: string): AclRules {
  const anonymous: AclRule[] = [];
  const users = new Map<string, AclRule[]>();
  const patterns: AclRule[] = [];
  const problems: string[] = [];
  let section = anonymous;

  text.split(/\r?\n/).forEach((raw, index) => {
    const line = index + 1;
    const trimmed = raw.trim();
    if (trimmed === "" || trimmed.startsWith("#")) return;
    const fail = (message: string): void => {
      problems.push(`ACL file ${source} line ${String(line)}: ${message}`);
    };
    let [first, rest] = take(trimmed);
    if (first === "user") {
      if (rest === "") {
        fail('"user" needs a user name');
        return;
      }
      section = users.get(rest) ?? [];
      users.set(rest, section);
      return;
    }
    if (first === "anonymous" && rest === "") {
      section = anonymous;
      return;
    }
    let effect: "allow" | "deny" = "allow";
    if (first === "allow" || first === "deny") {
      effect = first;
      [first, rest] = take(rest);
    }
    const kind = first;
    if (kind !== "topic" && kind !== "pattern") {
      {
        fail(`expected "user", "anonymous", "topic", "pattern", "allow" or "deny", got "${first}"`);
        return;
      }
    }
    let access: Access = "readwrite";
    const [maybeAccess, afterAccess] = take(rest);
    // A lone word is the filter itself (a topic may be called "read"); otherwise a leading access word is the access.
    if (afterAccess !== "" && maybeAccess === "deny" && effect === "allow") {
      effect = "deny";
      rest = afterAccess;
    } else if (afterAccess !== "" && ACCESS.has(maybeAccess)) {
      access = maybeAccess as Access;
      rest = afterAccess;
    }
    // The filter is the rest of the line as written: topics may contain spaces.
    const filter = rest;
    if (filter === "") {
        fail(`"${kind}" needs a topic filter`);
        return;
      }
    if (!isValidFilter(filter)) {
        fail(`"${filter}" is not a valid topic filter`);
        return;
      }
    const rule: AclRule = { effect, kind, access, filter, line };
    if (kind === "pattern") patterns.push(rule);
    else section.push(rule);
  });
  if (problems.length > 0) throw new AuthFileError(problems.join("\n"));
  return { anonymous, users, patterns };
}

/** The first word of `text` and what follows it, leading whitespace removed. */
function take(text: string): [string, string] {
  const match = /^(\S+)\s*(.*)$/s.exec(text);
  return match === null ? ["", ""] : [match[1] ?? "", match[2] ?? ""];
}

/** Characters that would turn a substituted value into a wildcard or extra levels. */
const UNSAFE = /[/+#]/;

/**
 * The pattern's filter with %c and %u filled in, or undefined when it cannot apply to `subject`:
 * an anonymous client for %u, a value containing `/`, `+` or `#`, which would widen the rule, or a
 * client id starting with `$`, which would reach `$SYS`.
 */
function substitute(filter: string, subject: ClientIdentity): string | undefined {
  let result = filter;
  if (result.includes("%c")) {
    // A client id is the client's to choose: one starting with `$` would turn `%c/#` into `$SYS/#`.
    if (subject.clientId === "" || subject.clientId.startsWith("$") || UNSAFE.test(subject.clientId)) return undefined;
    result = result.replaceAll("%c", subject.clientId);
  }
  if (result.includes("%u")) {
    if (subject.username === undefined || subject.username === "" || UNSAFE.test(subject.username)) return undefined;
    result = result.replaceAll("%u", subject.username);
  }
  return result;
}

function grants(rule: AclRule, wanted: "read" | "write"): boolean {
  return rule.access === "readwrite" || rule.access === wanted;
}

/** The rules that concern `subject` for `wanted`, as concrete filters. */
function applicable(rules: AclRules, subject: ClientIdentity, wanted: "read" | "write"): { effect: "allow" | "deny"; filter: string }[] {
  const own = subject.username === undefined ? rules.anonymous : (rules.users.get(subject.username) ?? []);
  const result: { effect: "allow" | "deny"; filter: string }[] = [];
  for (const rule of own) if (grants(rule, wanted)) result.push(rule);
  for (const rule of rules.patterns) {
    if (!grants(rule, wanted)) continue;
    const filter = substitute(rule.filter, subject);
    if (filter !== undefined) result.push({ effect: rule.effect, filter });
  }
  return result;
}

/** Whether `subject` may publish to `topic`: some allow rule matches it and no deny rule does. */
export function aclAllowsPublish(rules: AclRules, subject: ClientIdentity, topic: string): boolean {
  const relevant = applicable(rules, subject, "write");
  if (relevant.some((rule) => rule.effect === "deny" && matches(rule.filter, topic))) return false;
  return relevant.some((rule) => rule.effect === "allow" && matches(rule.filter, topic));
}

/** Whether `subject` may receive a message on `topic` (a read check on one concrete topic). */
export function aclAllowsReceive(rules: AclRules, subject: ClientIdentity, topic: string): boolean {
  const relevant = applicable(rules, subject, "read");
  if (relevant.some((rule) => rule.effect === "deny" && matches(rule.filter, topic))) return false;
  return relevant.some((rule) => rule.effect === "allow" && matches(rule.filter, topic));
}

/**
 * Whether `subject` may subscribe to `filter`: refused only when nothing it can match is readable,
 * i.e. no allow rule meets it, or every part an allow rule grants lies wholly inside one deny rule.
 * Granted filters are checked per message at delivery ({@link aclAllowsReceive}), so what is denied
 * inside them never arrives. `$share/<group>/` is stripped first: the group does not change what
 * is received.
 */
export function aclAllowsSubscribe(rules: AclRules, subject: ClientIdentity, filter: string): boolean {
  const routed = unshare(filter);
  const relevant = applicable(rules, subject, "read");
  const denies = relevant.filter((rule) => rule.effect === "deny");
  return relevant.some((rule) => {
    if (rule.effect !== "allow") return false;
    const granted = intersection(rule.filter, routed);
    return granted !== undefined && !denies.some((deny) => covers(deny.filter, granted));
  });
}
