import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { openDatabase } from "@openassistant/core/db";
import { makeTempDir } from "@openassistant/testkit";
import { createSurfaceStore } from "./surface-store.ts";

describe("surface store", () => {
  test("card refs and conversation generations survive reopening the database", async () => {
    const path = join(makeTempDir(), "gw.sqlite");
    let db = openDatabase(path);
    let store = createSurfaceStore(db);
    await store.addCard({ callId: "c1", channelId: "ch1", messageId: "m1", kind: "conversation" });
    await store.addCard({ callId: "c1", channelId: "dm1", messageId: "m2", kind: "dm" });
    await store.addCard({ callId: "c1", channelId: "dm1", messageId: "m2", kind: "dm" });
    expect(await store.sessionKey("dm:u1")).toBe("discord:dm:u1");
    expect(await store.newConversation("dm:u1")).toBe("discord:dm:u1:1");
    expect(await store.newConversation("dm:u1")).toBe("discord:dm:u1:2");
    db.close();

    db = openDatabase(path);
    store = createSurfaceStore(db);
    expect((await store.cards("c1")).map((c) => c.messageId).sort()).toEqual(["m1", "m2"]);
    expect(await store.cards("nope")).toEqual([]);
    expect(await store.sessionKey("dm:u1")).toBe("discord:dm:u1:2");
    expect(await store.sessionKey("thread:t1")).toBe("discord:thread:t1");
    db.close();
  });
});
