import { encodeError, malformed } from "./errors.js";
import type { LiteLimits } from "./limits.js";
import type { BodyReader } from "./reader.js";
import type { ByteWriter } from "./writer.js";

/**
 * One SETUP parameter. In the lite layout every value is bytes; in the draft-14 layout used by
 * the 0x20/0x21 exchange an even id carries a varint (`number`) and an odd id bytes.
 */
export interface SetupParameter {
  /** The parameter id; ids the reader does not know are kept, not refused. */
  readonly id: number;
  /** A varint (`number`) or bytes, by layout and id parity (see above). */
  readonly value: number | Uint8Array;
}

/** Parameter layout: `lite` = `{id, len, bytes}`; `draft14` = even id varint / odd id bytes. */
export type ParameterLayout = "lite" | "draft14";

/** Encodes a parameter list (count first). */
export function writeParameters(w: ByteWriter, params: readonly SetupParameter[], layout: ParameterLayout, limits: LiteLimits): void {
  if (params.length > limits.maxParameters) throw encodeError("too_many", `more than ${limits.maxParameters} parameters`);
  w.varint(params.length);
  for (const p of params) {
    w.varint(p.id, "parameter id");
    if (layout === "draft14" && p.id % 2 === 0) {
      if (typeof p.value !== "number") throw encodeError("invalid_value", `parameter ${p.id} (even) needs a varint value`);
      w.varint(p.value, "parameter value");
    } else {
      if (typeof p.value === "number") throw encodeError("invalid_value", `parameter ${p.id} needs a byte value`);
      w.lengthPrefixed(p.value);
    }
  }
}

/** Decodes a parameter list; duplicates and more than `maxParameters` entries are refused. */
export function readParameters(r: BodyReader, layout: ParameterLayout, limits: LiteLimits): SetupParameter[] {
  const count = r.count(limits.maxParameters, "parameters");
  const seen = new Set<number>();
  const out: SetupParameter[] = [];
  for (let i = 0; i < count; i++) {
    const id = r.varint();
    if (seen.has(id)) throw malformed("duplicate", `duplicate parameter ${id}`);
    seen.add(id);
    const value = layout === "draft14" && id % 2 === 0 ? r.varint() : r.lengthPrefixed(limits.maxMessageSize);
    out.push({ id, value });
  }
  return out;
}
