import { describe, expect, test } from "bun:test";
import { boundaryViolations, corePublicEntries, receiptSqlReaders, repositorySources } from "./boundaries.ts";

describe("package boundaries", () => {
  test("the repository keeps them", async () => {
    expect(boundaryViolations(await repositorySources(), await corePublicEntries())).toEqual([]);
  });

  test("an app importing a core path that is not a public entry is caught", async () => {
    const entries = await corePublicEntries();
    const bad = boundaryViolations(
      [
        { path: "apps/gateway/src/x.ts", text: 'import { a } from "@openassistant/core/receipts/sqlite/store.ts";' },
        { path: "apps/gateway/src/y.ts", text: 'import { b } from "../../../packages/core/src/text/cut.ts";' },
        { path: "apps/gateway/src/z.ts", text: 'import { c } from "@openassistant/testkit";' },
        { path: "packages/core/src/w.ts", text: 'import { d } from "../test/helper.ts";' },
        { path: "apps/gateway/src/ok.ts", text: 'import { e } from "@openassistant/core/receipts";' },
        { path: "apps/gateway/src/ok.test.ts", text: 'import { f } from "@openassistant/testkit";' },
      ],
      entries,
    );
    expect(bad).toHaveLength(4);
    expect(bad[0]).toContain('apps/gateway/src/x.ts: imports "@openassistant/core/receipts/sqlite/store.ts"');
    expect(bad[1]).toContain("reaches into packages/core by relative path");
    expect(bad[2]).toContain("apps/gateway/src/z.ts");
    expect(bad[3]).toContain("packages/core/src/w.ts");
  });

  test("production code reads receipts through the store, or syncs it first (listed readers only)", async () => {
    expect(receiptSqlReaders(await repositorySources())).toEqual([]);
    const bad = receiptSqlReaders([
      { path: "apps/gateway/src/x.ts", text: 'db.query("SELECT run_id FROM receipts WHERE seq > ?")' },
      {
        path: "apps/gateway/src/y.ts",
        text: "const sql = `SELECT * FROM sessions s JOIN receipts r ON r.session_id = s.id`;",
      },
      { path: "apps/gateway/src/x.test.ts", text: 'raw.query("SELECT * FROM receipts")' },
      { path: "packages/core/src/receipts/verify.ts", text: 'db.query("SELECT * FROM receipts")' },
      { path: "apps/gateway/src/z.ts", text: "// receipts from the store" },
    ]);
    expect(bad.map((l) => l.split(":")[0])).toEqual(["apps/gateway/src/x.ts", "apps/gateway/src/y.ts"]);
  });
});
