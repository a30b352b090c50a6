/** #34: `openassistant clients create | list | revoke`, the real CLI in a subprocess. */
import { expect, test } from "bun:test";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { cli } from "../../test/cli.ts";
import { openClientTokens } from "../clients/tokens.ts";

test("create prints a token once (the gateway verifies it), list shows names only, revoke ends it, a second revoke says none", async () => {
  const dir = makeTempDir("oa-clients-cli-");
  mkdirSync(join(dir, ".openassistant"));
  const made = await cli(["clients", "create", "laptop"], { cwd: dir });
  expect(made.code).toBe(0);
  const token = made.stdout.trim();
  expect(token).toMatch(/^oac_[0-9a-f]{8}_[A-Za-z0-9_-]{43}$/);
  expect(made.stderr).toContain('Client token "laptop"');
  const tokens = openClientTokens(join(dir, ".openassistant", "data"));
  expect(tokens.verify(token)?.name).toBe("laptop");

  const listed = await cli(["clients", "list"], { cwd: dir });
  expect(listed.stdout).toStartWith("laptop\t");
  expect(listed.stdout).not.toContain(token.slice(13));

  expect((await cli(["clients", "revoke", "laptop"], { cwd: dir })).stdout).toContain("Revoked client token laptop.");
  expect(tokens.verify(token)).toBeUndefined();
  const again = await cli(["clients", "revoke", "laptop"], { cwd: dir });
  expect(again.code).toBe(1);
  expect(again.stderr).toContain('no client token named or with id "laptop"');
  const badName = await cli(["clients", "create", "my laptop"], { cwd: dir });
  expect(badName.code).toBe(1);
  expect(badName.stderr).toContain("is not allowed");
});
