import { join } from "node:path";
import { openDatabase } from "@openassistant/core/db";
import { makeTempDir } from "@openassistant/testkit";
import {
  describeSurfaceStoreContract,
  type SurfaceStoreBackend,
} from "../../../../test/contracts/discord-surface-store.ts";
import { createSurfaceStore } from "./surface-store.ts";

describeSurfaceStoreContract("sqlite", async () => {
  const path = join(makeTempDir(), "gw.sqlite");
  const open = (): SurfaceStoreBackend => {
    const db = openDatabase(path);
    return {
      store: createSurfaceStore(db),
      close: async () => db.close(),
      reopen: async () => {
        db.close();
        return open();
      },
    };
  };
  return open();
});
