import { setFlagsFromString } from "node:v8";

/**
 * How far V8 lets the old generation grow past what survived the last full GC before the next:
 * 200% (a limit of 3x the live heap) where V8 picks about 110%.
 *
 * The relay's live heap is small (21 MB with 100 subscribers) and it allocates fast, so V8's young
 * generation grows to its 16 MB semi-spaces; with a limit of about twice the live heap, the headroom
 * left is below that, and V8 started the next incremental marking right after each full GC: a major
 * GC about every 300 ms, with main-thread stalls of 10-20 ms while the marker threads held the
 * relay's core. Those stalls made the 100-subscriber bench's tail. At 200%, one major GC in a 17 s
 * run instead of about eight; p99 9.3-13.6 ms against 18.1-34.4 ms, CPU per frame 9.7-10.1 µs
 * against 11.6-12.9 (four runs each, taking turns), for about 15 MB more RSS.
 */
export const HEAP_GROWING_PERCENT = 200;

const OPERATOR_FLAG = /^--heap[-_]growing[-_]percent(=|$)/;

/**
 * The V8 flag the relay sets, or undefined when node was started with its own
 * `--heap-growing-percent` (`node --heap-growing-percent=100 dist/main.js`; node refuses the flag
 * in `NODE_OPTIONS`), which is left alone.
 */
export function heapGrowingFlag(nodeFlags: readonly string[]): string | undefined {
  return nodeFlags.some((f) => OPERATOR_FLAG.test(f)) ? undefined : `--heap-growing-percent=${String(HEAP_GROWING_PERCENT)}`;
}

/**
 * Sets {@link heapGrowingFlag} for this process, first thing in the entry point (V8 reads it at each
 * full GC). Returns the flag set, or undefined when the operator chose.
 */
export function tuneHeap(): string | undefined {
  const flag = heapGrowingFlag(process.execArgv);
  if (flag !== undefined) setFlagsFromString(flag);
  return flag;
}
