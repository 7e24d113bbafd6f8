// Test-only: what "acknowledged means delivered" requires of what subscribers received, checked
// after a run with crashes. Payloads are `<publisher>:<n>`, n increasing per publisher.
import type { Got } from "./harness.test-helpers.js";

/** One publisher's messages, in publish order. */
export interface Published {
  readonly publisher: string;
  readonly qos: 1 | 2;
  /** Payloads the publisher got PUBACK/PUBCOMP for. */
  readonly acknowledged: readonly string[];
  /** How many PUBLISH packets the publisher sent per payload (more than one: it had to resend). */
  readonly sends: ReadonlyMap<string, number>;
}

/** One subscriber's view: its granted QoS and every message it received, in order. */
export interface Received {
  readonly subscriber: string;
  readonly qos: 1 | 2;
  readonly got: readonly Got[];
}

/**
 * The violations (empty when all is well): every acknowledged message reaches every subscriber,
 * no message arrives twice at effective QoS 2, at least once at effective QoS 1 with DUP=1 on repeats (unless
 * its publisher had to resend it, which makes a new message of it), and first copies arrive in
 * publish order per publisher. Nothing is received that was never published.
 */
export function deliveryViolations(published: readonly Published[], received: readonly Received[]): string[] {
  const problems: string[] = [];
  const known = new Set(published.flatMap((p) => [...p.sends.keys()]));
  for (const r of received) {
    const counts = new Map<string, number>();
    for (const g of r.got) {
      const n = (counts.get(g.payload) ?? 0) + 1;
      counts.set(g.payload, n);
      if (!known.has(g.payload)) problems.push(`${r.subscriber} got ${g.payload}, which was never published`);
    }
    for (const p of published) {
      const effective = Math.min(p.qos, r.qos);
      for (const payload of p.acknowledged) {
        if (!counts.has(payload)) problems.push(`${r.subscriber} never got acknowledged ${payload}`);
      }
      // Exactly once at QoS 2 holds for every message, acknowledged or not.
      for (const [payload, n] of counts) {
        if (effective === 2 && n > 1 && payload.startsWith(`${p.publisher}:`)) problems.push(`${r.subscriber} got QoS 2 ${payload} ${String(n)} times`);
      }
      if (effective === 1) {
        const seen = new Set<string>();
        for (const g of r.got) {
          if (!g.payload.startsWith(`${p.publisher}:`)) continue;
          if (seen.has(g.payload) && !g.dup && (p.sends.get(g.payload) ?? 0) < 2) problems.push(`${r.subscriber} got ${g.payload} again without DUP`);
          seen.add(g.payload);
        }
      }
      const firsts = [...new Set(r.got.filter((g) => g.payload.startsWith(`${p.publisher}:`)).map((g) => g.payload))];
      const order = firsts.map((payload) => Number(payload.slice(p.publisher.length + 1)));
      for (let i = 1; i < order.length; i++) {
        const [a, b] = [order[i - 1], order[i]];
        if (a !== undefined && b !== undefined && b < a) problems.push(`${r.subscriber} got ${p.publisher}:${String(b)} after ${p.publisher}:${String(a)}`);
      }
    }
  }
  return problems;
}
