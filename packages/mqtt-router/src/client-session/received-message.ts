/**
 * A PUBLISH (or a will) from the client as the router keeps it: with its own bytes, not views
 * pinning the socket chunk it was decoded from.
 * @module
 */
import type { PublishEffect } from "../protocol/effects.js";
import type { MessageProperties } from "../router/message.js";

/**
 * A payload decoded from a socket chunk is a view into that chunk; a message kept on a queue must
 * not pin the whole chunk, so it gets its own copy unless it already is the whole buffer. Not
 * `bytes.slice()`: on a Node Buffer (what sockets deliver) that is a view as well.
 */
export function own(bytes: Uint8Array): Uint8Array {
  return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes : new Uint8Array(bytes);
}

const NO_PROPERTIES: MessageProperties = Object.freeze({});

/** The properties of a PUBLISH that the router keeps with the message. */
export function messageProperties(p: PublishEffect["properties"]): MessageProperties {
  // Most PUBLISHes carry none of these: one shared empty object, not five spreads per message.
  if (
    p.payloadFormatIndicator === undefined &&
    p.contentType === undefined &&
    p.responseTopic === undefined &&
    p.correlationData === undefined &&
    p.userProperties === undefined
  ) {
    return NO_PROPERTIES;
  }
  return {
    ...(p.payloadFormatIndicator === undefined ? {} : { payloadFormatIndicator: p.payloadFormatIndicator }),
    ...(p.contentType === undefined ? {} : { contentType: p.contentType }),
    ...(p.responseTopic === undefined ? {} : { responseTopic: p.responseTopic }),
    // Kept on queues and in the retained store: a copy, not a view pinning the received chunk.
    ...(p.correlationData === undefined ? {} : { correlationData: own(p.correlationData) }),
    ...(p.userProperties === undefined ? {} : { userProperties: p.userProperties }),
  };
}
