import { describe, expect, test } from "bun:test";
import { cpSync, existsSync, mkdirSync, symlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import type { ToolDefinition } from "@openassistant/sdk";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { indexToolTree } from "../tools/flatten.ts";
import { loadTools } from "./index.ts";

const REPO = resolve(import.meta.dir, "../../../..");

/**
 * The repository's own `.openassistant/` (clock, notes with named exports, calendar via config.plugins),
 * copied into a temp project so nothing is written into the repo's data dir. `integrations/` is linked
 * so the config's "./integrations/calendar" resolves as it does in the repo.
 */
function copyOfRepoWorkspace(): string {
  const root = join(makeTempDir("oa-repo-examples-"), "proj");
  mkdirSync(root, { recursive: true });
  cpSync(join(REPO, ".openassistant"), join(root, ".openassistant"), {
    recursive: true,
    filter: (src) => !/\/\.openassistant\/(data|node_modules)(\/|$)/.test(src),
  });
  symlinkSync(join(REPO, "integrations"), join(root, "integrations"));
  return root;
}

async function call(tree: unknown, path: string, input: Record<string, unknown>): Promise<unknown> {
  const t = indexToolTree(tree as never).get(path) as ToolDefinition | undefined;
  if (!t) throw new Error(`no tool ${path}`);
  return t.run((t.args as { parse(x: unknown): unknown }).parse(input) as never);
}

describe("the repo's own .openassistant examples", () => {
  test("load without problems: clock, notes.add/list/remove, calendar.events.* with the configured timezone", async () => {
    const root = copyOfRepoWorkspace();
    const r = await loadTools({
      cwd: root,
      homeDir: join(root, "..", "home"),
      env: { PATH: process.env.PATH ?? "", HOME: join(root, "..", "home") },
      log: () => {},
    });
    expect(r.diagnostics.filter((d) => d.level !== "info")).toEqual([]);
    expect(r.entries.map((e) => `${e.id}:${e.kind}:${e.status}:${e.origin}`)).toEqual([
      "clock:tool:loaded:project",
      "notes:tool:loaded:project",
      "calendar:plugin:loaded:path",
    ]);
    const paths = r.entries.flatMap((e) => e.tools.map((t) => `${t.path}:${t.approval}`));
    expect(paths).toEqual(
      expect.arrayContaining([
        "clock:auto",
        "notes.add:required",
        "notes.list:auto",
        "notes.remove:required",
        "calendar.events.create:required",
      ]),
    );

    const clock = (await call(r.tree, "clock", { timeZone: "Europe/Oslo" })) as {
      timeZone: string;
      iso: string;
      formatted: string;
    };
    expect(clock.timeZone).toBe("Europe/Oslo");
    expect(Math.abs(Date.parse(clock.iso) - Date.now())).toBeLessThan(60_000);
    await expect(call(r.tree, "clock", { timeZone: "Mars/Olympus" })).rejects.toThrow(
      'unknown time zone "Mars/Olympus"',
    );

    expect(await call(r.tree, "notes.list", {})).toEqual([]);
    const a = (await call(r.tree, "notes.add", { text: "buy milk" })) as { id: number };
    const b = (await call(r.tree, "notes.add", { text: "call mum" })) as { id: number };
    expect([a.id, b.id]).toEqual([1, 2]);
    expect(((await call(r.tree, "notes.list", {})) as Array<{ text: string }>).map((n) => n.text)).toEqual([
      "call mum",
      "buy milk",
    ]);
    expect(await call(r.tree, "notes.remove", { id: 1 })).toEqual({ deleted: 1 });
    await expect(call(r.tree, "notes.remove", { id: 1 })).rejects.toThrow("no note with id 1");
    expect(((await call(r.tree, "notes.list", { limit: 5 })) as Array<{ text: string }>).map((n) => n.text)).toEqual([
      "call mum",
    ]);
    // The notes live in the copy's data dir, not the repo's.
    expect(existsSync(join(root, ".openassistant/data/notes/notes.json"))).toBe(true);

    const event = (await call(r.tree, "calendar.events.create", {
      title: "Standup",
      startsAt: "2026-01-05T08:00:00Z",
    })) as { local: string; endsAt: string };
    expect(event.endsAt).toBe("2026-01-05T08:30:00.000Z"); // defaultDurationMinutes: 30 from the config
    expect(event.local).toContain("09:00"); // Europe/Oslo
  });
});
