import { describe, expect, test } from "bun:test";
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { openMcpTokens } from "./tokens.ts";

describe("MCP client tokens", () => {
  test("a token is shown once: the file keeps its SHA-256 only, readable by the owner alone", () => {
    const dir = makeTempDir("oa-mcp-tokens-");
    const tokens = openMcpTokens(dir);
    const token = tokens.create("editor", ["notes.*"]);
    expect(token).toMatch(/^oamcp_[A-Za-z0-9_-]{43}$/);
    const file = readFileSync(join(dir, "mcp-server-tokens.json"), "utf8");
    expect(file).not.toContain(token);
    expect(file).not.toContain(token.slice(6));
    expect(statSync(join(dir, "mcp-server-tokens.json")).mode & 0o777).toBe(0o600);
    expect(tokens.list()).toEqual([
      {
        name: "editor",
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        tools: ["notes.*"],
        createdAt: expect.any(Number),
      },
    ]);
  });

  test("a bearer header finds its client; a wrong, truncated, differently shaped or absent one finds none", () => {
    const tokens = openMcpTokens(makeTempDir("oa-mcp-tokens-"));
    const editor = tokens.create("editor");
    const other = tokens.create("other");
    expect(tokens.clientFor(`Bearer ${editor}`)?.name).toBe("editor");
    expect(tokens.clientFor(`bearer   ${other} `)?.name).toBe("other");
    expect(tokens.clientFor(`Bearer ${editor.slice(0, -1)}`)).toBeUndefined();
    expect(tokens.clientFor(`Bearer ${editor}x`)).toBeUndefined();
    expect(tokens.clientFor(editor)).toBeUndefined();
    expect(tokens.clientFor(`Basic ${editor}`)).toBeUndefined();
    expect(tokens.clientFor(null)).toBeUndefined();
    expect(tokens.clientFor("Bearer ")).toBeUndefined();
  });

  test("one flipped character is another token", () => {
    const tokens = openMcpTokens(makeTempDir("oa-mcp-tokens-"));
    const token = tokens.create("editor");
    const last = token.at(-1) === "A" ? "B" : "A";
    expect(tokens.clientFor(`Bearer ${token.slice(0, -1)}${last}`)).toBeUndefined();
  });

  test("revoking a client ends its token at once, for this process and another reading the same file", () => {
    const dir = makeTempDir("oa-mcp-tokens-");
    const server = openMcpTokens(dir);
    const cli = openMcpTokens(dir);
    const token = cli.create("editor");
    expect(server.clientFor(`Bearer ${token}`)?.name).toBe("editor");
    expect(cli.revoke("editor")).toBe(true);
    expect(server.clientFor(`Bearer ${token}`)).toBeUndefined();
    expect(cli.revoke("editor")).toBe(false);
  });

  test("a name that is taken or not plain is refused, saying what to do", () => {
    const tokens = openMcpTokens(makeTempDir("oa-mcp-tokens-"));
    tokens.create("editor");
    expect(() => tokens.create("editor")).toThrow(/already has a token; revoke it first/);
    expect(() => tokens.create("Editor <script>")).toThrow(/is not allowed: use 1-40 lowercase letters/);
    expect(() => tokens.create("")).toThrow(/is not allowed/);
  });

  test("a damaged token file is an error naming it and the fix, never an open door", () => {
    const dir = makeTempDir("oa-mcp-tokens-");
    const path = join(dir, "mcp-server-tokens.json");
    writeFileSync(path, '{"clients": [{"name": "editor"}]}');
    expect(() => openMcpTokens(dir).clientFor(`Bearer oamcp_${"A".repeat(43)}`)).toThrow(
      `${path}: clients[0] is not a client entry`,
    );
    writeFileSync(path, "{not json");
    expect(() => openMcpTokens(dir).list()).toThrow(/is not valid JSON/);
  });
});
