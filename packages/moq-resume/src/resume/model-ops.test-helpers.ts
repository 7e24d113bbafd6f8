/**
 * Test helpers shared by the resume model properties: the publisher's operations (a group, a
 * skipped number delivered late, a frame, a group's end) and the reader's (join, read, cap) as
 * weighted fast-check arbitraries, the sequences they are drawn in, and how many runs a property
 * makes. Not exported from the package.
 * @module
 */
import fc from "fast-check";

/**
 * How many runs a model property makes: `runs`, or `HANDOFF_PROPERTY_RUNS` when set (a long
 * sweep, e.g. `HANDOFF_PROPERTY_RUNS=1000000`). Properties are bounded by runs, never by time.
 */
export function propertyRuns(runs: number): number {
  const set = Number(process.env["HANDOFF_PROPERTY_RUNS"] ?? "");
  return Number.isSafeInteger(set) && set > 0 ? set : runs;
}

/**
 * The timeout of a property test making `runs` runs: a safety net for a slow, shared machine, far
 * above what the runs take (about a millisecond each), so reaching it means a hang, never a slow pass.
 */
export function safetyNet(runs: number): { readonly timeout: number } {
  return { timeout: Math.max(10 * 60_000, runs * 50) };
}

/**
 * Sequences of up to `maxLength` operations. Size "max": fast-check's default size would keep
 * them to about ten steps, too short for a split group to be pruned twice over and then joined.
 */
export function sequences<T>(op: fc.Arbitrary<T>, maxLength = 40): fc.Arbitrary<T[]> {
  return fc.array(op, { minLength: 1, maxLength, size: "max" });
}

/** A small pick or sequence number. */
export const small = fc.integer({ min: 0, max: 7 });

/** The publisher opens a group, skips a number (delivered late), writes a frame or ends a group. */
export type PublishOp =
  | { readonly op: "group" }
  | { readonly op: "skip" }
  | { readonly op: "late" }
  | { readonly op: "frame"; readonly pick: number }
  | { readonly op: "finishGroup"; readonly pick: number };

/** The publisher operations with their weights, to spread into an `fc.oneof`. */
export const publishOps: { readonly arbitrary: fc.Arbitrary<PublishOp>; readonly weight: number }[] = [
  { arbitrary: fc.constant({ op: "group" as const }), weight: 4 },
  { arbitrary: fc.constant({ op: "skip" as const }), weight: 1 },
  { arbitrary: fc.constant({ op: "late" as const }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant("frame" as const), pick: small }), weight: 4 },
  { arbitrary: fc.record({ op: fc.constant("finishGroup" as const), pick: small }), weight: 2 },
];

/** A reader joins, reads, or changes its cap. */
export type ReaderOp =
  | { readonly op: "join"; readonly start: number | undefined; readonly end: number | undefined; readonly order: "recv" | "next" }
  | { readonly op: "read"; readonly pick: number }
  | { readonly op: "cap"; readonly pick: number; readonly end: number | undefined };

/** The reader operations with their weights, to spread into an `fc.oneof`. */
export const readerOps: { readonly arbitrary: fc.Arbitrary<ReaderOp>; readonly weight: number }[] = [
  {
    arbitrary: fc.record({
      op: fc.constant("join" as const),
      start: fc.option(small, { nil: undefined }),
      end: fc.option(small, { nil: undefined }),
      order: fc.constantFrom("recv" as const, "recv" as const, "next" as const),
    }),
    weight: 2,
  },
  { arbitrary: fc.record({ op: fc.constant("read" as const), pick: small }), weight: 4 },
  { arbitrary: fc.record({ op: fc.constant("cap" as const), pick: small, end: fc.option(small, { nil: undefined }) }), weight: 1 },
];
