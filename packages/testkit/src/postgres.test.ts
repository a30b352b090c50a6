import { expect, test } from "bun:test";
import { existsSync } from "node:fs";
import { SQL } from "bun";
import { postgresBinDir, startPostgres } from "./postgres.ts";

test("a throwaway PostgreSQL starts on 127.0.0.1, gives fresh databases, and is gone after stop()", async () => {
  expect(postgresBinDir()).toMatch(/bin$/);
  const server = await startPostgres();
  const url = await server.freshDatabase();
  expect(url).toMatch(/^postgres:\/\/postgres@127\.0\.0\.1:\d+\/t_1$/);
  const sql = new SQL(url, { max: 1 });
  try {
    const [row] = await sql`SELECT current_database() AS db, inet_server_addr()::text AS addr`;
    expect(row).toEqual({ db: "t_1", addr: "127.0.0.1/32" });
    expect(server.psql("SELECT count(*) FROM pg_database WHERE datname = 't_1'")).toBe("1");
  } finally {
    await sql.close();
  }
  const dataDir = server.psql("SHOW data_directory");
  expect(existsSync(dataDir)).toBe(true);
  await server.stop();
  expect(existsSync(dataDir)).toBe(false);
  const again = new SQL(url, { max: 1, connectionTimeout: 5 });
  await expect(again`SELECT 1`).rejects.toThrow();
  await again.close();
});
