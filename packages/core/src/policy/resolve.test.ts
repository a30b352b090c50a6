import { describe, expect, test } from "bun:test";
import { resolvePolicy } from "./resolve.ts";
import type { PolicyRule } from "./types.ts";

describe("resolvePolicy", () => {
  test("without rules the tool's own mode applies", () => {
    expect(resolvePolicy("weather.get", "auto", [])).toEqual({ mode: "auto" });
    expect(resolvePolicy("calendar.create", "required", [])).toEqual({ mode: "required" });
  });

  test("a tool that must always ask: asked even when its own mode is auto; an 'auto' rule is skipped, a 'deny' rule still denies", () => {
    expect(resolvePolicy("workspace.write", "auto", [], true)).toEqual({ mode: "required" });
    const rules: PolicyRule[] = [
      { match: "workspace.*", mode: "auto" },
      { match: "workspace.delete", mode: "deny", reason: "never" },
    ];
    expect(resolvePolicy("workspace.write", "auto", rules, true)).toEqual({ mode: "required" });
    expect(resolvePolicy("workspace.delete", "auto", rules, true)).toEqual({ mode: "deny", rule: rules[1] });
  });

  test("the first matching rule wins, in order", () => {
    const rules: PolicyRule[] = [
      { match: "calendar.delete", mode: "deny", reason: "no deletes" },
      { match: "calendar.*", mode: "auto" },
      { match: "**", mode: "required" },
    ];
    expect(resolvePolicy("calendar.delete", "required", rules)).toEqual({ mode: "deny", rule: rules[0] });
    expect(resolvePolicy("calendar.create", "required", rules)).toEqual({ mode: "auto", rule: rules[1] });
    expect(resolvePolicy("weather.get", "auto", rules)).toEqual({ mode: "required", rule: rules[2] });
  });

  test("`*` stays within a segment, `**` crosses segments", () => {
    const one: PolicyRule[] = [{ match: "calendar.*", mode: "deny" }];
    expect(resolvePolicy("calendar.events.create", "auto", one).mode).toBe("auto");
    const deep: PolicyRule[] = [{ match: "calendar.**", mode: "deny" }];
    expect(resolvePolicy("calendar.events.create", "auto", deep).mode).toBe("deny");
    expect(resolvePolicy("calendarx.create", "auto", deep).mode).toBe("auto");
  });

  test("a rule can relax a required tool to auto or tighten an auto tool", () => {
    expect(resolvePolicy("github.issues.list", "required", [{ match: "github.issues.list", mode: "auto" }]).mode).toBe(
      "auto",
    );
    expect(resolvePolicy("fs.read", "auto", [{ match: "fs.*", mode: "required" }]).mode).toBe("required");
  });
});
