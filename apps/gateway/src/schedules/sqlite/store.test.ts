import { openDatabase } from "@openassistant/core/db";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { join } from "node:path";
import { describeScheduleStoreContract } from "../../../test/contracts/schedule-store.ts";
import { createSqliteScheduleStore } from "./store.ts";

describeScheduleStoreContract("sqlite", async () => {
  const path = join(makeTempDir("oa-schedules-"), "db.sqlite");
  const handles = [openDatabase(path)];
  return {
    first: createSqliteScheduleStore(handles[0]!),
    async second() {
      const db = openDatabase(path);
      handles.push(db);
      return createSqliteScheduleStore(db);
    },
    async close() {
      for (const db of handles) db.close();
    },
  };
});
