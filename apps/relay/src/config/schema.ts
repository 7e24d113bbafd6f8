/**
 * The relay's config file, validated with zod: every key optional (flags, the environment and the
 * defaults fill in the rest), unknown keys refused so a typo cannot be silently ignored. The same
 * schema checks the settings after the environment and flags are merged in.
 * @module
 */
import { LOG_LEVELS } from "@handoff/app-kit";
import { z } from "zod";

/** `*`, or exactly what a browser sends as `Origin` (`https://app.example:8443`, nothing after the port). */
function isOrigin(text: string): boolean {
  if (text === "*") return true;
  try {
    return new URL(text).origin === text;
  } catch (err) {
    if (err instanceof TypeError) return false;
    throw err;
  }
}

const port = z.number().int().min(0).max(65535);

/** The config file's schema (YAML). Every field is optional; flags and env override it. */
export const fileSchema = z
  .object({
    host: z.string().min(1),
    internalHost: z.string().min(1),
    port,
    tcpPort: port,
    metricsPort: port,
    logLevel: z.enum(LOG_LEVELS),
    logPretty: z.boolean(),
    demo: z.boolean(),
    hopId: z.number().int().min(1).max(Number.MAX_SAFE_INTEGER),
    tcpAccess: z.enum(["trusted", "public"]),
    trackLingerMs: z.number().int().min(0),
    closeGraceMs: z.number().int().min(0),
    /** Origins (`https://app.example`, or `*`) whose pages may read `/announced` and `/fetch` (CORS). */
    corsOrigins: z.array(z.string().refine(isOrigin, "must be * or an origin such as https://app.example (scheme, host and port; no path)")),
    tls: z
      .object({
        cert: z.string().min(1),
        key: z.string().min(1),
        ca: z.string().min(1),
      })
      .partial()
      .strict(),
    auth: z
      .object({
        key: z.string().min(16),
        publicSubscribe: z.array(z.string()),
        publicPublish: z.array(z.string()),
        audience: z.union([z.string().min(1), z.array(z.string().min(1))]),
        issuer: z.union([z.string().min(1), z.array(z.string().min(1))]),
        requireExp: z.boolean(),
      })
      .partial()
      .strict(),
    admin: z.object({ token: z.string().min(16) }).partial().strict(),
    limits: z
      .object({
        maxSubscriptions: z.number().int().min(1),
        maxAnnounceRequests: z.number().int().min(1),
        maxAnnounced: z.number().int().min(1),
        maxUpstream: z.number().int().min(1),
        maxOutboundGroups: z.number().int().min(1),
        trackCacheGroups: z.number().int().min(1),
        maxGroupBytes: z.number().int().min(1),
        maxControlBytes: z.number().int().min(1),
        maxSessions: z.number().int().min(1),
        maxTrackBytes: z.number().int().min(1),
        maxRelayBytes: z.number().int().min(1),
      })
      .partial()
      .strict(),
    cluster: z
      .object({
        peers: z.array(z.string()),
        redirect: z.string(),
        drainTimeoutMs: z.number().int().min(0),
        handoverTimeoutMs: z.number().int().min(0),
        dialTimeoutMs: z.number().int().min(1),
      })
      .partial()
      .strict(),
  })
  .partial()
  .strict();

/** What the config file may say. */
export type FileConfig = z.infer<typeof fileSchema>;

