/**
 * `@handoff/moq-resume/lite`: a sans-I/O moq-lite wire codec (lite-01 to lite-05).
 * Encoders append to a {@link ByteWriter} or return bytes; {@link LiteStreamReader} decodes a
 * stream from arbitrary chunks and reports malformed input as {@link LiteError} results.
 */
export * from "./announce.js";
export * from "./datagram.js";
export * from "./errors.js";
export * from "./fetch.js";
export * from "./goaway.js";
export * from "./group.js";
export * from "./limits.js";
export * from "./messages.js";
export * from "./parameters.js";
export * from "./path.js";
export * from "./probe.js";
export * from "./reader.js";
export * from "./session-stream.js";
export * from "./setup.js";
export * from "./stream.js";
export * from "./stream-reader.js";
export * from "./stream-writer.js";
export * from "./subscribe.js";
export * from "./track.js";
export * from "./varint.js";
export * from "./version.js";
export * from "./writer.js";
