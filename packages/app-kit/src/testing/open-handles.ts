/**
 * Leak checks for tests of code that opens sockets, servers and timers: every such resource
 * created while watching and not yet destroyed, by type. Unlike `process.getActiveResourcesInfo()`
 * it also sees unref'd timers and sockets, which keep no process alive but still leak.
 * @module
 */
import { createHook } from "node:async_hooks";

/** The resource types watched: sockets, servers, pipes, TLS, timers. */
const WATCHED = new Set(["TCPWRAP", "TCPSERVERWRAP", "PIPEWRAP", "PIPESERVERWRAP", "TLSWRAP", "Timeout", "UDPWRAP"]);

/** A watch started by {@link watchHandles}. */
export interface HandleWatch {
  /** The watched resources created since the start and still alive, by type (empty: none leaked). */
  open(): Record<string, number>;
  /**
   * Stops watching once nothing watched is alive, or after `ms` (sockets are destroyed on the
   * turns after their close), and resolves with what is still open: `{}` when nothing leaked.
   */
  settle(ms?: number): Promise<Record<string, number>>;
}

/** Starts recording the sockets, servers and timers created from now on. */
export function watchHandles(): HandleWatch {
  const alive = new Map<number, string>();
  const hook = createHook({
    init: (id, type) => {
      if (WATCHED.has(type)) alive.set(id, type);
    },
    destroy: (id) => {
      alive.delete(id);
    },
  });
  hook.enable();
  function counts(): Record<string, number> {
    const byType: Record<string, number> = {};
    for (const type of alive.values()) byType[type] = (byType[type] ?? 0) + 1;
    return byType;
  }
  return {
    open: counts,
    settle: async (ms = 2000) => {
      // Polled on immediates, not timers: a timer of its own would be one more watched handle.
      const deadline = Date.now() + ms;
      while (alive.size > 0 && Date.now() < deadline) await new Promise((resolve) => setImmediate(resolve));
      hook.disable();
      return counts();
    },
  };
}
