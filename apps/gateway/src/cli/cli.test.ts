import { describe, expect, test } from "bun:test";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { cli, MAIN } from "../../test/cli.ts";
import { main } from "./main.ts";

type Node = { subCommands?: unknown };
const resolve = async (v: unknown): Promise<unknown> =>
  typeof v === "function" ? await (v as () => unknown)() : await v;

/** Every command path of the real CLI tree: [], ["start"], ["auth"], ["auth", "anthropic"], … */
async function commandPaths(node: Node, prefix: string[] = []): Promise<string[][]> {
  const out = [prefix];
  const subs = (node.subCommands ? await resolve(node.subCommands) : {}) as Record<string, unknown>;
  for (const [name, sub] of Object.entries(subs))
    out.push(...(await commandPaths((await resolve(sub)) as Node, [...prefix, name])));
  return out;
}

describe("openassistant CLI (real subprocesses)", () => {
  test("every command and subcommand answers --help with exit 0 and a usage line", async () => {
    const paths = await commandPaths(main as Node);
    expect(paths.map((p) => p.join(" "))).toEqual(
      expect.arrayContaining([
        "",
        "start",
        "chat",
        "auth anthropic setup-token",
        "tools create",
        "plugins list",
        "receipts",
        "doctor",
        "init",
      ]),
    );
    const cwd = makeTempDir("oa-cli-help-");
    const results = await Promise.all(
      paths.map(async (path) => ({ path: path.join(" "), ...(await cli([...path, "--help"], { cwd })) })),
    );
    for (const r of results) {
      expect({ path: r.path, code: r.code, stderr: r.stderr }).toEqual({ path: r.path, code: 0, stderr: "" });
      expect({ path: r.path, usage: /^USAGE .+/m.test(r.stdout) }).toEqual({ path: r.path, usage: true });
    }
  }, 20_000);

  test("an unknown flag given to a command group is an error, not 'No command specified'", async () => {
    const cwd = makeTempDir("oa-cli-flags-");
    const [top, group, nested, version] = await Promise.all([
      cli(["--x"], { cwd }),
      cli(["tools", "--x"], { cwd }),
      cli(["auth", "anthropic", "--frob=1"], { cwd }),
      cli(["--version"], { cwd }),
    ]);
    for (const [r, flag] of [
      [top, "--x"],
      [group, "--x"],
      [nested, "--frob=1"],
    ] as const) {
      expect(r.code).toBe(1);
      expect(r.stderr).toContain(`Unknown option "${flag}"`);
      expect(r.stderr + r.stdout).not.toContain("No command specified");
    }
    expect(version).toMatchObject({ code: 0, stdout: "0.1.0\n" });
  });

  test("help piped: no colour codes even without NO_COLOR; nested usage names the root command; descriptions without loading commands", async () => {
    const cwd = makeTempDir("oa-cli-help-");
    const run = async (args: string[]) => {
      const proc = Bun.spawn(["bun", MAIN, ...args], {
        cwd,
        env: { PATH: process.env.PATH!, HOME: cwd, TERM: "xterm-256color" },
        stdout: "pipe",
        stderr: "pipe",
      });
      const [stdout, stderr, code] = await Promise.all([
        new Response(proc.stdout).text(),
        new Response(proc.stderr).text(),
        proc.exited,
      ]);
      return { stdout, stderr, code };
    };
    const [root, nested, none] = await Promise.all([run(["--help"]), run(["plugins", "list", "--help"]), run([])]);
    for (const r of [root, nested, none]) {
      expect(r.code).toBe(0);
      expect(r.stdout).not.toContain("\u001B[");
    }
    expect(nested.stdout).toContain("USAGE openassistant plugins list [OPTIONS]");
    expect(nested.stdout).toContain("(openassistant plugins list v0.1.0)");
    expect(root.stdout).toMatch(/^ {2}plugins +List tools and plugins/m);
    expect(none.stdout).toBe(root.stdout);
    const badEnum = await run(["tools", "create", "x", "--approval", "sometimes"]);
    expect(badEnum.code).toBe(1);
    expect(badEnum.stderr).toBe(
      "error: Invalid value for argument: --approval (sometimes). Expected one of: auto, required.\n",
    );
    const unknown = await run(["nosuch"]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toBe("error: Unknown command nosuch\n");
  }, 20_000);

  test("/exit is a normal goodbye: exit 0, Bye. on stdout, nothing on stderr", async () => {
    const cwd = makeTempDir("oa-cli-exit-");
    const r = await cli(["chat"], {
      cwd,
      stdin: "/exit\n",
      env: { ANTHROPIC_API_KEY: "sk-ant-api03-exit-test-00000000000000" },
    });
    expect(r.code).toBe(0);
    expect(r.stdout.trimEnd()).toEndWith("Bye.");
    expect(r.stderr).toBe("");
  }, 20_000);
});
