/**
 * The operators' HTTP endpoint: `/health`, `/metrics`, and extra routes (the admin API, the dashboard).
 * @module
 */
export {
  createHttpServer,
  type HealthStatus,
  type HttpReply,
  type HttpRequest,
  type HttpRoutes,
  type HttpServer,
  type HttpServerOptions,
} from "./health-server.js";
