import { afterEach, describe, expect, test } from "bun:test";
import { join } from "node:path";
import { readReplayLog } from "@openassistant/core/receipts";
import { textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { startHarness, type Harness } from "../../test/harness.ts";
import { openGatewayRunJournal } from "./journal.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("the gateway's runner journals each run (#30)", () => {
  test("a turn's run leaves its seed, its calls and their answers in the journal under the data dir", async () => {
    h = await startHarness();
    h.api.script([
      toolUseTurn({
        id: "toolu_1",
        name: "execute",
        input: { code: "const r = await tools.reminders.list({}); return [r, Date.now() > 0, Math.random() < 1];" },
      }),
      textTurn("done"),
    ]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "j1", surface: "terminal", text: "list" });
    const runId = outcome.runIds[0]!;
    const journal = openGatewayRunJournal(join(h.dir, ".openassistant", "data"));
    const run = await journal.read(runId);
    expect(run?.seed).toHaveLength(4);
    expect(run?.calls.map((c) => c.toolPath)).toEqual(["reminders.list"]);
    expect(JSON.stringify(run?.calls[0]?.result)).toContain("water plants");
    // What a resume reads: the receipts joined with the journal say the call was answered.
    const log = await readReplayLog(h.gateway.receipts, journal, runId);
    expect(log?.calls.map((c) => c.state)).toEqual(["answered"]);
  });
});
