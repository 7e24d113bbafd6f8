import { encodeError, malformed } from "./errors.js";
import type { LiteLimits } from "./limits.js";
import { type SetupParameter, readParameters, writeParameters } from "./parameters.js";
import { BodyReader, decodeUtf8 } from "./reader.js";
import { type LiteVersion, hasTrackStream, versionError } from "./version.js";
import { ByteWriter } from "./writer.js";

/** Probe capability: monotonic; an unknown higher level decodes as `increase`. */
export type ProbeLevel = "none" | "report" | "increase";

/** The client's intended direction; `both` is the absence of the parameter. */
export type SetupRole = "both" | "publisher" | "subscriber";

/**
 * SETUP (lite-05): the only message of each side's SETUP uni stream (type 1), then FIN.
 * Known parameters are typed; others are kept in `unknown` in wire order.
 */
export interface Setup {
  /** Tag in the {@link LiteMessage} union. */
  readonly type: "setup";
  /** How far this side takes part in bandwidth probing. */
  readonly probe: ProbeLevel;
  /** The PATH parameter: a broadcast path the sender declares; undefined: not sent. */
  readonly path: string | undefined;
  /** Which directions this side means to use. */
  readonly role: SetupRole;
  /** The COST parameter: the sender's declared route cost; undefined: not sent. */
  readonly cost: number | undefined;
  /** The sender's origin id (non-zero); undefined: not declared. */
  readonly origin: number | undefined;
  /** Parameters this version does not type, kept so they can be relayed or inspected. */
  readonly unknown: readonly SetupParameter[];
}

const PARAM_PROBE = 1;
const PARAM_PATH = 2;
const PARAM_ROLE = 3;
const PARAM_COST = 4;
const PARAM_ORIGIN = 5;

function varintBytes(value: number): Uint8Array {
  return new ByteWriter(8).varint(value, "parameter value").finish();
}

/** Encodes SETUP (size-prefixed), known parameters in id order, defaults omitted. */
export function writeSetup(w: ByteWriter, msg: Setup, version: LiteVersion, limits: LiteLimits): void {
  if (!hasTrackStream(version)) throw versionError("SETUP", version, true);
  const params: SetupParameter[] = [];
  if (msg.probe !== "none") params.push({ id: PARAM_PROBE, value: varintBytes(msg.probe === "report" ? 1 : 2) });
  if (msg.path !== undefined) params.push({ id: PARAM_PATH, value: new TextEncoder().encode(msg.path) });
  if (msg.role !== "both") params.push({ id: PARAM_ROLE, value: varintBytes(msg.role === "publisher" ? 1 : 2) });
  if (msg.cost !== undefined) params.push({ id: PARAM_COST, value: varintBytes(msg.cost) });
  if (msg.origin !== undefined) {
    if (msg.origin === 0) throw encodeError("invalid_value", "origin 0 carries no identity; leave it undefined");
    params.push({ id: PARAM_ORIGIN, value: varintBytes(msg.origin) });
  }
  for (const p of msg.unknown) {
    if (p.id >= PARAM_PROBE && p.id <= PARAM_ORIGIN) throw encodeError("duplicate", `parameter ${p.id} is a typed field`);
    params.push(p);
  }
  w.sized(() => { writeParameters(w, params, "lite", limits); });
}

function varintParam(value: Uint8Array, limits: LiteLimits): number {
  const r = new BodyReader(value, limits);
  const v = r.varint();
  r.finish();
  return v;
}

/** Decodes a SETUP body. */
export function readSetup(r: BodyReader, version: LiteVersion, limits: LiteLimits): Setup {
  if (!hasTrackStream(version)) throw versionError("SETUP", version, false);
  const params = readParameters(r, "lite", limits);
  let probe: ProbeLevel = "none";
  let path: string | undefined;
  let role: SetupRole = "both";
  let cost: number | undefined;
  let origin: number | undefined;
  const unknown: SetupParameter[] = [];
  for (const p of params) {
    const bytes = p.value;
    if (typeof bytes === "number") throw malformed("invalid_value", "lite parameters carry bytes");
    switch (p.id) {
      case PARAM_PROBE: {
        const level = varintParam(bytes, limits);
        probe = level === 0 ? "none" : level === 1 ? "report" : "increase";
        break;
      }
      case PARAM_PATH:
        path = decodeUtf8(bytes);
        break;
      case PARAM_ROLE: {
        // An unknown role means both directions, so a newer client never breaks an older server.
        const code = varintParam(bytes, limits);
        role = code === 1 ? "publisher" : code === 2 ? "subscriber" : "both";
        break;
      }
      case PARAM_COST:
        cost = varintParam(bytes, limits);
        break;
      case PARAM_ORIGIN: {
        // 0 is legal but carries no identity: it decodes as "not declared", as in the reference.
        const id = varintParam(bytes, limits);
        origin = id === 0 ? undefined : id;
        break;
      }
      default:
        unknown.push(p);
    }
  }
  return { type: "setup", probe, path, role, cost, origin, unknown };
}
