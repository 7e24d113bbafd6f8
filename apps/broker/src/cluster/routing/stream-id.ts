/**
 * Redis stream entry ids (`<ms>-<seq>`) compared as the server orders them, without floating
 * point: both parts are decimal integers of any length.
 * @module
 */

/** The id before every entry: a cursor that has routed nothing. */
export const STREAM_START = "0-0";

function parts(id: string): readonly [string, string] {
  const dash = id.indexOf("-");
  return dash < 0 ? [id, "0"] : [id.slice(0, dash), id.slice(dash + 1)];
}

// Decimal strings without leading zeros compare by length, then lexically.
function compareDecimal(a: string, b: string): number {
  const x = a.replace(/^0+(?=\d)/, "");
  const y = b.replace(/^0+(?=\d)/, "");
  if (x.length !== y.length) return x.length < y.length ? -1 : 1;
  return x < y ? -1 : x > y ? 1 : 0;
}

/** Negative, zero or positive as `a` is before, equal to or after `b`. */
export function compareIds(a: string, b: string): number {
  const [am, as] = parts(a);
  const [bm, bs] = parts(b);
  return compareDecimal(am, bm) || compareDecimal(as, bs);
}

/** The later of two ids. */
export const laterId = (a: string, b: string): string => (compareIds(a, b) >= 0 ? a : b);

/** The earliest of `ids`; undefined for none. */
export function earliestId(ids: Iterable<string>): string | undefined {
  let earliest: string | undefined;
  for (const id of ids) if (earliest === undefined || compareIds(id, earliest) < 0) earliest = id;
  return earliest;
}
