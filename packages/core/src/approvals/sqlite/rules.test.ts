import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit";
import { openDatabase } from "../../db/open.ts";
import { createApprovalRuleStore } from "./rules.ts";

describe("approve-always rules", () => {
  test("add, match by scope, expiry and revoke; rules persist across reopen", async () => {
    const path = join(makeTempDir("oa-rules-"), "gateway.sqlite");
    const db = openDatabase(path);
    let now = 5_000;
    const rules = createApprovalRuleStore(db, { now: () => now });
    const session = await rules.add({
      toolPath: "calendar.create",
      scope: "session",
      sessionId: "s1",
      createdBy: "alice",
      expiresAt: 10_000,
    });
    const global = await rules.add({ toolPath: "weather.*", scope: "global", createdBy: "bob" });
    expect(session).toEqual({
      id: "ar_1",
      toolPath: "calendar.create",
      scope: "session",
      sessionId: "s1",
      createdBy: "alice",
      createdAt: 5_000,
      expiresAt: 10_000,
    });
    expect(global.id).toBe("ar_2");

    expect((await rules.match("calendar.create", "s1", 9_999))?.id).toBe("ar_1");
    expect(await rules.match("calendar.create", "s2", 9_999)).toBeUndefined();
    expect(await rules.match("calendar.create", undefined, 9_999)).toBeUndefined();
    expect(await rules.match("calendar.create", "s1", 10_000)).toBeUndefined(); // expired
    expect((await rules.match("weather.get", undefined, 10 ** 12))?.id).toBe("ar_2");
    expect(await rules.match("weather.hourly.get", "s1", 0)).toBeUndefined(); // `*` is one segment

    now = 6_000;
    expect(await rules.revoke("ar_2", "carol")).toBe(true);
    expect(await rules.revoke("ar_2", "carol")).toBe(false);
    expect(await rules.revoke("ar_99", "carol")).toBe(false);
    expect(await rules.revoke("bogus", "carol")).toBe(false);
    expect(await rules.match("weather.get", "s1", 6_001)).toBeUndefined();
    db.close();

    const again = createApprovalRuleStore(openDatabase(path));
    expect((await again.list()).map((r) => [r.id, r.revokedBy ?? null])).toEqual([
      ["ar_1", null],
      ["ar_2", "carol"],
    ]);
    expect((await again.list({ activeAt: 7_000 })).map((r) => r.id)).toEqual(["ar_1"]);
    expect(await again.list({ activeAt: 10_000 })).toEqual([]);
  });

  test("the newest matching rule wins", async () => {
    const rules = createApprovalRuleStore(openDatabase(":memory:"));
    await rules.add({ toolPath: "mail.**", scope: "global", createdBy: "a" });
    await rules.add({ toolPath: "mail.send", scope: "session", sessionId: "s", createdBy: "b" });
    expect((await rules.match("mail.send", "s", Date.now()))?.createdBy).toBe("b");
    expect((await rules.match("mail.send", "t", Date.now()))?.createdBy).toBe("a");
  });

  test("bad rules are rejected with a message naming the problem", async () => {
    const rules = createApprovalRuleStore(openDatabase(":memory:"));
    await expect(rules.add({ toolPath: "x.y", scope: "session", createdBy: "a" })).rejects.toThrow(
      /session-scoped rule needs the sessionId/,
    );
    await expect(rules.add({ toolPath: "", scope: "global", createdBy: "a" })).rejects.toThrow(
      /toolPath must be a non-empty/,
    );
    await expect(rules.add({ toolPath: "x.y", scope: "forever" as "global", createdBy: "a" })).rejects.toThrow(
      /scope must be/,
    );
    await expect(rules.add({ toolPath: "x.y", scope: "global", createdBy: "" })).rejects.toThrow(/createdBy/);
  });
});
