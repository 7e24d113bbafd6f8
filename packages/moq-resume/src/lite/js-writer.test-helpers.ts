// The golden tests' way of reading what a reference library writes (test-only): its Writer over an
// in-memory WritableStream.
import { concat } from "@handoff/test-kit";

/** What a reference Writer must offer here. */
export interface ClosingWriter {
  close(): void;
  readonly closed: Promise<void>;
}

/** The bytes `write` puts on a writer made by `makeWriter` over an in-memory stream, once it closed. */
export async function writtenBytes<W extends ClosingWriter>(makeWriter: (stream: WritableStream<Uint8Array>) => W, write: (w: W) => Promise<void>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  const writer = makeWriter(
    new WritableStream<Uint8Array>({
      write(chunk) {
        // The Writer reuses a scratch buffer for varints, so keep a copy.
        parts.push(chunk.slice());
      },
    }),
  );
  await write(writer);
  writer.close();
  await writer.closed;
  return concat(parts);
}
