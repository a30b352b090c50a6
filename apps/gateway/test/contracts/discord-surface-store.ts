import { expect, test } from "bun:test";
import type { SurfaceStore } from "../../src/surfaces/discord/store.ts";

/** A store on a fresh database; `reopen` closes it and opens another on the same database. */
export interface SurfaceStoreBackend {
  readonly store: SurfaceStore;
  reopen(): Promise<SurfaceStoreBackend>;
  close(): Promise<void>;
}

/** What every backend of the Discord surface's store (surfaces/discord/store.ts) does. */
export function describeSurfaceStoreContract(name: string, open: () => Promise<SurfaceStoreBackend>): void {
  test(`${name}: card refs and conversation generations survive reopening the database`, async () => {
    let b = await open();
    try {
      let store = b.store;
      await store.addCard({ callId: "c1", channelId: "ch1", messageId: "m1", kind: "conversation" });
      await store.addCard({ callId: "c1", channelId: "dm1", messageId: "m2", kind: "dm" });
      await store.addCard({ callId: "c1", channelId: "dm1", messageId: "m2", kind: "dm" });
      expect(await store.sessionKey("dm:u1")).toBe("discord:dm:u1");
      expect(await store.newConversation("dm:u1")).toBe("discord:dm:u1:1");
      expect(await store.newConversation("dm:u1")).toBe("discord:dm:u1:2");
      b = await b.reopen();
      store = b.store;
      expect((await store.cards("c1")).map((c) => c.messageId).sort()).toEqual(["m1", "m2"]);
      expect(await store.cards("nope")).toEqual([]);
      expect(await store.sessionKey("dm:u1")).toBe("discord:dm:u1:2");
      expect(await store.sessionKey("thread:t1")).toBe("discord:thread:t1");
    } finally {
      await b.close();
    }
  });

  test(`${name}: a card being posted gets its id; an unposted copy is dropped; final cards leave the unfinished list`, async () => {
    const b = await open();
    try {
      const store = b.store;
      await store.addCard({ callId: "c2", channelId: "ch1", messageId: "", kind: "conversation" });
      await store.addCard({ callId: "c2", channelId: "dm9", messageId: "", kind: "dm" });
      await store.addCard({ callId: "c2", channelId: "ch1", messageId: "m7", kind: "conversation" });
      // A second empty add (a retry) keeps the posted id.
      await store.addCard({ callId: "c2", channelId: "ch1", messageId: "", kind: "conversation" });
      await store.dropCard("c2", "dm9");
      await store.dropCard("c2", "ch1"); // posted: not dropped
      expect(await store.cards("c2")).toEqual([
        { callId: "c2", channelId: "ch1", messageId: "m7", kind: "conversation" },
      ]);
      await store.addCard({ callId: "c3", channelId: "ch1", messageId: "m8", kind: "conversation" });
      expect((await store.unfinishedCallIds()).sort()).toEqual(["c2", "c3"]);
      await store.markFinal("c2");
      expect(await store.unfinishedCallIds()).toEqual(["c3"]);
    } finally {
      await b.close();
    }
  });

  test(`${name}: a message is claimed once, also across reopening the database`, async () => {
    let b = await open();
    try {
      expect(await b.store.claimMessage("m100")).toBe(true);
      expect(await b.store.claimMessage("m100")).toBe(false);
      expect(await b.store.claimMessage("m101")).toBe(true);
      b = await b.reopen();
      expect(await b.store.claimMessage("m100")).toBe(false);
      expect(await b.store.claimMessage("m102")).toBe(true);
    } finally {
      await b.close();
    }
  });
}
