import { openDatabase } from "@openassistant/core/db";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { join } from "node:path";
import { describeRunCodeStoreContract } from "../../../test/contracts/run-code-store.ts";
import { createRunCodeStore } from "./run-code.ts";

describeRunCodeStoreContract("sqlite", async () => {
  const path = join(makeTempDir("oa-run-code-"), "db.sqlite");
  const handles = [openDatabase(path)];
  return {
    first: createRunCodeStore(handles[0]!),
    async second() {
      const db = openDatabase(path);
      handles.push(db);
      return createRunCodeStore(db);
    },
    async close() {
      for (const db of handles) db.close();
    },
  };
});
