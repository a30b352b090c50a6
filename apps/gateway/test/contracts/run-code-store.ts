import { expect, test } from "bun:test";
import type { RunCodeStore } from "../../src/console/run-code.ts";

/** Two handles on one database (two gateways on PostgreSQL; one file, reopened, on SQLite). */
export interface RunCodeBackend {
  readonly first: RunCodeStore;
  /** Another handle on the same database. */
  second(): Promise<RunCodeStore>;
  close(): Promise<void>;
}

/** What every backend of the console's run code (console/run-code.ts) does. */
export function describeRunCodeStoreContract(name: string, open: () => Promise<RunCodeBackend>): void {
  test(`${name}: a run's code is read back, by another handle too; the first recorded stays`, async () => {
    const b = await open();
    try {
      b.first.record("run_1", "turn_1", "return await tools.notes.add({ text: 'milk' });");
      b.first.record("run_1", "turn_1", "a second record of the same run is ignored");
      b.first.record("run_2", "turn_2", "return 1;");
      expect(await b.first.codeOf("run_1")).toBe("return await tools.notes.add({ text: 'milk' });");
      const other = await b.second();
      expect(await other.codeOf("run_1")).toBe("return await tools.notes.add({ text: 'milk' });");
      expect(await other.codeOf("run_2")).toBe("return 1;");
      expect(await other.codeOf("run_unknown")).toBeUndefined();
    } finally {
      await b.close();
    }
  });
}
