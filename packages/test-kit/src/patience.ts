/**
 * How long tests wait, as safety nets rather than budgets. The suite runs on shared machines (2
 * cores, other test runs beside it), where a step that takes 10 ms alone can take seconds: a limit
 * sized to an idle machine fails for lack of CPU and tells nothing about the code. So a wait gives
 * up only when something is clearly stuck, and how fast things are is measured by `pnpm bench`.
 * @module
 */

/** The longest a test waits for one thing it expects (an answer, a message, a log line). */
export const WAIT_LIMIT_MS = 60_000;

/**
 * Vitest's per-test and per-hook timeout: longer than a few waits in a row, so a wait that gives
 * up names what it waited for before vitest stops the test.
 */
export const TEST_TIMEOUT_MS = 300_000;

/**
 * The limit a wait asked for `ms` really gets: never less than {@link WAIT_LIMIT_MS}. Callers may
 * still pass how long a step takes on an idle machine (it documents the step); only a longer
 * limit than the safety net changes anything.
 */
export function waitLimit(ms: number): number {
  return Math.max(ms, WAIT_LIMIT_MS);
}
