import { expect, test } from "bun:test";
import { existsSync, lstatSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit/temp.ts";

const ROOT = join(import.meta.dir, "..", "..", "..", "..");

/** `bun run link` in a subprocess, with Bun's global folders in a temp dir (the user's stay untouched). */
async function link(path: (bin: string) => string, shell = "/bin/bash") {
  const home = makeTempDir("oa-link-");
  const bin = join(home, "bin");
  const proc = Bun.spawn([process.execPath, "run", "link"], {
    cwd: ROOT,
    env: {
      HOME: home,
      PATH: path(bin),
      SHELL: shell,
      BUN_INSTALL_BIN: bin,
      BUN_INSTALL_GLOBAL_DIR: join(home, "global"),
      BUN_INSTALL_CACHE_DIR: join(home, "cache"),
      NO_COLOR: "1",
    },
    stdout: "pipe",
    stderr: "pipe",
  });
  const [stdout, stderr, code] = await Promise.all([
    new Response(proc.stdout).text(),
    new Response(proc.stderr).text(),
    proc.exited,
  ]);
  return { stdout, stderr, code, bin };
}

const bunDir = process.execPath.slice(0, process.execPath.lastIndexOf("/"));

test("after linking, a bin folder that is not on PATH is named with the line that puts it there", async () => {
  const r = await link(() => `${bunDir}:/usr/bin:/bin`);
  expect(r.code).toBe(0);
  expect(lstatSync(join(r.bin, "openassistant")).isSymbolicLink() || existsSync(join(r.bin, "openassistant"))).toBe(
    true,
  );
  expect(r.stderr).toContain(
    `openassistant is linked in ${r.bin}, but that folder is not on your PATH, so \`openassistant\` will not be found.`,
  );
  expect(r.stderr).toContain(`Fix: echo 'export PATH="${r.bin}:$PATH"' >> ~/.bashrc`);
  // The fix works: with that folder on PATH, the command runs.
  const help = Bun.spawn(["openassistant", "--help"], {
    env: { PATH: `${r.bin}:${bunDir}:/usr/bin:/bin`, HOME: process.env.HOME!, NO_COLOR: "1" },
    stdout: "pipe",
    stderr: "pipe",
  });
  expect(await new Response(help.stdout).text()).toContain("USAGE openassistant");
  expect(await help.exited).toBe(0);
}, 30_000);

test("zsh users are told their own rc file; a folder already on PATH gets no warning", async () => {
  const zsh = await link(() => `${bunDir}:/usr/bin:/bin`, "/usr/bin/zsh");
  expect(zsh.stderr).toContain(">> ~/.zshrc");
  const ok = await link((bin) => `${bin}:${bunDir}:/usr/bin:/bin`);
  expect(ok.code).toBe(0);
  expect(ok.stderr).not.toContain("not on your PATH");
  expect(ok.stdout).toContain(`openassistant is linked in ${ok.bin}, which is on your PATH`);
}, 30_000);
