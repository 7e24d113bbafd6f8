/**
 * The admin API under `/api/v1/`: a table of routes, each a path pattern and a handler per
 * method. The caller (routes.ts) has already checked the token.
 * @module
 */
import { isValidPlainTopicFilter } from "@handoff/mqtt-router/codec";
import type { HttpReply } from "../http/index.js";
import { clearRetained, deleteSession, kickClient, type ActionContext } from "./actions.js";
import { decodeSegment, paging } from "./query.js";
import { AdminError, json } from "./reply.js";
import type { StatsJson } from "./stats.js";
import { clientJson, retainedJson, sessionJson, subscriptionJson } from "./views.js";

/** Where every API path starts. */
export const API_PREFIX = "/api/v1";

/** One request as a handler sees it. */
export interface ApiRequest extends ActionContext {
  /** The `:name` segments of the route, percent-decoded. */
  readonly params: Readonly<Record<string, string>>;
  readonly query: URLSearchParams;
  readonly stats: () => StatsJson;
}

type Handler = (request: ApiRequest) => unknown;
type Method = "GET" | "POST" | "DELETE";

interface Route {
  /** Segments after the prefix; `:name` takes one segment. */
  readonly pattern: readonly string[];
  readonly methods: Partial<Record<Method, Handler>>;
}

const param = (request: ApiRequest, name: string): string => request.params[name] ?? "";
const quoted = (text: string): string => JSON.stringify(text);

function sessionOf(request: ApiRequest) {
  const clientId = param(request, "clientId");
  const view = request.broker.router.sessionView(clientId);
  if (view === undefined) throw new AdminError(404, `no session for client id ${quoted(clientId)}`);
  return view;
}

function listClients(request: ApiRequest) {
  const { limit, after } = paging(request.query);
  const { router } = request.broker;
  const sorted = request.broker
    .clients()
    .filter((info) => after === undefined || info.clientId > after)
    .sort((a, b) => (a.clientId < b.clientId ? -1 : a.clientId > b.clientId ? 1 : 0));
  const page = sorted.slice(0, limit);
  const last = page.at(-1);
  return {
    clients: page.map((info) => clientJson(info, router.sessionView(info.clientId))),
    next: sorted.length > page.length && last !== undefined ? last.clientId : null,
  };
}

function getClient(request: ApiRequest) {
  const clientId = param(request, "clientId");
  const info = request.broker.client(clientId);
  if (info === undefined) throw new AdminError(404, `no connected client with id ${quoted(clientId)}`);
  return clientJson(info, request.broker.router.sessionView(clientId));
}

function listSessions(request: ApiRequest) {
  const { sessions, next } = request.broker.router.sessionViews(paging(request.query));
  return { sessions: sessions.map(sessionJson), next: next ?? null };
}

function listSubscriptions(request: ApiRequest) {
  const clientId = param(request, "clientId");
  const views = request.broker.router.subscriptionViews(clientId);
  if (views === undefined) throw new AdminError(404, `no session for client id ${quoted(clientId)}`);
  return { clientId, subscriptions: views.map(subscriptionJson) };
}

function listRetained(request: ApiRequest) {
  const filter = request.query.get("filter") ?? "#";
  if (!isValidPlainTopicFilter(filter)) {
    throw new AdminError(400, `not a topic filter (empty, or "+"/"#" not a whole level, or "#" not last): ${quoted(filter)}`);
  }
  const { messages, next } = request.broker.router.retainedPage(filter, paging(request.query));
  return { filter, messages: messages.map(retainedJson), next: next ?? null };
}

function retainedTopic(request: ApiRequest): string {
  const topic = request.query.get("topic");
  if (topic === null) throw new AdminError(400, "the topic query parameter is required: DELETE /api/v1/retained?topic=<topic>");
  return topic;
}

/** Every route of the API. */
export const ROUTES: readonly Route[] = [
  { pattern: ["stats"], methods: { GET: (r) => r.stats() } },
  { pattern: ["clients"], methods: { GET: listClients } },
  { pattern: ["clients", ":clientId"], methods: { GET: getClient } },
  { pattern: ["clients", ":clientId", "kick"], methods: { POST: (r) => kickClient(r, param(r, "clientId")) } },
  { pattern: ["sessions"], methods: { GET: listSessions } },
  { pattern: ["sessions", ":clientId"], methods: { GET: (r) => sessionJson(sessionOf(r)), DELETE: (r) => deleteSession(r, param(r, "clientId")) } },
  { pattern: ["sessions", ":clientId", "subscriptions"], methods: { GET: listSubscriptions } },
  { pattern: ["retained"], methods: { GET: listRetained, DELETE: (r) => clearRetained(r, retainedTopic(r)) } },
];

function match(route: Route, segments: readonly string[]): Record<string, string> | undefined {
  if (route.pattern.length !== segments.length) return undefined;
  const fits = route.pattern.every((part, i) => (part.startsWith(":") ? segments[i] !== "" : part === segments[i]));
  if (!fits) return undefined;
  // Decoded only once the route fits: a malformed escape is the 400 of the endpoint it was meant for.
  const params: Record<string, string> = {};
  for (const [i, part] of route.pattern.entries()) {
    if (part.startsWith(":")) params[part.slice(1)] = decodeSegment(segments[i] ?? "", part.slice(1));
  }
  return params;
}

const allowOf = (route: Route): string => {
  const methods = Object.keys(route.methods);
  return (methods.includes("GET") ? [...methods, "HEAD"] : methods).join(", ");
};

/**
 * Answers one API request: `path` is what follows {@link API_PREFIX} (e.g. `/clients/a%2Fb`).
 * Throws {@link AdminError} for what is not found (404), not allowed (405) or malformed (400).
 */
export async function answerApi(
  method: string,
  path: string,
  request: Omit<ApiRequest, "params">,
): Promise<HttpReply> {
  const segments = path.split("/").slice(1);
  for (const route of ROUTES) {
    const params = match(route, segments);
    if (params === undefined) continue;
    const verb = method === "HEAD" ? "GET" : method;
    const handler = verb === "GET" || verb === "POST" || verb === "DELETE" ? route.methods[verb] : undefined;
    if (handler === undefined) throw new AdminError(405, `${method} is not allowed here`, { allow: allowOf(route) });
    return json(200, await handler({ ...request, params }));
  }
  throw new AdminError(404, `no such endpoint: ${API_PREFIX}${path}`);
}
