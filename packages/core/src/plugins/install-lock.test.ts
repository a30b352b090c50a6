import { expect, test } from "bun:test";
import { existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit";
import { acquireLock } from "./auto-install.ts";

test("a lock another live install holds is waited for, and taken once it is released", async () => {
  const dir = makeTempDir("install-lock-");
  const file = join(dir, ".install.lock");
  writeFileSync(file, String(process.pid)); // a live holder, fresh: not stale
  const taking = acquireLock(file, 60_000); // its first try has already found the lock held
  let taken = false;
  void taking.then(() => {
    taken = true;
  });
  await Promise.resolve();
  expect(taken).toBe(false);
  rmSync(file); // the other install releases it
  const release = await taking;
  expect(readFileSync(file, "utf8")).toBe(String(process.pid));
  release();
  expect(existsSync(file)).toBe(false);
});

test("a lock whose holder is gone is taken over at once", async () => {
  const dir = makeTempDir("install-lock-");
  const file = join(dir, ".install.lock");
  const gone = Bun.spawnSync(["true"]).pid; // exited: its pid answers no signal
  writeFileSync(file, String(gone));
  const release = await acquireLock(file, 60_000);
  expect(readFileSync(file, "utf8")).toBe(String(process.pid));
  release();
});
