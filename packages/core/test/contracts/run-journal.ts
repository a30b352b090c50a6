import { describe, expect, test } from "bun:test";
import type { RunJournal } from "../../src/receipts/replay/port.ts";

/** One backend's run journal, opened fresh; `reopen` opens the same data again (a restarted gateway). */
export interface RunJournalBackend {
  readonly journal: RunJournal;
  reopen(): Promise<RunJournalBackend>;
  close(): Promise<void>;
}

export type MakeRunJournalBackend = () => Promise<RunJournalBackend>;

async function withBackend(make: MakeRunJournalBackend, body: (b: RunJournalBackend) => Promise<void>) {
  const b = await make();
  try {
    await body(b);
  } finally {
    await b.close();
  }
}

/**
 * What any run journal must do (receipts/replay/port.ts): a batch is stored when it returns (or when
 * its promise resolves) and read back by a restarted gateway; the first seed, answer and clock value
 * are never replaced; a call takes over a position that has no answer.
 */
export function describeRunJournalContract(
  name: string,
  make: MakeRunJournalBackend,
  options: { readonly keepsContext?: boolean } = {},
): void {
  const keepsContext = options.keepsContext ?? true;
  describe(`run journal contract: ${name}`, () => {
    test(`what a batch wrote is read back after a restart${keepsContext ? ", its context included" : ""}`, async () => {
      await withBackend(make, async (b) => {
        const { journal } = b;
        await journal.batch(() => {
          journal.begin({
            runId: "run_1",
            seed: [1, 2, 3, 4],
            context: { code: "await tools.a.b({})", sessionId: "s1", requestedBy: "u1" },
          });
          journal.clock("run_1", 0, [[1000, 3]]);
          journal.call({ runId: "run_1", position: 0, callId: "call_a", toolPath: "a.b", inputHash: "h0" });
        });
        await journal.batch(() => journal.answer("run_1", 0, { ok: true, json: '"x\\u0000y"' }, 5));
        const again = await b.reopen();
        try {
          expect(await again.journal.read("run_1")).toEqual({
            runId: "run_1",
            seed: [1, 2, 3, 4],
            ...(keepsContext ? { context: { code: "await tools.a.b({})", sessionId: "s1", requestedBy: "u1" } } : {}),
            resumes: 0,
            clock: [[1000, 3]],
            calls: [
              {
                runId: "run_1",
                position: 0,
                callId: "call_a",
                toolPath: "a.b",
                inputHash: "h0",
                result: { ok: true, json: '"x\\u0000y"' },
                answeredAt: 5,
              },
            ],
          });
          expect(await again.journal.read("run_2")).toBeUndefined();
        } finally {
          await again.close();
        }
      });
    });

    test("a recorded answer, seed or clock value is never replaced; a position without an answer is taken over", async () => {
      await withBackend(make, async ({ journal }) => {
        await journal.batch(() => {
          journal.begin({ runId: "r", seed: [1, 1, 1, 1] });
          journal.begin({ runId: "r", seed: [2, 2, 2, 2] });
          journal.call({ runId: "r", position: 0, callId: "c0", toolPath: "t", inputHash: "h" });
          journal.answer("r", 0, { ok: true, json: "1" }, 1);
          journal.answer("r", 0, { ok: true, json: "2" }, 2);
          journal.call({ runId: "r", position: 0, callId: "c0-again", toolPath: "t", inputHash: "h" });
          journal.call({ runId: "r", position: 1, callId: "c1", toolPath: "t", inputHash: "h" });
          journal.call({ runId: "r", position: 1, callId: "c1-again", toolPath: "t", inputHash: "h" });
          journal.clock("r", 0, [[7, 2]]);
          journal.clock("r", 0, [
            [8, 2],
            [9, 1],
          ]);
          journal.resumed("r");
        });
        const run = (await journal.read("r"))!;
        expect(run.seed).toEqual([1, 1, 1, 1]);
        expect(run.calls.map((c) => [c.callId, c.result])).toEqual([
          ["c0", { ok: true, json: "1" }],
          ["c1-again", undefined],
        ]);
        expect(run.clock).toEqual([
          [7, 2],
          [9, 1],
        ]);
        expect(run.resumes).toBe(1);
      });
    });

    test("batches made one after another without waiting keep their order; runs stay apart", async () => {
      await withBackend(make, async ({ journal }) => {
        const commits: Array<void | Promise<void>> = [];
        for (const runId of ["a", "b"]) {
          commits.push(journal.batch(() => journal.begin({ runId, seed: [0, 0, 0, runId === "a" ? 1 : 2] })));
          for (let position = 0; position < 5; position++) {
            commits.push(
              journal.batch(() =>
                journal.call({ runId, position, callId: `${runId}${position}`, toolPath: "t", inputHash: "h" }),
              ),
            );
            // The answer's batch is made before the call's committed: it must not land first.
            commits.push(journal.batch(() => journal.answer(runId, position, { ok: true, json: `${position}` }, 1)));
          }
        }
        await Promise.all(commits);
        for (const runId of ["a", "b"]) {
          const run = (await journal.read(runId))!;
          expect(run.seed).toEqual([0, 0, 0, runId === "a" ? 1 : 2]);
          expect(run.calls.map((c) => [c.callId, c.result?.ok && c.result.json])).toEqual(
            [0, 1, 2, 3, 4].map((p) => [`${runId}${p}`, `${p}`]),
          );
        }
      });
    });

    test("a write outside a batch is kept too", async () => {
      await withBackend(make, async ({ journal }) => {
        journal.begin({ runId: "solo", seed: [5, 6, 7, 8] });
        journal.resumed("solo");
        expect(await journal.read("solo")).toMatchObject({ seed: [5, 6, 7, 8], resumes: 1 });
      });
    });
  });
}
