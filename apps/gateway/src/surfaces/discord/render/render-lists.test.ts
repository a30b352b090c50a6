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

test("#35 /receipts names the model that wrote the code on each call's first receipt, backticks made harmless", () => {
  const base = {
    runId: "run_1",
    callId: "c1",
    toolPath: "notes.read",
    approval: "auto",
    policy: "auto",
    at: 0,
    hash: "h",
  };
  const receipts = [
    { ...base, id: "r_1", seq: 1, phase: "requested", model: "openai-compatible:llama3.1:8b" },
    { ...base, id: "r_2", seq: 2, phase: "started", model: "openai-compatible:llama3.1:8b" },
    { ...base, id: "r_3", seq: 3, phase: "requested", callId: "c2", model: "odd`name" },
  ] as unknown as Receipt[];
  const lines = renderReceipts(receipts, { page: 1, runId: "run_1", hasMore: false }).split("\n");
  expect(lines[1]).toContain("requested (code by `openai-compatible:llama3.1:8b`)");
  expect(lines[2]).not.toContain("code by");
  expect(lines[3]).toContain("(code by `odd'name`)");
});
