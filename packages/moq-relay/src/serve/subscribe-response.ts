import { hasTrackStream, isLegacy, type LiteMessage, type LiteStreamWriter, type LiteVersion, type Subscribe } from "@handoff/moq-resume/lite";
import type { StreamId } from "@handoff/qmux";
import type { StreamIo } from "../context/index.js";

/**
 * The relay's replies on one served SUBSCRIBE stream. Before lite-05 that is one SUBSCRIBE_OK
 * echoing the request. On lite-05 it is SUBSCRIBE_START with the resolved first group — the
 * requested start, or else the first group handed out (the live edge is only known then) — and
 * SUBSCRIBE_END (exclusive) before the stream's FIN: one past the last group, 0 when there was none.
 */
export class SubscribeResponder {
  readonly #lite05: boolean;
  readonly #legacy: boolean;
  #started: boolean;
  #last: number | undefined;

  readonly #io: StreamIo;
  readonly #writer: LiteStreamWriter;
  readonly #streamId: StreamId;
  readonly #msg: Subscribe;

  constructor(
    io: StreamIo,
    writer: LiteStreamWriter,
    version: LiteVersion,
    streamId: StreamId,
    msg: Subscribe,
  ) {
    this.#io = io;
    this.#writer = writer;
    this.#streamId = streamId;
    this.#msg = msg;
    this.#lite05 = hasTrackStream(version);
    this.#legacy = isLegacy(version);
    this.#started = false;
  }

  /** The subscription was accepted: the first reply. */
  accepted(): void {
    const msg = this.#msg;
    if (!this.#lite05) {
      this.#send({
        type: "subscribe_ok",
        priority: msg.priority,
        ordered: msg.ordered,
        maxLatency: msg.maxLatency,
        startGroup: msg.startGroup,
        endGroup: msg.endGroup,
      });
      return;
    }
    if (msg.startGroup !== undefined) this.#start(msg.startGroup);
  }

  /** Group `sequence` is being sent. */
  group(sequence: number): void {
    if (this.#last === undefined || sequence > this.#last) this.#last = sequence;
    if (this.#lite05 && !this.#started) this.#start(sequence);
  }

  /**
   * Group `sequence` cannot be delivered: SUBSCRIBE_DROP (lite-03+), so the peer does not wait for
   * it. lite-01/02 have no way to say so; the group is just absent there.
   */
  dropped(sequence: number, code: number): void {
    if (this.#legacy) return;
    this.#send({ type: "subscribe_drop", start: sequence, end: sequence, error: code });
  }

  /** Every group owed was sent: the last reply before FIN. */
  finished(): void {
    if (!this.#lite05) return;
    this.#send({ type: "subscribe_end", group: this.#last === undefined ? 0 : this.#last + 1 });
  }

  #start(group: number): void {
    this.#started = true;
    this.#send({ type: "subscribe_start", group });
  }

  #send(msg: LiteMessage): void {
    this.#io.send(this.#streamId, this.#writer.encode(msg), false);
  }
}
