import { afterEach, describe, expect, setDefaultTimeout, test } from "bun:test";
import { defineTool, z } from "@openassistant/sdk";
import { textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import type { GatewayEvent } from "./events/types.ts";
import { startHarness, type Harness } from "../test/harness.ts";

setDefaultTimeout(30_000);
let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

describe("a running call's progress reaches the gateway's events", () => {
  test("ctx.progress of a tool in a turn is a call.progress event of that turn's run, before the call settles", async () => {
    h = await startHarness({
      tools: {
        jobs: {
          copy: defineTool({
            description: "Copies files",
            approval: "auto",
            args: z.object({}),
            run: async (_input, ctx) => {
              ctx.progress?.({ progress: 1, total: 2, message: "copied a.txt" });
              return "copied";
            },
          }),
        },
      },
    });
    const events: GatewayEvent[] = [];
    h.gateway.events.subscribe((e) => events.push(e));
    h.api.script([
      toolUseTurn({ id: "toolu_1", name: "execute", input: { code: "return await tools.jobs.copy({});" } }),
      textTurn("Copied."),
    ]);
    const outcome = await h.gateway.handleMessage({ sessionKey: "p", surface: "terminal", text: "copy" });
    const progress = events.filter((e) => e.type === "call.progress");
    expect(progress).toEqual([
      {
        type: "call.progress",
        turnId: expect.any(String),
        runId: outcome.runIds[0]!,
        progress: { callId: expect.any(String), toolPath: "jobs.copy", progress: 1, total: 2, message: "copied a.txt" },
      },
    ]);
    const order = events.map((e) => e.type).filter((t) => t === "call.progress" || t === "call.settled");
    expect(order).toEqual(["call.progress", "call.settled"]);
  });
});
