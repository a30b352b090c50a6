/**
 * The secrets redactor: a 100 KB text with 10 configured secrets, against a baseline measured in
 * the same run (the previous redactor: raw and JSON-escaped forms only, one literal alternation).
 * Then the per-field approval preview, which redacts and renders a tool's input.
 */
import { approvalInput, previewInputJson } from "../packages/core/src/approvals/input-preview.ts";
import { createRedactor } from "../packages/core/src/receipts/redact.ts";
import { bench, fmtMs, printTable } from "./lib.ts";

// A fixed pseudo-random sequence, so every run redacts the same text.
let seed = 42;
const next = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const token = (n: number) => Array.from({ length: n }, () => ALNUM[Math.floor(next() * ALNUM.length)]).join("");

const secrets = Array.from({ length: 10 }, (_, i) => `${token(4)}-${token(16 + i * 4)}`);
// Prose, JSON with escapes, URLs with percent-encoding, base64 and hex: every scan path is taken.
const pieces = [
  "the quick brown fox jumps over the lazy dog",
  '{"path":"C:\\\\Users\\\\me","quote":"\\"hi\\"","n":12}',
  "https://example.com/search?q=caf%C3%A9+au+lait&page=2",
  "QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo=",
  "0123456789abcdef0123456789ABCDEF",
  "Authorization: Basic dXNlcjpwYXNzd29yZA==",
];
let text = "";
while (text.length < 100_000) text += `${pieces[Math.floor(next() * pieces.length)]} `;
text = text.slice(0, 100_000);
const plainText = text.replace(/[%\\]/g, "_");
const preview = text.slice(0, 500);

const redact = createRedactor(secrets);
const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
const previousRe = new RegExp(
  secrets
    .flatMap((s) => [s, JSON.stringify(s).slice(1, -1)])
    .sort((a, b) => b.length - a.length)
    .map(escapeRegExp)
    .join("|"),
  "g",
);
const previous = (t: string) => t.replace(previousRe, "[redacted]");

// The texts really contain secrets in several forms, so the scans do replace something.
const leaky = `${text.slice(0, 50_000)} ${encodeURIComponent(`${secrets[3]} x`)} ${Buffer.from(`u:${secrets[7]}`).toString("base64")} ${Buffer.from(secrets[9]!).toString("hex")} ${text.slice(50_000)}`;
if (redact(leaky).includes(secrets[3]!.slice(5)) || !redact(leaky).includes("[redacted]"))
  throw new Error("redactor missed a secret");

const rows = [
  await bench("baseline: previous redactor (raw + JSON-escaped only), 100 KB", () => previous(text), {
    iterations: 100,
  }),
  await bench("createRedactor, 100 KB with % and \\ (all forms scanned)", () => redact(text), { iterations: 100 }),
  await bench("createRedactor, 100 KB without % or \\ (fixed forms only)", () => redact(plainText), {
    iterations: 100,
  }),
  await bench("createRedactor, 100 KB with 3 encoded secrets in it", () => redact(leaky), { iterations: 100 }),
  await bench("createRedactor, a 500-character preview", () => redact(preview), { iterations: 2000, warmup: 200 }),
  await bench("createRedactor: building it for 10 secrets", () => createRedactor(secrets), { iterations: 100 }),
];
printTable(
  "Secret redaction (10 secrets)",
  rows.map((r) => ({ what: r.name, median: fmtMs(r.medianMs), p95: fmtMs(r.p95Ms) })),
);

// The approval preview built from a tool's input (redaction included), and the card's rendering of it.
const small = {
  title: "Dentist",
  startsAt: "2030-01-02T09:00:00Z",
  notes: "bring the forms",
  attendees: ["a@example.com", "b@example.com"],
};
const wide = Object.fromEntries(Array.from({ length: 300 }, (_, i) => [`field_${i}`, `value ${i} ${"v".repeat(200)}`]));
const wideJson = approvalInput(wide, redact, 500).inputJson;
const previewRows = [
  await bench("approvalInput: 5-field input (redact + JSON + preview)", () => approvalInput(small, redact, 500), {
    iterations: 2000,
    warmup: 200,
  }),
  await bench("approvalInput: 300 fields of 200 characters", () => approvalInput(wide, redact, 500), {
    iterations: 200,
  }),
  await bench(
    "card preview (3,500 characters) from a 300-field input.json",
    () => previewInputJson(wideJson, { maxChars: 3500 }),
    { iterations: 200 },
  ),
];
printTable(
  "Approval input preview (per field)",
  previewRows.map((r) => ({ what: r.name, median: fmtMs(r.medianMs), p95: fmtMs(r.p95Ms) })),
);
