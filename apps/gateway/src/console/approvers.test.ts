import { describe, expect, test } from "bun:test";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { consoleApproverCheck } from "./approvers.ts";
import { consoleLoginLink } from "./login-link.ts";

describe("who may use the console", () => {
  test("http.approvers when set, else discord.approvers, else discord.allowedUsers; nobody when none is set", () => {
    expect(
      consoleApproverCheck({ http: { port: 1, approvers: ["ops"] }, surfaces: { discord: { approvers: ["1"] } } })(
        "ops",
      ),
    ).toBe(true);
    expect(
      consoleApproverCheck({ http: { port: 1, approvers: ["ops"] }, surfaces: { discord: { approvers: ["1"] } } })("1"),
    ).toBe(false);
    const discord = consoleApproverCheck({
      http: { port: 1 },
      surfaces: { discord: { approvers: ["123"], allowedUsers: ["456"] } },
    });
    expect(discord("123")).toBe(true);
    expect(discord("discord:123")).toBe(true);
    expect(discord("456")).toBe(false);
    expect(consoleApproverCheck({ http: { port: 1 }, surfaces: { discord: { allowedUsers: ["456"] } } })("456")).toBe(
      true,
    );
    expect(consoleApproverCheck({ http: { port: 1 } })("456")).toBe(false);
    expect(consoleApproverCheck({ http: { port: 1 } })("")).toBe(false);
  });

  test("a login link is only made for an approver, with the console on; it points at publicUrl", () => {
    const dataDir = makeTempDir("oa-console-login-");
    expect(() => consoleLoginLink({ dataDir }, "1")).toThrow(/console is off: set http.port/);
    expect(() => consoleLoginLink({ dataDir, http: { port: 8787 } }, "1")).toThrow(/"1" is not an approver/);
    const link = consoleLoginLink({ dataDir, http: { port: 8787, approvers: ["1"] } }, "1");
    expect(link).toMatch(/^http:\/\/127\.0\.0\.1:8787\/console\/login\?t=[\w-]+\.[\w-]{43}$/);
    const proxied = consoleLoginLink(
      { dataDir, http: { port: 8787, approvers: ["1"], publicUrl: "https://oa.example.com/" } },
      "1",
    );
    expect(proxied.startsWith("https://oa.example.com/console/login?t=")).toBe(true);
  });
});
