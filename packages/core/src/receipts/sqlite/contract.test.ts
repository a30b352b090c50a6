import { join } from "node:path";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import {
  describeReceiptLogContract,
  describeReceiptReaderContract,
  type ReceiptBackend,
} from "../../../test/contracts/receipts.ts";
import { openDatabase } from "../../db/open.ts";
import { openSqliteReceipts } from "./ports.ts";

/** A database file and a key dir of its own; reopening opens the same file with the same key. */
function sqliteBackend(options: { now: () => number }): Promise<ReceiptBackend> {
  const dir = makeTempDir("oa-receipt-contract-");
  const open = (): ReceiptBackend => {
    const db = openDatabase(join(dir, "db.sqlite"));
    const ports = openSqliteReceipts(db, { now: options.now, keyDir: join(dir, "config"), journal: true });
    const close = async () => {
      await ports.close();
      db.close();
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
  return Promise.resolve(open());
}

describeReceiptLogContract("sqlite", sqliteBackend);
describeReceiptReaderContract("sqlite", sqliteBackend);
