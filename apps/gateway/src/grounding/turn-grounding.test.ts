/** Grounding uses the receipts of every run of a turn, not only the last one. */
import { afterEach, expect, test } from "bun:test";
import { defineTool, z } from "@openassistant/sdk";
import { textTurn, toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { lastToolResult, startHarness, type Harness } from "../../test/harness.ts";
import { UNVERIFIED_MARK } from "./ground.ts";
import { renderOutcome } from "./render.ts";

let h: Harness | undefined;
afterEach(async () => {
  await h?.close();
  h = undefined;
});

const tools = (addWorks: boolean) => ({
  notes: {
    add: defineTool({
      description: "Add a note",
      approval: "auto" as const,
      args: z.object({ text: z.string() }),
      run: async ({ text }: { text: string }) => {
        if (!addWorks) throw new Error("disk full");
        return { saved: text };
      },
    }),
    list: defineTool({
      description: "List notes",
      approval: "auto" as const,
      args: z.object({}),
      run: async () => ["milk"],
    }),
  },
});

const exec = (id: string, code: string) => toolUseTurn({ id, name: "execute", input: { code } });

test("an action in the first run backs the answer after a second, read-only run; both show in the summary", async () => {
  h = await startHarness({ tools: tools(true) });
  h.api.script([
    exec("toolu_a", `return await tools.notes.add({ text: "milk" });`),
    exec("toolu_b", `return await tools.notes.list({});`),
    textTurn("I added the note. Your notes: milk."),
  ]);
  const outcome = await h.gateway.handleMessage({ sessionKey: "g1", surface: "terminal", text: "add milk, then list" });
  expect(outcome.runIds).toHaveLength(2);
  expect(outcome.unverified).toBe(false);
  expect(outcome.summaryText).toContain("✅ notes.add succeeded");
  expect(outcome.summaryText).toContain("✅ notes.list succeeded");
  expect(renderOutcome(outcome)).not.toContain(UNVERIFIED_MARK);
  // The evidence the model sees after the second run covers the first run too.
  const afterSecondRun = lastToolResult(h.api.messageRequests()[2]!.body).content;
  expect(afterSecondRun).toContain("✅ notes.add succeeded");
  expect(afterSecondRun).toContain("✅ notes.list succeeded");
});

test("an action that failed in the first run is not backed by a later successful read", async () => {
  h = await startHarness({ tools: tools(false) });
  h.api.script([
    exec("toolu_c", `try { return await tools.notes.add({ text: "milk" }); } catch (e) { return String(e); }`),
    exec("toolu_d", `return await tools.notes.list({});`),
    textTurn("I added the note."),
  ]);
  const outcome = await h.gateway.handleMessage({ sessionKey: "g2", surface: "terminal", text: "add milk" });
  expect(outcome.runIds).toHaveLength(2);
  expect(outcome.unverified).toBe(true);
  expect(outcome.summaryText).toContain("❌ notes.add failed: disk full");
  expect(renderOutcome(outcome)).toContain(UNVERIFIED_MARK);
});
