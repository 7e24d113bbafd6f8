import type { FramingKind } from "./events.js";

/** moq ALPNs the relay offers under `qmux-00.`, preference order (moq-lite 05/04/03, and `moql` = in-band SETUP). */
export const DEFAULT_MOQ_ALPNS: readonly string[] = ["moq-lite-05", "moq-lite-04", "moq-lite-03", "moql"];

/**
 * The ALPNs the relay offers in the qmux application_protocols parameter on raw TCP, preference
 * order: the versioned ones only (`moql` needs no agreement: none agreed means in-band SETUP).
 */
export const TCP_MOQ_ALPNS: readonly string[] = DEFAULT_MOQ_ALPNS.filter((alpn) => alpn !== "moql");

/** The outcome of WebSocket subprotocol negotiation. */
export type SubprotocolChoice =
  | {
      readonly ok: true;
      /** The value for the `Sec-WebSocket-Protocol` response header; undefined = send none. */
      readonly subprotocol: string | undefined;
      /** The framing to run on the socket. */
      readonly framing: FramingKind;
      /** The moq ALPN fixed by the subprotocol; undefined = negotiate in-band (SETUP 0x20/0x21). */
      readonly moqAlpn: string | undefined;
    }
  | { readonly ok: false; readonly reason: string };

/** The subprotocols we accept, in our preference order (as the reference advertises them, minus qmux-01). */
export function supportedSubprotocols(moqAlpns: readonly string[] = DEFAULT_MOQ_ALPNS): string[] {
  return [...moqAlpns.map((alpn) => `qmux-00.${alpn}`), "qmux-00", "webtransport"];
}

/**
 * Chooses a subprotocol the way the reference relay does: the first entry of our
 * list that the client offered (server preference). No offer at all still
 * upgrades, with the legacy framing and in-band version negotiation (the
 * reference's fallback for an empty subprotocol). Offers that are all unknown are
 * refused: answering without a subprotocol would make a browser fail anyway.
 * `webtransport.<alpn>` offers are not accepted, as in the reference; clients that
 * send them (@moq/qmux) also offer `qmux-00.<alpn>`.
 *
 * @param offered the client's `Sec-WebSocket-Protocol` values (header strings, or parsed tokens)
 */
export function negotiateSubprotocol(
  offered: string | Iterable<string> | undefined,
  moqAlpns: readonly string[] = DEFAULT_MOQ_ALPNS,
): SubprotocolChoice {
  const tokens = parseOffer(offered);
  if (tokens.size === 0) return { ok: true, subprotocol: undefined, framing: "webtransport", moqAlpn: undefined };
  for (const candidate of supportedSubprotocols(moqAlpns)) {
    if (!tokens.has(candidate)) continue;
    if (candidate === "webtransport") return { ok: true, subprotocol: candidate, framing: "webtransport", moqAlpn: undefined };
    const alpn = candidate === "qmux-00" ? undefined : candidate.slice("qmux-00.".length);
    return { ok: true, subprotocol: candidate, framing: "qmux-00", moqAlpn: alpn };
  }
  return { ok: false, reason: `no supported subprotocol among: ${[...tokens].join(", ")}` };
}

function parseOffer(offered: string | Iterable<string> | undefined): Set<string> {
  const tokens = new Set<string>();
  if (offered === undefined) return tokens;
  const values = typeof offered === "string" ? [offered] : offered;
  for (const value of values) {
    for (const token of value.split(",")) {
      const trimmed = token.trim();
      if (trimmed.length > 0) tokens.add(trimmed);
    }
  }
  return tokens;
}
