import { usePostgres } from "@openassistant/testkit/postgres.ts";
import {
  type ApprovalBackend,
  describeApprovalRuleStoreContract,
  describeApprovalStoreContract,
} from "../../../test/contracts/approvals.ts";
import { connectPostgres } from "../../db/postgres/connect.ts";
import { openPostgresApprovals } from "./open.ts";

const pg = usePostgres();

/** A fresh database on the test file's real PostgreSQL; reopening reconnects. */
async function postgresBackend(options: { now: () => number }): Promise<ApprovalBackend> {
  const url = await pg.freshDatabase();
  const open = async (): Promise<ApprovalBackend> => {
    const sql = connectPostgres(url, { max: 2 });
    const stores = await openPostgresApprovals(sql, options);
    const close = async () => {
      await stores.close();
      await sql.close();
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
  return open();
}

describeApprovalStoreContract("postgres", postgresBackend);
describeApprovalRuleStoreContract("postgres", postgresBackend);
