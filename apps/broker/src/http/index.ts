/**
 * The operators' HTTP endpoint: `/health`, `/metrics`, and extra routes (the admin API, the dashboard).
 * @module
 */
export type { HttpReply, HttpRequest, HttpRoutes, HttpServer } from "@handoff/app-kit";
export { createHttpServer, type HealthStatus, type HttpServerOptions } from "./health-server.js";
