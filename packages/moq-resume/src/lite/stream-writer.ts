import { FrameEncoder } from "./group.js";
import { type LiteLimits, resolveLimits } from "./limits.js";
import { type EncodeOptions, type LiteMessage, writeResolved } from "./messages.js";
import type { SetupFraming } from "./session-stream.js";
import type { LiteVersion } from "./version.js";
import { ByteWriter } from "./writer.js";

/**
 * Encodes the messages of one outgoing stream, keeping the per-stream state the wire needs
 * (the previous frame timestamp of lite-05 deltas). The counterpart of `LiteStreamReader`.
 */
export class LiteStreamWriter {
  readonly #frames: FrameEncoder;
  readonly #limits: LiteLimits;
  readonly #options: EncodeOptions;
  readonly #version: LiteVersion;

  /** A writer for one stream of `version`. */
  constructor(
    version: LiteVersion,
    options: { readonly limits?: Partial<LiteLimits>; readonly setupFraming?: SetupFraming } = {},
  ) {
    this.#version = version;
    this.#frames = new FrameEncoder(version);
    this.#limits = resolveLimits(options.limits);
    this.#options = { setupFraming: options.setupFraming ?? "draft14" };
  }

  /** Appends `msg` to `w`. Throws `LiteError` on values that cannot be encoded. */
  write(w: ByteWriter, msg: LiteMessage): void {
    if (msg.type === "frame") {
      this.#frames.write(w, msg.payload, msg.timestamp);
      return;
    }
    writeResolved(w, msg, this.#version, this.#limits, this.#options);
  }

  /** The bytes of `msg` alone. */
  encode(msg: LiteMessage): Uint8Array {
    const w = new ByteWriter(msg.type === "frame" ? msg.payload.length + 16 : 64);
    this.write(w, msg);
    return w.finish();
  }

  /** The bytes of several messages back to back. */
  encodeAll(messages: readonly LiteMessage[]): Uint8Array {
    const w = new ByteWriter(256);
    for (const m of messages) this.write(w, m);
    return w.finish();
  }
}
