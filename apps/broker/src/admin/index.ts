/**
 * The broker's admin HTTP API (`/api/v1/...`) and dashboard (`/dashboard`), served on the
 * health/metrics port behind `admin.token`.
 * @module
 */
export type { AdminBroker } from "./actions.js";
export { API_PREFIX } from "./api.js";
export { DASHBOARD_PATH } from "./dashboard/assets.js";
export { createAdminRoutes, DISABLED_MESSAGE, type AdminOptions } from "./routes.js";
export { statsJson, type StatsJson, type StatsSources } from "./stats.js";
export { MIN_TOKEN_LENGTH } from "./token.js";
