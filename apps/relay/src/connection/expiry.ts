/** The longest delay setTimeout takes (about 24.8 days). */
const MAX_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * Calls `onExpire` once the wall clock reaches `expiresAt` (epoch ms), however far away that is:
 * setTimeout takes at most 2^31-1 ms, so a longer lifetime waits in steps. Returns the cancel.
 */
export function atExpiry(expiresAt: number, onExpire: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    const left = expiresAt - Date.now();
    if (left <= 0) {
      timer = undefined;
      onExpire();
      return;
    }
    timer = setTimeout(arm, Math.min(left, MAX_TIMEOUT_MS));
    timer.unref();
  };
  // Deferred even when already due, so the caller finishes setting up first.
  timer = setTimeout(arm, 0);
  timer.unref();
  return () => {
    if (timer !== undefined) clearTimeout(timer);
  };
}
