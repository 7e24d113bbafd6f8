/**
 * The key under which a cluster's routes stream holds publishers in the broker's flow control.
 * @module
 */

/**
 * The congestion of a cluster's routes stream, held like a subscriber: a publisher told it is
 * congested waits until the slowest node has read the stream back below its bound. U+0000 is in
 * no client id [MQTT-1.5.4-2], so it never names a session.
 */
export const STREAM_BACKLOG = "\u0000cluster routes stream";
