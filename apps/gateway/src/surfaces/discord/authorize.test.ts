import { describe, expect, test } from "bun:test";
import { approverUserIds, authorizeChat, createRefusalLimiter, isApprover } from "./authorize.ts";

const base = { token: "t" };
const dm = (userId: string) => ({ userId, roleIds: [], guildId: null, channelId: "dm1" });

describe("authorizeChat", () => {
  test("fails closed when nothing is configured", () => {
    expect(authorizeChat(base, dm("u1"))).toEqual({ ok: false, reason: "user" });
  });
  test("allowed users may DM; others may not", () => {
    const c = { ...base, allowedUsers: ["u1"] };
    expect(authorizeChat(c, dm("u1")).ok).toBe(true);
    expect(authorizeChat(c, dm("u2"))).toEqual({ ok: false, reason: "user" });
  });
  test("roles grant access in guilds", () => {
    const c = { ...base, allowedRoles: ["r1"] };
    expect(authorizeChat(c, { userId: "u9", roleIds: ["r0", "r1"], guildId: "g1", channelId: "c1" }).ok).toBe(true);
    expect(authorizeChat(c, { userId: "u9", roleIds: ["r0"], guildId: "g1", channelId: "c1" }).ok).toBe(false);
  });
  test("guild and channel allowlists restrict where; threads inherit their parent channel", () => {
    const c = { ...base, allowedUsers: ["u1"], allowedGuilds: ["g1"], allowedChannels: ["c1"] };
    expect(authorizeChat(c, { userId: "u1", roleIds: [], guildId: "g2", channelId: "c1" })).toEqual({
      ok: false,
      reason: "guild",
    });
    expect(authorizeChat(c, { userId: "u1", roleIds: [], guildId: "g1", channelId: "c2" })).toEqual({
      ok: false,
      reason: "channel",
    });
    expect(
      authorizeChat(c, { userId: "u1", roleIds: [], guildId: "g1", channelId: "t1", parentChannelId: "c1" }).ok,
    ).toBe(true);
    expect(authorizeChat(c, dm("u1")).ok).toBe(true);
  });
});

describe("empty lists, as the config's defaults give them", () => {
  test("allow nobody: empty user, role and approver lists let no one talk or approve", () => {
    const c = { ...base, allowedUsers: [], allowedRoles: [], allowedGuilds: [], allowedChannels: [], approvers: [] };
    expect(authorizeChat(c, dm("u1"))).toEqual({ ok: false, reason: "user" });
    expect(authorizeChat(c, { userId: "u1", roleIds: ["r1"], guildId: "g1", channelId: "c1" })).toEqual({
      ok: false,
      reason: "user",
    });
    expect(isApprover(c, { userId: "u1", roleIds: ["r1"] })).toBe(false);
    expect(approverUserIds(c)).toEqual([]);
  });
});

describe("isApprover", () => {
  test("defaults to the allowed users and roles", () => {
    const c = { ...base, allowedUsers: ["u1"], allowedRoles: ["r1"] };
    expect(isApprover(c, { userId: "u1", roleIds: [] })).toBe(true);
    expect(isApprover(c, { userId: "u2", roleIds: ["r1"] })).toBe(true);
    expect(isApprover(c, { userId: "u2", roleIds: [] })).toBe(false);
  });
  test("explicit approvers replace the default", () => {
    const c = { ...base, allowedUsers: ["u1", "u2"], approvers: ["u2", "r9"] };
    expect(isApprover(c, { userId: "u1", roleIds: [] })).toBe(false);
    expect(isApprover(c, { userId: "u2", roleIds: [] })).toBe(true);
    expect(isApprover(c, { userId: "u3", roleIds: ["r9"] })).toBe(true);
    expect(approverUserIds(c)).toEqual(["u2", "r9"]);
  });
});

describe("refusal limiter", () => {
  test("one refusal per user per window", () => {
    let t = 0;
    const l = createRefusalLimiter(1000, () => t);
    expect(l.shouldRefuse("a")).toBe(true);
    expect(l.shouldRefuse("a")).toBe(false);
    expect(l.shouldRefuse("b")).toBe(true);
    t = 1000;
    expect(l.shouldRefuse("a")).toBe(true);
  });
});
