import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { openDatabase } from "./open.ts";

test("openDatabase creates the file (and missing folders) in WAL mode with the documented pragmas", () => {
  const file = join(makeTempDir(), "nested", "dir", "oa.sqlite");
  const db = openDatabase(file);
  try {
    expect(existsSync(file)).toBe(true);
    expect(db.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
    expect(db.query("PRAGMA synchronous").get()).toEqual({ synchronous: 1 }); // NORMAL
    expect(db.query("PRAGMA foreign_keys").get()).toEqual({ foreign_keys: 1 });
    expect(db.query("PRAGMA busy_timeout").get()).toEqual({ timeout: 5000 });
    db.exec("CREATE TABLE t (x INTEGER)");
    db.exec("INSERT INTO t VALUES (1)");
    // A committed write goes to the write-ahead log beside the database file.
    expect(existsSync(`${file}-wal`)).toBe(true);
  } finally {
    db.close();
  }
  // Reopening keeps WAL (it is persistent in the file).
  const again = openDatabase(file);
  expect(again.query("PRAGMA journal_mode").get()).toEqual({ journal_mode: "wal" });
  again.close();
});

describe("a file that is not a database", () => {
  test("is refused, and the file is not left open until the handle is collected", () => {
    const dir = makeTempDir("oa-db-open-");
    const path = join(dir, "broken.sqlite");
    writeFileSync(path, "this is not a SQLite database, it is a text file of some length ".repeat(20));
    const openHere = () =>
      readdirSync("/proc/self/fd").filter((fd) => {
        try {
          return readlinkSync(`/proc/self/fd/${fd}`).startsWith(dir);
        } catch {
          return false; // closed meanwhile
        }
      });
    expect(() => openDatabase(path)).toThrow(/not a database/);
    expect(openHere()).toEqual([]);
  });
});
