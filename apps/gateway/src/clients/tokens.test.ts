/** #34: client tokens are stored as digests, open only while listed, and each is revoked on its own. */
import { expect, test } from "bun:test";
import { readFileSync, statSync } from "node:fs";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { clientTokensPath, openClientTokens } from "./tokens.ts";

test("a token verifies until revoked; the file (0600) keeps only a digest; a changed secret or another token's id fails", () => {
  const dir = makeTempDir("oa-client-tokens-");
  const tokens = openClientTokens(dir);
  const laptop = tokens.create("laptop");
  const phone = tokens.create("phone");
  expect(laptop.token).toMatch(/^oac_[0-9a-f]{8}_[A-Za-z0-9_-]{43}$/);
  expect(tokens.verify(laptop.token)?.name).toBe("laptop");

  const text = readFileSync(clientTokensPath(dir), "utf8");
  expect(text).not.toContain(laptop.token.slice(13));
  expect(statSync(clientTokensPath(dir)).mode & 0o777).toBe(0o600);

  const secret = laptop.token.slice(13);
  const flipped = `${laptop.token.slice(0, 13)}${secret[0] === "A" ? "B" : "A"}${secret.slice(1)}`;
  expect(tokens.verify(flipped)).toBeUndefined();
  // The laptop's secret under the phone's id.
  expect(tokens.verify(`oac_${phone.record.id}_${secret}`)).toBeUndefined();
  expect(tokens.verify(`Bearer ${laptop.token}`)).toBeUndefined();

  expect(tokens.revoke("laptop")).toBe(true);
  expect(tokens.verify(laptop.token)).toBeUndefined();
  // Another process's view (the CLI revokes while the gateway runs) reads the same file.
  expect(openClientTokens(dir).verify(phone.token)?.name).toBe("phone");
  expect(tokens.revoke("laptop")).toBe(false);
  expect(tokens.list().map((t) => t.name)).toEqual(["phone"]);
});

test("names are checked; a name is taken once", () => {
  const tokens = openClientTokens(makeTempDir("oa-client-tokens-"));
  expect(() => tokens.create("my laptop")).toThrow('client token name "my laptop" is not allowed');
  tokens.create("laptop");
  expect(() => tokens.create("laptop")).toThrow('a client token named "laptop" exists');
});
