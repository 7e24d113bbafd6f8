import { entryPointTests } from "@handoff/app-kit/testing";
import { describe, expect, it } from "vitest";

describe("handoff-relay process", () => {
  entryPointTests({ it, expect }, { appDir: new URL("../", import.meta.url).pathname, args: ["--host", "127.0.0.1", "--port", "0"], listening: "relay listening", portField: "http" });
});
