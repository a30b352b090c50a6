import { expect, test } from "bun:test";
import type { Receipt } from "@openassistant/core/receipts";
import { hasInvisible } from "@openassistant/core/text";
import { renderReceipts } from "./render-lists.ts";

test("/receipts shows invisible and bidi characters in reasons, errors and tool paths escaped", () => {
  const base = {
    runId: "run_1",
    callId: "c1",
    approval: "required",
    policy: "required",
    at: 1_700_000_000_000,
    seq: 1,
    hash: "h",
    prevHash: "p",
  };
  const receipts = [
    {
      ...base,
      id: "r_1",
      toolPath: "mail.send",
      phase: "denied",
      decidedBy: "discord:1",
      reason: "wrong \u202Etxt.exe recipient",
    },
    { ...base, id: "r_2", toolPath: "files.\u200Bdelete", phase: "failed", error: `boom\u2066 ${"e".repeat(200)}` },
  ] as unknown as Receipt[];
  const out = renderReceipts(receipts, { page: 1, hasMore: false });
  expect(hasInvisible(out)).toBe(false);
  expect(out).toContain("wrong \\u{202E}txt.exe recipient");
  expect(out).toContain("`files.\\u{200B}delete`");
  expect(out).toMatch(/boom\\u\{2066\} e+… [\d,]+ more characters/);
});
