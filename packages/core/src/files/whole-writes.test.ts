import { expect, test } from "bun:test";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit";
import { jsonFromFreshProcess } from "@openassistant/testkit/fresh-process.ts";
import { FULL_DISK_PRELUDE } from "@openassistant/testkit/full-disk.ts";
import { replaceFile } from "./whole-writes.ts";

// A full disk, for real (FULL_DISK_PRELUDE): each step sets the child's file-size limit just past
// what the file holds, so write(2) takes what fits and then fails with EFBIG.
test("files written whole: on a full disk a secrets file keeps its old content, the tool history loses no line, and no cut-short key is left", async () => {
  const dir = makeTempDir("oa-full-disk-");
  const secrets = join(dir, "auth-profiles.json");
  writeFileSync(secrets, '{"profiles":"the good ones"}\n', { mode: 0o600 });
  const src = (p: string) => JSON.stringify(join(import.meta.dir, "..", p));
  const script = `${FULL_DISK_PRELUDE}
    const { statSync } = await import("node:fs");
    const { writePrivateFile } = await import(${src("config/private-file.ts")});
    const { toolHistory } = await import(${src("workspace/history.ts")});
    const { loadReceiptKey } = await import(${src("receipts/key.ts")});
    const attempt = (f) => { try { f(); return "done"; } catch (e) { return "failed: " + e.message; } };
    const out = {};
    limitFileSize(64);
    out.secrets = attempt(() => writePrivateFile(${JSON.stringify(secrets)}, JSON.stringify({ profiles: "x".repeat(500) })));
    out.key = attempt(() => loadReceiptKey(${JSON.stringify(join(dir, "keys"))}));
    limitFileSize("unlimited");
    const history = toolHistory(${JSON.stringify(join(dir, "history"))});
    const version = (name) => ({ name, action: "write", sha256: "a".repeat(64), at: "2026-11-23T06:00:00.000Z" });
    history.record(version("first.ts"));
    limitFileSize(statSync(${JSON.stringify(join(dir, "history", "tools.jsonl"))}).size + 20);
    out.history = attempt(() => history.record(version("cut-short.ts")));
    limitFileSize("unlimited");
    history.record(version("third.ts"));
    out.names = history.list().map((v) => v.name);
    out.keyAfter = attempt(() => loadReceiptKey(${JSON.stringify(join(dir, "keys"))}));
    console.log(JSON.stringify(out));`;
  const r = await jsonFromFreshProcess<Record<string, unknown>>(script, { cwd: dir });

  expect(r.secrets).toMatch(/^failed: .*(EFBIG|too large)/i);
  expect(readFileSync(secrets, "utf8")).toBe('{"profiles":"the good ones"}\n');
  expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);

  expect(r.key).toMatch(/^failed: Could not create the receipt key .*(EFBIG|too large)/i);
  expect(r.keyAfter).toBe("done");
  expect(readFileSync(join(dir, "keys", "receipts.key"), "utf8")).toMatch(/^[0-9a-f]{64}\n$/);

  expect(r.history).toMatch(/^failed: .*(EFBIG|too large)/i);
  // The line that did not fit is gone whole; the one after it is not glued to a part of it.
  expect(r.names).toEqual(["first.ts", "third.ts"]);
  expect(existsSync(join(dir, "history", "tools.jsonl"))).toBe(true);
});

test("replaceFile: the new text replaces the file whole; a rename that fails leaves no temp file and the target as it was", () => {
  const dir = makeTempDir("oa-replace-");
  const file = join(dir, "tool.ts");
  writeFileSync(file, "old\n");
  replaceFile(file, "new\n");
  expect(readFileSync(file, "utf8")).toBe("new\n");
  const folder = join(dir, "a-folder");
  mkdirSync(join(folder, "inside"), { recursive: true });
  expect(() => replaceFile(folder, "text")).toThrow();
  expect(readdirSync(folder)).toEqual(["inside"]);
  expect(readdirSync(dir).filter((f) => f.endsWith(".tmp"))).toEqual([]);
});
