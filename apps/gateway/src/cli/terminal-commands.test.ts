import { expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startFakeAnthropic, textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { startGatewayProcess } from "../../test/cli.ts";

/** A port nothing listens on now (bound, then closed) for the console. */
function freePort(): number {
  const s = Bun.serve({ hostname: "127.0.0.1", port: 0, fetch: () => new Response() });
  const port = s.port!;
  s.stop(true);
  return port;
}

test("terminal: /help, an unknown /command and a bad /model are answered here; a failed typecheck shows as activity; one receipts line", async () => {
  const dir = makeTempDir("oa-cli-terminal-");
  const ws = join(dir, ".openassistant");
  mkdirSync(join(ws, "tools"), { recursive: true });
  writeFileSync(
    join(ws, "tools", "clock.ts"),
    `import { defineTool, z } from "@openassistant/sdk";\nexport default defineTool({ description: "Clock", approval: "auto", args: z.object({}), run: async () => "noon" });\n`,
  );
  writeFileSync(join(ws, "config.jsonc"), JSON.stringify({ http: { port: freePort() } }));
  const api = await startFakeAnthropic();
  api.script([
    // The first snippet does not typecheck (no tools.clok); the repair calls the clock twice.
    toolUseTurn({ id: "toolu_1", name: "execute", input: { code: "return await tools.clok();" } }),
    toolUseTurn({
      id: "toolu_2",
      name: "execute",
      input: { code: "const a = await tools.clock({}); const b = await tools.clock({}); return [a, b];" },
    }),
    textTurn("It is noon."),
  ]);
  const { proc, out } = startGatewayProcess({ cwd: dir, apiUrl: api.url });
  const killer = setTimeout(() => proc.kill("SIGKILL"), 25_000);
  try {
    await out.waitFor(/Ready in \d+ ms/);
    proc.stdin.write("/help\n");
    await out.waitFor(/Commands:[\s\S]*\/exit, \/quit/);
    expect(out.text).toContain("/model <name> switches it");
    expect(out.text).toContain("claude-sonnet-5-5");

    proc.stdin.write("/frobnicate now\n");
    await out.waitFor(/Unknown command \/frobnicate: \/help lists the commands/);

    proc.stdin.write("/model claude-sonet-5-5\n");
    await out.waitFor(
      /"claude-sonet-5-5" is not a model the gateway knows; nothing changed\. Known models: .*claude-sonnet-5-5/,
    );
    proc.stdin.write("/model\n");
    await out.waitFor(/model: the configured default \(claude-sonnet-5-5\)/);
    expect(api.messageRequests()).toHaveLength(0); // none of it reached the model

    proc.stdin.write("what time is it?\n");
    await out.waitFor(/✗ the code did not typecheck: .*clok.*; the assistant is fixing it \(repair 1\)/);
    await out.waitFor(
      /It is noon\.[\s\S]*Receipts in the console \(2 calls\): clock \[r_\d+\] http:\/\/127\.0\.0\.1:\d+\/console\/runs\/\S+\n/,
    );
    expect(out.text.match(/\/console\/runs\//g)).toHaveLength(1);
    // The typecheck failure came before the answer, and the model's request was the only message sent.
    expect(out.text.indexOf("did not typecheck")).toBeLessThan(out.text.indexOf("It is noon."));
    const sent = JSON.stringify(api.messageRequests()[0]!.body.messages);
    expect(sent).not.toContain("frobnicate");
    expect(sent).not.toContain("/help");
    proc.stdin.end();
    expect(await proc.exited).toBe(0);
  } finally {
    clearTimeout(killer);
    proc.kill();
    await api.close();
  }
}, 30_000);
