import { describe, expect, test } from "bun:test";
import { createSecretRegistry } from "./secret-registry.ts";

describe("the secret registry", () => {
  test("a value registered after the redactor was handed out is redacted by it from then on", () => {
    const secrets = createSecretRegistry();
    const redact = secrets.redact;
    expect(redact("token rt_Zq7Lp9")).toBe("token rt_Zq7Lp9");
    secrets.add("mcp-oauth", ["rt_Zq7Lp9", undefined, ""]);
    expect(redact("token rt_Zq7Lp9")).toBe("token [redacted]");
    expect([...secrets.sources()]).toEqual(["mcp-oauth"]);
  });

  test("a source that registered nothing is not listed; one that repeats a known value is", () => {
    const secrets = createSecretRegistry();
    secrets.add("http-token", [undefined]);
    secrets.add("config-var", ["shared-value"]);
    secrets.add("plugin-secret", ["shared-value"]);
    expect([...secrets.sources()].sort()).toEqual(["config-var", "plugin-secret"]);
  });
});
