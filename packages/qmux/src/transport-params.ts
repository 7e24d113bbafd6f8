import { FramingError, TransportError } from "./errors.js";
import { ByteReader } from "./byte-reader.js";
import { varintSize, writeVarint, writeVarintBig } from "./varint.js";

/**
 * QX_TRANSPORT_PARAMETERS content (QUIC v1 ids plus the qmux extensions the
 * reference sends). A value of 0 is "absent" and is not written, as in the reference.
 */
export interface TransportParams {
  /** 0x01, milliseconds; 0 disables the idle timeout. */
  readonly maxIdleTimeout: number;
  /** 0x04, connection-level receive window. */
  readonly initialMaxData: number;
  /** 0x05, receive window of bidi streams the sender opens. */
  readonly initialMaxStreamDataBidiLocal: number;
  /** 0x06, receive window of bidi streams the receiver opens. */
  readonly initialMaxStreamDataBidiRemote: number;
  /** 0x07, receive window of uni streams the receiver opens. */
  readonly initialMaxStreamDataUni: number;
  /** 0x08, how many bidi streams the receiver may open. */
  readonly initialMaxStreamsBidi: number;
  /** 0x09, how many uni streams the receiver may open. */
  readonly initialMaxStreamsUni: number;
  /** qmux-01 max_record_size; the Rust reference also sends it on qmux-00, where it has no effect. */
  readonly maxRecordSize: number;
  /** 0x20 (RFC 9221): the largest DATAGRAM frame the sender accepts; 0 = no datagrams. Record versions only. */
  readonly maxDatagramFrameSize: number;
  /** 0x1d (reliable stream reset), empty value: the sender accepts RESET_STREAM_AT. qmux-02 only. */
  readonly resetStreamAt: boolean;
  /** qmux in-band ALPN list (used on plain TCP); empty when the subprotocol/ALPN fixed it. */
  readonly applicationProtocols: readonly string[];
}

/** What the Rust reference (and @moq/qmux's defaults) advertise. */
export const REFERENCE_PARAMS: TransportParams = {
  maxIdleTimeout: 30_000,
  initialMaxData: 1_048_576,
  initialMaxStreamDataBidiLocal: 262_144,
  initialMaxStreamDataBidiRemote: 262_144,
  initialMaxStreamDataUni: 262_144,
  initialMaxStreamsBidi: 100,
  initialMaxStreamsUni: 100,
  maxRecordSize: 16_382,
  maxDatagramFrameSize: 0,
  resetStreamAt: false,
  applicationProtocols: [],
};

/** The smallest max_record_size a record version (qmux-01+) may advertise, and its default. */
export const MIN_RECORD_SIZE = 16_382;

/** What a peer that omits every parameter grants: nothing (RFC 9000 §18.2). */
export const EMPTY_PARAMS: TransportParams = {
  maxIdleTimeout: 0,
  initialMaxData: 0,
  initialMaxStreamDataBidiLocal: 0,
  initialMaxStreamDataBidiRemote: 0,
  initialMaxStreamDataUni: 0,
  initialMaxStreamsBidi: 0,
  initialMaxStreamsUni: 0,
  maxRecordSize: 0,
  maxDatagramFrameSize: 0,
  resetStreamAt: false,
  applicationProtocols: [],
};

const RESET_STREAM_AT_ID = 0x1dn;
const MAX_RECORD_SIZE_ID = 0x0571c59429cd0845n;
const APPLICATION_PROTOCOLS_ID = 0x3d4f9c2a8b1e6075n;

type NumericKey = Exclude<keyof TransportParams, "applicationProtocols" | "maxRecordSize" | "resetStreamAt">;
const NUMERIC_IDS: readonly (readonly [number, NumericKey])[] = [
  [0x01, "maxIdleTimeout"],
  [0x04, "initialMaxData"],
  [0x05, "initialMaxStreamDataBidiLocal"],
  [0x06, "initialMaxStreamDataBidiRemote"],
  [0x07, "initialMaxStreamDataUni"],
  [0x08, "initialMaxStreamsBidi"],
  [0x09, "initialMaxStreamsUni"],
  [0x20, "maxDatagramFrameSize"],
];

/** QUIC v1 parameters qmux forbids (they only make sense over UDP/TLS). */
function isForbidden(id: bigint): boolean {
  return id === 0x00n || id === 0x02n || id === 0x03n || (id >= 0x0an && id <= 0x10n);
}

/** Encodes the parameter list (the body of QX_TRANSPORT_PARAMETERS). */
export function encodeTransportParams(params: TransportParams): Uint8Array {
  const encoder = new TextEncoder();
  const names = params.applicationProtocols.map((p) => encoder.encode(p));
  const protoLen = names.reduce((n, b) => n + varintSize(b.length) + b.length, 0);
  let size = 0;
  for (const [, key] of NUMERIC_IDS) {
    const v = params[key];
    if (v !== 0) size += 2 + varintSize(v);
  }
  if (params.maxRecordSize !== 0) size += 8 + 1 + varintSize(params.maxRecordSize);
  if (params.resetStreamAt) size += 2;
  if (names.length > 0) size += 8 + varintSize(protoLen) + protoLen;
  const out = new Uint8Array(size);
  let pos = 0;
  for (const [id, key] of NUMERIC_IDS) {
    const v = params[key];
    if (v === 0) continue;
    pos = writeVarint(out, pos, id);
    pos = writeVarint(out, pos, varintSize(v));
    pos = writeVarint(out, pos, v);
  }
  if (params.resetStreamAt) {
    pos = writeVarint(out, pos, Number(RESET_STREAM_AT_ID));
    pos = writeVarint(out, pos, 0);
  }
  if (params.maxRecordSize !== 0) {
    pos = writeVarintBig(out, pos, MAX_RECORD_SIZE_ID);
    pos = writeVarint(out, pos, varintSize(params.maxRecordSize));
    pos = writeVarint(out, pos, params.maxRecordSize);
  }
  if (names.length > 0) {
    pos = writeVarintBig(out, pos, APPLICATION_PROTOCOLS_ID);
    pos = writeVarint(out, pos, protoLen);
    for (const name of names) {
      pos = writeVarint(out, pos, name.length);
      out.set(name, pos);
      pos += name.length;
    }
  }
  return out;
}

/** Decodes the parameter list; a malformed list is a TRANSPORT_PARAMETER_ERROR result. */
export function decodeTransportParams(body: Uint8Array): TransportParams | FramingError {
  const fail = (why: string): FramingError => new FramingError(TransportError.TRANSPORT_PARAMETER_ERROR, why);
  const out: { -readonly [K in keyof TransportParams]: TransportParams[K] } = {
    ...EMPTY_PARAMS,
    applicationProtocols: [],
  };
  const seen = new Set<bigint>();
  const reader = new ByteReader(body, 0, body.length);
  while (reader.remaining > 0) {
    const id = reader.varintBig();
    const len = reader.varint();
    const value = reader.take(len);
    if (reader.failed() !== undefined) return fail("truncated transport parameter");
    if (isForbidden(id)) return fail(`forbidden transport parameter 0x${id.toString(16)}`);
    const numeric = NUMERIC_IDS.find(([known]) => BigInt(known) === id);
    const known = numeric !== undefined || id === MAX_RECORD_SIZE_ID || id === APPLICATION_PROTOCOLS_ID || id === RESET_STREAM_AT_ID;
    if (!known) continue;
    if (seen.has(id)) return fail(`duplicate transport parameter 0x${id.toString(16)}`);
    seen.add(id);
    if (id === RESET_STREAM_AT_ID) {
      if (value.length !== 0) return fail("reset_stream_at must be empty");
      out.resetStreamAt = true;
      continue;
    }
    if (id === APPLICATION_PROTOCOLS_ID) {
      const protocols = decodeProtocols(value);
      if (protocols === undefined) return fail("malformed application_protocols");
      out.applicationProtocols = protocols;
      continue;
    }
    const inner = new ByteReader(value, 0, value.length);
    const v = inner.varint();
    if (inner.failed() !== undefined || inner.remaining !== 0) return fail("malformed transport parameter value");
    if (numeric === undefined) out.maxRecordSize = v;
    else out[numeric[1]] = v;
  }
  if (out.initialMaxStreamsBidi > 2 ** 60 || out.initialMaxStreamsUni > 2 ** 60) {
    return fail("initial_max_streams above 2^60");
  }
  return out;
}

function decodeProtocols(value: Uint8Array): string[] | undefined {
  const decoder = new TextDecoder("utf-8", { fatal: true });
  const reader = new ByteReader(value, 0, value.length);
  const names: string[] = [];
  while (reader.remaining > 0) {
    const name = reader.take(reader.varint());
    if (reader.failed() !== undefined) return undefined;
    try {
      names.push(decoder.decode(name));
    } catch {
      return undefined;
    }
  }
  return names.length > 0 ? names : undefined;
}
