import type { FramingEvent } from "./events.js";

/** What {@link EventQueue.poll} returns when nothing happened: one shared empty list. */
const NO_EVENTS: readonly FramingEvent[] = Object.freeze([]);

/** The events a connection produced since it was last polled, in order. */
export class EventQueue {
  #events: FramingEvent[] = [];

  /** Queues `event`. */
  push(event: FramingEvent): void {
    this.#events.push(event);
  }

  /**
   * Hands over the queued events, not a copy; with nothing queued, one shared empty list (a
   * session polls until it gets that, so an empty poll per drain must cost nothing).
   */
  poll(): readonly FramingEvent[] {
    const events = this.#events;
    if (events.length === 0) return NO_EVENTS;
    this.#events = [];
    return events;
  }
}
