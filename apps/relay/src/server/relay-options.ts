// What a relay is started with: its options and the drain request, apart from the code that runs it.
import type { RelayAuthHook } from "../auth/hook.js";
import type { AuthConfig } from "../auth/jwt.js";
import type { ClusterOptions } from "../cluster/cluster.js";
import type { DemoPage } from "../demo/index.js";
import type { RelayLimits } from "./limits.js";

/** What the relay listens on and how it behaves. */
export interface RelayOptions {
  /** Interface of the WebSocket + HTTP port. */
  readonly host: string;
  /** Interface of the internal ports (raw TCP, metrics); default loopback ({@link DEFAULT_INTERNAL_HOST}). */
  readonly internalHost?: string;
  /** WebSocket + HTTP port (0 = any free one). */
  readonly port: number;
  /** qmux over raw TCP for relay links; undefined = not listening. */
  readonly tcpPort: number | undefined;
  /** Prometheus `/metrics` and `POST /goaway`; undefined = not listening (`/metrics` is then on `port`, behind the admin token). */
  readonly metricsPort: number | undefined;
  readonly auth: AuthConfig;
  /** A service's own authentication of WebSocket sessions, asked before the token. */
  readonly authHook?: RelayAuthHook;
  /**
   * Grant of raw-TCP sessions, which carry no token: only the public paths (`public`, as a
   * WebSocket without `?jwt=`), or everything (`trusted`, for a private relay-link interface).
   */
  readonly tcpAccess: "trusted" | "public";
  /** Bearer token `POST /goaway` (and `/metrics` on `port`, without a metrics port) needs; undefined: they are refused. */
  readonly adminToken?: string;
  /** Origins whose pages may read `/announced` and `/fetch` (CORS; `*` for any); none by default. */
  readonly corsOrigins?: readonly string[];
  /** The drain redirect: a target `POST /goaway` may name besides the peers. */
  readonly redirect?: string;
  /** After a session or the relay closes, how long a socket may take to close before it is destroyed (ms). */
  readonly closeGraceMs?: number;
  /** Per-session and process limits; unset ones take their defaults. */
  readonly limits: Partial<RelayLimits>;
  /** This relay's hop id (random below 2^53 when undefined). */
  readonly hopId?: number;
  /** Peers to link to (none by default). */
  readonly cluster?: ClusterOptions;
  /** Export the process's own metrics (CPU, memory, event-loop delay) too: for the one relay of a process. */
  readonly processMetrics?: boolean;
  /** How long a track nobody reads keeps its upstream copy (ms, default {@link DEFAULT_TRACK_LINGER_MS}). */
  readonly trackLingerMs?: number;
  /**
   * TLS for both listeners: HTTPS/WSS on `port`, qmux over TLS on `tcpPort` (the moq version
   * then comes from the TLS ALPN). Undefined: plain HTTP/WS and TCP.
   */
  readonly tls?: TlsOptions;
  /** How long a plain-TCP connection may take to show its qmux version in its first bytes (ms, default 10 s). */
  readonly tcpSniffTimeoutMs?: number;
  /** The demo page, served at `/demo` on the WebSocket + HTTP port; undefined: off. */
  readonly demo?: DemoPage;
}

/** Certificate and key (PEM) the relay serves with. */
export interface TlsOptions {
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
}

/** Where the internal ports bind unless told otherwise. */
export const DEFAULT_INTERNAL_HOST = "127.0.0.1";

/** Default linger of an unread track: long enough for a sibling's resubscription after a handover. */
export const DEFAULT_TRACK_LINGER_MS = 5000;

/** How to drain: where to send the peers, and for how long to keep serving them. */
export interface DrainOptions {
  /** The GOAWAY URI: a sibling (`tcp://…`, `ws://…`), or empty for "reconnect to the same endpoint". */
  readonly uri: string;
  /** How long to keep serving before closing what is left (0: close at once, no GOAWAY). */
  readonly timeoutMs: number;
  /** Stop accepting new sessions too (shutdown), instead of just moving the current ones. */
  readonly stopAccepting: boolean;
}
