import type { Logger } from "pino";

/** Where escaped errors are reported. */
export interface GuardSink {
  readonly log: Logger;
  readonly metrics: { handlerError(where: string): void };
}

/**
 * Reports an error that escaped one connection's handler (log line, `relay_handler_errors_total`)
 * and runs `abort`, which closes that connection only: a bug reached by one peer's input costs
 * that peer its connection, never the process or another client.
 */
export function contain(sink: GuardSink, where: string, err: unknown, abort: () => void): void {
  sink.metrics.handlerError(where);
  sink.log.error({ err, where }, "connection handler failed: closing that connection");
  try {
    abort();
  } catch (again) {
    sink.log.error({ err: again, where }, "closing the failed connection failed too");
  }
}

/** Wraps `fn`, a handler of one connection's events, so that an error escaping it is {@link contain}ed. */
export function guarded<A extends unknown[]>(sink: GuardSink, where: string, abort: () => void, fn: (...args: A) => void): (...args: A) => void {
  return (...args: A) => {
    try {
      fn(...args);
    } catch (err) {
      contain(sink, where, err, abort);
    }
  };
}
