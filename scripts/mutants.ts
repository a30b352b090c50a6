/**
 * Mutants for `bun run mutation` (scripts/mutation.ts): realistic one-line breakages of the
 * security-critical modules. `find` must occur exactly once in `file`; `tests` are the test files
 * that should notice. Mark a mutant `equivalent` (with the reason in `description`) only when no
 * behaviour can tell it apart; docs/testing.md lists every survivor.
 */
export interface Mutant {
  readonly id: string;
  readonly file: string;
  readonly find: string;
  readonly replace: string;
  readonly tests: readonly string[];
  readonly description: string;
  readonly equivalent?: boolean;
}

const INVOKER = [
  "packages/core/src/codemode/tool-invoker.test.ts",
  "packages/core/src/codemode/runner.test.ts",
  "packages/core/src/codemode/runner-adversarial.test.ts",
];
const DISCORD = [
  "apps/gateway/src/surfaces/discord/authorize.test.ts",
  "apps/gateway/src/surfaces/discord/approvals.e2e.test.ts",
  "apps/gateway/src/surfaces/discord/approve-command.e2e.test.ts",
  "apps/gateway/src/surfaces/discord/commands-access.e2e.test.ts",
  "apps/gateway/src/surfaces/discord/rules-commands.e2e.test.ts",
  "apps/gateway/src/surfaces/discord/dm-copies-global-rules.e2e.test.ts",
  "apps/gateway/src/surfaces/discord/late-ack.e2e.test.ts",
];
const RECEIPTS = ["packages/core/src/receipts/hash.test.ts", "packages/core/src/receipts/sqlite-store.test.ts"];
const GROUNDING = ["apps/gateway/src/grounding/claims.test.ts", "apps/gateway/src/grounding/turn-grounding.test.ts"];
const SANDBOX = [
  "packages/core/src/sandbox/limits.test.ts",
  "packages/core/src/sandbox/pool.test.ts",
  "packages/core/src/sandbox/vm-run.test.ts",
];
const POLICY = ["packages/core/src/policy/resolve.test.ts", ...INVOKER, "apps/gateway/src/workspace-tools.e2e.test.ts"];
const REDACT = [
  "packages/core/src/receipts/redact.test.ts",
  "apps/gateway/src/security/tokens.test.ts",
  "apps/gateway/src/security/secrets.e2e.test.ts",
  "apps/gateway/src/surfaces/discord/logger.test.ts",
];

const m = (
  file: string,
  tests: readonly string[],
  list: Array<[id: string, find: string, replace: string, description: string]>,
): Mutant[] => list.map(([id, find, replace, description]) => ({ id, file, find, replace, tests, description }));

/** An equivalent mutant: `find` and `replace` as one pair, the reason in its description. */
const eq = (file: string, tests: readonly string[], id: string, find: string, replace: string) => ({
  id,
  file,
  find,
  replace,
  tests,
  equivalent: true as const,
});

export const MUTANTS: readonly Mutant[] = [
  {
    ...eq(
      "apps/gateway/src/surfaces/discord/interactions.ts",
      DISCORD,
      "interactions-button-no-check",
      `if (!ok) return tell(i, NOT_APPROVER_TEXT);\n    const record = gateway.broker.get(callId);`,
      `const record = gateway.broker.get(callId);`,
    ),
    description:
      "buttons skip the approver check after the acknowledgement. Equivalent: applyDecision repeats the approver check with the same actor and answers with the same private refusal; the only step in between (markShown) records the card message that was clicked, which is that call's card whoever clicked it",
  },
  {
    ...eq(
      "apps/gateway/src/surfaces/discord/interactions.ts",
      DISCORD,
      "interactions-late-ack-no-check",
      `if (ok) applyDecision(gateway, config, actor, callId, kind);`,
      `applyDecision(gateway, config, actor, callId, kind);`,
    ),
    description:
      "a click whose acknowledgement came too late decides for a non-approver. Equivalent: applyDecision repeats the approver check with the same actor and refuses without deciding (late-ack.e2e.test.ts checks a non-approver's late click decides nothing)",
  },
  {
    ...eq(
      "packages/core/src/receipts/redact.ts",
      REDACT,
      "redact-json-form-missed",
      `const forms = [\n    secret,\n    json,\n    JSON.stringify(json).slice(1, -1),\n    uri,`,
      `const forms = [\n    secret,\n    uri,`,
    ),
    description:
      "JSON-escaped secrets (as fixed strings) survive. Equivalent in output: a secret's JSON form differs from the secret only when it holds a backslash, and text with a backslash always goes through the per-character scan, which matches the same JSON escapes (once and twice) first; only the fast path for such text is lost",
  },
  ...m("packages/core/src/codemode/tool-invoker.ts", INVOKER, [
    [
      "invoker-required-flipped",
      `if (policy === "required") {`,
      `if (policy === "auto") {`,
      "approval asked for auto calls instead of required ones",
    ],
    [
      "invoker-denial-ignored",
      `if (verdict.decision === "denied") {`,
      `if (verdict.decision === "denied" && verdict.by !== "system") {`,
      "a system denial (broken channel, abort) lets the call run",
    ],
    [
      "invoker-broken-channel-approves",
      `decision: "denied",\n        by: "system",\n        reason: ctx.redact(\`approval could not be obtained`,
      `decision: "approved",\n        by: "system",\n        reason: ctx.redact(\`approval could not be obtained`,
      "an approval channel that throws counts as an approval",
    ],
    [
      "invoker-policy-deny-only-required",
      `if (policy === "deny") {`,
      `if (policy === "deny" && approval === "required") {`,
      "operator deny rules ignored for auto tools",
    ],
    [
      "invoker-rule-any-session",
      `ctx.standing?.match(path, ctx.sessionId, Date.now())`,
      `ctx.standing?.match(path, undefined, Date.now())`,
      "standing rules matched without the session",
    ],
    [
      "invoker-abort-before-ask",
      `if (ctx.signal.aborted) return { decision: "denied", by: "system", reason: "run cancelled" };`,
      ``,
      "a cancelled run still asks for approval",
    ],
    [
      "invoker-abort-before-start",
      `if (ctx.signal.aborted) {\n      const error = "run cancelled before the tool started";`,
      `if (false) {\n      const error = "run cancelled before the tool started";`,
      "a run cancelled while approval was pending still runs the tool",
    ],
    [
      "invoker-approved-no-decider",
      `append("approved", { decision, decidedBy });`,
      `append("approved", { decision });`,
      "approved receipt without who decided",
    ],
    [
      "invoker-started-no-decider",
      `append("started", {\n      decision,\n      decidedBy,\n      inputPreview`,
      `append("started", {\n      decision,\n      inputPreview`,
      "started receipt without who decided",
    ],
    [
      "invoker-validation-skipped",
      `if (!parsed.ok) {`,
      `if (!parsed.ok && parsed.threw) {`,
      "invalid input reaches run()",
    ],
    ["invoker-wait-not-reset", `ctx.onApprovalWait?.(false);`, ``, "the turn clock stays paused after an approval"],
    [
      "invoker-card-code-unredacted",
      `code: ctx.redact(ctx.code),`,
      `code: ctx.code,`,
      "secrets in the model's code reach approval cards",
    ],
    [
      "invoker-expiry-wrong",
      `expiresAt: now + ctx.approvalTimeoutMs,`,
      `expiresAt: now + ctx.approvalTimeoutMs * 1000,`,
      "approval expiry far beyond the configured timeout",
    ],
    [
      "invoker-error-unredacted",
      `const error = redactBounded(failure.recorded, MAX_MESSAGE_CHARS, ctx.redact);`,
      `const error = failure.recorded;`,
      "a tool's error is recorded with its secrets",
    ],
    [
      "invoker-always-ask-standing-rule",
      `const rule = alwaysAsk ? undefined : ctx.standing?.match(`,
      `const rule = ctx.standing?.match(`,
      "an 'approve always' rule approves a tool that must always ask a person",
    ],
    [
      "invoker-request-preview-unredacted",
      `const requestedPreview = clip(ctx.redact(inputJson), ctx.previewChars);`,
      `const requestedPreview = clip(inputJson, ctx.previewChars);`,
      "the requested receipt keeps secrets from the input",
    ],
  ]),
  ...m("apps/gateway/src/surfaces/discord/authorize.ts", DISCORD, [
    [
      "authorize-approver-or-allowed",
      `return has(config.approvers, actor.userId) || actor.roleIds.some((r) => has(config.approvers, r));`,
      `return has(config.approvers, actor.userId) || has(config.allowedUsers, actor.userId);`,
      "any allowed user may approve even when approvers are set",
    ],
    [
      "authorize-approver-roles-ignored",
      `return has(config.approvers, actor.userId) || actor.roleIds.some((r) => has(config.approvers, r));`,
      `return has(config.approvers, actor.userId);`,
      "approver roles no longer count",
    ],
    [
      "authorize-anyone-may-dm",
      `return userOk ? { ok: true } : { ok: false, reason: "user" };`,
      `return userOk || actor.guildId === null ? { ok: true } : { ok: false, reason: "user" };`,
      "anyone may talk to the bot in DMs",
    ],
    [
      "authorize-guild-check-dropped",
      `if (config.allowedGuilds?.length && !has(config.allowedGuilds, actor.guildId))\n      return { ok: false, reason: "guild" };`,
      ``,
      "guild allowlist ignored",
    ],
  ]),
  ...m("apps/gateway/src/surfaces/discord/approval-actions.ts", DISCORD, [
    [
      "actions-no-approver-check",
      `if (!isApprover(config, actor)) return { allowed: false, text: NOT_APPROVER_TEXT };`,
      ``,
      "/approve (slash or typed) decides for non-approvers",
    ],
    [
      "actions-deny-approves",
      `if (kind === "approve") return { decision: "approved", by };`,
      `if (kind !== "always") return { decision: "approved", by };`,
      "Deny approves",
    ],
    [
      "actions-always-global",
      `scope: config.alwaysScope ?? "session"`,
      `scope: config.alwaysScope ?? "global"`,
      "Approve always defaults to every conversation",
    ],
  ]),
  ...m("apps/gateway/src/surfaces/discord/interactions.ts", DISCORD, [
    [
      "interactions-denyr-no-quick-check",
      `if (quick.guildId !== null && !isApprover(config, quick)) return refuseInteraction(i, NOT_APPROVER_TEXT);`,
      ``,
      "deny-with-reason opens its modal for guild members who are not approvers",
    ],
    [
      "interactions-late-ack-dropped",
      `if (ok) applyDecision(gateway, config, actor, callId, kind);\n      return;`,
      `return;`,
      "a click whose acknowledgement came too late is lost (the run waits until expiry)",
    ],
    [
      "interactions-dm-approver-any",
      `if (isApprover(config, actor) || actor.guildId !== null) return { actor, ok: isApprover(config, actor) };`,
      `if (isApprover(config, actor) || actor.guildId !== null) return { actor, ok: true };`,
      "in guilds everyone counts as an approver for approver-only actions",
    ],
    [
      "interactions-revoke-no-check",
      `if (!(await approverActor(actor)).ok) return refuseInteraction(i, NOT_APPROVER_TEXT);`,
      ``,
      "/rules revoke by non-approvers",
    ],
    [
      "interactions-command-auth-dropped",
      `if (!auth.ok) return refuseInteraction(i, REFUSAL_TEXT);`,
      ``,
      "slash commands from unauthorized users are served",
    ],
    [
      "interactions-receipts-not-approver-only",
      `const APPROVER_COMMANDS = new Set(["reload", "receipts", "approvals"]);`,
      `const APPROVER_COMMANDS = new Set(["reload", "approvals"]);`,
      "/receipts open to every allowed user",
    ],
  ]),
  {
    id: "interactions-modal-no-check",
    file: "apps/gateway/src/surfaces/discord/interactions.ts",
    find: `if (!ok) return tell(i, NOT_APPROVER_TEXT);\n    const reason`,
    replace: `const reason`,
    tests: DISCORD,
    equivalent: true,
    description:
      "deny-with-reason modal submits skip their own approver check. Equivalent: applyDecision repeats the check with the same actor and answers with the same private refusal; the only step in between (markShown) records the card message the form was opened from, which is that call's card whoever opened it (in guilds a non-approver never gets the form: interactions-denyr-no-quick-check)",
  },
  ...m("packages/core/src/receipts/hash.ts", RECEIPTS, [
    ["hash-drops-decidedBy", `    decidedBy: r.decidedBy ?? null,\n`, ``, "who decided is not hashed"],
    ["hash-drops-decision", `    decision: r.decision ?? null,\n`, ``, "the decision is not hashed"],
    ["hash-drops-reason", `    reason: r.reason ?? null,\n`, ``, "the reason is not hashed"],
    [
      "hash-drops-outputPreview",
      `    outputPreview: r.outputPreview ?? null,\n`,
      ``,
      "the output preview is not hashed",
    ],
    ["hash-drops-at", `    at: r.at,\n`, ``, "the time is not hashed"],
    ["hash-drops-sessionId", `    sessionId: r.sessionId ?? null,\n`, ``, "the session is not hashed"],
    ["hash-drops-policy", `    policy: r.policy,\n`, ``, "the effective policy is not hashed"],
    ["hash-not-chained", `hasher.update(prevHash ?? "");`, ``, "the previous hash is not part of the hash"],
    ["hash-no-separator", `hasher.update("\\n");`, ``, "no separator between previous hash and content"],
  ]),
  ...m("packages/core/src/receipts/verify.ts", RECEIPTS, [
    [
      "store-verify-prev-skipped",
      `if (row.prev_hash !== prev) {`,
      `if (row.prev_hash !== prev && count === 0) {`,
      "verification ignores broken links after the first keyed receipt",
    ],
    [
      "store-verify-content-skipped",
      `if (mac !== row.hash)\n        return {`,
      `if (false)\n        return {`,
      "verification ignores edited content",
    ],
    [
      "store-verify-tail-skipped",
      `const head = o.head();\n    if (!head) return undefined;`,
      `const head = o.head();\n    if (!head || head) return undefined;`,
      "the head is never checked: a cut tail is not detected",
    ],
    [
      "store-verify-head-mac-ignored",
      `if (!at || at.hash !== head.mac)`,
      `if (!at)`,
      "the receipt at the head's seq may be a different one",
    ],
    [
      "store-verify-key-id-ignored",
      `if (recorded !== undefined && recorded !== o.keyId)`,
      `if (false)`,
      "a database signed with another key is not named as such",
    ],
    [
      "store-verify-legacy-relabel",
      `if (row.scheme !== SCHEME_KEYED)\n        return`,
      `if (false)\n        return`,
      "a keyed receipt relabelled legacy after the keyed chain began is accepted",
    ],
  ]),
  ...m("packages/core/src/receipts/mac.ts", RECEIPTS, [
    ["mac-drops-at", "seq=${f.seq}\\nat=${f.at}\\n", "seq=${f.seq}\\n", "the keyed MAC does not cover the time"],
    [
      "mac-drops-duration",
      'duration_ms=${f.durationMs === null ? "-" : String(f.durationMs)}\\n`;',
      "`;",
      "the keyed MAC does not cover the duration",
    ],
    [
      "mac-drops-prev",
      "`oa-receipt/v2\\n${prev}\\nseq=",
      "`oa-receipt/v2\\nseq=",
      "the keyed MAC does not chain to the previous receipt",
    ],
    [
      "mac-unkeyed",
      `const h = new Bun.CryptoHasher("sha256", key);`,
      `const h = new Bun.CryptoHasher("sha256");`,
      "the MAC does not use the key (anyone can re-sign an edited row)",
    ],
    [
      "mac-genesis-ignores-legacy",
      "`oa-receipt/v2/genesis\\n${dbId}\\n${legacy.count}\\n${legacy.digest}`",
      "`oa-receipt/v2/genesis\\n${dbId}`",
      "legacy rows can be dropped or rewritten after the keyed chain began",
    ],
  ]),
  ...m("packages/core/src/receipts/schema.ts", RECEIPTS, [
    [
      "schema-drops-decided-by",
      `"decision",\n  "decided_by",\n  "reason",`,
      `"decision",\n  "reason",`,
      "who decided is not covered by the keyed MAC",
    ],
    [
      "schema-drops-input-preview",
      `"reason",\n  "input_preview",\n  "output_preview",`,
      `"reason",\n  "output_preview",`,
      "the input preview is not covered by the keyed MAC",
    ],
    [
      "schema-no-replace-trigger",
      `WHEN EXISTS (SELECT 1 FROM receipts WHERE seq = NEW.seq)`,
      `WHEN 0`,
      "INSERT OR REPLACE may overwrite a receipt",
    ],
  ]),
  ...m(
    "packages/core/src/receipts/chain-writer.ts",
    [...RECEIPTS, "packages/core/src/receipts/chain-writer.test.ts"],
    [
      [
        "store-two-writers-deferred",
        `const written = commitTx.immediate(batch);`,
        `const written = commitTx(batch);`,
        "two writers on one file read the chain's end before taking the write lock",
      ],
      [
        "store-hash-unchained",
        `const hash = receiptMac(key.key, prev, macFields(content));`,
        `const hash = receiptMac(key.key, "", macFields(content));`,
        "appended receipts are not chained",
      ],
      [
        "store-gap-papered",
        `prev = head.mac;\n      seq = Math.max(seq, head.seq);`,
        `prev = last?.hash ?? head.mac;\n      seq = Math.max(seq, head.seq);`,
        "after a cut tail the writer chains on from the database's end, hiding the gap",
      ],
    ],
  ),
  ...m("packages/core/src/receipts/sqlite-store.ts", RECEIPTS, [
    ["store-validation-skipped", `    validateDraft(draft);\n`, ``, "invalid drafts are stored"],
  ]),
  ...m(
    "packages/core/src/receipts/sqlite-store.ts",
    ["packages/core/src/receipts/journal.test.ts"],
    [
      [
        "journal-cleared-unfolded",
        `      if (thread.outstanding() > 0) return clearWhenFolded();\n`,
        ``,
        "the journal is emptied while the worker still holds receipts it has not committed",
      ],
    ],
  ),
  ...m("apps/gateway/src/grounding/ground.ts", GROUNDING, [
    [
      "ground-pending-backs",
      `return candidates.some((r) => status.get(r.callId) === "succeeded");`,
      `return candidates.some((r) => status.get(r.callId) !== "denied");`,
      "a pending or failed call backs a claim",
    ],
    [
      "ground-required-ignored",
      `const candidates = required.length ? required : calls.filter(isActionCall);`,
      `const candidates = calls.filter(isActionCall);`,
      "a succeeded auto call backs a claim although the required one was denied",
    ],
    [
      "ground-read-verb-prefix",
      `return !readVerbs.has(last) && !readVerbs.has(verb);`,
      `return !readVerbs.has(last);`,
      "getEvents-style reads back action claims",
    ],
    [
      "ground-stem-read-backs",
      `return matching.some((r) => isActionCall(r) && status.get(r.callId) === "succeeded");`,
      `return matching.some((r) => status.get(r.callId) === "succeeded");`,
      "a read whose name matches the verb backs the claim",
    ],
    [
      "ground-no-family-backed",
      `if (!matching.length) return hasBackingReceipt(receipts);`,
      `if (!matching.length) return true;`,
      "a claim no tool matches counts as backed",
    ],
  ]),
  ...m("apps/gateway/src/grounding/claims.ts", GROUNDING, [
    [
      "claims-negation-ignored",
      `if (!negated && !attributed)`,
      `if (!attributed)`,
      "negated sentences count as claims",
    ],
    [
      "claims-questions-count",
      `if (!sentence || sentence.endsWith("?")) continue;`,
      `if (!sentence) continue;`,
      "questions count as claims",
    ],
  ]),
  ...m("apps/gateway/src/grounding/render.ts", GROUNDING, [
    [
      "render-no-unverified-mark",
      `if (o.unverified) parts.push(UNVERIFIED_MARK);`,
      ``,
      "the user is not told an answer is unverified",
    ],
  ]),
  ...m("apps/gateway/src/agent/run-turn.ts", GROUNDING, [
    [
      "turn-grounds-last-run-only",
      `return state.runIds.flatMap((id) => state.deps.receipts.byRun(id));`,
      `return state.runIds.slice(-1).flatMap((id) => state.deps.receipts.byRun(id));`,
      "grounding sees only the turn's last run",
    ],
  ]),
  ...m("packages/core/src/sandbox/vm-run.ts", SANDBOX, [
    [
      "vm-cpu-interrupt-off",
      `if (cpuNow() - this.cpuStart > this.limits.cpuMs) {`,
      `if (false) {`,
      "no CPU limit inside the VM (only the watchdog remains)",
    ],
    [
      "vm-cpu-whole-process",
      `const u = process.threadCpuUsage();`,
      `const u = process.cpuUsage();`,
      "the CPU budget counts the child's other threads (JIT, tier-up) against the run",
    ],
    [
      "vm-cpu-after-slice-off",
      `if (this.interrupted || this.cpuMs > this.limits.cpuMs)\n      return`,
      `if (this.interrupted)\n      return`,
      "CPU summed over slices is not checked after a slice",
    ],
    [
      "vm-tool-calls-off-by-one",
      `if (++this.toolCalls > this.limits.maxToolCalls) {`,
      `if (++this.toolCalls >= this.limits.maxToolCalls) {`,
      "the last allowed tool call is refused",
    ],
    [
      "vm-output-chars-not-bytes",
      `const bytes = Buffer.byteLength(text);\n      this.settled`,
      `const bytes = text.length;\n      this.settled`,
      "output limit counts characters, not bytes",
    ],
    [
      "vm-log-limit-loose",
      `if (bytes <= room) {`,
      `if (bytes <= room + 1024) {`,
      "console output may exceed its limit",
    ],
  ]),
  ...m("packages/core/src/sandbox/child-process.ts", SANDBOX, [
    [
      "watchdog-off",
      `if (used > budget) this.kill(`,
      `if (false) this.kill(`,
      "a child stuck in a built-in is never killed",
    ],
    [
      "wall-clock-off",
      `this.kill({ name: "WallClockError", message: msg.wall(limits.wallMs) }),\n        limits.wallMs,\n      );`,
      `this.kill({ name: "WallClockError", message: msg.wall(limits.wallMs) }),\n        limits.wallMs * 1000,\n      );`,
      "the wall-clock limit is not enforced",
    ],
  ]),
  ...m("packages/core/src/sandbox/types.ts", SANDBOX, [
    [
      "default-memory-128",
      `memoryBytes: 64 * 1024 * 1024,`,
      `memoryBytes: 128 * 1024 * 1024,`,
      "the default memory cap is 128 MB",
    ],
  ]),
  ...m("packages/core/src/sandbox/pool.ts", SANDBOX, [
    ["pool-zero-limit-accepted", `value <= 0`, `value < 0`, "a zero limit is accepted"],
  ]),
  {
    id: "pool-ignores-memory-limit",
    file: "packages/core/src/sandbox/pool.ts",
    find: `memoryBytes: baseLimits.memoryBytes,`,
    replace: `memoryBytes: defaultSandboxLimits.memoryBytes,`,
    tests: SANDBOX,
    equivalent: true,
    description:
      "children pre-prepare their first instance with the default memory, not the pool's. Equivalent in behaviour: every run carries its own memoryBytes and the child prepares a matching instance when the pre-prepared one differs (sandbox/child.ts takeVm), so the cap is always the run's; only that first run is slower, which bench/sandbox.bench.ts measures",
  },
  ...m(
    "packages/core/src/tools/names.ts",
    ["packages/core/src/tools/names.test.ts", "packages/core/src/sandbox/adversarial.test.ts"],
    [
      [
        "names-reserved-path-allowed",
        `if (segments.some((s) => Object.hasOwn(RESERVED_TOOL_NAMES, s))) return "reserved";`,
        ``,
        "a tool path with a `then` or `__proto__` segment reaches the sandbox",
      ],
      [
        "names-any-segment",
        `return SEGMENT.test(name);`,
        `return name.length > 0;`,
        "a segment that is not an identifier is accepted",
      ],
    ],
  ),
  ...m("packages/core/src/codemode/tool-invoker.ts", INVOKER, [
    [
      "invoker-timeout-not-signalled",
      "      callAbort.abort(new Error(`${path} did not finish within ${Math.round(timeoutMs / 1000)} s`));\n",
      ``,
      "a timed-out tool is not told to stop (its ctx.signal stays open)",
    ],
    [
      "invoker-timeout-ignored",
      `const deadline = deadlines.add(timeoutMs, () => {`,
      `const deadline = deadlines.add(timeoutMs * 1000, () => {`,
      "the tool timeout is not applied",
    ],
  ]),
  ...m("packages/core/src/sandbox/quickjs.ts", SANDBOX, [
    [
      "wasm-memory-uncapped",
      `maximum: bytes / PAGE`,
      `maximum: (bytes * 4) / PAGE`,
      "the WASM memory may grow past the cap",
    ],
  ]),
  ...m("packages/core/src/receipts/redact.ts", REDACT, [
    [
      "redact-json-char-missed",
      `if (json !== c) encoded.push(json, JSON.stringify(json).slice(1, -1));`,
      ``,
      "secrets with JSON escapes mixed with plain characters survive",
    ],
    [
      "redact-unicode-escape-missed",
      `  if (cp < 0x20 || cp > 0x7e || c === '"' || c === "\\\\")\n    encoded.push(\n      unitsOf(c)\n        .map((u) => \`\\\\u\${u}\`)\n        .join(""),\n    );\n`,
      ``,
      "secrets written with \\uXXXX escapes survive",
    ],
    [
      "redact-encoded-scan-gated-percent",
      `if (encodedRe && (out.includes("%") || out.includes("\\\\")))`,
      `if (encodedRe && out.includes("%"))`,
      "escaped forms are not scanned unless the text holds a %",
    ],
    [
      "redact-percent-missed",
      `patterns.push([...utf8.encode(c)].map((b) => \`%\${hexClass(b.toString(16).padStart(2, "0"))}\`).join(""));`,
      ``,
      "percent-encoded secrets (mixed with plain characters) survive",
    ],
    ["redact-base64-missed", `forms.push(b64, b64.replace(/=+$/, ""));`, ``, "base64 secrets survive"],
    [
      "redact-base64-embedded-missed",
      `for (let offset = 1; offset < 3; offset++) {`,
      `for (let offset = 1; offset < 1; offset++) {`,
      "secrets inside a longer base64 string (Basic auth) survive",
    ],
    [
      "redact-hex-missed",
      `forms.push(hex, hex.toUpperCase());`,
      `forms.push(hex);`,
      "upper-case hex of a secret survives",
    ],
    [
      "redact-min-length-12",
      `const MIN_SECRET_LENGTH = 6;`,
      `const MIN_SECRET_LENGTH = 12;`,
      "secrets of 6–11 characters are not redacted",
    ],
    [
      "redact-shortest-first",
      `const fixedRe = alternation([...literals].sort((a, b) => b.length - a.length).map(escapeRegExp));`,
      `const fixedRe = alternation([...literals].sort((a, b) => a.length - b.length).map(escapeRegExp));`,
      "a secret containing another is only partly redacted",
    ],
    [
      "redact-regexp-unescaped",
      `const fixedRe = alternation([...literals].sort((a, b) => b.length - a.length).map(escapeRegExp));`,
      `const fixedRe = alternation([...literals].sort((a, b) => b.length - a.length));`,
      "secrets with regexp characters are not matched",
    ],
    [
      "redact-discord-shape-missed",
      String.raw`re: /\b[A-Za-z0-9_-]{23,28}\.[A-Za-z0-9_-]{6,7}\.[A-Za-z0-9_-]{27,}/g,`,
      "re: /(?!)/g,",
      "unconfigured Discord tokens survive",
    ],
    [
      "redact-bearer-missed",
      String.raw`{ re: /\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/gi,`,
      "{ re: /(?!)/gi,",
      "bearer tokens survive",
    ],
    [
      "redact-after-clip",
      `if (redact) text = redact(text);\n  return clipText(text, maxChars);`,
      `text = clipText(text, maxChars);\n  return redact ? redact(text) : text;`,
      "previews are cut before redaction (half secrets survive)",
    ],
    [
      "redact-deep-noop",
      `if (scrubbed === json) return value;`,
      `return value;`,
      "events and stored messages keep secrets",
    ],
  ]),
  ...m("packages/core/src/policy/resolve.ts", POLICY, [
    [
      "policy-always-ask-rule-auto",
      `if (alwaysAsk && rule.mode === "auto") continue;`,
      ``,
      "an operator 'auto' rule makes a tool that must always ask run unasked",
    ],
    [
      "policy-always-ask-default",
      `return { mode: alwaysAsk ? "required" : toolApproval };`,
      `return { mode: toolApproval };`,
      "a tool that must always ask runs unasked when its own mode is auto",
    ],
  ]),
  ...m("apps/gateway/src/surfaces/discord/logger.ts", REDACT, [
    [
      "discord-log-unredacted",
      `sink(redact(formatLogLine(message, error)));`,
      `sink(formatLogLine(message, error));`,
      "Discord surface log lines keep tokens",
    ],
  ]),
  ...m(
    "apps/gateway/src/model/sdk-client.ts",
    ["apps/gateway/src/model/client.test.ts"],
    [
      [
        "oauth-beta-typo",
        `export const OAUTH_BETA = "oauth-2025-04-20";`,
        `export const OAUTH_BETA = "oauth-2025-04-02";`,
        "subscription tokens are sent with a wrong beta header",
      ],
    ],
  ),
  ...m("apps/gateway/src/gateway.ts", REDACT, [
    [
      "gateway-discord-token-not-secret",
      `    ...(settings.discord?.token ? [settings.discord.token] : []),\n`,
      ``,
      "the Discord token is not a secret",
    ],
    [
      "gateway-http-token-not-secret",
      `    ...(httpToken ? [httpToken.token] : []),\n`,
      ``,
      "the HTTP token is not a secret",
    ],
  ]),
  // Issue 14: what an approver is shown of an assistant-written tool, and what backs a reminder claim.
  ...m(
    "packages/core/src/codemode/tool-invoker.ts",
    ["packages/core/src/codemode/tool-invoker.test.ts"],
    [
      [
        "invoker-files-unredacted",
        `const text = redact(f.text);`,
        `const text = f.text;`,
        "files shown whole on a card keep secrets",
      ],
      [
        "invoker-files-any-name",
        `!FILE_NAME.test(f.name)`,
        `f.name === ""`,
        "a file named with a path (../x) reaches the surfaces",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/grounding/ground.ts",
    ["apps/gateway/src/grounding/reminders.test.ts"],
    [
      [
        "ground-reminder-file-backs",
        `(isReminderClaim(c) && !integrated) || `,
        ``,
        "a written tool file alone backs 'I'll notify you when …'",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/grounding/reminders.ts",
    ["apps/gateway/src/grounding/reminders.test.ts"],
    [
      [
        "reminders-authoring-counts",
        `(r) => !AUTHORING.test(r.toolPath) && isActionCall(r) && status.get(r.callId) === "succeeded",`,
        `(r) => isActionCall(r) && status.get(r.callId) === "succeeded",`,
        "workspace.writeTool's success counts as the integration's",
      ],
    ],
  ),
  // #25 busy machine: a busy host slows runs down instead of failing them; acknowledgements come first
  ...m(
    "packages/core/src/sandbox/pool.ts",
    ["packages/core/src/sandbox/pool.test.ts"],
    [
      [
        "pool-start-failure-fails-run",
        `if (failedStarts >= SANDBOX_START_TRIES) {`,
        `if (failedStarts >= 1) {`,
        "a child that dies while starting fails the run waiting for it instead of being retried",
      ],
      [
        "pool-queued-run-ignores-abort",
        `signal?.addEventListener("abort", onAbort, { once: true });`,
        ``,
        "a run queued for a child stays queued after its signal aborts",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sandbox/child-process.ts",
    ["packages/core/src/sandbox/pool.test.ts", "packages/core/src/sandbox/limits.test.ts"],
    [
      [
        "watchdog-wall-clock",
        `const used = cpu === undefined || run.cpuBase === null ? busy : cpu - run.cpuBase;`,
        `const used = busy;`,
        "the watchdog kills a child that only waited for a core (wall time, not its CPU time)",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sandbox/proc-cpu.ts",
    ["packages/core/src/codemode/typecheck-limits.test.ts"],
    [
      [
        "typecheck-deadline-wall-clock",
        `const used = cpu === undefined || cpuStart === undefined ? wall : cpu - cpuStart;`,
        `const used = wall;`,
        "a check whose checker waited for a core on a busy host fails as too slow",
      ],
    ],
  ),
  ...m(
    "packages/core/src/receipts/sqlite-store.ts",
    ["packages/core/src/receipts/journal.test.ts"],
    [
      [
        "store-byrun-stale",
        `if ((runStagedAt.get(runId) ?? 0) > committedCount) flush();`,
        ``,
        "a run's receipts not yet committed are missing from byRun (grounding would not see them)",
      ],
      [
        "store-byrun-commits-everyone",
        `if ((runStagedAt.get(runId) ?? 0) > committedCount) flush();`,
        `flush();`,
        "reading a run that is already in blocks to commit every other run's receipts",
      ],
    ],
  ),
  ...m(
    "packages/core/src/receipts/fold-worker.ts",
    ["packages/core/src/receipts/journal.test.ts"],
    [
      [
        "fold-worker-settled-never-woken",
        `Atomics.notify(ctl, CTL_FOLDED);`,
        ``,
        "settled() is never woken when the worker commits (turns wait the full 30 s bound)",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/surfaces/discord/interactions.ts",
    ["apps/gateway/src/surfaces/discord/approver-dm.e2e.test.ts"],
    [
      [
        "interactions-command-lookup-before-ack",
        `if (actor.guildId === null && !isApprover(config, actor)) await i.deferReply({ flags: EPHEMERAL });`,
        ``,
        "a DM command waits for a member lookup (REST) before it is acknowledged",
      ],
    ],
  ),
];
