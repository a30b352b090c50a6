import { expect, test } from "bun:test";
import { STORAGE_BACKENDS, storageFor } from "./index.ts";

test("storage.url chooses PostgreSQL and shows it without the password; without it, the SQLite file", () => {
  const pg = storageFor({ databasePath: "/p/db.sqlite", storageUrl: "postgres://gw:s3cret@db.internal:5433/oa" });
  expect(pg.backend).toBe(STORAGE_BACKENDS.get("postgres")!);
  expect(pg.location).toBe("postgres://gw:s3cret@db.internal:5433/oa");
  expect(pg.described).toBe("the PostgreSQL database db.internal:5433/oa (storage.url)");
  const file = storageFor({ databasePath: "/p/db.sqlite" });
  expect(file.backend).toBe(STORAGE_BACKENDS.get("sqlite")!);
  expect(file.location).toBe("/p/db.sqlite");
});
