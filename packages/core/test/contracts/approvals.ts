import { describe, expect, test } from "bun:test";
import type { ApprovalRuleStore, ApprovalStore } from "../../src/approvals/port.ts";
import type { ApprovalRequest } from "../../src/approvals/types.ts";

/** One backend's approval stores, opened fresh; `reopen` closes them and opens the same data again. */
export interface ApprovalBackend {
  readonly store: ApprovalStore;
  readonly rules: ApprovalRuleStore;
  reopen(): Promise<ApprovalBackend>;
  close(): Promise<void>;
}

/** Opens empty stores; rules are stamped by `now` (epoch ms). */
export type MakeApprovalBackend = (options: { readonly now: () => number }) => Promise<ApprovalBackend>;

const request = (callId: string, over: Partial<ApprovalRequest> = {}): ApprovalRequest => ({
  callId,
  runId: "run_1",
  toolPath: "mail.send",
  description: "Sends a mail",
  inputPreview: 'to: "a@b.c"',
  requestedAt: 1_000,
  expiresAt: 61_000,
  ...over,
});

async function withBackend(
  make: MakeApprovalBackend,
  body: (b: ApprovalBackend, clock: { t: number }) => Promise<void>,
) {
  const clock = { t: 5_000 };
  const b = await make({ now: () => clock.t });
  try {
    await body(b, clock);
  } finally {
    await b.close();
  }
}

/** What any approval store must do (approvals/port.ts): a row before anyone is asked; the first decision wins. */
export function describeApprovalStoreContract(name: string, make: MakeApprovalBackend): void {
  describe(`approval store contract: ${name}`, () => {
    test("a request reads back whole, optional fields included, and is pending until decided", async () => {
      await withBackend(make, async ({ store }) => {
        const full = request("c1", {
          sessionId: "ses_1",
          inputJson: '{"to":"a@b.c"}',
          summary: "one mail",
          files: [{ name: "body.txt", text: "hello\n" }],
          code: "await tools.mail.send({ to: 'a@b.c' })",
          requestedBy: "discord:1",
        });
        expect(await store.insert(full)).toEqual({ inserted: true, record: { request: full, status: "pending" } });
        expect(await store.get("c1")).toEqual({ request: full, status: "pending" });
        await store.insert(request("c2"));
        expect(await store.get("c2")).toEqual({ request: request("c2"), status: "pending" });
        expect(await store.get("c_nope")).toBeUndefined();
      });
    });

    test("inserting a known call keeps the stored row", async () => {
      await withBackend(make, async ({ store }) => {
        await store.insert(request("c1"));
        const again = await store.insert(request("c1", { description: "something else" }));
        expect(again).toEqual({ inserted: false, record: { request: request("c1"), status: "pending" } });
      });
    });

    test("the first decision wins; later ones change nothing; an unknown call is not decided", async () => {
      await withBackend(make, async ({ store }) => {
        await store.insert(request("c1"));
        expect(await store.decide("c1", { decision: "denied", by: "discord:1", reason: "not now" }, 2_000)).toBe(true);
        expect(await store.decide("c1", { decision: "approved", by: "discord:2" }, 3_000)).toBe(false);
        expect(await store.get("c1")).toEqual({
          request: request("c1"),
          status: "denied",
          decision: { decision: "denied", by: "discord:1", reason: "not now" },
          decidedAt: 2_000,
        });
        expect(await store.decide("c_nope", { decision: "approved", by: "x" }, 1)).toBe(false);
      });
    });

    test("of many decisions at once on one call exactly one wins", async () => {
      await withBackend(make, async ({ store }) => {
        await store.insert(request("c1"));
        const wins = await Promise.all(
          Array.from({ length: 10 }, (_, i) => store.decide("c1", { decision: "approved", by: `op${i}` }, 2_000 + i)),
        );
        expect(wins.filter(Boolean)).toHaveLength(1);
        expect((await store.get("c1"))!.decision!.by).toBe(`op${wins.indexOf(true)}`);
      });
    });

    test("listPending: the undecided requests, oldest first; decisions and requests survive a reopen", async () => {
      const first = await make({ now: () => 1 });
      await first.store.insert(request("c3", { requestedAt: 3_000 }));
      await first.store.insert(request("c1", { requestedAt: 1_000 }));
      await first.store.insert(request("c2", { requestedAt: 2_000 }));
      await first.store.decide("c2", { decision: "approved", by: "op" }, 4_000);
      expect((await first.store.listPending()).map((r) => r.request.callId)).toEqual(["c1", "c3"]);
      const again = await first.reopen();
      try {
        expect((await again.store.listPending()).map((r) => r.request.callId)).toEqual(["c1", "c3"]);
        expect((await again.store.get("c2"))!.status).toBe("approved");
      } finally {
        await again.close();
      }
    });
  });
}

/** What any "approve always" rule store must do (approvals/port.ts). */
export function describeApprovalRuleStoreContract(name: string, make: MakeApprovalBackend): void {
  describe(`approval rule store contract: ${name}`, () => {
    test("add returns the stored rule; match honours scope, session, expiry, revocation and one-segment `*`", async () => {
      await withBackend(make, async ({ rules }, clock) => {
        const session = await rules.add({
          toolPath: "calendar.create",
          scope: "session",
          sessionId: "s1",
          createdBy: "alice",
          expiresAt: 10_000,
        });
        expect(session).toEqual({
          id: session.id,
          toolPath: "calendar.create",
          scope: "session",
          sessionId: "s1",
          createdBy: "alice",
          createdAt: 5_000,
          expiresAt: 10_000,
        });
        const global = await rules.add({ toolPath: "weather.*", scope: "global", createdBy: "bob" });
        expect(global.id).not.toBe(session.id);
        expect((await rules.match("calendar.create", "s1", 9_999))?.id).toBe(session.id);
        expect(await rules.match("calendar.create", "s2", 9_999)).toBeUndefined();
        expect(await rules.match("calendar.create", undefined, 9_999)).toBeUndefined();
        expect(await rules.match("calendar.create", "s1", 10_000)).toBeUndefined();
        expect((await rules.match("weather.get", undefined, 10 ** 12))?.id).toBe(global.id);
        expect(await rules.match("weather.hourly.get", "s1", 0)).toBeUndefined();
        clock.t = 6_000;
        expect(await rules.revoke(global.id, "carol")).toBe(true);
        expect(await rules.revoke(global.id, "carol")).toBe(false);
        expect(await rules.revoke("ar_99999", "carol")).toBe(false);
        expect(await rules.revoke("bogus", "carol")).toBe(false);
        expect(await rules.match("weather.get", "s1", 6_001)).toBeUndefined();
        expect((await rules.list()).map((r) => [r.id, r.revokedBy ?? null, r.revokedAt ?? null])).toEqual([
          [session.id, null, null],
          [global.id, "carol", 6_000],
        ]);
        expect((await rules.list({ activeAt: 7_000 })).map((r) => r.id)).toEqual([session.id]);
        expect(await rules.list({ activeAt: 10_000 })).toEqual([]);
      });
    });

    test("the newest matching rule wins", async () => {
      await withBackend(make, async ({ rules }) => {
        await rules.add({ toolPath: "mail.**", scope: "global", createdBy: "a" });
        await rules.add({ toolPath: "mail.send", scope: "session", sessionId: "s", createdBy: "b" });
        expect((await rules.match("mail.send", "s", 0))?.createdBy).toBe("b");
        expect((await rules.match("mail.send", "t", 0))?.createdBy).toBe("a");
      });
    });

    test("a bad rule is refused with the field named", async () => {
      await withBackend(make, async ({ rules }) => {
        await expect(rules.add({ toolPath: "x.y", scope: "session", createdBy: "a" })).rejects.toThrow(
          /session-scoped rule needs the sessionId/,
        );
        await expect(rules.add({ toolPath: "", scope: "global", createdBy: "a" })).rejects.toThrow(/toolPath/);
        await expect(rules.add({ toolPath: "x.y", scope: "forever" as "global", createdBy: "a" })).rejects.toThrow(
          /scope must be/,
        );
        await expect(rules.add({ toolPath: "x.y", scope: "global", createdBy: "" })).rejects.toThrow(/createdBy/);
        expect(await rules.list()).toEqual([]);
      });
    });

    test("rules survive a reopen", async () => {
      const first = await make({ now: () => 1 });
      const rule = await first.rules.add({ toolPath: "notes.write", scope: "global", createdBy: "a" });
      const again = await first.reopen();
      try {
        expect((await again.rules.match("notes.write", undefined, 2))?.id).toBe(rule.id);
      } finally {
        await again.close();
      }
    });
  });
}
