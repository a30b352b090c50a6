import { describe, expect, test } from "bun:test";
import {
  boundaryViolations,
  coreNamesWhatIsNotItsOwn,
  corePublicEntries,
  folderArrowViolations,
  isProductionSource,
  receiptSqlReaders,
  repositorySources,
  sqlOutsideStores,
} from "./boundaries.ts";
import { type Entry, entryDocs, repositoryEntries, unusedEntryExports } from "./entry-exports.ts";

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

  test("tool sources never import the loader's folder (plugins/); the loader imports them", async () => {
    expect(folderArrowViolations(await repositorySources())).toEqual([]);
    const bad = folderArrowViolations([
      { path: "packages/core/src/sources/x/kind.ts", text: 'import type { LoadEntry } from "../../plugins/types.ts";' },
      { path: "packages/core/src/sources/y.ts", text: 'import { loadTools } from "../plugins/index.ts";' },
      { path: "packages/core/src/sources/y.test.ts", text: 'import { loadTools } from "../plugins/index.ts";' },
      { path: "packages/core/src/plugins/z.ts", text: 'import { SOURCE_KINDS } from "../sources/kinds.ts";' },
      { path: "packages/core/src/sources/ok.ts", text: 'import { cut } from "../text/cut.ts";' },
    ]);
    expect(bad.map((l) => l.split(":")[0])).toEqual([
      "packages/core/src/sources/x/kind.ts",
      "packages/core/src/sources/y.ts",
    ]);
  });

  test("the config and the loader reach the source kinds through their registry only", () => {
    const bad = folderArrowViolations([
      { path: "packages/core/src/config/schema.ts", text: 'import type { LoadEntry } from "../plugins/types.ts";' },
      { path: "packages/core/src/plugins/load-tools.ts", text: 'import { mcpKind } from "../sources/mcp/kind.ts";' },
      { path: "packages/core/src/config/x.ts", text: 'import("../sources/workspace-files/kind.ts")' },
      { path: "packages/core/src/sources/kinds.ts", text: 'import { mcpKind } from "./mcp/kind.ts";' },
      { path: "packages/core/src/plugins/ok.ts", text: 'import { SOURCE_KINDS } from "../sources/kinds.ts";' },
      { path: "packages/core/src/plugins/ok2.ts", text: 'import type { SourceKind } from "../sources/kind.ts";' },
    ]);
    expect(bad.map((l) => l.split(":")[0])).toEqual([
      "packages/core/src/config/schema.ts",
      "packages/core/src/plugins/load-tools.ts",
      "packages/core/src/config/x.ts",
    ]);
  });

  test("the console, the CLI and the gateway reach a surface through the registry, never its folder", () => {
    const bad = folderArrowViolations([
      {
        path: "apps/gateway/src/console/approvers.ts",
        text: 'import { isApprover } from "../surfaces/discord/authorize.ts";',
      },
      {
        path: "apps/gateway/src/cli/serve.ts",
        text: 'const { startDiscordSurface } = await import("../surfaces/discord/index.ts");',
      },
      {
        path: "apps/gateway/src/gateway.ts",
        text: 'import type { DiscordSurfaceConfig } from "./surfaces/discord/surface-config.ts";',
      },
      { path: "apps/gateway/src/console/ok.ts", text: 'import { SURFACES } from "../surfaces/registry.ts";' },
      { path: "apps/gateway/src/surfaces/registry.ts", text: 'import { discordSurface } from "./discord/surface.ts";' },
    ]);
    expect(bad.map((l) => l.split(":")[0])).toEqual([
      "apps/gateway/src/console/approvers.ts",
      "apps/gateway/src/cli/serve.ts",
      "apps/gateway/src/gateway.ts",
    ]);
  });

  test("no production code outside the store folders and db/ touches SQL", async () => {
    expect(sqlOutsideStores(await repositorySources())).toEqual([]);
    const bad = sqlOutsideStores([
      { path: "apps/gateway/src/console/runs.ts", text: 'import type { Database } from "bun:sqlite";' },
      { path: "apps/gateway/src/a.ts", text: 'const rows = db.query("SELECT 1").all();' },
      { path: "apps/gateway/src/b.ts", text: "const sql = `SELECT run_id FROM receipts WHERE seq > ?`;" },
      { path: "packages/core/src/c.ts", text: 'run("INSERT INTO notes (x) VALUES (?)")' },
      { path: "apps/gateway/src/d.ts", text: "const q = `UPDATE sessions SET settings = ?`;" },
      { path: "apps/gateway/src/sessions/sqlite/store.ts", text: 'db.query("SELECT * FROM sessions")' },
      { path: "apps/gateway/src/sessions/postgres/store.ts", text: "await sql.unsafe(`SELECT id FROM sessions`)" },
      { path: "packages/core/src/receipts/postgres/chain.ts", text: 'import { SQL } from "bun";' },
      { path: "apps/gateway/src/f.ts", text: 'import { SQL } from "bun";' },
      { path: "apps/gateway/src/g.ts", text: 'import pg from "pg";' },
      {
        path: "apps/gateway/src/h.ts",
        text: "const rows = await sql.unsafe(`SELECT * FROM approvals WHERE id = $1`);",
      },
      { path: "packages/core/src/db/probe.ts", text: 'db.exec("BEGIN IMMEDIATE")' },
      { path: "apps/gateway/src/x.test.ts", text: 'raw.query("SELECT * FROM receipts")' },
      { path: "apps/gateway/test/contracts/session-store.ts", text: 'import { Database } from "bun:sqlite";' },
      { path: "apps/gateway/src/e.ts", text: "const r = await receipts.query({ runId });" },
      { path: "integrations/posthog/src/index.ts", text: '"SELECT event, count() FROM events GROUP BY event"' },
    ]);
    expect(bad.map((l) => l.split(":")[0])).toEqual([
      "apps/gateway/src/console/runs.ts",
      "apps/gateway/src/a.ts",
      "apps/gateway/src/b.ts",
      "packages/core/src/c.ts",
      "apps/gateway/src/d.ts",
      "apps/gateway/src/f.ts",
      "apps/gateway/src/g.ts",
      "apps/gateway/src/h.ts",
    ]);
  });

  test("every name an entry exports is imported outside its package (production code, or tests for /testing)", async () => {
    const files = await repositorySources();
    expect(unusedEntryExports(files, await repositoryEntries(), isProductionSource, await entryDocs())).toEqual([]);
  });

  test("production source importing a /testing entry is caught", async () => {
    const bad = boundaryViolations(
      [
        { path: "apps/gateway/src/x.ts", text: 'import { configSchema } from "@openassistant/core/testing";' },
        { path: "apps/gateway/src/x.test.ts", text: 'import { configSchema } from "@openassistant/core/testing";' },
      ],
      await corePublicEntries(),
    );
    expect(bad).toEqual([
      'apps/gateway/src/x.ts: imports "@openassistant/core/testing" — production source must not import test support',
    ]);
  });

  test("unused entry names are found through export *, export type, re-exports and type-only imports", () => {
    const core = (capability: string): Entry => ({
      pkg: "packages/core",
      specifier: `@openassistant/core/${capability}`,
      file: `packages/core/src/${capability}/index.ts`,
    });
    const files = [
      {
        path: "packages/core/src/a/index.ts",
        text: [
          'export * from "./types.ts";',
          'export { run, type RunOptions as Options } from "./run.ts";',
          'export type { Hidden } from "./run.ts";',
          "export const LOCAL = 1;",
          "export function localFn() {}",
        ].join("\n"),
      },
      {
        path: "packages/core/src/a/types.ts",
        text: "export interface Shape {}\nexport type Kind = 1;\nexport enum Mode { A }\nexport class Err {}",
      },
      { path: "packages/core/src/a/run.ts", text: "export function run() {}\nexport interface RunOptions {}" },
      { path: "packages/core/src/testing/index.ts", text: 'export { helper, spare } from "../a/run.ts";' },
      // Inside the package: not a use.
      { path: "packages/core/src/b.ts", text: 'import { LOCAL } from "@openassistant/core/a";' },
      {
        path: "apps/gateway/src/uses.ts",
        text: [
          'import type { Shape } from "@openassistant/core/a";',
          'import { type Options, run } from "@openassistant/core/a";',
          'import * as a from "@openassistant/core/a";',
          "const k: a.Kind = 1; a.localFn();",
          'type M = import("@openassistant/core/a").Mode;',
          'const { Err } = await import("@openassistant/core/a");',
        ].join("\n"),
      },
      { path: "apps/gateway/src/uses.test.ts", text: 'import { Hidden } from "@openassistant/core/a";' },
      { path: "apps/gateway/src/helper.test.ts", text: 'import { helper } from "@openassistant/core/testing";' },
    ];
    const lines = unusedEntryExports(files, [core("a"), core("testing")], isProductionSource);
    expect(lines).toEqual([
      expect.stringMatching(
        /^packages\/core\/src\/a\/index\.ts \(@openassistant\/core\/a\) exports "Hidden", which only tests outside packages\/core import — export it from @openassistant\/core\/testing \(packages\/core\/src\/testing\/index\.ts\) instead/,
      ),
      expect.stringMatching(
        /exports "LOCAL", which nothing outside packages\/core imports — drop it from the entry \(files inside the package import it by relative path\); if nothing uses it at all, delete it$/,
      ),
      expect.stringMatching(
        /\(@openassistant\/core\/testing\) exports "spare", which nothing outside packages\/core imports/,
      ),
    ]);
  });

  test("a namespace handed on whole uses every name; the SDK's names count only when imported by name or documented", () => {
    const files = [
      {
        path: "packages/sdk/src/index.ts",
        text: "export const defineTool = 1;\nexport const listed = 2;\nexport const lost = 3;",
      },
      {
        path: "packages/core/src/plugins/sdk-module.ts",
        text: 'import * as sdk from "@openassistant/sdk";\nuse({ ...sdk });',
      },
      { path: "integrations/x/src/index.ts", text: 'import { defineTool } from "@openassistant/sdk";' },
      { path: "packages/core/src/c/index.ts", text: "export const one = 1;\nexport const two = 2;" },
      { path: "apps/gateway/src/whole.ts", text: 'import * as c from "@openassistant/core/c";\nregister(c);' },
    ];
    const entries: Entry[] = [
      { pkg: "packages/sdk", specifier: "@openassistant/sdk", file: "packages/sdk/src/index.ts" },
      { pkg: "packages/core", specifier: "@openassistant/core/c", file: "packages/core/src/c/index.ts" },
    ];
    const docs = new Map([["docs/plugins.md", "| `listed` | a name for authors |"]]);
    expect(unusedEntryExports(files, entries, isProductionSource, docs)).toEqual([
      'packages/sdk/src/index.ts (@openassistant/sdk) exports "lost", which nothing outside packages/sdk imports — drop it from the entry (files inside the package import it by relative path), or document it for authors in docs/plugins.md; if nothing uses it at all, delete it',
    ]);
  });

  test("core's production code names no chat surface and no model (comments may)", async () => {
    expect(await coreNamesWhatIsNotItsOwn(await repositorySources())).toEqual([]);
    const bad = await coreNamesWhatIsNotItsOwn([
      { path: "packages/core/src/a.ts", text: "export const schema = { discord: z.object({}) };" },
      { path: "packages/core/src/b.ts", text: 'const name = "claude-sonnet-5-5"; // the default' },
      { path: "packages/core/src/c.ts", text: "const kinds = [`Discord-token`];" },
      {
        path: "packages/core/src/d.ts",
        text: "/** Discord takes 10 files; claude-x models too. */\nexport const MAX = 10; // Discord",
      },
      { path: "packages/core/src/e.ts", text: 'const url = "https://x.test/a"; // discord\nconst re = /\\/discord/;' },
      { path: "packages/core/src/f.test.ts", text: 'const token = "discord-token";' },
      { path: "apps/gateway/src/g.ts", text: 'const name = "claude-opus-5";' },
    ]);
    expect(bad.map((l) => l.split(":")[0])).toEqual([
      "packages/core/src/a.ts",
      "packages/core/src/b.ts",
      "packages/core/src/c.ts",
      "packages/core/src/e.ts",
    ]);
  });
});
