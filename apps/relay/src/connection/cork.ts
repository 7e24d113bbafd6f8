import type { Writable } from "node:stream";

/**
 * Returns a function to call before each write on `socket`: the first write of a tick corks the
 * socket and the next tick uncorks it, so a fan-out burst (one message per frame per subscriber,
 * since @moq/qmux 0.0.6 reads one frame per WebSocket message) leaves in one writev per socket
 * instead of one syscall per message.
 */
export function corkPerTick(socket: Writable): () => void {
  let corked = false;
  // Made once per socket, not per tick.
  const uncork = (): void => {
    corked = false;
    socket.uncork();
  };
  return () => {
    if (corked || socket.destroyed) return;
    corked = true;
    socket.cork();
    process.nextTick(uncork);
  };
}
