/**
 * A PUBLISH (or a will) from the client as the router keeps it: with its own bytes, not views
 * pinning the socket chunk it was decoded from.
 * @module
 */
import { NO_PROPERTIES } from "../codec/properties.js";
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

type Kept = { -readonly [K in keyof MessageProperties]: MessageProperties[K] };

/** The properties of a PUBLISH that the router keeps with the message. */
export function messageProperties(p: PublishEffect["properties"]): MessageProperties {
  // Most PUBLISHes carry none of these: then one shared empty object, and no object built.
  let kept: Kept | undefined;
  if (p.payloadFormatIndicator !== undefined) (kept ??= {}).payloadFormatIndicator = p.payloadFormatIndicator;
  if (p.contentType !== undefined) (kept ??= {}).contentType = p.contentType;
  if (p.responseTopic !== undefined) (kept ??= {}).responseTopic = p.responseTopic;
  // Kept on queues and in the retained store: a copy, not a view pinning the received chunk.
  if (p.correlationData !== undefined) (kept ??= {}).correlationData = own(p.correlationData);
  if (p.userProperties !== undefined) (kept ??= {}).userProperties = p.userProperties;
  return kept ?? NO_PROPERTIES;
}
