import { LITE_01, LITE_02, type LiteVersion, selectVersion, versionFromAlpn } from "@handoff/moq-resume/lite";

/** How a session's moq-lite version is decided. */
export type VersionMode =
  /** Fixed by the subprotocol / ALPN (lite-03, lite-04 and lite-05). */
  | { readonly kind: "fixed"; readonly version: LiteVersion }
  /** Negotiated in-band by the 0x20/0x21 SETUP on the first bidi stream (lite-01/02). */
  | { readonly kind: "setup" }
  /** Chosen by the qmux application_protocols parameter once the transport is up (raw TCP). */
  | { readonly kind: "transport" };

/** Versions the relay accepts through the in-band SETUP, preference order. */
export const SETUP_VERSIONS: readonly LiteVersion[] = [LITE_02, LITE_01];

/**
 * The version mode for a moq ALPN taken from the WebSocket subprotocol or the qmux
 * application_protocols parameter; undefined (bare `qmux-00`, `webtransport`, no offer) means
 * the in-band SETUP. Returns undefined for an ALPN the relay does not speak.
 */
export function versionMode(alpn: string | undefined): VersionMode | undefined {
  if (alpn === undefined) return { kind: "setup" };
  const v = versionFromAlpn(alpn);
  if (v === undefined) return undefined;
  if (v === "setup") return { kind: "setup" };
  if (v === LITE_01 || v === LITE_02) return { kind: "setup" };
  return { kind: "fixed", version: v };
}

/** The version the relay picks from a CLIENT_SETUP's list (client preference), if any. */
export function pickSetupVersion(offered: readonly number[]): LiteVersion | undefined {
  const chosen = selectVersion(offered, SETUP_VERSIONS);
  return chosen === LITE_01 || chosen === LITE_02 ? chosen : undefined;
}
