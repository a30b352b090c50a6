import { join } from "node:path";
import { usePostgres } from "@openassistant/testkit/postgres.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import {
  describeReceiptLogContract,
  describeReceiptReaderContract,
  type ReceiptBackend,
} from "../../../test/contracts/receipts.ts";
import { connectPostgres } from "../../db/postgres/connect.ts";
import { openPostgresReceipts } from "./ports.ts";

const pg = usePostgres();

/** A fresh database on the test file's real PostgreSQL and a key dir of its own; reopening reconnects. */
async function postgresBackend(options: { now: () => number }): Promise<ReceiptBackend> {
  const url = await pg.freshDatabase();
  const keyDir = join(makeTempDir("oa-pg-receipts-"), "config");
  const open = async (): Promise<ReceiptBackend> => {
    const sql = connectPostgres(url, { max: 2 });
    const ports = await openPostgresReceipts(sql, { now: options.now, keyDir });
    const close = async () => {
      await ports.close();
      await sql.close();
    };
    return {
      log: ports,
      reader: ports,
      close,
      reopen: async () => {
        await close();
        return open();
      },
    };
  };
  return open();
}

describeReceiptLogContract("postgres", postgresBackend);
describeReceiptReaderContract("postgres", postgresBackend);
