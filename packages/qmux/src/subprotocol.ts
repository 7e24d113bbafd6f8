import type { FramingKind, QmuxVersion } from "./events.js";

/** qmux wire versions the relay speaks over WebSocket, newest (preferred) first. */
export const QMUX_VERSIONS: readonly QmuxVersion[] = ["qmux-02", "qmux-01", "qmux-00"];

/** moq ALPNs the relay offers under `qmux-0X.`, preference order (moq-lite 06/06-wip/05/04/03, and `moql` = in-band SETUP). */
export const DEFAULT_MOQ_ALPNS: readonly string[] = ["moq-lite-06", "moq-lite-06-wip", "moq-lite-05", "moq-lite-04", "moq-lite-03", "moql"];

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

/**
 * The subprotocols we accept, in our preference order: the newest moq version first,
 * and within it the newest qmux (`qmux-02.<alpn>`, `qmux-01.<alpn>`, `qmux-00.<alpn>`);
 * then the bare qmux versions (in-band SETUP) and the legacy `webtransport`.
 */
export function supportedSubprotocols(moqAlpns: readonly string[] = DEFAULT_MOQ_ALPNS): string[] {
  return [...moqAlpns.flatMap((alpn) => QMUX_VERSIONS.map((qmux) => `${qmux}.${alpn}`)), ...QMUX_VERSIONS, "webtransport"];
}

/**
 * Chooses a subprotocol the way the reference relay does: the first entry of our
 * list that the client offered (server preference). No offer at all still
 * upgrades, with the legacy framing and in-band version negotiation (the
 * reference's fallback for an empty subprotocol). Offers that are all unknown are
 * refused: answering without a subprotocol would make a browser fail anyway.
 * `webtransport.<alpn>` offers are not accepted, as in the reference; clients that
 * send them (@moq/qmux) also offer `qmux-0X.<alpn>`.
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
    const qmux = QMUX_VERSIONS.find((v) => candidate === v || candidate.startsWith(`${v}.`)) ?? "qmux-00";
    const alpn = candidate === qmux ? undefined : candidate.slice(qmux.length + 1);
    return { ok: true, subprotocol: candidate, framing: qmux, moqAlpn: alpn };
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

/**
 * The TLS ALPNs for qmux over TLS, preference order: per moq ALPN, `qmux-02.<alpn>` and
 * `qmux-01.<alpn>` (the version pair, as in the WebSocket subprotocol), then the bare `<alpn>`,
 * which means qmux-00 (what peers that predate qmux-01 over TCP offer and accept).
 */
export function tlsAlpns(moqAlpns: readonly string[] = TCP_MOQ_ALPNS): string[] {
  return moqAlpns.flatMap((alpn) => [...QMUX_VERSIONS.filter((qmux) => qmux !== "qmux-00").map((qmux) => `${qmux}.${alpn}`), alpn]);
}

/** The qmux version and moq ALPN a TLS connection agreed by ALPN. */
export interface TlsAlpnChoice {
  /** The qmux version the ALPN selected. */
  readonly framing: QmuxVersion;
  /** The moq ALPN; undefined = none agreed (agree it in the qmux parameters or in-band). */
  readonly moqAlpn: string | undefined;
}

/**
 * Reads the ALPN a TLS handshake agreed (see {@link tlsAlpns}): `qmux-0X.<alpn>` names both
 * versions; a bare ALPN, or none (plain TCP, a TLS peer without ALPN), is qmux-00.
 */
export function negotiateTlsAlpn(alpn: string | false | null | undefined): TlsAlpnChoice {
  if (typeof alpn !== "string" || alpn === "") return { framing: "qmux-00", moqAlpn: undefined };
  const qmux = QMUX_VERSIONS.find((v) => alpn.startsWith(`${v}.`));
  return qmux === undefined ? { framing: "qmux-00", moqAlpn: alpn } : { framing: qmux, moqAlpn: alpn.slice(qmux.length + 1) };
}
