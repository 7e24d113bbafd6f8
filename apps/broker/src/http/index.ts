/**
 * The operators' HTTP endpoint: `/health` and `/metrics`.
 * @module
 */
export { createHttpServer, type HealthStatus, type HttpServer, type HttpServerOptions } from "./health-server.js";
