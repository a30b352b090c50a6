import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import {
  type ApprovalBackend,
  describeApprovalRuleStoreContract,
  describeApprovalStoreContract,
} from "../../../test/contracts/approvals.ts";
import { openDatabase } from "../../db/open.ts";
import { openSqliteApprovals } from "./open.ts";

/** A database file of its own; reopening opens the same file. */
function sqliteBackend(options: { now: () => number }): Promise<ApprovalBackend> {
  const file = join(makeTempDir("oa-approval-contract-"), "db.sqlite");
  const open = (): ApprovalBackend => {
    const db = openDatabase(file);
    const stores = openSqliteApprovals(db, options);
    const close = async () => {
      await stores.close();
      db.close();
    };
    return {
      store: stores.store,
      rules: stores.rules,
      close,
      reopen: async () => {
        await close();
        return open();
      },
    };
  };
  return Promise.resolve(open());
}

describeApprovalStoreContract("sqlite", sqliteBackend);
describeApprovalRuleStoreContract("sqlite", sqliteBackend);
