import type { LiteLimits } from "./limits.js";
import { type ParameterLayout, type SetupParameter, readParameters, writeParameters } from "./parameters.js";
import type { BodyReader } from "./reader.js";
import type { ByteWriter } from "./writer.js";

/** First byte of the client's SETUP on the session stream (lite-01/02 negotiation). */
export const CLIENT_SETUP_TYPE = 0x20;
/** First byte of the server's SETUP reply. */
export const SERVER_SETUP_TYPE = 0x21;

/**
 * How the 0x20/0x21 SETUP is framed. `draft14` (u16 size, IETF-style parameters) is what
 * `@moq/lite` and the reference actually put on the wire for ALPN `moql` or no ALPN; `lite`
 * (varint size, `{id,len,bytes}` parameters) is the reference's legacy-lite framing.
 */
export type SetupFraming = "draft14" | "lite";

/** CLIENT_SETUP: the versions the client speaks, in preference order, and its parameters. */
export interface ClientSetup {
  /** Tag in the {@link LiteMessage} union. */
  readonly type: "client_setup";
  /** Version numbers on the wire, most preferred first. */
  readonly versions: readonly number[];
  /** In wire order; unknown ids are kept. */
  readonly parameters: readonly SetupParameter[];
}

/** SERVER_SETUP: the version the server picked and its parameters. */
export interface ServerSetup {
  /** Tag in the {@link LiteMessage} union. */
  readonly type: "server_setup";
  /** One of the client's versions, the session's from now on. */
  readonly version: number;
  /** In wire order; unknown ids are kept. */
  readonly parameters: readonly SetupParameter[];
}

/** SESSION_INFO (lite-01/02, on the session stream after SETUP): bitrate, 0 = unknown. */
export interface SessionInfo {
  /** Tag in the {@link LiteMessage} union. */
  readonly type: "session_info";
  /** Bits per second; undefined: unknown. */
  readonly bitrate: number | undefined;
}

function layout(framing: SetupFraming): ParameterLayout {
  return framing === "draft14" ? "draft14" : "lite";
}

function framed(w: ByteWriter, framing: SetupFraming, body: () => void): void {
  if (framing === "draft14") w.sized16(body);
  else w.sized(body);
}

/** Encodes `0x20` then the framed CLIENT_SETUP. */
export function writeClientSetup(w: ByteWriter, msg: ClientSetup, framing: SetupFraming, limits: LiteLimits): void {
  w.varint(CLIENT_SETUP_TYPE);
  framed(w, framing, () => {
    w.varint(msg.versions.length);
    for (const v of msg.versions) w.varint(v, "version");
    writeParameters(w, msg.parameters, layout(framing), limits);
  });
}

/** Decodes a CLIENT_SETUP body (after the type byte and size). */
export function readClientSetup(r: BodyReader, framing: SetupFraming, limits: LiteLimits): ClientSetup {
  const count = r.count(limits.maxListEntries, "setup versions");
  const versions: number[] = [];
  for (let i = 0; i < count; i++) versions.push(r.varint());
  const parameters = readParameters(r, layout(framing), limits);
  return { type: "client_setup", versions, parameters };
}

/** Encodes `0x21` then the framed SERVER_SETUP. */
export function writeServerSetup(w: ByteWriter, msg: ServerSetup, framing: SetupFraming, limits: LiteLimits): void {
  w.varint(SERVER_SETUP_TYPE);
  framed(w, framing, () => {
    w.varint(msg.version, "version");
    writeParameters(w, msg.parameters, layout(framing), limits);
  });
}

/** Decodes a SERVER_SETUP body (after the type byte and size). */
export function readServerSetup(r: BodyReader, framing: SetupFraming, limits: LiteLimits): ServerSetup {
  const version = r.varint();
  const parameters = readParameters(r, layout(framing), limits);
  return { type: "server_setup", version, parameters };
}

/** Encodes SESSION_INFO (size-prefixed). */
export function writeSessionInfo(w: ByteWriter, msg: SessionInfo): void {
  w.sized(() => w.varint(msg.bitrate ?? 0, "bitrate"));
}

/** Decodes a SESSION_INFO body. */
export function readSessionInfo(r: BodyReader): SessionInfo {
  const bitrate = r.varint();
  return { type: "session_info", bitrate: bitrate === 0 ? undefined : bitrate };
}

/**
 * Picks the version a server answers with: the first of the client's versions (its preference
 * order) that the server supports, as the reference does; undefined when none is shared.
 */
export function selectVersion(client: readonly number[], supported: readonly number[]): number | undefined {
  return client.find((v) => supported.includes(v));
}
