import { describe, expect, it } from "vitest";
import { bearerMatches } from "./bearer.js";

const TOKEN = "0123456789abcdef-secret";

describe("bearerMatches", () => {
  it("accepts the exact token after Bearer, in any case of the scheme", () => {
    expect([bearerMatches(`Bearer ${TOKEN}`, TOKEN), bearerMatches(`bearer ${TOKEN}`, TOKEN)]).toEqual([true, true]);
  });

  it("refuses a missing header, another scheme, a wrong token, a prefix of it and a longer one", () => {
    const refused = [undefined, `Basic ${TOKEN}`, "Bearer wrong-token-000000000", `Bearer ${TOKEN.slice(0, -1)}`, `Bearer ${TOKEN}x`, TOKEN, "Bearer ", `Bearer ${TOKEN} extra`];
    expect(refused.map((header) => bearerMatches(header, TOKEN))).toEqual(refused.map(() => false));
  });
});
