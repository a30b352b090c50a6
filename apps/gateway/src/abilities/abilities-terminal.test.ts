import { afterEach, expect, test } from "bun:test";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEPLOY, deployTools } from "../../test/abilities-deploy.ts";
import { type Harness, startHarness, startTestTerminal } from "../../test/harness.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

test("terminal: /ability run reaches the gate, the approval is answered here, the end is printed; bad inputs are named", async () => {
  const ran: Array<{ what: string; at: number }> = [];
  h = await startHarness({ tools: deployTools(ran) });
  mkdirSync(join(h.dir, ".openassistant", "abilities", "deploy"), { recursive: true });
  writeFileSync(join(h.dir, ".openassistant", "abilities", "deploy", "ability.yaml"), DEPLOY);
  const { io, surface } = startTestTerminal(h.gateway);
  io.send("/ability run deploy version=1.0");
  expect(await io.waitFor(/ability "deploy": version: must match[^\n]*\n/)).toContain(
    'ability "deploy": version: must match ^v\\d+\\.\\d+\\.\\d+$',
  );
  io.send("/ability run deploy version=v1.0.0");
  const prompt = await io.waitFor(/Approval needed[\s\S]*deny with a reason.*\n/);
  expect(prompt).toContain("tools.abilities.gate");
  expect(prompt).toContain("Deploy v1.0.0 to staging? CI is success.");
  io.send("a");
  const end = await io.waitFor(/Ability deploy completed\.[\s\S]*\(run ability_\S+\)\n/);
  expect(end).toContain("✅ ci · ✅ approve · ✅ deploy · ⏭️ announce (skipped)");
  expect(ran.filter((r) => r.what.startsWith("deploy.run"))).toHaveLength(1);
  io.input.end();
  await surface.done;
}, 30_000);
