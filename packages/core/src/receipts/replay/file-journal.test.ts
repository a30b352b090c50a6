import { describe, expect, test } from "bun:test";
import { appendFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { describeRunJournalContract } from "../../../test/contracts/run-journal.ts";
import { openFileRunJournal } from "./file-journal.ts";

function fileBackend(dir = makeTempDir()) {
  return Promise.resolve({
    journal: openFileRunJournal(dir),
    reopen: () => fileBackend(dir),
    close: async () => {},
  });
}

describeRunJournalContract("file per run", () => fileBackend());

describe("the run journal as a file per run", () => {
  test("what a batch wrote is read back; a last line cut short by a crash is ignored", async () => {
    const dir = makeTempDir();
    const journal = openFileRunJournal(dir);
    journal.batch(() => {
      journal.begin({ runId: "run_1", seed: [1, 2, 3, 4] });
      journal.clock("run_1", 0, [[1000, 3]]);
      journal.call({ runId: "run_1", position: 0, callId: "call_a", toolPath: "a.b", inputHash: "h0" });
    });
    journal.answer("run_1", 0, { ok: true, json: "1" }, 5);
    appendFileSync(join(dir, "run_1.ndjson"), '["call",1,"call_b","a.c","h1"'); // the kill came mid-write
    const again = openFileRunJournal(dir); // a restarted gateway
    expect(await again.read("run_1")).toEqual({
      runId: "run_1",
      seed: [1, 2, 3, 4],
      resumes: 0,
      clock: [[1000, 3]],
      calls: [
        {
          runId: "run_1",
          position: 0,
          callId: "call_a",
          toolPath: "a.b",
          inputHash: "h0",
          result: { ok: true, json: "1" },
          answeredAt: 5,
        },
      ],
    });
    expect(await again.read("run_2")).toBeUndefined();
  });

  test("a run id that is not a plain name becomes a hashed file name inside the folder", async () => {
    const dir = makeTempDir();
    const journal = openFileRunJournal(dir);
    journal.begin({ runId: "../escape/run", seed: [1, 2, 3, 4] });
    expect(readdirSync(dir)).toEqual([expect.stringMatching(/^h_[0-9a-f]{32}\.ndjson$/)]);
    expect((await journal.read("../escape/run"))!.seed).toEqual([1, 2, 3, 4]);
  });
});
