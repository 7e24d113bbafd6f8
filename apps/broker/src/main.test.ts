import { entryPointTests } from "@handoff/app-kit/testing";
import { describe, expect, it } from "vitest";

describe("handoff-broker process", () => {
  entryPointTests(
    { it, expect },
    { appDir: new URL("../", import.meta.url).pathname, args: ["--host", "127.0.0.1", "--port", "0", "--ws-port", "0", "--http-port", "0", "--storage", "memory"], listening: "broker listening", portField: "mqtt" },
  );
});
