// The OpenAPI description (apps/broker/openapi.yaml) must say what the routes do: same paths,
// same methods, every reference resolving.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { API_PREFIX, ROUTES } from "./api.js";

interface Spec {
  readonly openapi: string;
  readonly paths: Record<string, Record<string, unknown>>;
}

const text = readFileSync(new URL("../../openapi.yaml", import.meta.url), "utf8");
const spec = parse(text) as Spec;
const METHODS = new Set(["get", "post", "delete", "put", "patch"]);

describe("openapi.yaml", () => {
  it("is OpenAPI 3.1", () => {
    expect(spec.openapi).toBe("3.1.0");
  });

  it("describes exactly the routes the API serves, with their methods", () => {
    const documented = Object.entries(spec.paths).flatMap(([path, item]) => Object.keys(item).filter((key) => METHODS.has(key)).map((method) => `${method.toUpperCase()} ${path}`));
    const served = ROUTES.flatMap((route) => {
      const path = `${API_PREFIX}/${route.pattern.map((part) => (part.startsWith(":") ? `{${part.slice(1)}}` : part)).join("/")}`;
      return Object.keys(route.methods).map((method) => `${method} ${path}`);
    });
    expect(documented.sort()).toEqual(served.sort());
  });

  it("has every $ref resolve", () => {
    const refs = [...text.matchAll(/\$ref: "#\/([^"]+)"/g)].map((m) => m[1] ?? "");
    const missing = refs.filter((ref) => {
      let node: unknown = spec;
      for (const key of ref.split("/")) node = typeof node === "object" && node !== null ? (node as Record<string, unknown>)[key] : undefined;
      return node === undefined;
    });
    expect([refs.length > 10, missing]).toEqual([true, []]);
  });
});
