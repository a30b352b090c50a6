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
  "apps/gateway/src/surfaces/discord/approvals/approvals.e2e.test.ts",
  "apps/gateway/src/surfaces/discord/commands/approve-command.e2e.test.ts",
  "apps/gateway/src/surfaces/discord/commands/commands-access.e2e.test.ts",
  "apps/gateway/src/surfaces/discord/commands/rules-commands.e2e.test.ts",
  "apps/gateway/src/surfaces/discord/approvals/dm-copies-global-rules.e2e.test.ts",
  "apps/gateway/src/surfaces/discord/approvals/late-ack.e2e.test.ts",
];
const RECEIPTS = ["packages/core/src/receipts/hash.test.ts", "packages/core/src/receipts/sqlite/store.test.ts"];
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
      "apps/gateway/src/surfaces/discord/commands/interactions.ts",
      DISCORD,
      "interactions-button-no-check",
      `if (!ok) return tell(i, NOT_APPROVER_TEXT);\n    const record = await gateway.broker.get(callId);`,
      `const record = await gateway.broker.get(callId);`,
    ),
    description:
      "buttons skip the approver check after the acknowledgement. Equivalent: applyDecision repeats the approver check with the same actor and answers with the same private refusal; the only step in between (markShown) records the card message that was clicked, which is that call's card whoever clicked it",
  },
  {
    ...eq(
      "apps/gateway/src/surfaces/discord/commands/interactions.ts",
      DISCORD,
      "interactions-late-ack-no-check",
      `if (ok) await applyDecision(gateway, config, life, actor, callId, kind);`,
      `await applyDecision(gateway, config, life, actor, callId, kind);`,
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
      `if (call.policy !== "required") return call;`,
      `if (call.policy !== "auto") return call;`,
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
      `decision: "denied",\n      by: "system",\n      reason: ctx.redact(\`approval could not be obtained`,
      `decision: "approved",\n      by: "system",\n      reason: ctx.redact(\`approval could not be obtained`,
      "an approval channel that throws counts as an approval",
    ],
    [
      "invoker-policy-deny-only-required",
      `if (call.policy === "deny") {`,
      `if (call.policy === "deny" && call.approval === "required") {`,
      "operator deny rules ignored for auto tools",
    ],
    [
      "invoker-rule-any-session",
      `ctx.standing?.match(call.path, ctx.sessionId, Date.now())`,
      `ctx.standing?.match(call.path, undefined, Date.now())`,
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
      `if (ctx.signal.aborted) {\n    const error = "run cancelled before the tool started";`,
      `if (false) {\n    const error = "run cancelled before the tool started";`,
      "a run cancelled while approval was pending still runs the tool",
    ],
    [
      "invoker-approved-no-decider",
      `stage(call, "approved", { decision: call.decision, decidedBy: call.decidedBy });`,
      `stage(call, "approved", { decision: call.decision });`,
      "approved receipt without who decided",
    ],
    [
      "invoker-started-no-decider",
      `stage(call, "started", {\n    decision: call.decision,\n    decidedBy: call.decidedBy,\n    inputPreview`,
      `stage(call, "started", {\n    decision: call.decision,\n    inputPreview`,
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
      `const rule = call.alwaysAsk ? undefined : await ctx.standing?.match(`,
      `const rule = await ctx.standing?.match(`,
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
  ...m("apps/gateway/src/surfaces/discord/approvals/approval-actions.ts", DISCORD, [
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
  ...m("apps/gateway/src/surfaces/discord/commands/interactions.ts", DISCORD, [
    [
      "interactions-denyr-no-quick-check",
      `if (!(await approverActor(actorOfInteraction(i), false)).ok) return refuseInteraction(i, NOT_APPROVER_TEXT);`,
      ``,
      "deny-with-reason opens its modal for people who are not approvers (guild or DM)",
    ],
    [
      "interactions-late-ack-dropped",
      `if (ok) await applyDecision(gateway, config, life, actor, callId, kind);\n      return;`,
      `return;`,
      "a click whose acknowledgement came too late is lost (the run waits until expiry)",
    ],
    [
      "interactions-dm-approver-any",
      `return { actor: checked, ok: isApprover(config, checked) };`,
      `return { actor: checked, ok: checked.guildId !== null || isApprover(config, checked) };`,
      "in guilds everyone counts as an approver for approver-only actions",
    ],
    [
      "interactions-revoke-no-check",
      `if (!(await approverActor(actor, false)).ok) return refuseInteraction(i, NOT_APPROVER_TEXT);`,
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
    file: "apps/gateway/src/surfaces/discord/commands/interactions.ts",
    find: `if (!ok) return tell(i, NOT_APPROVER_TEXT);\n    const reason`,
    replace: `const reason`,
    tests: DISCORD,
    equivalent: true,
    description:
      "deny-with-reason modal submits skip their own approver check. Equivalent: applyDecision repeats the check with the same actor and answers with the same private refusal; the only step in between (markShown) records the card message the form was opened from, which is that call's card whoever opened it (a non-approver never gets the form, in guilds or DMs: interactions-denyr-no-quick-check)",
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
  ...m("packages/core/src/receipts/sqlite/verify.ts", RECEIPTS, [
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
  ...m("packages/core/src/receipts/sqlite/schema.ts", RECEIPTS, [
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
    "packages/core/src/receipts/sqlite/chain-writer.ts",
    [...RECEIPTS, "packages/core/src/receipts/sqlite/chain-writer.test.ts"],
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
  ...m("packages/core/src/receipts/sqlite/store.ts", RECEIPTS, [
    ["store-validation-skipped", `    validateDraft(draft);\n`, ``, "invalid drafts are stored"],
  ]),
  ...m(
    "packages/core/src/receipts/sqlite/store.ts",
    ["packages/core/src/receipts/sqlite/journal.test.ts"],
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
      `return state.deps.receipts.byRuns(state.runIds);`,
      `return state.deps.receipts.byRuns(state.runIds.slice(-1));`,
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
  ...m("packages/core/src/codemode/tool-run.ts", INVOKER, [
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
      `export const MIN_SECRET_LENGTH = 4;`,
      `export const MIN_SECRET_LENGTH = 12;`,
      "secrets of 4–11 characters are not redacted",
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
  ...m("apps/gateway/src/services/assemble.ts", REDACT, [
    [
      "gateway-discord-token-not-secret",
      `    secrets.add("surface-token", surfaceCredentials(settings.surfaces));\n`,
      ``,
      "the Discord token is not a secret",
    ],
  ]),
  ...m("apps/gateway/src/http/token.ts", REDACT, [
    ["gateway-http-token-not-secret", `  secrets.add("http-token", [text]);\n`, ``, "the HTTP token is not a secret"],
  ]),
  // Issue 14: what an approver is shown of an assistant-written tool, and what backs a reminder claim.
  ...m(
    "packages/core/src/codemode/approval-card.ts",
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
  // #25 guarantees: one mutant per line that keeps a promise in docs/security.md and had none.
  ...m(
    "apps/gateway/src/http/server.ts",
    ["apps/gateway/src/http/listen.test.ts", "apps/gateway/src/http/server.test.ts"],
    [
      [
        "http-default-listen-all",
        `hostname: options.hostname ?? "127.0.0.1",`,
        `hostname: options.hostname ?? "0.0.0.0",`,
        "the HTTP API listens on every interface when no host is given",
      ],
      [
        "http-health-without-token",
        `if (!bearerMatches(req.headers.get("authorization"), options.token))`,
        `if (!bearerMatches(req.headers.get("authorization"), options.token) && url.pathname !== "/health")`,
        "/health answers without the bearer token",
      ],
    ],
  ),
  ...m(
    "packages/core/src/config/schema.ts",
    ["apps/gateway/src/http/listen.test.ts", "packages/core/src/config/load.test.ts"],
    [
      [
        "config-http-host-all",
        `host: z.string().min(1).default("127.0.0.1"),`,
        `host: z.string().min(1).default("0.0.0.0"),`,
        "the config's default listen address is every interface",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/services/http-console.ts",
    ["apps/gateway/src/http/listen.test.ts"],
    [
      [
        "gateway-http-host-fallback-all",
        `hostname: settings.http!.host,`,
        `hostname: settings.http!.host ?? "0.0.0.0",`,
        "a gateway whose settings name no host listens on every interface",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/http/token.ts",
    ["apps/gateway/src/http/listen.test.ts", "apps/gateway/src/http/token.test.ts"],
    [
      [
        "http-token-length-only",
        `return given.length === expected.length && crypto.timingSafeEqual(given, expected);`,
        `return given.length === expected.length;`,
        "any bearer token of the right length opens the API",
      ],
      [
        "http-token-prefix",
        `return given.length === expected.length && crypto.timingSafeEqual(given, expected);`,
        `return given.length > 0 && given.length <= expected.length && crypto.timingSafeEqual(given, expected.subarray(0, given.length));`,
        "a prefix of the bearer token opens the API",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/console/routes.ts",
    ["apps/gateway/src/console/guards.e2e.test.ts"],
    [
      [
        "console-origin-no-port",
        `return origin === new URL(req.url).origin ||`,
        `return new URL(origin).hostname === new URL(req.url).hostname ||`,
        "the origin check compares the host name only (another port or scheme on the same host may post decisions)",
      ],
      [
        "console-origin-no-scheme",
        `return origin === new URL(req.url).origin ||`,
        `return new URL(origin).host === new URL(req.url).host ||`,
        "the origin check ignores the scheme",
      ],
      [
        "console-public-origin-no-port",
        `origin === new URL(d.baseUrl()).origin;`,
        `new URL(origin).hostname === new URL(d.baseUrl()).hostname;`,
        "behind a proxy, the public URL's host on any port or scheme may post decisions",
      ],
      [
        "console-no-origin-any",
        `if (!origin) return req.headers.get("sec-fetch-site") !== "cross-site";`,
        `if (!origin) return true;`,
        "a request without Origin is accepted even when the browser marks it cross-site",
      ],
      [
        "console-decide-origin-unchecked",
        `if (!sameOrigin(req))\n      return page(messagePage("Refused"`,
        `if (false)\n      return page(messagePage("Refused"`,
        "decisions are accepted from any origin (CSRF)",
      ],
      [
        "console-login-approver-unchecked",
        `if (!d.isApprover(operator))\n      return page(\n        messagePage(\n          "Not an approver",`,
        `if (false)\n      return page(\n        messagePage(\n          "Not an approver",`,
        "a login link signs in someone who is not an approver",
      ],
      [
        "console-login-any-grant",
        `if (!checked.ok || checked.grant.kind !== "login")`,
        `if (!checked.ok)`,
        "a session or receipt-link token opened as a login link signs in",
      ],
      [
        "console-session-any-grant",
        `return checked.ok && checked.grant.kind === "session" ? checked.grant.operator : undefined;`,
        `return checked.ok ? (checked.grant as { operator?: string }).operator : undefined;`,
        "a login-link token works as a session cookie (it never expires into a session of 15 minutes)",
      ],
      [
        "console-run-link-any-run",
        `if (checked.grant.kind !== "run" || checked.grant.runId !== runId)`,
        `if (checked.grant.kind !== "run")`,
        "a receipt link opens every run",
      ],
      [
        "console-cookie-lax",
        `HttpOnly; SameSite=Strict;`,
        `HttpOnly; SameSite=Lax;`,
        "the session cookie rides along on cross-site navigations",
      ],
      [
        "console-cookie-not-httponly",
        `Path=/console; HttpOnly; SameSite`,
        `Path=/console; SameSite`,
        "page scripts can read the session cookie",
      ],
      [
        "console-session-ttl-long",
        `export const SESSION_TTL_MS = 12 * 60 * 60_000;`,
        `export const SESSION_TTL_MS = 12 * 60 * 60_000 * 1000;`,
        "console sessions last 1,000 times longer",
      ],
      [
        "console-login-link-ttl-long",
        `export const LOGIN_LINK_TTL_MS = 15 * 60_000;`,
        `export const LOGIN_LINK_TTL_MS = 15 * 60 * 60_000;`,
        "login links stay valid for 15 hours",
      ],
      [
        "console-receipt-link-ttl-long",
        `export const RECEIPT_LINK_TTL_MS = 7 * 24 * 60 * 60_000;`,
        `export const RECEIPT_LINK_TTL_MS = 70 * 24 * 60 * 60_000;`,
        "receipt links stay valid for 70 days",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/console/routes.ts",
    ["apps/gateway/src/console/guards.e2e.test.ts", "apps/gateway/src/console/fresh-approvers.e2e.test.ts"],
    [
      [
        // The per-request approver check comes before every route now (authorization on fresh
        // facts): it, not the write guard, is what refuses a decision by someone no longer an approver.
        "console-decide-approver-unchecked",
        `const operator = signedIn !== undefined && d.isApprover(signedIn) ? signedIn : undefined;`,
        `const operator = signedIn;`,
        "a signed-in operator who is no longer an approver still decides",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/console/signing.ts",
    ["apps/gateway/src/console/signing.test.ts", "apps/gateway/src/console/guards.e2e.test.ts"],
    [
      [
        "signing-expiry-ignored",
        `if (grant.exp <= now()) return { ok: false, reason: "expired" };`,
        ``,
        "expired links and sessions are accepted",
      ],
      [
        "signing-signature-length-only",
        `if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected))`,
        `if (given.length !== expected.length)`,
        "any signature of the right length is accepted",
      ],
      [
        "signing-unkeyed",
        `new Bun.CryptoHasher("sha256", key).update(`,
        `new Bun.CryptoHasher("sha256").update(`,
        "links are signed without the key (anyone can mint them)",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/mcp/connection.ts",
    ["packages/core/src/sources/mcp/oauth.test.ts"],
    [
      [
        "mcp-headers-any-port",
        `new URL(String(url)).origin === origin`,
        `new URL(String(url)).hostname === new URL(c.url).hostname`,
        "configured MCP headers go to any port on the server's host (the authorization server included)",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/mcp/oauth.ts",
    ["packages/core/src/sources/mcp/oauth.test.ts"],
    [
      [
        "mcp-oauth-state-unchecked",
        `if (url.searchParams.get("state") !== state)`,
        `if (!url.searchParams.has("state"))`,
        "any local process can answer the OAuth login's loopback redirect",
      ],
      [
        "mcp-oauth-redirect-listens-everywhere",
        `      hostname: "127.0.0.1",\n      port: o.oauth.redirectPort ?? 0,`,
        `      hostname: "0.0.0.0",\n      port: o.oauth.redirectPort ?? 0,`,
        "the OAuth login's redirect listener is reachable from other machines",
      ],
    ],
  ),
  ...m(
    "packages/core/src/plugins/install-guard.ts",
    ["packages/core/src/plugins/auto-install.test.ts"],
    [
      [
        "guard-no-overrides",
        "for (const n of [...names].sort()) overrides[n] = `file:./${STUB_DIR}`;",
        ``,
        "@openassistant/* peers and dependencies are resolved from the registry",
      ],
      [
        "guard-member-names-ignored",
        `const names = new Set([...KNOWN_GUARDED, ...stripped, ...memberPackages.flatMap(guardedNamesIn)]);`,
        `const names = new Set([...KNOWN_GUARDED, ...stripped]);`,
        "an @openassistant/* name only a workspace plugin mentions is fetched from the registry",
      ],
      [
        "guard-direct-deps-kept",
        `for (const n of Object.keys(deps)) if (n.startsWith(GUARDED_SCOPE)) delete deps[n];`,
        ``,
        "direct @openassistant/* dependencies stay in .openassistant/package.json",
      ],
    ],
  ),
  ...m(
    "packages/core/src/plugins/auto-install.ts",
    ["packages/core/src/plugins/auto-install.test.ts"],
    [
      [
        "auto-install-sdk-missing",
        `if (name.startsWith("@openassistant/")) continue;`,
        ``,
        "a declared @openassistant/* dependency counts as missing and triggers an install",
      ],
    ],
  ),
  ...m("packages/core/src/receipts/sqlite/schema.ts", RECEIPTS, [
    [
      "schema-update-allowed",
      `receipts_no_update BEFORE UPDATE ON receipts\n`,
      `receipts_no_update BEFORE UPDATE ON receipts WHEN 0\n`,
      "UPDATE of a receipt is allowed",
    ],
    [
      "schema-delete-allowed",
      `receipts_no_delete BEFORE DELETE ON receipts\n`,
      `receipts_no_delete BEFORE DELETE ON receipts WHEN 0\n`,
      "DELETE of a receipt is allowed",
    ],
    [
      "schema-meta-update-allowed",
      `receipt_meta_no_update BEFORE UPDATE ON receipt_meta\n`,
      `receipt_meta_no_update BEFORE UPDATE ON receipt_meta WHEN 0\n`,
      "the chain's metadata (key id, database id, genesis) can be rewritten",
    ],
    [
      "schema-meta-delete-allowed",
      `receipt_meta_no_delete BEFORE DELETE ON receipt_meta\n`,
      `receipt_meta_no_delete BEFORE DELETE ON receipt_meta WHEN 0\n`,
      "the chain's metadata can be deleted",
    ],
    [
      "schema-meta-replace-allowed",
      `WHEN EXISTS (SELECT 1 FROM receipt_meta WHERE name = NEW.name)`,
      `WHEN 0`,
      "INSERT OR REPLACE may overwrite the chain's metadata",
    ],
  ]),
  ...m("packages/core/src/receipts/sqlite/verify.ts", RECEIPTS, [
    [
      "verify-legacy-prev-skipped",
      `if (row.prev_hash !== prev)\n        return fail(`,
      `if (false)\n        return fail(`,
      "a legacy receipt removed, inserted or reordered within its run is not found",
    ],
    [
      "verify-legacy-content-skipped",
      `if (receiptHash(prev, receipt) !== row.hash) {`,
      `if (false) {`,
      "an edited legacy receipt is not found",
    ],
    [
      "verify-head-seq-ignored",
      `if (!last || last.seq < head.seq)`,
      `if (!last)`,
      "receipts cut from the end are not found when some remain",
    ],
    [
      "verify-run-stops-at-own-last",
      `checkKeyed(from, expected, legacyChanged, next ?? last)`,
      `checkKeyed(from, expected, legacyChanged, last)`,
      "a run's check does not look at the receipt after its last (its last receipts can be removed unseen)",
    ],
  ]),
  ...m(
    "packages/core/src/receipts/redact.ts",
    [...REDACT, "packages/core/src/receipts/redact-forms.test.ts"],
    [
      [
        "redact-form-plus-missed",
        `    uri.replace(/%20/g, "+"),\n`,
        ``,
        "form-encoded secrets with spaces (a+b) survive",
      ],
      [
        "redact-anthropic-shape-missed",
        `{ re: /sk-ant-[A-Za-z0-9_-]{8,}/g,`,
        `{ re: /(?!)/g,`,
        "Anthropic keys nobody registered survive",
      ],
      [
        "redact-escaped-slash-missed",
        `if (c === "/") encoded.push("\\\\/");`,
        ``,
        "secrets with / written as \\/ by a JSON writer survive",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sandbox/vm-prelude.ts",
    ["packages/core/src/sandbox/escapes.test.ts", "packages/core/src/sandbox/adversarial.test.ts"],
    [
      [
        "prelude-host-functions-global",
        `"use strict";\n`,
        `"use strict";\n  globalThis.hostCall = hostCall;\n`,
        "the host's call function is reachable from the snippet",
      ],
      [
        "prelude-tools-not-frozen",
        `      return freeze(target);\n`,
        `      return target;\n`,
        "the snippet can add, replace or remove tool functions",
      ],
      [
        "prelude-tools-writable",
        `defineProperty(globalThis, "tools", { value: build(root), enumerable: true, writable: false, configurable: false });`,
        `defineProperty(globalThis, "tools", { value: build(root), enumerable: true, writable: true, configurable: true });`,
        "the snippet can replace the global tools object",
      ],
    ],
  ),
  {
    ...eq(
      "packages/core/src/sandbox/vm-run.ts",
      [
        "packages/core/src/sandbox/escapes.test.ts",
        "packages/core/src/sandbox/adversarial.test.ts",
        "packages/core/src/sandbox/vm-run.test.ts",
      ],
      "vm-run-any-tool-path",
      `if (!Number.isSafeInteger(id) || b < 0 || !this.toolPaths.has(path)) {`,
      `if (!Number.isSafeInteger(id) || b < 0) {`,
    ),
    description:
      "a call for a tool path the run was not given reaches the host. Equivalent (defence in depth): the only caller of hostCall is the prelude's callTool, whose path is fixed when buildTools makes the tool function from this run's paths (rebuilt whenever they differ from the VM's, VmRun start); a snippet cannot name hostCall (prelude-host-functions-global is killed) nor rebind a tool function to another path (escapes.test.ts)",
  },
  ...m(
    "packages/core/src/sandbox/child-process.ts",
    ["packages/core/src/sandbox/pool.test.ts"],
    [
      [
        "child-env-inherited",
        `      env: {},\n`,
        `      env: { ...process.env },\n`,
        "sandbox children get the gateway's environment (its secrets)",
      ],
    ],
  ),
  ...m(
    "packages/core/src/codemode/transpile.ts",
    ["packages/core/src/codemode/transpile.test.ts", "packages/core/src/codemode/precheck.test.ts"],
    [
      [
        "transpile-precheck-ignored",
        `if (refused) throw new SnippetTranspileError(`,
        `if (false) throw new SnippetTranspileError(`,
        "the transpiler gets snippets the pre-check refused",
      ],
    ],
  ),
  ...m(
    "packages/core/src/codemode/typecheck.ts",
    ["packages/core/src/codemode/typecheck.test.ts", "packages/core/src/codemode/runner-boundary.test.ts"],
    [
      [
        "typecheck-precheck-ignored",
        `if (refused && refused.kind !== "syntax") {`,
        `if (false) {`,
        "the checker parses snippets the pre-check refused",
      ],
    ],
  ),
  ...m(
    "packages/core/src/codemode/precheck.ts",
    [
      "packages/core/src/codemode/precheck.test.ts",
      "packages/core/src/codemode/typecheck.test.ts",
      "packages/core/src/codemode/runner-boundary.test.ts",
    ],
    [
      [
        "precheck-words-ignored",
        `if (reason) return at(i, reason, "module");`,
        ``,
        "import, export and require pass the pre-check",
      ],
      [
        "precheck-regex-words-ignored",
        `if (word)\n          return at(`,
        `if (false)\n          return at(`,
        "import inside a regular-expression literal passes the pre-check",
      ],
      [
        "precheck-directives-ignored",
        `if (DIRECTIVE.test(text))`,
        `if (false)`,
        "/// <reference> and @jsxImportSource comments pass the pre-check",
      ],
      [
        "precheck-escape-is-syntax",
        `c === "}" ? "escape" : "syntax",`,
        `"syntax",`,
        "a brace closing the wrapper is treated as a plain syntax error",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/surfaces/discord/render/render-card.ts",
    ["apps/gateway/src/surfaces/discord/render/render-card.test.ts"],
    [
      [
        "card-no-input-file",
        `: [{ attachment: Buffer.from(req.inputJson, "utf8"), name: INPUT_FILE }];`,
        `: [];`,
        "the whole input is not attached to the card (fields cut on the card cannot be read whole)",
      ],
      [
        "card-title-unescaped",
        "const title = truncate(`Approval needed: ${escapeInvisible(req.toolPath)}`, 256);",
        "const title = truncate(`Approval needed: ${req.toolPath}`, 256);",
        "bidi and invisible characters in the tool path reach the card's title",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/surfaces/discord/authorize.ts",
    ["apps/gateway/src/surfaces/discord/authorize.test.ts"],
    [
      [
        "authorize-empty-list-everyone",
        `return !!id && !!list && list.includes(id);`,
        `return !!id && !!list && (list.length === 0 || list.includes(id));`,
        "an empty allowlist lets everyone talk and approve",
      ],
      [
        "authorize-channel-check-dropped",
        `config.allowedChannels?.length &&\n      !has(config.allowedChannels, actor.channelId) &&`,
        `false &&\n      !has(config.allowedChannels, actor.channelId) &&`,
        "channel allowlist ignored",
      ],
      [
        "authorize-approver-default-anyone",
        `  return has(config.allowedUsers, actor.userId) || actor.roleIds.some((r) => has(config.allowedRoles, r));\n}`,
        `  return true;\n}`,
        "without explicit approvers, anyone may approve",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/surfaces/discord/chat/conversations.ts",
    [
      "apps/gateway/src/surfaces/discord/commands/commands-access.e2e.test.ts",
      "apps/gateway/src/surfaces/discord/chat/dm-flow.e2e.test.ts",
      "apps/gateway/src/surfaces/discord/adversarial.e2e.test.ts",
    ],
    [
      [
        "conversations-auth-dropped",
        `if (!auth.ok) return refuse(message, auth);`,
        ``,
        "messages from people who are not allowed start turns",
      ],
    ],
  ),
  ...m(
    "packages/core/src/codemode/tool-input.ts",
    ["packages/core/src/codemode/runner-boundary.test.ts", "packages/core/src/codemode/tool-invoker.test.ts"],
    [
      [
        "invoker-forbidden-keys-pass",
        `if (forbidden !== undefined) return { ok: false, message: forbiddenKeyMessage(forbidden) };`,
        ``,
        "an input with an own __proto__ / constructor / prototype key reaches the tool",
      ],
    ],
  ),
  ...m(
    "packages/core/src/codemode/plain-input.ts",
    ["packages/core/src/codemode/plain-input.test.ts", "packages/core/src/codemode/runner-boundary.test.ts"],
    [
      [
        "plain-input-proto-only",
        `const FORBIDDEN_KEYS = new Set(["__proto__", "constructor", "prototype"]);`,
        `const FORBIDDEN_KEYS = new Set(["__proto__"]);`,
        "constructor and prototype keys reach tools",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/http/server.ts",
    ["apps/gateway/src/http/server.test.ts", "apps/gateway/src/agent/execute-boundary.test.ts"],
    [
      [
        "http-writes-accepted",
        `if (req.method !== "GET") return problem(405,`,
        `if (req.method === "DELETE") return problem(405,`,
        "the read-only API accepts POST and PUT",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/mcp/connection.ts",
    ["packages/core/src/sources/mcp/mcp.test.ts"],
    [
      [
        "mcp-process-without-allow",
        `if (!c.allowProcess)\n      throw`,
        `if (false)\n      throw`,
        "a configured MCP command starts without allowProcess",
      ],
      [
        "mcp-process-gets-env",
        `env: { PATH: process.env.PATH ?? "", ...(c.env ?? {}) },`,
        `env: { ...process.env, ...(c.env ?? {}) } as Record<string, string>,`,
        "an MCP server process gets the gateway's environment (its secrets)",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/auth/store.ts",
    ["apps/gateway/src/auth/store.test.ts"],
    [
      [
        "auth-store-readable-accepted",
        `if ((mode & 0o077) !== 0) {`,
        `if ((mode & 0o007) !== 0) {`,
        "auth profiles readable by the group are read",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/mcp/oauth-store.ts",
    ["packages/core/src/sources/mcp/oauth.test.ts"],
    [
      [
        "mcp-oauth-store-readable-accepted",
        `if ((mode & 0o077) !== 0) {`,
        `if (false) {`,
        "MCP OAuth tokens readable by others are read",
      ],
    ],
  ),
  ...m("packages/core/src/receipts/key.ts", RECEIPTS, [
    [
      "receipts-key-readable-accepted",
      `if ((mode & 0o077) !== 0) {`,
      `if (false) {`,
      "a receipts key others can read is used",
    ],
  ]),
  ...m(
    "packages/core/src/config/private-file.ts",
    [
      "apps/gateway/src/auth/store.test.ts",
      "packages/core/src/sources/mcp/oauth.test.ts",
      "apps/gateway/src/console/signing.test.ts",
      "apps/gateway/src/http/token.test.ts",
    ],
    [
      [
        "private-file-world-readable",
        `replaceFile(path, text, { mode: 0o600, sync: true });`,
        `replaceFile(path, text, { mode: 0o644, sync: true });`,
        "auth profiles and OAuth tokens are written readable by everyone",
      ],
      [
        "secret-file-not-tightened",
        `if (statSync(path).mode & 0o077) chmodSync(path, 0o600);`,
        ``,
        "an HTTP token or console key file others can read stays readable",
      ],
    ],
  ),
  ...m("packages/core/src/receipts/bounds.ts", RECEIPTS, [
    [
      "bounds-input-preview-loose",
      `inputPreview: 4_000,`,
      `inputPreview: 4_000_000,`,
      "a receipt's input preview may hold megabytes",
    ],
    [
      "bounds-run-budget-loose",
      `export const RUN_TEXT_BUDGET = 200_000;`,
      `export const RUN_TEXT_BUDGET = 200_000_000;`,
      "a run may store 200 MB of free text",
    ],
  ]),
  ...m(
    "apps/gateway/src/surfaces/discord/chat/conversations.ts",
    ["apps/gateway/src/surfaces/discord/adversarial.e2e.test.ts"],
    [
      [
        "conversations-bots-answered",
        `if (!accepting || !life.open || message.author.bot || message.system) return;`,
        `if (!accepting || !life.open || message.system) return;`,
        "other bots' messages start turns",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/surfaces/discord/client.ts",
    ["apps/gateway/src/surfaces/discord/adversarial.e2e.test.ts"],
    [
      [
        "discord-mentions-parsed",
        `allowedMentions: { parse: [], repliedUser: false },`,
        `allowedMentions: { parse: ["users", "roles", "everyone"], repliedUser: false },`,
        "mentions in model text ping people, roles and @everyone",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/services/assemble.ts",
    ["apps/gateway/src/surfaces/discord/restart.e2e.test.ts", "packages/core/src/codemode/runner-crash.test.ts"],
    [
      [
        "gateway-orphans-left-pending",
        `    yield* attempt(() => closeOrphanedApprovals(approvals, receipts, log));\n`,
        ``,
        "approvals left by a stopped gateway stay pending after a restart",
      ],
    ],
  ),
  ...m(
    "packages/core/src/codemode/typecheck.ts",
    ["packages/core/src/codemode/typecheck-limits.test.ts"],
    [
      [
        "typecheck-time-limit-ignored",
        `cpuDeadline(this.proc.pid, { cpuMs: timeoutMs, wallCapMs: wallTimeoutMs }`,
        `cpuDeadline(this.proc.pid, { cpuMs: timeoutMs * 1000, wallCapMs: wallTimeoutMs * 1000 }`,
        "a pathological typecheck holds its checker far past the time limit",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/openapi/parse-spec.ts",
    ["packages/core/src/sources/openapi/openapi.test.ts"],
    [
      [
        "openapi-auth-header-is-input",
        `const hidden = new Set([o.authHeader, "authorization"]);`,
        `const hidden = new Set(["authorization"]);`,
        "the header an OpenAPI auth sets is also a tool input the model can fill",
      ],
    ],
  ),
  {
    ...eq(
      "apps/gateway/src/http/token.ts",
      ["apps/gateway/src/http/listen.test.ts", "apps/gateway/src/http/token.test.ts"],
      "http-token-not-constant-time",
      `given.length === expected.length && crypto.timingSafeEqual(given, expected)`,
      `given.length === expected.length && given.equals(expected)`,
    ),
    description:
      "the bearer token is compared with an early-exit comparison. Equivalent in what any test may observe: the accept/refuse answers are the same, and tests do not measure durations (docs/testing.md, no timing flakes); the constant-time comparison is held by review, and listen.test.ts holds the answers",
  },
  {
    ...eq(
      "apps/gateway/src/console/signing.ts",
      ["apps/gateway/src/console/signing.test.ts"],
      "signing-not-constant-time",
      `given.length !== expected.length || !crypto.timingSafeEqual(given, expected)`,
      `given.length !== expected.length || !given.equals(expected)`,
    ),
    description:
      "link and session signatures are compared with an early-exit comparison. Equivalent in what any test may observe (same answers; tests do not measure durations); held by review, and signing.test.ts holds the answers",
  },
  ...m(
    "packages/core/src/text/escape.ts",
    [
      "packages/core/src/text/text.test.ts",
      "apps/gateway/src/surfaces/discord/render/render-card.test.ts",
      "apps/gateway/src/surfaces/terminal/terminal-surface.test.ts",
    ],
    [
      [
        "escape-rlo-only",
        String.raw`const FORMAT = /\p{Cf}/gu;`,
        String.raw`const FORMAT = /\u202E/gu;`,
        "only the right-to-left override is shown escaped (isolates, zero-width characters hide)",
      ],
      [
        "escape-esc-shown-raw",
        String.raw`/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u2028\u2029]|`,
        String.raw`/[\u0000-\u0008\u000b-\u001a\u001c-\u001f\u007f-\u009f\u2028\u2029]|`,
        "ESC reaches the operator's terminal raw (escape sequences can repaint an approval prompt)",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/surfaces/terminal/format.ts",
    ["apps/gateway/src/surfaces/terminal/terminal-surface.test.ts"],
    [
      [
        "terminal-control-raw",
        String.raw`return escapeInvisible(text.replace(/\r\n/g, "\n"));`,
        String.raw`return text.replace(/\r\n/g, "\n");`,
        "model text and code reach the terminal with their control characters",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sandbox/child-process.ts",
    ["packages/core/src/sandbox/pool.test.ts", "packages/core/src/sandbox/escapes.test.ts"],
    [
      [
        "child-host-error-crosses",
        `() => this.answer(run, toWire(id, hostFailure)),`,
        `(e) => this.answer(run, toWire(id, { ok: false, error: e })),`,
        "a tool's unexpected host error (paths, secrets in its message) crosses into the VM",
      ],
    ],
  ),
  // #25 authorization on fresh facts
  ...m(
    "apps/gateway/src/surfaces/discord/dm-roles.ts",
    ["apps/gateway/src/surfaces/discord/approvals/fresh-roles.e2e.test.ts"],
    [
      [
        "dm-roles-ttl-cache-grants",
        `      const hit = use === "chat" ? refused.get(actor.userId) : undefined;
      if (hit && now() - hit.at < ttlMs) {
        const remembered = { ...actor, roleIds: hit.roles };
        if (!passes(remembered)) return remembered;
      }
      const roles = await lookup(actor.userId, timeoutMs);
      const fresh = { ...actor, roleIds: roles ?? [] };
      if (roles === null) return fresh;
      if (passes(fresh)) refused.delete(actor.userId);
      else remember(actor.userId, roles);`,
        `      const hit = refused.get(actor.userId);
      if (hit && now() - hit.at < ttlMs) return { ...actor, roleIds: hit.roles };
      const roles = await lookup(actor.userId, timeoutMs);
      const fresh = { ...actor, roleIds: roles ?? [] };
      if (roles === null) return fresh;
      remember(actor.userId, roles);`,
        "DM roles are cached for a minute, grants included: a role taken away still decides from a DM",
      ],
      [
        "dm-roles-decision-reuses-refusal",
        `const hit = use === "chat" ? refused.get(actor.userId) : undefined;`,
        `const hit = refused.get(actor.userId);`,
        "a decision reuses a remembered refusal: a role given back does not count for a minute",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/surfaces/discord/approvals/approval-actions.ts",
    ["apps/gateway/src/surfaces/discord/stop.e2e.test.ts"],
    [
      [
        "actions-stopped-decides",
        `if (!life.open) return { allowed: false, text: STOPPING_TEXT };`,
        ``,
        "a decision whose role lookup was under way when stop() began is recorded",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/surfaces/discord/commands/interactions.ts",
    ["apps/gateway/src/surfaces/discord/stop.e2e.test.ts"],
    [
      [
        "interactions-stopping-served",
        `if (!life.open) {\n          if (i.isAutocomplete())`,
        `if (false) {\n          if (i.isAutocomplete())`,
        "interactions that arrive once stop() has begun are served (clicks decide)",
      ],
      [
        "interactions-stopping-command-runs",
        `    if (!life.open) return refuseInteraction(i, STOPPING_TEXT);\n\n    switch (i.commandName) {`,
        `\n    switch (i.commandName) {`,
        "a slash command whose lookups outlast the start of stop() still runs",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/surfaces/discord/index.ts",
    ["apps/gateway/src/surfaces/discord/stop.e2e.test.ts"],
    [
      [
        "surface-stop-stays-open",
        `life.open = false; // synchronously, before anything else can arrive`,
        ``,
        "stop() leaves the surface acting until the client is destroyed",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/surfaces/discord/chat/conversations.ts",
    ["apps/gateway/src/surfaces/discord/commands/entry-points.e2e.test.ts"],
    [
      [
        "conversations-typed-refusal-public",
        `if (!applied.allowed && message.guildId) return tellPrivately(message, applied.text);`,
        ``,
        "a typed /approve refused in a guild is answered in the channel for everyone to see",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/console/routes.ts",
    ["apps/gateway/src/console/fresh-approvers.e2e.test.ts"],
    [
      [
        "console-session-not-rechecked",
        `const operator = signedIn !== undefined && d.isApprover(signedIn) ? signedIn : undefined;`,
        `const operator = signedIn;`,
        "a console session outlives its operator's removal from the approvers (pages still shown)",
      ],
    ],
  ),
  // #25 redaction: every credential store registers what it reads or obtains (dropping one leaks it).
  ...m(
    "apps/gateway/src/config-adapter.ts",
    ["apps/gateway/src/security/credentials.e2e.test.ts", "apps/gateway/src/security/secrets.e2e.test.ts"],
    [
      [
        "cred-config-var-unregistered",
        `  secrets.add("config-var", loaded.secrets);\n`,
        ``,
        "${VAR} values are not secrets",
      ],
      [
        "cred-config-fields-unregistered",
        `  secrets.add("config-field", configSecretValues(c, loaded.schema));\n`,
        ``,
        "config fields marked secret (OpenAPI auth, MCP headers/env/client secret) are not registered",
      ],
      [
        "cred-plugin-keyname-unregistered",
        `  secrets.add("plugin-secret", secretValuesByKeyName(c.config));\n`,
        ``,
        "plugin config under apiKey/token/password keys is not registered",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/openapi/config-schema.ts",
    ["apps/gateway/src/security/credentials.e2e.test.ts", "packages/core/src/config/secret-fields.test.ts"],
    [
      [
        "cred-openapi-header-unmarked",
        `z.strictObject({ type: z.literal("header"), name: z.string().min(1), value: secret(z.string().min(1)) }),`,
        `z.strictObject({ type: z.literal("header"), name: z.string().min(1), value: z.string().min(1) }),`,
        "an OpenAPI header credential is not a secret",
      ],
      [
        "cred-openapi-query-unmarked",
        `z.strictObject({ type: z.literal("query"), name: z.string().min(1), value: secret(z.string().min(1)) }),`,
        `z.strictObject({ type: z.literal("query"), name: z.string().min(1), value: z.string().min(1) }),`,
        "an OpenAPI query credential is not a secret",
      ],
      [
        "cred-openapi-bearer-unmarked",
        `z.strictObject({ type: z.literal("bearer"), token: secret(z.string().min(1)) }),`,
        `z.strictObject({ type: z.literal("bearer"), token: z.string().min(1) }),`,
        "an OpenAPI bearer token is not a secret",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/mcp/config-schema.ts",
    ["apps/gateway/src/security/credentials.e2e.test.ts", "packages/core/src/config/secret-fields.test.ts"],
    [
      [
        "cred-mcp-headers-unmarked",
        `headers: z.record(z.string(), secret(z.string())).optional(),`,
        `headers: z.record(z.string(), z.string()).optional(),`,
        "MCP header values are not secrets",
      ],
      [
        "cred-mcp-env-unmarked",
        `env: z.record(z.string(), secret(z.string())).optional(),`,
        `env: z.record(z.string(), z.string()).optional(),`,
        "MCP server env values are not secrets",
      ],
      [
        "cred-mcp-client-secret-unmarked",
        `clientSecret: secret(z.string().min(1)).optional(),`,
        `clientSecret: z.string().min(1).optional(),`,
        "an MCP OAuth client secret is not a secret",
      ],
    ],
  ),
  ...m(
    "packages/core/src/plugins/load-tools.ts",
    ["apps/gateway/src/security/credentials.e2e.test.ts", "packages/core/src/plugins/load-tools.test.ts"],
    [
      [
        "cred-plugin-zod-secret-unregistered",
        `        lc.secrets?.add("plugin-secret", secretValuesBySchema(zodJsonSchema(shape.configSchema), ctxConfig));\n`,
        ``,
        "plugin config fields marked .meta({ secret: true }) are not registered",
      ],
      [
        "cred-plugin-manifest-secret-unregistered",
        `      lc.secrets?.add("plugin-secret", secretValuesBySchema(c.pkg.configSchema, ctxConfig));\n`,
        ``,
        "plugin config fields marked writeOnly in openassistant.json are not registered",
      ],
      [
        "cred-plugin-log-unredacted",
        `redactedLog(opts.log ?? defaultLog, opts.secrets?.redact)`,
        `opts.log ?? defaultLog`,
        "plugin log lines keep secrets",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/auth/resolve.ts",
    ["apps/gateway/src/security/credentials.e2e.test.ts"],
    [
      [
        "cred-auth-profiles-unregistered",
        `      out.map((c) => c.secret),`,
        `      [],`,
        "auth profiles are not secrets",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/services/assemble.ts",
    ["apps/gateway/src/security/credentials.e2e.test.ts", "apps/gateway/src/security/secrets.e2e.test.ts"],
    [
      [
        "cred-auth-resolver-no-registry",
        `      env,\n      secrets,\n    });`,
        `      env,\n    });`,
        "the auth resolver is given no registry",
      ],
      [
        "cred-gateway-fresh-registry",
        `{ watch: options.watchTools, secrets, log }`,
        `{ watch: options.watchTools, log }`,
        "loading registers into a registry the gateway does not use",
      ],
      [
        "cred-gateway-log-unredacted",
        `const log = (line: string) => rawLog(secrets.redact(line));`,
        `const log = (line: string) => rawLog(line);`,
        "the gateway's own log lines keep secrets",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/http/token.ts",
    ["apps/gateway/src/security/credentials.e2e.test.ts", "apps/gateway/src/http/token.test.ts"],
    [
      [
        "cred-http-token-configured-unregistered",
        `    secrets.add("http-token", [configured]);\n`,
        ``,
        "a configured HTTP token is not a secret",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/console/signing.ts",
    ["apps/gateway/src/security/credentials.e2e.test.ts"],
    [
      [
        "cred-console-key-unregistered",
        `  secrets.add("console-key", [text]);\n`,
        ``,
        "the console key is not a secret",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/mcp/oauth.ts",
    ["apps/gateway/src/security/credentials.e2e.test.ts", "packages/core/src/sources/mcp/oauth.test.ts"],
    [
      [
        "cred-mcp-tokens-read-unregistered",
        `    this.secrets?.add("mcp-oauth", [tokens?.access_token, tokens?.refresh_token, tokens?.id_token]);\n`,
        ``,
        "MCP OAuth tokens read from mcp-oauth.json are not secrets",
      ],
      [
        "cred-mcp-tokens-refreshed-unregistered",
        `    this.secrets?.add("mcp-oauth", [tokens.access_token, tokens.refresh_token, tokens.id_token]);\n`,
        ``,
        "tokens a refresh obtains are not registered when obtained",
      ],
      [
        "cred-mcp-client-secret-unregistered",
        `    this.secrets?.add("mcp-oauth", [client?.client_secret]);\n`,
        ``,
        "a registered client's secret is not a secret",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/mcp/bundle.ts",
    ["apps/gateway/src/security/credentials.e2e.test.ts"],
    [
      [
        "cred-mcp-connection-no-registry",
        `      if (o.secrets) connection.addSecretSink(o.secrets);\n`,
        ``,
        "MCP connections register their tokens nowhere",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/surfaces/discord/index.ts",
    ["apps/gateway/src/security/credentials.e2e.test.ts"],
    [
      [
        "cred-discord-surface-token-unregistered",
        `  port.secrets?.add("surface-token", [config.token]);\n`,
        ``,
        "the surface's bot token is kept out of its logs only, not replies or receipts",
      ],
    ],
  ),
  ...m(
    "packages/core/src/receipts/sqlite/store.ts",
    ["apps/gateway/src/security/credentials.e2e.test.ts"],
    [
      [
        "cred-receipt-key-unregistered",
        `  options.secrets?.add("receipt-key", [Buffer.from(key.key).toString("hex")]);\n`,
        ``,
        "the receipt chain's key is not a secret",
      ],
    ],
  ),
  ...m("packages/core/src/receipts/redact.ts", REDACT, [
    [
      "cred-min-length-5",
      `export const MIN_SECRET_LENGTH = 4;`,
      `export const MIN_SECRET_LENGTH = 5;`,
      "4-character secrets are not redacted",
    ],
    [
      "cred-min-length-utf16",
      `[...s].length < MIN_SECRET_LENGTH`,
      `s.length < MIN_SECRET_LENGTH`,
      "the minimum counts UTF-16 units: two emoji (2 characters) shred text",
    ],
  ]),
  ...m(
    "packages/core/src/receipts/secret-registry.ts",
    ["apps/gateway/src/security/credentials.e2e.test.ts", "packages/core/src/receipts/secret-registry.test.ts"],
    [
      [
        "cred-registry-not-rebuilt",
        `      if (grew) current = createRedactor([...values]);`,
        ``,
        "a value registered after the redactor was handed out is not redacted",
      ],
    ],
  ),
  // #25 model recovery
  ...m(
    "apps/gateway/src/sessions/sqlite/store.ts",
    ["apps/gateway/src/model-recovery.test.ts"],
    [
      [
        "refused-turn-kept-in-context",
        ` AND (turn_id IS NULL OR turn_id NOT IN (SELECT id FROM turns WHERE stop_reason = 'refused'))`,
        ``,
        "after a refusal the refused turn stays in the context the next request sends",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/conversations/service.ts",
    ["apps/gateway/src/model-recovery.test.ts"],
    [
      [
        "gateway-full-history-after-refusal",
        `.modelHistory(session.id)`,
        `.history(session.id)`,
        "the gateway sends refused turns back to the model",
      ],
      [
        "refused-turn-activity-untold",
        `.filter((t) => t.stopReason === "refused")`,
        `.filter(() => false)`,
        "what the tool calls of a refused turn did is no longer told to the model",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/model/client.ts",
    ["apps/gateway/src/model/client.test.ts"],
    [
      [
        "midstream-partial-not-withdrawn",
        `if (streamedText) opts.onDiscard?.({ reason: c.message });`,
        `if (streamedText) void c;`,
        "a retried call after partial text streams the text again with no discard: the user sees it twice",
      ],
      [
        "midstream-overload-after-text-not-retried",
        `waitLeft > 0 &&`,
        `waitLeft > 0 && !streamedText &&`,
        "an overload after some text ends the turn instead of being retried",
      ],
      [
        "midstream-api-error-after-text-not-retried",
        `if (c.transient && transientLeft > 0 && attempt < maxAttempts) {`,
        `if (c.transient && transientLeft > 0 && !streamedText && attempt < maxAttempts) {`,
        "an api_error event after some text is not retried",
      ],
      [
        "overload-retry-after-ignored",
        `Math.min(c.retryAfterMs ?? (c.rotate === "overloaded" ? 2_000 : 10_000), maxRetryWaitMs)`,
        `Math.min(c.rotate === "overloaded" ? 2_000 : 10_000, maxRetryWaitMs)`,
        "retry-after is not followed before a retry",
      ],
      [
        "final-failure-attempts-untold",
        `(attempts > 1 ? \` (gave up after \${attempts} attempts)\` : "")`,
        `""`,
        "the user is not told the call was retried before it failed",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/agent/run-turn.ts",
    ["apps/gateway/src/model-recovery.test.ts", "apps/gateway/src/agent/run-turn.test.ts"],
    [
      [
        "turn-partial-not-withdrawn",
        `onDiscard: (r) => emit({ type: "model.text.discarded", turnId, reason: r.reason }),`,
        `onDiscard: () => {},`,
        "a live view of the streamed text keeps the partial of a failed attempt and appends the retry",
      ],
      [
        "refusal-explanation-hidden",
        `return explanation ? \`\${STOP_NOTES.refused}\\nReason given: \${cutText(explanation, 300)}\` : STOP_NOTES.refused;`,
        `return STOP_NOTES.refused;`,
        "the API's explanation of a refusal (stop_details) is not shown to the user",
      ],
      [
        "prompt-too-long-not-compacted",
        `return (await compact(state, "prompt_too_long"))\n      ? { kind: "request" }\n      : { kind: "finish", stopReason: "context_full" };`,
        `return { kind: "finish", stopReason: "context_full" };`,
        "a 400 prompt-too-long ends the turn instead of compacting and answering",
      ],
      [
        "would-not-fit-not-compacted",
        `return (await compact(state, "would_not_fit"))\n        ? { kind: "request" }\n        : { kind: "finish", stopReason: "context_full" };`,
        `return { kind: "finish", stopReason: "context_full" };`,
        "a request estimated not to fit ends the turn instead of compacting",
      ],
      [
        "first-request-not-estimated",
        `      : estimate;`,
        `      : 0;`,
        "the first request of a turn is sent without checking that it fits the window",
      ],
      [
        "window-exceeded-not-compacted",
        `if (await compact(state, "window_exceeded")) {`,
        `if (false) {`,
        "model_context_window_exceeded ends the turn with a cut-off answer instead of compacting",
      ],
      [
        "tool-loop-not-folded",
        `if (state.added.length > state.tailFrom) {`,
        `if (false) {`,
        "a compaction mid tool loop sends the loop on as it was (thinking prefix changed, the window still full)",
      ],
      [
        "compaction-untold",
        `text: compacted ? \`\${text ?? ""}\\n\\n\${compactionNote(compacted.omitted)}\` : (text ?? ""),`,
        `text: text ?? "",`,
        "the user is not told the conversation was compacted",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/agent/compact.ts",
    ["apps/gateway/src/model-recovery.test.ts"],
    [
      [
        "compaction-drops-activity",
        `const runIds = all.slice(0, start).flatMap((m) => (m as HistoryMessage).runIds ?? []);`,
        `const runIds: string[] = [];`,
        "the receipts-backed activity of dropped turns is lost in a compaction",
      ],
    ],
  ),
  ...m(
    "packages/testkit/src/anthropic/contract.ts",
    ["packages/testkit/src/anthropic/fake-server.test.ts"],
    [
      [
        "fake-context-window-not-enforced",
        `if (tokens <= windowTokens) return undefined;`,
        `return undefined;`,
        "the fake Anthropic accepts a prompt over the context window",
      ],
    ],
  ),
  // #25 names: no source takes over another's name; request text never indexes a plain object
  ...m(
    "packages/core/src/plugins/namespaces.ts",
    ["packages/core/src/plugins/namespaces.test.ts", "packages/core/src/plugins/load-tools.test.ts"],
    [
      [
        "names-precedence-reversed",
        `return incumbent === candidateKey(c) || c.layer < held.layer;`,
        `return incumbent === candidateKey(c) || c.layer > held.layer;`,
        "a tool file or global plugin takes the name of a configured source or a built-in",
      ],
      [
        "names-incumbent-ignored",
        `if (incumbent === candidateKey(held)) return false;`,
        ``,
        "on reload a source added or renamed later takes over the previous owner's name",
      ],
      [
        "names-last-claimant-wins",
        `if (!held || beats(c, held)) owners.set(c.id, c);`,
        `owners.set(c.id, c);`,
        "the last source to claim a name takes it over",
      ],
      [
        "names-dollar-claimable",
        `if (isBuiltinNamespace(c.id) && c.layer !== BUILTIN) continue;`,
        ``,
        "a tool file or plugin takes tools.$search / tools.$describe",
      ],
    ],
  ),
  ...m(
    "packages/core/src/tools/names.ts",
    ["packages/core/src/plugins/namespaces.test.ts"],
    [
      [
        "names-dollar-prefix",
        `return id.startsWith("$");`,
        `return id.startsWith("$$");`,
        "$ names are not the gateway's",
      ],
    ],
  ),
  ...m(
    "packages/core/src/workspace/workspace-tools.ts",
    ["packages/core/src/workspace/workspace.test.ts"],
    [
      [
        "workspace-write-takeover-unchecked",
        `if (taken) return void ctx.addIssue({ code: "custom", path: ["path"], message: taken });`,
        ``,
        "a write named like another source's namespace reaches a card as a new file",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/console/routes.ts",
    ["apps/gateway/src/security/prototype-keys.e2e.test.ts"],
    [
      [
        "console-static-plain-object",
        `const s = asset ? STATIC.get(asset[1]!) : undefined;`,
        `const s = asset ? (Object.fromEntries(STATIC) as Record<string, { file: string; type: string }>)[asset[1]!] : undefined;`,
        "GET /console/static/constructor finds Object.prototype.constructor (a 500)",
      ],
      [
        "console-notice-in",
        `n && Object.hasOwn(NOTICES, n)`,
        `n && n in NOTICES`,
        "?notice=toString shows Object.prototype.toString on the approvals page",
      ],
    ],
  ),
  ...m(
    "packages/core/src/tools/own-keys.ts",
    ["packages/core/src/sources/prototype-keys.test.ts"],
    [
      [
        "own-value-inherited",
        `return obj !== undefined && Object.hasOwn(obj, key) ? obj[key] : undefined;`,
        `return obj?.[key];`,
        "lookups by outside names find Object.prototype's members",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/openapi/load.ts",
    ["packages/core/src/sources/prototype-keys.test.ts"],
    [
      [
        "openapi-group-inherited",
        `const next = ownValue(node, seg);`,
        `const next = node[seg];`,
        "an operationId constructor/list writes its tool onto Object",
      ],
    ],
  ),
  {
    ...eq(
      "packages/core/src/plugins/load-tools.ts",
      ["packages/core/src/sources/prototype-keys.test.ts"],
      "plugin-config-inherited",
      `const pluginConfig = ownValue(config.config, c.id);`,
      `const pluginConfig = config.config[c.id];`,
    ),
    description:
      "equivalent: an id like toString finds Object.prototype's function, but every use of the config spreads it ({...fn} is {}) or reads .enabled (undefined), exactly as for no config; kept as defence in depth",
  },
  ...m(
    "apps/gateway/src/cli/flags.ts",
    ["apps/gateway/src/security/prototype-keys.e2e.test.ts"],
    [
      [
        "cli-subcommands-plain-object",
        `return Object.assign(Object.create(null) as T, table);`,
        `return table;`,
        "`openassistant constructor` runs nothing and exits 0",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/cli/commands/mcp.ts",
    ["apps/gateway/src/security/prototype-keys.e2e.test.ts"],
    [
      [
        "mcp-login-name-inherited",
        `const server = ownValue(servers, name);`,
        `const server = servers[name];`,
        "`mcp login toString` treats Object.prototype.toString as a configured server",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/config-adapter.ts",
    ["apps/gateway/src/workspace-tools.e2e.test.ts"],
    [
      [
        "workspace-write-owners-unwired",
        "host: { reload: () => registry.reload(), entries: () => registry.current().entries },",
        "host: { reload: () => registry.reload() },",
        "the gateway's writeTool does not know who owns each name: a takeover reaches a card",
      ],
    ],
  ),
  ...m(
    "packages/core/src/codemode/tool-input.ts",
    ["packages/core/src/codemode/prototype-keys.test.ts"],
    [
      [
        "invoker-inherited-field-not-retried",
        `(r.success || !missedThroughPrototype(r.error.issues) ? validated(r) : ownKeysOnly(def, value))`,
        `validated(r)`,
        "an optional field named toString/valueOf left out fails as 'received function'",
      ],
      [
        "invoker-inherited-field-null-proto-leaks",
        `if (!copy && from === null) Object.setPrototypeOf(out, Object.prototype);`,
        ``,
        "input passed through z.unknown() reaches the tool without Object.prototype",
      ],
    ],
  ),
  // #25 sources: hostile tool sources (schema limits, the linear-time regex engine), OpenAPI request safety
  ...m(
    "packages/core/src/sources/schema-limits.ts",
    ["packages/core/src/sources/schema-limits.test.ts"],
    [
      [
        "limits-depth-unchecked",
        "if (f.depth > limits.depth)",
        "if (f.depth > limits.depth * 1000)",
        "a 10,000-level schema is walked and converted (the stack and the time are the gateway's)",
      ],
      [
        "limits-nodes-unchecked",
        "if (++this.nodes > limits.nodes)",
        "if (++this.nodes > limits.nodes * 1e9)",
        "shared subtrees (YAML anchors) are walked without end",
      ],
      [
        "limits-properties-unchecked",
        `if ((f.kind === "schemaMap" || f.kind === "patternMap") && keys.length > limits.properties)`,
        "if (false)",
        "an object of 100,000 properties is taken in",
      ],
      [
        "limits-enum-unchecked",
        "value.length > limits.enumMembers)",
        "value.length > limits.enumMembers * 1000)",
        "an enum of 100,000 members is taken in",
      ],
      [
        "limits-branches-unchecked",
        "value.length > limits.branches)",
        "value.length > limits.branches * 1000)",
        "an anyOf of 5,000 branches is taken in",
      ],
      [
        "limits-string-unchecked",
        "if (text.length > this.limits.stringLength)",
        "if (false)",
        "a 2 MB description is taken in",
      ],
      [
        "limits-remote-ref-followed",
        `if (!ref.startsWith("#"))`,
        "if (false)",
        "a $ref to another document is not named as such (it is never fetched either way)",
      ],
      [
        "limits-ref-cycle-unchecked",
        "if (seen.has(next)) this.fail(",
        "if (false) this.fail(",
        "a cycle of plain $refs (a validator that recurses forever) is not named",
      ],
      [
        "limits-ref-chain-unbounded",
        "if (steps >= this.limits.refChain)",
        "if (steps >= this.limits.refChain * 1000)",
        "a chain of 200 $refs is followed",
      ],
      [
        "limits-refs-unchecked",
        "if (options.refs !== false) walk.checkRefs(copy);",
        "",
        "dangling, remote and cyclic $refs reach the validator",
      ],
      [
        "patterns-native-kept",
        "if (placeholder !== undefined) out[key] = placeholder;",
        "out[key] = value;",
        "a schema pattern runs on the built-in backtracking RegExp",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/linear-regex.ts",
    ["packages/core/src/sources/schema-limits.test.ts"],
    [
      [
        "linear-regex-native",
        "return this.re.matcher(text).find();",
        "return new RegExp(this.source).test(text);",
        "RE2 compiles the pattern, the built-in RegExp matches it",
      ],
      [
        "linear-regex-no-step-budget",
        "if (text.length * this.re.programSize() > MATCH_STEPS) return false;",
        "",
        "a long value against a large program is matched however long it takes",
      ],
      [
        "linear-regex-no-program-limit",
        "if (re.programSize() > PROGRAM_LIMIT)",
        "if (false)",
        "a pattern of tens of thousands of instructions is kept",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/source-budget.ts",
    ["packages/core/src/sources/schema-limits.test.ts"],
    [
      [
        "budget-source-total-unchecked",
        "if (this.nodes > limits.nodes)",
        "if (this.nodes > limits.nodes * 1000)",
        "a source's schemas together are not bounded",
      ],
      [
        "budget-name-length-unchecked",
        "if (tool.length > limits.nameLength)",
        "if (false)",
        "a tool name of any length is mounted",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/mcp/tools.ts",
    ["packages/core/src/sources/hostile-sources.test.ts"],
    [
      [
        "mcp-hostile-tool-mounted",
        "if (!budget.admit(String(tool.name), tool.inputSchema, refusal)) continue;",
        "",
        "an MCP tool whose schema is past a limit is mounted",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/mcp/connection.ts",
    ["packages/core/src/sources/hostile-sources.test.ts"],
    [
      [
        "mcp-stdio-uncapped",
        "maxBufferSize: MCP_MESSAGE_BYTES,",
        "maxBufferSize: MCP_MESSAGE_BYTES * 1000,",
        "a stdio MCP server's line of any size is parsed whole on the gateway's thread",
      ],
      [
        "mcp-output-ajv",
        "{ capabilities: {}, jsonSchemaValidator: boundedOutputValidator },",
        "{ capabilities: {} },",
        "an MCP output schema's pattern runs on Ajv's backtracking RegExp",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/mcp/message-cap.ts",
    ["packages/core/src/sources/hostile-sources.test.ts"],
    [
      [
        "mcp-message-uncapped",
        "if (run <= limit) return controller.enqueue(chunk);",
        "return controller.enqueue(chunk);",
        "an MCP message of any size is parsed whole on the gateway's thread",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/openapi/operations.ts",
    ["packages/core/src/sources/hostile-sources.test.ts"],
    [
      [
        "openapi-hostile-operation-mounted",
        "if (!budget.admit(name, inputSchema)) continue;",
        "",
        "an OpenAPI operation whose schema is past a limit is mounted",
      ],
    ],
  ),
  ...m(
    "packages/core/src/plugins/load-tools.ts",
    ["packages/core/src/sources/hostile-sources.test.ts"],
    [
      [
        "load-skipped-tools-silent",
        `if (c.kind === "bundled") diagnostics.push(...skippedToolDiagnostics(c.id, c.bundled, lc));`,
        "",
        "a source's left-out tools are not reported",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/openapi/request-url.ts",
    ["packages/core/src/sources/openapi/request-safety.test.ts"],
    [
      [
        "openapi-segment-dots-allowed",
        `.some((part) => part === "." || part === ".."))`,
        ".some((part) => false))",
        "a path parameter may be .. or .",
      ],
      [
        "openapi-segment-decoded-once",
        "for (let i = 0; i < 5; i++) {",
        "for (let i = 0; i < 1; i++) {",
        "a double-encoded dot segment (%252e%252e) passes",
      ],
      [
        "openapi-segment-empty-allowed",
        `if (encoded === "") throw`,
        `if (encoded === "!") throw`,
        "an empty path parameter turns /pets/{id} into /pets/",
      ],
      [
        "openapi-url-prefix-unchecked",
        "if (url.origin !== root.origin || !(url.pathname === prefix || url.pathname.startsWith(`${prefix}/`)))",
        "if (url.origin !== root.origin)",
        "a spec path climbs out of the base URL's path",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/credential-redirects.ts",
    ["packages/core/src/sources/openapi/request-safety.test.ts"],
    [
      [
        "redirect-cross-origin-keeps-credentials",
        "request = withoutCredentials(request, credentials, next);",
        "",
        "a redirect to another origin carries the credential",
      ],
      [
        "redirect-credential-header-kept",
        "const drop = new Set(credentials.headers.map((h) => h.toLowerCase()));",
        "const drop = new Set<string>();",
        "an API key header goes to the other origin (only Authorization is dropped)",
      ],
      [
        "redirect-query-credential-kept",
        "for (const q of credentials.query) next.searchParams.delete(q);",
        "",
        "a query-parameter credential echoed in the Location reaches the other origin",
      ],
      [
        "redirect-body-crosses-origin",
        "if (request.body !== undefined && request.body !== null)",
        "if (false)",
        "a POST redirected with 307 sends the tool's input to another origin",
      ],
      [
        "redirect-followed-by-fetch",
        `const res = await fetcher(current, { ...request, redirect: "manual" });`,
        `const res = await fetcher(current, { ...request, redirect: "follow" });`,
        "fetch follows redirects itself, credentials included",
      ],
    ],
  ),
  // #27 console v2
  ...m(
    "apps/gateway/src/console/routes.ts",
    ["apps/gateway/src/console/console-v2.e2e.test.ts"],
    [
      [
        "console-revoke-unguarded",
        `const refused = await refuseWrite(req, operator, "revoke approve-always rules");`,
        `const refused = undefined as Response | undefined;`,
        "a revoke skips both the origin check and the approver check",
      ],
      [
        "console-revoke-cross-site",
        `const refused = await refuseWrite(req, operator, "revoke approve-always rules");`,
        `const refused = d.isApprover(operator) ? undefined : await refuseWrite(req, operator, "revoke approve-always rules");`,
        "a cross-site form post revokes a rule (no CSRF check on revoke)",
      ],
      [
        "console-revoke-on-get",
        `if (revokeRule && req.method === "POST")`,
        `if (revokeRule)`,
        "a GET (a link, an image) revokes a rule",
      ],
      [
        "console-revoke-unrecorded",
        "d.approvals.rules.revoke(ruleId, `console:${normalizeOperator(operator)}`)",
        `d.approvals.rules.revoke(ruleId, "console")`,
        "the revoke's record does not say which operator revoked the rule",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/conversations/service.ts",
    ["apps/gateway/src/console/console-v2.e2e.test.ts"],
    [
      [
        "turn-request-unredacted",
        "request: redact(message.text),",
        "request: message.text,",
        "a secret in the user's message is kept in the turn record the console lists",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/console/routes.ts",
    ["apps/gateway/src/console/console-v2.e2e.test.ts"],
    [
      [
        // The per-request approver check comes before every route now (authorization on fresh
        // facts): it, not the write guard, is what refuses a revoke by someone no longer an approver.
        "console-revoke-any-operator",
        `const operator = signedIn !== undefined && d.isApprover(signedIn) ? signedIn : undefined;`,
        `const operator = signedIn;`,
        "a signed-in operator who is no longer an approver revokes a rule",
      ],
    ],
  ),
  // #25 workspace: the write check judges what really loads (allow-list on the syntax tree; a
  // refused file is never compiled; the typecheck reads and quotes nothing outside the allowed roots).
  ...m(
    "packages/core/src/workspace/specifier-rule.ts",
    ["packages/core/src/workspace/hostile-loads.test.ts"],
    [
      [
        "spec-relative-allowed",
        `spec.startsWith(".") || spec.startsWith("/") || `,
        ``,
        "relative and absolute import specifiers are taken for npm packages",
      ],
      [
        "spec-url-allowed",
        `if (/^[a-z][a-z0-9+.-]*:/i.test(spec))`,
        `if (false)`,
        "file:, data: and http: imports pass",
      ],
      ["spec-subpath-unchecked", `subpath !== "" &&`, `false &&`, "dayjs/../../x walks out of its package"],
      [
        "spec-loading-builtin-allowed",
        'return why ? refused(`${why}; tools may not import it`) : { kind: "builtin", name };',
        `return { kind: "builtin", name };`,
        "node:module, node:vm and node:worker_threads are allowed",
      ],
      [
        "spec-bun-any",
        `return BUN_MODULES.has(spec)`,
        `return true`,
        "any bun: module is allowed (the allow-list becomes a deny-list of bun:ffi)",
      ],
      [
        "spec-ffi-allowed",
        `if (spec === "bun:ffi") return refused("native code is not allowed in assistant-written tools");`,
        ``,
        "bun:ffi is refused only by accident, without saying why",
      ],
    ],
  ),
  ...m(
    "packages/core/src/workspace/load-rule.ts",
    ["packages/core/src/workspace/hostile-loads.test.ts"],
    [
      [
        "loads-member-names-unchecked",
        "if (ts.isPropertyAccessExpression(p) && p.name === id) return void named(id, name, `.${name}`);",
        `if (ts.isPropertyAccessExpression(p) && p.name === id) return;`,
        ".require, .constructor, .mainModule on any object pass",
      ],
      [
        "loads-string-keys-unchecked",
        `else if (ts.isStringLiteralLike(node)) named(node, node.text, JSON.stringify(node.text));`,
        `else if (ts.isStringLiteralLike(node)) {}`,
        `x["constructor"] and Reflect-style string keys pass`,
      ],
      [
        "loads-root-computed-allowed",
        "return refuse(p, `${form}[…]`, `a computed member of ${form} cannot be checked; use ${form}.<name>`);",
        `return;`,
        `globalThis["req" + "uire"] passes`,
      ],
      [
        "loads-root-value-allowed",
        "refuse(root, `${form} used as a value`, `use its members directly (${form}.<name>)`);",
        ``,
        "a global object aliased (const g = globalThis) escapes the member check",
      ],
      [
        "loads-root-members-unchecked",
        `const why = ROOT_MEMBERS.get(p.name.text);`,
        `const why = undefined as string | undefined;`,
        "Bun.plugin, Bun.resolveSync, process.binding pass",
      ],
      ["loads-import-meta-any", `if (!IMPORT_META.has(p.name.text))`, `if (false)`, "import.meta.require passes"],
      [
        "loads-dynamic-import-allowed",
        `if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)`,
        `if (false)`,
        "dynamic import() passes",
      ],
      [
        "loads-import-equals-allowed",
        `if (ts.isImportEqualsDeclaration(node))`,
        `if (false)`,
        "import x = require() passes",
      ],
      [
        "loads-reexport-unjudged",
        `if (ts.isExportDeclaration(node) && node.moduleSpecifier)`,
        `if (false)`,
        "export … from is left to the exports check, which does not judge what it loads",
      ],
      [
        "loads-reference-path-allowed",
        `for (const ref of sf.referencedFiles)`,
        `for (const ref of [] as ts.FileReference[])`,
        "/// <reference path> passes (and the typecheck reads the file)",
      ],
      ["loads-import-type-allowed", `if (ts.isImportTypeNode(node))`, `if (false)`, `import("…") types pass`],
      [
        "loads-named-imports-unchecked",
        'if (named(el, imported, `importing "${imported}"`)) continue;',
        `if (false) continue;`,
        "an imported name is judged only as the local binding (import { Worker as W } passes)",
      ],
    ],
  ),
  ...m(
    "packages/core/src/workspace/source-check.child.ts",
    ["packages/core/src/workspace/hostile-loads.test.ts"],
    [
      [
        "check-compiles-refused",
        `const diagnostics = loads.problems.length ? [] : typecheck();`,
        `const diagnostics = typecheck();`,
        "a file with a refused import is compiled anyway",
      ],
      [
        "check-load-problems-dropped",
        `problems.push(...loads.problems);`,
        ``,
        "the load rule's problems are not reported",
      ],
    ],
  ),
  ...m(
    "packages/core/src/workspace/load-rule.ts",
    ["packages/core/src/workspace/load-typecheck.test.ts"],
    [
      [
        "loads-computed-untyped-allowed",
        `if ((untyped || callable) && !isHarmlessKey(key))`,
        `if (callable && !isHarmlessKey(key))`,
        "(x as any)[key] passes: the key could be constructor",
      ],
      [
        "loads-computed-any-key",
        `(p) => (p.flags & ts.TypeFlags.NumberLike) !== 0 || (p.isStringLiteral() && !LOADER_NAMES.has(p.value)),`,
        `() => true,`,
        "a function's member read by any computed key passes",
      ],
    ],
  ),
  ...m(
    "packages/core/src/workspace/source-check.child.ts",
    ["packages/core/src/workspace/load-typecheck.test.ts"],
    [
      [
        "check-reads-outside",
        `readable(f) ? read(f) : undefined`,
        `read(f)`,
        "the typecheck reads files outside the SDK, type libraries and node_modules",
      ],
      [
        "check-quotes-other-files",
        `(d) => d.file?.fileName === req.file || !d.file,`,
        `() => true,`,
        "diagnostics of other files (their text) go back to the model",
      ],
      [
        "check-computed-members-skipped",
        `problems.push(...checkComputedMembers(program.getSourceFile(req.file)!, program.getTypeChecker()));`,
        ``,
        "the typed part of the rule is not run",
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
    "packages/core/src/receipts/sqlite/store.ts",
    ["packages/core/src/receipts/sqlite/journal.test.ts"],
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
    "packages/core/src/receipts/sqlite/fold-worker.ts",
    ["packages/core/src/receipts/sqlite/journal.test.ts"],
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
    "apps/gateway/src/surfaces/discord/commands/interactions.ts",
    ["apps/gateway/src/surfaces/discord/approvals/approver-dm.e2e.test.ts"],
    [
      [
        "interactions-command-lookup-before-ack",
        `if (actor.guildId === null && !isApprover(config, actor)) await i.deferReply({ flags: EPHEMERAL });`,
        ``,
        "a DM command waits for a member lookup (REST) before it is acknowledged",
      ],
    ],
  ),
  // #26 openapi calls
  ...m(
    "packages/core/src/sources/openapi/serialize.ts",
    ["packages/core/src/sources/openapi/serialization.test.ts"],
    [
      [
        "oa-style-form-explode-default",
        'const explode = typeof p.explode === "boolean" ? p.explode : style === "form";',
        'const explode = typeof p.explode === "boolean" ? p.explode : false;',
        "a query array without explode is sent comma-joined, not repeated (form's default is explode: true)",
      ],
      [
        "oa-style-query-unencoded",
        "const e = encoder(s.allowReserved === true);",
        "const e = encoder(true);",
        "query values keep reserved characters (&, =, /, :) as they are: a value splits into parameters",
      ],
      [
        "oa-style-matrix-explode-ignored",
        'return s.explode ? shape.items.map((v) => `;${n}=${e(v)}`).join("") : `;${n}=${shape.items.map(e).join(",")}`;',
        'return `;${n}=${shape.items.map(e).join(",")}`;',
        "a matrix array is never exploded",
      ],
      [
        "oa-style-label-delimiter",
        'if (shape.kind === "array") return `.${shape.items.map(e).join(s.explode ? "." : ",")}`;',
        'if (shape.kind === "array") return `.${shape.items.map(e).join(".")}`;',
        "a label array without explode is dot-joined (the 3.0.3 table's misprint) instead of comma-joined",
      ],
      [
        "oa-style-deep-object-flat",
        'if (s.style === "deepObject") return deepPairs(n, value, e);',
        "if (false) return deepPairs(n, value, e);",
        "deepObject is sent as form: name[key]=value becomes key=value",
      ],
      [
        "oa-style-pipe-as-comma",
        's.style === "pipeDelimited" ? "%7C" : ","',
        's.style === "pipeDelimited" ? "," : ","',
        "pipeDelimited values are comma-joined",
      ],
      [
        "oa-style-header-line-break",
        "t.replace(/[^\\x20-\\x7e\\t]/g, (c) => encodeURIComponent(c))",
        "t",
        "a line break in a header value reaches the request",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/openapi/build-request.ts",
    [
      "packages/core/src/sources/openapi/serialization.test.ts",
      "packages/core/src/sources/openapi/request-safety.test.ts",
    ],
    [
      [
        "oa-cookie-params-unsent",
        'if (cookies.length > 0) headers.cookie = cookies.join("; ");',
        "",
        "cookie parameters are not sent",
      ],
      [
        "oa-path-serialized-unchecked",
        "segments.set(p.name, pathSegment(p.name, serializePathValue(p.name, value, p), operation));",
        "segments.set(p.name, serializePathValue(p.name, value, p));",
        "a styled path value is not checked for dot segments: `..` climbs out of the operation's path",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/openapi/operations.ts",
    [
      "packages/core/src/sources/openapi/serialization.test.ts",
      "packages/core/src/sources/openapi/request-body.test.ts",
      "packages/core/src/sources/openapi/schema-conversion.test.ts",
    ],
    [
      [
        "oa-same-name-params-merge",
        "let key = keys.has(p.name) ? `${p.in}_${p.name}` : p.name;",
        "let key = p.name;",
        "a header and a query parameter named alike share one input: one of them is lost",
      ],
      [
        "oa-unbuildable-body-silent",
        "          budget.skip(name, choice.reason);\n",
        "",
        "an operation whose body cannot be built disappears without a diagnostic",
      ],
      [
        "oa-name-collision-silent",
        "  if (candidate !== base)\n    notices.push({",
        "  if (false)\n    notices.push({",
        "an operation renamed because its name was taken says nothing",
      ],
      [
        "oa-ref-tilde-undecoded",
        'return fragment.split("/").map((s) => s.replace(/~1/g, "/").replace(/~0/g, "~"));',
        'return fragment.split("/");',
        "a ref with ~1 or ~0 points nowhere",
      ],
      [
        "oa-ref-percent-undecoded",
        "fragment = decodeURIComponent(ref.slice(2));",
        "fragment = ref.slice(2);",
        "a percent-encoded ref points nowhere",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/openapi/request-body.ts",
    [
      "packages/core/src/sources/openapi/request-body.test.ts",
      "packages/core/src/sources/openapi/schema-conversion.test.ts",
    ],
    [
      [
        "oa-body-json-type-lost",
        'return { body: JSON.stringify(value), contentType: d.any ? "application/json" : d.mediaType };',
        'return { body: JSON.stringify(value), contentType: "application/json" };',
        "a merge-patch or JSON-patch body is sent as application/json",
      ],
      [
        "oa-body-form-unread",
        'const form = pick((e) => e === "application/x-www-form-urlencoded");',
        "const form = pick(() => false);",
        "a form-urlencoded body is not recognised",
      ],
      [
        "oa-body-form-encoding-ignored",
        "pairs.push(...serializeQuery(name, value, styleOf(enc)));",
        "pairs.push(...serializeQuery(name, value, styleOf({})));",
        "a form body's encoding (deepObject) is ignored",
      ],
      [
        "oa-body-binary-not-file",
        "const encoding = { ...binaryParts(schema, resolve), ...encodingOf(multipart).encoding };",
        "const encoding = { ...encodingOf(multipart).encoding };",
        "a binary multipart field is sent as a text field, not a file part",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/openapi/json-schema.ts",
    ["packages/core/src/sources/openapi/schema-conversion.test.ts"],
    [
      [
        "oa-schema-readonly-input",
        "    if (leaveOut.has(name)) continue;\n",
        "",
        "readOnly properties are inputs (and required)",
      ],
      [
        "oa-schema-default-filled",
        'if (OPENAPI_ONLY.has(k) || k === "default") continue;',
        "if (OPENAPI_ONLY.has(k)) continue;",
        "a default is filled into the request the caller made",
      ],
      [
        "oa-schema-keyword-property-dropped",
        'else if (SCHEMA_MAPS.has(k) && typeof v === "object" && v !== null && !Array.isArray(v))',
        "else if (false)",
        "properties named example, xml, nullable... are dropped as keywords",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/openapi/parse-spec.ts",
    ["packages/core/src/sources/openapi/schema-conversion.test.ts"],
    [
      [
        "oa-swagger-not-converted",
        'return upgrade(doc as never, "3.1") as never;',
        "return doc as never;",
        "a Swagger 2.0 document is read as if it were OpenAPI 3",
      ],
    ],
  ),
  ...m(
    "packages/core/src/codemode/declarations-render.ts",
    ["packages/core/src/sources/openapi/schema-conversion.test.ts"],
    [
      [
        "decl-closed-object-never",
        'if (def.type === "object" && def.catchall?._zod.def.type === "never") return closedObjectType(s, opts);',
        "",
        "a nested additionalProperties:false object declares [x: string]: never: no literal typechecks",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/openapi/build-request.ts",
    ["packages/core/src/sources/prototype-keys.test.ts"],
    [
      [
        "openapi-param-inherited",
        "const value = ownValue(input, p.key);",
        "const value = input[p.key];",
        "an absent parameter named constructor is sent as Object's source text",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/openapi/serialize.ts",
    ["packages/core/src/sources/openapi/request-safety.test.ts"],
    [
      [
        "openapi-segment-unencoded",
        "const e = encoder(false);\n  const shape = shapeOf(value, s);\n  const n = e(name);",
        "const e = (t: string) => t;\n  const shape = shapeOf(value, s);\n  const n = e(name);",
        "a path parameter's / ? # reach the URL as delimiters",
      ],
    ],
  ),
  // #27 setup never dead-ends
  ...m(
    "packages/core/src/plugins/npm-plugins.ts",
    ["apps/gateway/src/cli/commands/plugins-install-sources.test.ts"],
    [
      [
        "setup-folder-deps-not-installed",
        `      if (folder) folders.push(folder);`,
        ``,
        "plugins install skips a plugin folder's missing dependencies (answers up to date)",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/plugin-packages/specifier.ts",
    ["apps/gateway/src/cli/commands/plugins-install-sources.test.ts"],
    [
      [
        "setup-git-spec-as-npm-name",
        '  if (GIT.test(spec) || /^https?:\\/\\//.test(spec)) return { kind: "package", target: spec };',
        ``,
        "a git specifier is taken for an npm name and never installed",
      ],
    ],
  ),
  ...m(
    "packages/core/src/plugins/load-tools.ts",
    ["apps/gateway/src/cli/commands/plugins-install-sources.test.ts"],
    [
      [
        "setup-undeclared-plugin-import-unnamed",
        `      const undeclared = c.origin === "npm" ? [] : undeclaredPluginImports(c.pkg.entry, c.pkg.dir);`,
        `      const undeclared: string[] = [];`,
        "a plugin's undeclared import is advised the install command, which installs nothing",
      ],
    ],
  ),
  ...m(
    "packages/core/src/plugins/load-tools.ts",
    ["packages/core/src/plugins/registry.test.ts"],
    [
      [
        "setup-reloaded-config-vars-unregistered",
        `  opts.secrets?.add("config-var", loaded.secrets);`,
        ``,
        "a ${VAR} value of a config re-read on reload is not redacted",
      ],
    ],
  ),
  ...m(
    "packages/core/src/plugins/registry.ts",
    ["packages/core/src/plugins/registry.test.ts", "apps/gateway/src/cli/config-reload.test.ts"],
    [
      [
        "setup-restart-keys-silent",
        `      return publish(freeze(result, restartWarnings(started, config)));`,
        `      return publish(freeze(result));`,
        "a changed start-only key (http.approvers) silently needs a restart",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/cli/doctor-checks.ts",
    ["apps/gateway/src/cli/doctor.test.ts"],
    [
      [
        "setup-doctor-endpoint-not-contacted",
        `    await client.messages.countTokens({ model: opts.model, messages: [{ role: "user", content: "doctor" }] });`,
        ``,
        "doctor shows a dead endpoint as ✓",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/cli/commands/doctor.ts",
    ["apps/gateway/src/cli/doctor.test.ts"],
    [
      [
        "setup-doctor-first-config-error-only",
        `  const all = [e, ...e.more];`,
        `  const all = [e];`,
        "doctor shows only the first config problem",
      ],
    ],
  ),
  ...m(
    "packages/discord-fake/src/rest-channels.ts",
    [
      "packages/discord-fake/src/attachments.test.ts",
      "apps/gateway/src/surfaces/discord/invite-permissions.e2e.test.ts",
    ],
    [
      [
        "setup-fake-attach-unchecked",
        `    assertCanPost(channel);\n    assertCanAttach(channel.id, req.files);`,
        `    assertCanPost(channel);`,
        "the fake Discord accepts a file where the bot lacks ATTACH_FILES",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/surfaces/terminal/terminal-surface.ts",
    ["apps/gateway/src/cli/terminal-commands.test.ts"],
    [
      [
        "setup-terminal-unknown-command-sent",
        "    const command = /^\\/[A-Za-z][\\w-]*(?=\\s|$)/.exec(line)?.[0];",
        "    const command = undefined as string | undefined;",
        "an unknown /command is sent to the model",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/cli/editor-tsconfig.ts",
    ["apps/gateway/src/cli/editors.test.ts"],
    [
      [
        "setup-tsconfig-plugin-dirs-left-out",
        "...pluginDirs.map((d) => `${d}/**/*.ts`)",
        "...pluginDirs.slice(0, 0)",
        "the editor tsconfig does not check plugin folders from config.plugins",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/cli/link.ts",
    ["apps/gateway/src/cli/link.test.ts"],
    [
      [
        "setup-link-path-always-ok",
        `  const onPath = path.split(delimiter).some(`,
        `  const onPath = true || path.split(delimiter).some(`,
        "bun run link says nothing when Bun's bin folder is not on PATH",
      ],
    ],
  ),
  // #26 MCP as the protocol is meant; the CLI never hangs
  ...m(
    "packages/core/src/sources/mcp/stderr-tail.ts",
    ["packages/core/src/sources/mcp/stderr-tail.test.ts"],
    [
      [
        "mcp-stderr-unredacted",
        "const clean = this.redact(this.text);",
        "const clean = this.text;",
        "a server's stderr is shown with the secrets it printed",
      ],
      [
        "mcp-stderr-cut-mid-secret",
        "this.text = wholeLinesOf(this.text, this.limit);",
        "this.text = this.text.slice(-this.limit);",
        "the kept tail starts inside a line: the end of a secret cut in two passes the redactor",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/mcp/connection.ts",
    ["apps/gateway/src/cli/mcp-commands.e2e.test.ts"],
    [
      [
        "mcp-stderr-env-not-secret",
        "const tail = new StderrTail(Object.values(c.env ?? {}));",
        "const tail = new StderrTail([]);",
        "the values of a server's configured env are not redacted from its stderr",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/mcp/connection.ts",
    ["packages/core/src/sources/mcp/startup.test.ts"],
    [
      [
        "mcp-startup-timeout-ignored",
        "await Promise.race([started, late]);",
        "await started;",
        "a server that never answers initialize is waited for without limit",
      ],
      [
        "mcp-startup-timeout-leaves-process",
        "if (e instanceof McpStartupTimeoutError) await client.close().catch(() => {});",
        "",
        "a server that did not start in time is left running",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/mcp/bundle.ts",
    ["packages/core/src/sources/mcp/startup.test.ts"],
    [
      [
        "mcp-startup-factory-limit",
        "timeoutMs: ((config.startupTimeoutSeconds ?? DEFAULT_MCP_STARTUP_SECONDS) + LISTING_SECONDS) * 1000,",
        "",
        "an MCP server gets the plugin factory's 10 s, not its own start-up time",
      ],
    ],
  ),
  ...m(
    "packages/core/src/codemode/call-progress.ts",
    ["packages/core/src/codemode/tool-invoker.test.ts"],
    [
      [
        "progress-message-unredacted",
        "escapeInvisible(cutText(ctx.redact(raw), PROGRESS_MESSAGE_CHARS, { marker: ELLIPSIS }))",
        "escapeInvisible(cutText(raw, PROGRESS_MESSAGE_CHARS, { marker: ELLIPSIS }))",
        "a progress message reaches the live status with the secrets it holds",
      ],
      [
        "progress-after-settled",
        "if (settled() || !ctx.onProgress) return;",
        "if (!ctx.onProgress) return;",
        "a tool reports progress after its call settled",
      ],
    ],
  ),
  ...m(
    "packages/core/src/codemode/typecheck-program.ts",
    ["packages/core/src/codemode/typecheck-program.test.ts"],
    [
      [
        "doctor-declarations-skipped",
        "options: { ...OPTIONS, skipLibCheck: false },",
        "options: OPTIONS,",
        "doctor's check of the declarations skips them (skipLibCheck), reporting no error",
      ],
    ],
  ),
  ...m(
    "packages/core/src/codemode/declarations-render.ts",
    ["packages/core/src/sources/mcp/reference-servers.test.ts"],
    [
      [
        "declarations-output-closed",
        "  openObjects(prepared.schema);",
        "",
        "a closed output object prints as [x: string]: never beside its properties, which does not compile",
      ],
    ],
  ),
  // #28 the call as named steps: one outcome per call, recorded in one place
  ...m("packages/core/src/codemode/tool-invoker.ts", INVOKER, [
    [
      "invoker-outcome-recorded-twice",
      `if (call.settled) return call.settled.result;`,
      ``,
      "a call that shutdown settled is recorded again when its step ends (two outcome receipts)",
    ],
    [
      "invoker-runs-after-shutdown",
      `if (call.settled) {\n    release(call);\n    return call.settled;\n  }`,
      ``,
      "a call that shutdown settled during the commit before its run still runs",
    ],
    [
      "invoker-runs-without-receipts",
      `if (unwritten || call.invoker.ctx.signal.aborted) {`,
      `if (call.invoker.ctx.signal.aborted) {`,
      "a tool runs although the receipts announcing it could not be committed",
    ],
  ]),
  // #28 source kinds
  ...m(
    "packages/core/src/plugins/discovery.ts",
    ["packages/core/src/plugins/namespaces.test.ts", "packages/core/src/sources/kinds.test.ts"],
    [
      [
        "kinds-builtin-layer-ignored",
        "layer: kind.layer ?? LAYER.config,",
        "layer: LAYER.config,",
        "the gateway's own tools rank as a config source: an OpenAPI spec or MCP server takes their name",
      ],
      [
        "kinds-watch-dirs-dropped",
        "k.watchDirs?.(k.schema ? sections[k.key] : undefined, kindCtx) ?? []",
        "[]",
        "the loader stops asking the kinds what to watch: a saved tool file no longer reloads",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/workspace-tools/kind.ts",
    ["packages/core/src/sources/kinds.test.ts"],
    [
      [
        "kinds-workspace-tools-without-host",
        "    if (!host) return [];",
        "    if (!host) return [await workspaceToolsEntry(workspaceDir(ctx.projectRoot), {})];",
        "a program that embeds the loader gets tools.workspace (tool file writes) it never offered",
      ],
      [
        "kinds-workspace-tools-enabled-ignored",
        "const entries = section.enabled ? [",
        "const entries = true ? [",
        "config.workspace.enabled: false still offers the assistant tools that write tool files",
      ],
    ],
  ),
  ...m(
    "packages/core/src/config/restart-keys.ts",
    ["packages/core/src/config/restart-keys.test.ts"],
    [
      [
        "kinds-read-once-reloaded",
        "(k.schema && !k.readOnce ? [k.key] : [])",
        "(k.schema ? [k.key] : [])",
        "a change to config.workspace is taken as applied on reload, though it needs a restart",
      ],
    ],
  ),
  ...m(
    "scripts/boundaries.ts",
    ["scripts/boundaries.test.ts"],
    [
      [
        "kinds-any-file-names-a-kind",
        'path === "packages/core/src/sources/kinds.ts"',
        'path.startsWith("packages/core/src/")',
        "the loader may import one kind by name again, bypassing the registry",
      ],
    ],
  ),
  // #26 huge APIs stay usable
  ...m(
    "packages/core/src/sources/source-budget.ts",
    ["packages/core/src/sources/openapi/huge-spec.test.ts"],
    [
      [
        "openapi-tools-cap-5000",
        "  nodes: 2_000_000,\n  tools: 20_000,",
        "  nodes: 2_000_000,\n  tools: 5_000,",
        "half of a 10,000-operation spec is left out",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/openapi/parse-spec.ts",
    ["packages/core/src/sources/openapi/huge-spec.test.ts"],
    [
      [
        "openapi-default-budget",
        "new SourceBudget(OPENAPI_SOURCE_LIMITS)",
        "new SourceBudget()",
        "an OpenAPI source gets the MCP limits: Graph loads 1,362 of its 11,422 operations",
      ],
    ],
  ),
  ...m(
    "packages/core/src/codemode/reachable-declarations.ts",
    [
      "packages/core/src/codemode/reachable-declarations.test.ts",
      "packages/core/src/sources/openapi/huge-spec.test.ts",
    ],
    [
      [
        "reach-whole-namespace-rendered",
        "if (count > WHOLE_DECLARATIONS_TOOLS)",
        "if (count < 0)",
        "a snippet naming only `tools.graph` renders and checks all 11,422 declarations (gigabytes)",
      ],
      [
        "reach-namespace-empty",
        "isToolDefinition(child) || rest.some((c) => c.length === 0) ? child",
        "isToolDefinition(child) ? child",
        "a snippet holding a namespace in a variable is checked against none of its tools",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/openapi/bundle.ts",
    ["packages/core/src/sources/openapi/huge-spec.test.ts"],
    [
      [
        "openapi-factory-limit",
        "timeoutMs: OPENAPI_LOAD_TIMEOUT_MS,",
        "",
        "a 20 MB spec's first parse on a busy machine times out at 10 s: no tools",
      ],
    ],
  ),
  ...m(
    "packages/core/src/plugins/load-tools.ts",
    ["packages/core/src/plugins/time-limit.test.ts"],
    [
      [
        "bundled-own-limit-ignored",
        'const limit = (c.kind === "bundled" ? c.bundled.timeoutMs : undefined) ?? lc.timeoutMs;',
        "const limit = lc.timeoutMs;",
        "a bundled source's own load limit is ignored",
      ],
    ],
  ),
  // #28 storage
  ...m(
    "packages/core/src/receipts/sqlite/ports.ts",
    ["packages/core/src/receipts/sqlite/contract.test.ts"],
    [
      [
        "reader-reads-before-staged",
        `await store.settled();`,
        ``,
        "the reader's run list misses receipts staged (or journaled) before the read",
      ],
      [
        "reader-byruns-reordered",
        `byRuns: (runIds) => synced(() => runIds.flatMap((id) => store.byRun(id))),`,
        `byRuns: (runIds) => synced(() => [...runIds].sort().flatMap((id) => store.byRun(id))),`,
        "a turn's receipts come back in another order than its runs",
      ],
    ],
  ),
  ...m(
    "packages/core/src/approvals/sqlite/store.ts",
    ["packages/core/src/approvals/sqlite/contract.test.ts", "packages/core/src/approvals/broker.test.ts"],
    [
      [
        "approval-store-last-decision-wins",
        `WHERE call_id = ? AND status = 'pending'`,
        `WHERE call_id = ?`,
        "a second decision overwrites the first (an approval turned into a denial after the tool ran, or back)",
      ],
    ],
  ),
  ...m(
    "packages/core/src/approvals/sqlite/rules.ts",
    ["packages/core/src/approvals/sqlite/contract.test.ts"],
    [
      [
        "rule-store-session-rule-everywhere",
        `if (row.scope === "session" && (sessionId === undefined || row.session_id !== sessionId)) continue;`,
        `if (row.scope === "session" && sessionId === undefined) continue;`,
        "an 'approve always' rule made in one conversation approves calls in every other",
      ],
    ],
  ),
  ...m(
    "packages/core/src/codemode/runner.ts",
    ["packages/core/src/codemode/runner.test.ts"],
    [
      [
        "runner-result-before-approval-answer",
        `await invoker.approvalsAnswered();`,
        ``,
        "a run that ends while a call waits for approval returns before the call's denial is recorded",
      ],
    ],
  ),
  ...m(
    "packages/core/src/receipts/sqlite/runs.ts",
    ["apps/gateway/src/console/run-list.test.ts"],
    [
      [
        "reader-turn-of-unlisted-run",
        `return Array.isArray(runIds) && runIds.includes(runId) ? toRunTurn(row) : undefined;`,
        `return Array.isArray(runIds) ? toRunTurn(row) : undefined;`,
        "a run is shown as serving a turn of its session that does not list it",
      ],
    ],
  ),
  // #28 retry schedules
  ...m(
    "packages/core/src/retry/schedule.ts",
    ["packages/core/src/retry/retry.test.ts"],
    [
      [
        "retry-wait-past-deadline",
        `if (now + waitMs > policy.until) return Effect.fail(input);`,
        ``,
        "a retry waits past its deadline (an approval card is posted after it expired)",
      ],
      [
        "retry-no-cap",
        `Schedule.modifyDelay(({ duration }) => Effect.succeed(Duration.min(duration, cap))),`,
        ``,
        "the waits keep doubling past the cap",
      ],
      [
        "retry-any-failure",
        `return Effect.runPromise(Effect.retry(attempt, { schedule: retrySchedule(policy), while: policy.retryable }));`,
        `return Effect.runPromise(Effect.retry(attempt, { schedule: retrySchedule(policy) }));`,
        "a failure that is not worth retrying (a 4xx) is retried until the deadline",
      ],
      [
        "retry-first-failure-not-replayed",
        `let replay: { error: unknown } | undefined = { error: first };`,
        `let replay: { error: unknown } | undefined;`,
        "the call that already failed is made once more at once, without a wait",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/surfaces/discord/retry.ts",
    ["apps/gateway/src/surfaces/discord/approvals/delivery.e2e.test.ts"],
    [
      [
        "discord-retry-4xx",
        `retryable: isTransient,`,
        `retryable: () => true,`,
        "a card Discord refuses for good (thread gone) is retried until it expires instead of denied at once",
      ],
    ],
  ),
  ...m(
    "packages/core/src/plugins/auto-install.ts",
    ["packages/core/src/plugins/install-lock.test.ts"],
    [
      [
        "install-lock-no-wait",
        `retryable: (e) => e instanceof LockHeld,`,
        `retryable: () => false,`,
        "an install gives up at once on a lock another install holds",
      ],
      [
        "install-lock-no-takeover",
        `if (!release && isStale(file, timeoutMs)) {`,
        `if (!release && false) {`,
        "a lock left by a dead install blocks every install until the time limit",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/mcp/connection.ts",
    ["packages/core/src/sources/mcp/reconnect.test.ts"],
    [
      ["mcp-no-backoff", `if (wait > 0)`, `if (false)`, "an unreachable MCP server is started again on every use"],
      [
        "mcp-backoff-not-growing",
        `      this.failures++;`,
        ``,
        "an MCP server that keeps failing is retried every second forever",
      ],
    ],
  ),
  // #28 surfaces
  ...m(
    "packages/core/src/config/load.ts",
    ["apps/gateway/src/config-schema.test.ts", "apps/gateway/src/surfaces/registry.test.ts"],
    [
      [
        "config-app-schema-ignored",
        `  const schema = (opts.schema ?? configSchema) as ConfigSchema<C>;`,
        `  const schema = configSchema as ConfigSchema<C>;`,
        "the gateway's sections are not checked: a config with a surface's section is refused as an unknown key",
      ],
    ],
  ),
  ...m(
    "packages/core/src/plugins/registry.ts",
    ["apps/gateway/src/config-schema.test.ts"],
    [
      [
        "reload-config-core-schema",
        `const configSchema = opts.configSchema ?? opts.config?.schema;`,
        `const configSchema = opts.configSchema;`,
        "a reload checks the files with core's schema: a surface's section becomes an unknown key",
      ],
    ],
  ),
  ...m(
    "packages/core/src/plugins/load-tools.ts",
    ["apps/gateway/src/config-schema.test.ts"],
    [
      [
        "reload-surface-credential-not-secret",
        `configSecretValues(loaded.config, loaded.schema)`,
        `configSecretValues(loaded.config)`,
        "a credential a reload reads from a surface's section does not reach the redactor",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/console/approvers.ts",
    ["apps/gateway/src/console/approvers.test.ts", "apps/gateway/src/surfaces/registry.test.ts"],
    [
      [
        "console-operator-not-asked",
        `return userId !== "" && asked.some((s) => s.operators!.isOperator(sections[s.id], userId));`,
        `return userId !== "" && asked.length > 0;`,
        "anyone may sign in to the console once a surface is configured: the surface is not asked who is an operator",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/surfaces/registry.ts",
    ["apps/gateway/src/surfaces/registry.test.ts"],
    [
      [
        "surface-runs-unconfigured",
        `if (s.configSchema && Object.hasOwn(config, s.id) && s.configured(config[s.id])) out[s.id] = config[s.id];`,
        `if (s.configSchema && Object.hasOwn(config, s.id)) out[s.id] = config[s.id];`,
        "a surface whose section does not ask for it (Discord without a token) is started",
      ],
      [
        "surface-chat-starts-another",
        `      : surfaces.find((s) => s.id === mode);`,
        `      : surfaces[0];`,
        "`openassistant chat` starts the first registered surface instead of the terminal",
      ],
    ],
  ),
  ...m("apps/gateway/src/surfaces/discord/surface.ts", REDACT, [
    [
      "surface-token-not-registered",
      `  credentials: (section) => (section.token ? [section.token] : []),`,
      `  credentials: () => [],`,
      "the bot token from the config is not a secret until the surface itself connects",
    ],
  ]),
  ...m(
    "apps/gateway/src/config-schema.ts",
    ["apps/gateway/src/config-schema.test.ts", "apps/gateway/src/surfaces/registry.test.ts"],
    [
      [
        "gateway-config-no-surface-sections",
        `    ...surfaceConfigShape(surfaces),`,
        ``,
        "the registered surfaces' sections are not part of the config: `discord` is an unknown key",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/model/config-schema.ts",
    ["apps/gateway/src/model/capabilities.test.ts"],
    [
      [
        "model-settings-unchecked",
        `    for (const message of checkModelSettings(model.name, model)) ctx.addIssue({ code: "custom", message, path: [] });`,
        ``,
        "model.thinking / model.effort the chosen model rejects pass the config check (every request then fails)",
      ],
    ],
  ),
  ...m(
    "scripts/boundaries.ts",
    ["scripts/boundaries.test.ts"],
    [
      [
        "boundaries-core-strings-unchecked",
        `    if (children.length === 0) out.push(node.getText(source));`,
        `    if (children.length === 0 && !ts.isStringLiteral(node)) out.push(node.getText(source));`,
        "a surface or model named in a string in core's code passes the boundaries check",
      ],
    ],
  ),
  // #28 conversations
  ...m(
    "apps/gateway/src/services/storage-layer.ts",
    ["apps/gateway/src/services/assemble.test.ts"],
    [
      [
        "start-failure-storage-left-open",
        `(stores) => stores.close(),`,
        `(stores) => void stores,`,
        "a start that fails after the stores opened leaves the receipt journal and its fold worker open",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/services/assemble.ts",
    ["apps/gateway/src/services/assemble.test.ts"],
    [
      [
        "start-failure-nothing-closed",
        `  await Effect.runPromise(Scope.close(scope, exit));\n`,
        ``,
        "a start that fails half way closes nothing it had opened (the process stays alive)",
      ],
      [
        "start-failure-error-lost",
        `  throw Cause.squash(exit.cause);`,
        `  throw new Error("the gateway could not start");`,
        "a start that fails says neither where nor why (the port, the key file, the database)",
      ],
      [
        "start-failure-early-pool-kept",
        `    if (early && !options.sandbox) yield* onClose("early sandbox pool", () => early.sandbox.close(), log);\n`,
        ``,
        "the sandbox children started before the config loaded outlive a start that fails",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/conversations/service.ts",
    ["apps/gateway/src/model-output.test.ts"],
    [
      [
        "conversation-turns-not-queued",
        `const work = sessionQueue.run(session.id, () => converse(message, session, turnId, controller.signal, resumedRuns));`,
        `const work = converse(message, session, turnId, controller.signal, resumedRuns);`,
        "two messages of one session run their turns at once, and the history is stored out of order",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/conversations/service.ts",
    ["apps/gateway/src/conversations/service.test.ts", "apps/gateway/src/security/secrets.e2e.test.ts"],
    [
      [
        "conversation-events-unredacted",
        `const safe = redactDeep(e, redact);`,
        `const safe = e;`,
        "a turn's events carry secrets to the event bus, SSE and surfaces",
      ],
      [
        "conversation-outcome-unredacted",
        `const outcome = redactDeep(raw, redact);`,
        `const outcome = raw;`,
        "a secret the model repeats is stored in the session and returned to the surface",
      ],
    ],
  ),
  // #25 responsiveness
  ...m(
    "packages/core/src/sources/mcp/listing-off-thread.ts",
    ["packages/core/src/sources/off-thread.test.ts"],
    [
      [
        "offthread-listing-parsed-here",
        "if (bytes.byteLength <= ON_THREAD_CHARS) return bytes;",
        "if (bytes.byteLength > 0) return bytes;",
        "an MCP server's large tools/list answer is parsed whole on the gateway's thread",
      ],
    ],
  ),
  ...m(
    "packages/core/src/codemode/declarations.ts",
    ["packages/core/src/sources/off-thread.test.ts"],
    [
      [
        "offthread-declarations-rendered-here",
        "const offThread = json ? await renderedOffThread(json, options.cache) : undefined;",
        "const offThread = undefined;",
        "a source's JSON Schema tools get their validators built and declarations rendered on the gateway's thread",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/mcp/listing.ts",
    ["packages/core/src/sources/mcp/listing.test.ts"],
    [
      [
        "offthread-tools-unscreened",
        "tools = parsed.data.tools.map(screenTool);",
        "tools = parsed.data.tools;",
        "a hostile tool crosses to the gateway's thread whole (megabytes in one message) instead of as a stub",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/source-thread-protocol.ts",
    ["packages/core/src/sources/mcp/listing.test.ts"],
    [
      [
        "offthread-chunk-unbounded",
        "if (chunk.length > 0 && chars + size > limit) break;",
        "if (chunk.length > 0 && chars > 100 * limit) break;",
        "the gateway's thread receives a source's items in one huge message",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/mcp/connection.ts",
    ["packages/core/src/sources/hostile-sources.test.ts"],
    [
      [
        "mcp-offthread-output-unchecked",
        "(client as unknown as { cacheToolMetadata(tools: Tool[]): void }).cacheToolMetadata(tools);",
        "",
        "tools listed off the gateway's thread lose the SDK's check of their structured output",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/mcp/listing-off-thread.ts",
    ["packages/core/src/sources/off-thread.test.ts"],
    [
      [
        "offthread-stdio-line-parsed-here",
        "if (line.length <= ON_THREAD_CHARS || requestId === undefined) return this.parse(line);",
        "return this.parse(line);",
        "a stdio server's large tools/list line is parsed whole on the gateway's thread",
      ],
      [
        "offthread-stdio-not-woken",
        "        this.wake();",
        "",
        "the messages after a stdio listing read off the thread are never delivered (the load waits forever)",
      ],
    ],
  ),
  // #28 storage open
  ...m(
    "packages/core/src/db/open.ts",
    ["packages/core/src/db/open.test.ts", "apps/gateway/src/services/assemble.test.ts"],
    [
      [
        "db-open-broken-file-left-open",
        `    db.close();\n    throw e;`,
        `    throw e;`,
        "a file that is not a database stays open until the handle is collected (a failed start leaks it)",
      ],
    ],
  ),
  // #31 postgres
  ...m(
    "packages/core/src/receipts/postgres/schema.ts",
    ["packages/core/src/receipts/postgres/store.test.ts"],
    [
      [
        "pg-receipts-update-allowed",
        "CREATE TRIGGER receipts_append_only BEFORE UPDATE OR DELETE ON receipts",
        "CREATE TRIGGER receipts_append_only BEFORE DELETE ON receipts",
        "on PostgreSQL a receipt can be rewritten in place (UPDATE), history changed without a trace in the database",
      ],
      [
        "pg-receipts-delete-allowed",
        "CREATE TRIGGER receipts_append_only BEFORE UPDATE OR DELETE ON receipts",
        "CREATE TRIGGER receipts_append_only BEFORE UPDATE ON receipts",
        "on PostgreSQL receipts can be deleted",
      ],
    ],
  ),
  ...m(
    "packages/core/src/db/postgres/migrate.ts",
    ["packages/core/src/receipts/postgres/store.test.ts", "apps/gateway/src/postgres/open-stores.test.ts"],
    [
      [
        "pg-newer-schema-accepted",
        "if (from > known)",
        "if (from > known + 1)",
        "an older gateway starts on a database a newer one migrated and writes into a schema it does not know",
      ],
    ],
  ),
  ...m(
    "packages/core/src/receipts/postgres/store.ts",
    ["packages/core/src/receipts/postgres/store.test.ts", "packages/core/src/receipts/postgres/contract.test.ts"],
    [
      [
        "pg-durable-before-commit",
        "const ws = waiters;",
        "const ws: Waiter[] = [];\n          for (const w of waiters) w.resolve();",
        "durable() resolves before the COMMIT: a tool runs although its receipts were never stored",
      ],
      [
        "pg-failed-batch-dropped",
        "pending = batch.concat(pending);",
        "",
        "receipts of a commit the database refused are dropped instead of going to the next commit",
      ],
    ],
  ),
  ...m(
    "packages/core/src/receipts/postgres/verify.ts",
    ["packages/core/src/receipts/postgres/store.test.ts"],
    [
      [
        "pg-head-unchecked",
        "return result ?? (await checkHead()) ?? { ok: true, legacy: 0, keyed: count, head: headState };",
        "return result ?? { ok: true, legacy: 0, keyed: count, head: headState };",
        "on PostgreSQL the newest receipts can be deleted without verify noticing (the head beside the key is not checked)",
      ],
    ],
  ),
  ...m(
    "packages/core/src/db/postgres/lease.ts",
    ["packages/core/src/db/postgres/lease.test.ts"],
    [
      [
        "pg-lease-per-statement",
        "SELECT pg_try_advisory_lock(${LEASE_SPACE}, hashtext(${name})) AS got",
        "SELECT pg_try_advisory_xact_lock(${LEASE_SPACE}, hashtext(${name})) AS got",
        "the lease is let go right after it is taken: two gateways hold the Discord connection at once",
      ],
      [
        "pg-lease-lost-unreported",
        "options.onLost?.(",
        "void (",
        "a gateway whose lease connection dropped keeps acting as the holder while another takes over",
      ],
    ],
  ),
  ...m(
    "packages/core/src/db/postgres/events.ts",
    ["packages/core/src/db/postgres/events.test.ts"],
    [
      [
        "pg-events-own-echo",
        "if (message.o === origin && opts.own !== true) return;",
        "",
        "a gateway's own events come back to it through the database, and its console shows each twice",
      ],
    ],
  ),
  ...m(
    "packages/core/src/receipts/postgres/chain.ts",
    ["packages/core/src/receipts/postgres/store.test.ts"],
    [
      [
        "pg-chain-unlocked",
        "const BEGIN_LOCKED = `BEGIN; SELECT pg_advisory_xact_lock(${CHAIN_LOCK});",
        "const BEGIN_LOCKED = `BEGIN; SELECT 1;",
        "two gateways read the same chain end and append over each other (a commit fails, or the chain forks)",
      ],
    ],
  ),
  ...m(
    "packages/core/src/approvals/postgres/store.ts",
    ["packages/core/src/approvals/postgres/store.test.ts", "packages/core/src/approvals/postgres/contract.test.ts"],
    [
      [
        "pg-approval-last-decision-wins",
        "WHERE call_id = ${callId} AND status = 'pending' RETURNING call_id",
        "WHERE call_id = ${callId} RETURNING call_id",
        "on PostgreSQL a later decision overwrites the first (another replica's denial turns an approval around)",
      ],
    ],
  ),
  // #30 replay
  ...m(
    "packages/core/src/codemode/run-replay.ts",
    ["packages/core/src/codemode/resume.test.ts"],
    [
      [
        "replay-divergence-input-ignored",
        `if (recorded.toolPath !== path || recorded.inputHash !== hash) return this.diverged(recorded, path, hash);`,
        `if (recorded.toolPath !== path) return this.diverged(recorded, path, hash);`,
        "a resumed call with another input than its record is answered from the record instead of stopping the run",
      ],
      [
        "replay-cut-off-rerun-always",
        `return definition?.idempotent === true || definition?.readOnly === true;`,
        `return definition?.readOnly === false || definition?.readOnly === true;`,
        "a call cut off mid-flight is executed a second time though its tool is not idempotent (the wrong flag decides)",
      ],
      [
        "replay-answer-unredacted",
        `result.ok && result.json !== undefined ? { ok: true as const, json: this.redact(result.json) } : result;`,
        `result;`,
        "a secret in a tool's answer is stored in the run journal",
      ],
    ],
  ),
  ...m(
    "packages/core/src/codemode/tool-invoker.ts",
    ["packages/core/src/codemode/resume.test.ts"],
    [
      [
        "replay-recorded-call-executed",
        `if (admission && admission.kind !== "run") return journaled(invoker, path, admission);`,
        `if (admission && admission.kind === "stop") return journaled(invoker, path, admission);`,
        "a call already answered before the restart is executed again instead of answered from its record",
      ],
    ],
  ),
  ...m(
    "packages/core/src/codemode/runner.ts",
    ["packages/core/src/codemode/resume.test.ts"],
    [
      [
        "replay-seed-fresh",
        `return { seed: resume ? resume.seed : [...crypto.getRandomValues(new Uint32Array(4))] };`,
        `return { seed: [...crypto.getRandomValues(new Uint32Array(4))] };`,
        "a resumed run's Math.random takes new values, so its calls no longer match their record",
      ],
      [
        "replay-journal-behind-receipts",
        `flushed = replay.flush();`,
        `flushed = undefined;`,
        "a commit point does not first write the run journal: a tool can act before the entry a resume needs is stored",
      ],
      [
        "replay-resume-without-journal",
        `if (opts.resume && !options.journal)`,
        `if (false && opts.resume && !options.journal)`,
        "a resume asked of a runner without a journal executes every recorded call a second time",
      ],
      [
        "replay-clock-not-given",
        `...(opts.resume ? { clock: opts.resume.clock } : {}),`,
        ``,
        "a resumed run reads the real clock where the first run read other values",
      ],
    ],
  ),
  ...m(
    "packages/core/src/receipts/summary.ts",
    ["packages/core/src/codemode/resume.test.ts"],
    [
      [
        "summary-outcome-unknown-as-failed",
        `if (i.error?.startsWith(OUTCOME_UNKNOWN))`,
        `if (i.error === OUTCOME_UNKNOWN)`,
        "a call whose outcome is unknown is summarized as an ordinary failure, not as unverified",
      ],
    ],
  ),
  ...m(
    "packages/sdk/src/define-tool.ts",
    ["packages/sdk/src/define-tool.test.ts"],
    [
      [
        "sdk-idempotent-default-true",
        `idempotent: options.idempotent === true,`,
        `idempotent: options.idempotent !== false,`,
        "a tool that does not declare idempotent is re-executed after a restart cut its call off",
      ],
    ],
  ),
  ...m(
    "packages/core/src/sources/openapi/load.ts",
    ["packages/core/src/sources/openapi/openapi.test.ts"],
    [
      [
        "openapi-post-idempotent",
        `const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]);`,
        `const IDEMPOTENT_METHODS: ReadonlySet<string> = new Set(["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE", "POST"]);`,
        "a POST operation is treated as idempotent and re-executed after a restart",
      ],
    ],
  ),
  ...m(
    "packages/core/src/receipts/replay/journal-lines.ts",
    ["packages/core/src/receipts/replay/file-journal.test.ts", "packages/core/src/codemode/resume.test.ts"],
    [
      [
        "file-journal-answer-rewritten",
        `if (entry && entry.result === undefined) calls.set(position, { ...entry, result, answeredAt: at });`,
        `if (entry) calls.set(position, { ...entry, result, answeredAt: at });`,
        "a later answer replaces the recorded one of a call, so a resume replays what the first run never saw",
      ],
    ],
  ),
  // #29 hooks
  ...m(
    "packages/core/src/hooks/tool-hooks.ts",
    ["packages/core/src/codemode/tool-hooks.test.ts"],
    [
      [
        "hooks-before-fails-open",
        "    if (!answer.ok)\n      return deny(",
        "    if (!answer.ok) continue;\n    if (false as boolean)\n      return deny(",
        "a tool.before hook that throws or times out lets the call through (a broken firewall is no firewall)",
      ],
      [
        "hooks-before-junk-passes",
        "    if (!decision)\n      return deny(",
        "    if (!decision) continue;\n    if (false as boolean)\n      return deny(",
        "a tool.before hook answering something unknown (a typo: { deni }) lets the call through",
      ],
      [
        "hooks-replaced-input-unchecked",
        "const parsed = await revalidate(decision.input);",
        "const parsed = { ok: true as const, value: decision.input };",
        "a hook's replaced input reaches the tool without passing the tool's schema",
      ],
    ],
  ),
  ...m(
    "packages/core/src/hooks/call.ts",
    ["packages/core/src/codemode/tool-hooks.test.ts"],
    [
      [
        "hooks-timeout-answers-undefined",
        "resolve({ ok: false, why: `did not answer within ${hook.timeoutMs} ms` });",
        "resolve({ ok: true, value: undefined as T });",
        "a tool.before hook that never answers counts as 'continue' once its time is up",
      ],
    ],
  ),
  ...m(
    "packages/core/src/hooks/set.ts",
    ["packages/core/src/codemode/tool-hooks.test.ts"],
    [
      [
        "hooks-priority-reversed",
        "byEvent[event].sort((a, b) => b.priority - a.priority);",
        "byEvent[event].sort((a, b) => a.priority - b.priority);",
        "hooks run lowest priority first: a guard declared to run first runs after the others",
      ],
    ],
  ),
  ...m(
    "packages/core/src/codemode/tool-invoker.ts",
    ["packages/core/src/codemode/tool-hooks.test.ts"],
    [
      [
        "hooks-step-skipped",
        "const STEPS: readonly Step[] = [validate, hooks, policy, approval, commit, run, after];",
        "const STEPS: readonly Step[] = [validate, policy, approval, commit, run, after];",
        "no call passes the tool.before hooks",
      ],
      [
        "hooks-denial-recorded-as-policy",
        "return denied(call, `plugin:${pluginId}`, shown,",
        'return denied(call, "policy", shown,',
        "a hook's denial is recorded as the operator's policy, not as decided by the plugin",
      ],
      [
        "hooks-replaced-input-unrecorded",
        "        reason: `input replaced by plugin ${change.pluginId}`,\n",
        "",
        "a replaced input leaves no receipt saying which plugin replaced it",
      ],
      [
        "hooks-required-approval-by-standing-rule",
        "      call.alwaysAsk = true;\n",
        "",
        "an 'approve always' rule answers for a person when a plugin requires one",
      ],
      [
        "hooks-result-receipt-shows-replacement",
        "const settled = succeeded(call, own.text, outputPreview(definition, call.value, own.text, ctx), durationMs);",
        "const settled = succeeded(call, shown.text, outputPreview(definition, call.value, shown.text, ctx), durationMs);",
        "the outcome receipt records the result a hook replaced instead of the tool's own",
      ],
    ],
  ),
  ...m(
    "packages/core/src/plugins/plugin-hooks.ts",
    ["packages/core/src/plugins/plugin-hooks.test.ts"],
    [
      [
        "hooks-critical-broken-ignored",
        `if (entry?.status === "loaded") continue;`,
        `if (entry) continue;`,
        "a critical plugin that is present but broken does not stop the gateway",
      ],
      [
        "hooks-critical-gone-on-reload",
        "    hooks.push(kept);\n",
        "",
        "a reload after which a critical plugin is gone drops its hooks (the firewall disappears)",
      ],
    ],
  ),
  ...m(
    "packages/core/src/plugins/load-tools.ts",
    ["packages/core/src/plugins/plugin-hooks.test.ts"],
    [
      [
        "hooks-reload-drops-previous",
        "        subtree: prev.subtree,\n        hooks: prev.hooks,\n",
        "        subtree: prev.subtree,\n",
        "a reload that breaks a plugin drops its hooks (the firewall disappears while its tools stay)",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/hooks/gateway-hooks.ts",
    ["apps/gateway/src/hooks/hooks.e2e.test.ts"],
    [
      [
        "hooks-critical-start-anyway",
        "  if (critical.length === 0) return;",
        "  if (critical.length >= 0) return;",
        "the gateway starts without a critical plugin that did not load",
      ],
    ],
  ),
  // #29 overview on every backend
  ...m(
    "packages/core/src/receipts/postgres/overview.ts",
    ["packages/core/src/receipts/postgres/contract.test.ts"],
    [
      [
        "pg-overview-plugin-is-approver",
        `       AND d.decided_by NOT LIKE 'rule:%' AND d.decided_by NOT LIKE 'plugin:%'`,
        `       AND d.decided_by NOT LIKE 'rule:%'`,
        "on PostgreSQL a plugin hook's denial counts as an approver's wait (the backends' queries drifted apart once)",
      ],
    ],
  ),
  // #31 wiring
  ...m(
    "apps/gateway/src/storage/index.ts",
    ["apps/gateway/src/storage/choose.test.ts"],
    [
      [
        "storage-url-ignored",
        `const name = settings.storageUrl ? "postgres" : DEFAULT_STORAGE_BACKEND;`,
        `const name = DEFAULT_STORAGE_BACKEND;`,
        "storage.url is set but the stores open in SQLite: the gateways share nothing",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/services/assemble.ts",
    ["apps/gateway/src/postgres/gateway.e2e.test.ts"],
    [
      [
        "gateway-storage-backend-default",
        `storageLayer({ location: storage.location, keyDir: configDir, secrets, log }, log, storage.backend),`,
        `storageLayer({ location: settings.databasePath, keyDir: configDir, secrets, log }, log),`,
        "the gateway opens the SQLite file although storage.url is set",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/storage/postgres/health.ts",
    ["apps/gateway/src/cli/doctor-postgres.test.ts"],
    [
      [
        "doctor-pg-prints-url",
        'return [{ name: "database", level: "fail", detail: `${withoutCredentials(errorText(e), url)}.` }];',
        'return [{ name: "database", level: "fail", detail: `${errorText(e)} (${url}).` }];',
        "doctor prints storage.url with its password when the server cannot be reached",
      ],
      [
        "doctor-pg-disabled-trigger-ok",
        `const enabled = new Set(rows.filter((r) => r.enabled !== "D").map((r) => r.name));`,
        `const enabled = new Set(rows.map((r) => r.name));`,
        "a disabled append-only trigger passes doctor: receipts can be edited unnoticed",
      ],
      [
        "doctor-pg-owner-role-ok",
        `const why = me.superuser ? "is a superuser"`,
        `const why = false ? "is a superuser"`,
        "doctor passes a gateway connected as a superuser, which can disable the append-only triggers",
      ],
      [
        "doctor-pg-newer-schema-ok",
        `if (ahead.length)`,
        `if (ahead.length > 99)`,
        "a schema migrated by a newer openassistant is not reported",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/console/postgres/run-code.ts",
    ["apps/gateway/src/console/postgres/run-code.test.ts"],
    [
      [
        "pg-run-code-overwritten",
        `VALUES (\${runId}, \${turnId}, \${text}, \${Date.now()}) ON CONFLICT (run_id) DO NOTHING\`.then(`,
        `VALUES (\${runId}, \${turnId}, \${text}, \${Date.now()}) ON CONFLICT (run_id) DO UPDATE SET code = excluded.code\`.then(`,
        "a later record replaces the code a run was recorded with",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/surfaces/discord/postgres/surface-store.ts",
    ["apps/gateway/src/surfaces/discord/postgres/surface-store.test.ts"],
    [
      [
        "pg-discord-card-id-cleared",
        "        WHERE excluded.message_id <> ''`;",
        "        `;",
        "a retried card post clears the id of the posted card: it can no longer be edited after a decision",
      ],
      [
        "pg-discord-final-ignored",
        "await sql`UPDATE discord_approval_cards SET final = 1 WHERE call_id = ${callId}`;",
        "await sql`UPDATE discord_approval_cards SET final = 0 WHERE call_id = ${callId}`;",
        "decided cards stay unfinished: every restart edits them again",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/storage/postgres/backend.ts",
    ["apps/gateway/src/postgres/gateway.e2e.test.ts"],
    [
      [
        "pg-surface-without-postgres-store",
        "        if (!backends.postgres)",
        "        if (false)",
        "a surface without a PostgreSQL store is started anyway on storage.url",
      ],
    ],
  ),
  ...m(
    "packages/core/src/approvals/broker.ts",
    ["packages/core/src/approvals/broker.test.ts", "apps/gateway/src/postgres/gateway.e2e.test.ts"],
    [
      [
        "broker-system-denial-overrides-stored",
        `waiters.get(callId)?.settle(result?.outcome === "already-decided" ? result.decision : decision);`,
        `waiters.get(callId)?.settle(decision);`,
        "a call approved on another gateway is denied here when its wait ends before the announcement arrives",
      ],
      [
        "broker-shared-orphans-all-closed",
        `        if (options.shared && record.request.expiresAt > at) continue;`,
        `        if (options.shared && record.request.expiresAt < 0) continue;`,
        "a gateway starting on a shared database denies the approvals another gateway is waiting for",
      ],
      [
        "broker-settle-from-store-ignored",
        `      waiter.settle(record.decision);`,
        `      void record;`,
        "a decision announced by another gateway never reaches the call waiting here",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/storage/postgres/backend.ts",
    ["apps/gateway/src/postgres/gateway.e2e.test.ts"],
    [
      [
        "pg-decision-not-announced",
        `    if (changed)`,
        `    if (!changed)`,
        "a gateway deciding an approval does not tell the gateway whose call waits for it",
      ],
    ],
  ),
  // #30 resume
  ...m(
    "apps/gateway/src/services/assemble.ts",
    ["apps/gateway/src/runs/journal.test.ts", "apps/gateway/src/runs/resume.e2e.test.ts"],
    [
      [
        "resume-gateway-no-journal",
        "          journal,\n",
        "",
        "the gateway's runner journals nothing: a run cut off by a restart cannot be resumed",
      ],
      [
        "resume-cards-closed-at-start",
        "approvals.hold(approvalsToKeep(resumable))",
        "approvals.hold([])",
        "the approvals of resumable runs are closed at start: the old card no longer decides the resumed call",
      ],
    ],
  ),
  ...m(
    "packages/core/src/codemode/tool-invoker.ts",
    ["packages/core/src/codemode/resume.test.ts", "apps/gateway/src/runs/resume.e2e.test.ts"],
    [
      [
        "resume-new-call-id",
        'old?.state === "not-started" ? old.callId : undefined',
        "undefined",
        "a resumed run asks again under a new call id: the card posted before the restart decides nothing",
      ],
    ],
  ),
  ...m(
    "packages/core/src/approvals/broker.ts",
    ["packages/core/src/approvals/broker.test.ts"],
    [
      [
        "resume-expiry-restarts",
        "Math.max(0, stored.expiresAt - now()),",
        "Math.max(0, expiresAt - now()),",
        "an approval asked again after a restart gets a fresh window: the expiry does not count across restarts",
      ],
      [
        "resume-hold-ignored",
        "if (waiters.has(record.request.callId) || held.has(record.request.callId)) continue;",
        "if (waiters.has(record.request.callId)) continue;",
        "closeOrphans closes an approval a resumed run will ask again",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/surfaces/discord/approvals/approval-cards.ts",
    ["apps/gateway/src/surfaces/discord/restart.e2e.test.ts"],
    [
      [
        "resume-card-posted-twice",
        "    if ((await store.cards(request.callId)).length > 0) return;\n",
        "",
        "a resumed call's approval posts a second card beside the live one",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/agent/run-turn.ts",
    ["apps/gateway/src/runs/resume.e2e.test.ts"],
    [
      [
        "resume-turn-ungrounded",
        "runIds: [...(session.resumedRuns ?? [])],",
        "runIds: [],",
        "the turn continuing a resumed run does not count its receipts (its answer is not grounded in them)",
      ],
    ],
  ),
  ...m(
    "packages/core/src/receipts/replay/journal-lines.ts",
    ["packages/core/src/codemode/resume.test.ts", "apps/gateway/src/runs/resume.e2e.test.ts"],
    [
      [
        "resume-snippet-not-kept",
        "      if (!seed) context = line[2];\n",
        "",
        "the journal forgets the run's snippet: nothing can be resumed at start",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/runs/pending.ts",
    ["apps/gateway/src/cli/runs.test.ts"],
    [
      [
        "runs-cancel-cut-off-denied",
        'if (call.phase === "started")',
        "if (false)",
        "runs cancel records a call cut off while running as denied (its outcome is unknown: the tool may have acted)",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/console/pages/run.ts",
    ["apps/gateway/src/runs/resume.e2e.test.ts"],
    [
      [
        "resume-console-unmarked",
        "d.receipts.some((r) => r.reason === RESUMED)",
        "false",
        "a resumed run's console page does not say it was resumed",
      ],
    ],
  ),
  // #31 lease
  ...m(
    "apps/gateway/src/cli/serve.ts",
    ["apps/gateway/src/postgres/discord-lease.e2e.test.ts"],
    [
      [
        "lease-surface-unleased",
        "url && surface.oneAcrossGateways",
        "false",
        "every gateway on the shared database starts the Discord surface without the lease: two connections",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/surfaces/leased.ts",
    ["apps/gateway/src/surfaces/leased.test.ts"],
    [
      [
        "lease-lost-ignored",
        "      void stopCurrent();\n",
        "",
        "a gateway that lost the lease keeps its Discord connection (two holders once another takes it)",
      ],
      [
        "lease-released-before-stop",
        "      await stopCurrent();\n      await lease.release();",
        "      await lease.release();\n      await stopCurrent();",
        "a stopping gateway lets the lease go before its surface has stopped (the next holder overlaps it)",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/surfaces/discord/chat/conversations.ts",
    ["apps/gateway/src/surfaces/discord/postgres/discord.e2e.test.ts"],
    [
      [
        "lease-message-unclaimed",
        "    if (!(await store.claimMessage(message.id))) return;\n",
        "",
        "a message delivered to two connections during a takeover is answered by both",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/surfaces/discord/postgres/surface-store.ts",
    ["apps/gateway/src/surfaces/discord/postgres/surface-store.test.ts"],
    [
      [
        "lease-claim-always-wins",
        "return won.length === 1;",
        "return true;",
        "every claim of a message wins: two gateways both answer it",
      ],
    ],
  ),
  // #30 mid-stream
  ...m(
    "apps/gateway/src/runs/cut-off-turns.ts",
    ["apps/gateway/src/runs/cut-off-turns.test.ts", "apps/gateway/src/runs/resume.e2e.test.ts"],
    [
      [
        "midstream-answered-twice",
        "const left = unfinished.filter((t) => !resumedSessions.has(t.sessionId));",
        "const left = unfinished;",
        "a turn whose run is resumed is also answered again as cut off: the user gets two answers",
      ],
      [
        "midstream-old-turns-answered",
        "now - t.startedAt <= CUT_OFF_TURN_MAX_AGE_MS",
        "true",
        "a turn cut off weeks ago is answered again at the next start",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/services/assemble.ts",
    ["apps/gateway/src/runs/resume.e2e.test.ts"],
    [
      [
        "midstream-not-answered",
        "        answerCutOffTurns(),\n",
        "",
        "a turn cut off while the model streamed is never answered: the user's message is lost",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/conversations/service.ts",
    ["apps/gateway/src/runs/resume.e2e.test.ts"],
    [
      [
        "midstream-request-bare",
        "text: cutOffTurnText(turn.request, finishedRuns),",
        "text: turn.request,",
        "the model is not told the gateway restarted, nor of the runs the cut turn already finished",
      ],
      [
        "midstream-runs-uncounted",
        "      session,\n      finishedRuns,\n    );",
        "      session,\n      [],\n    );",
        "the answer again does not count the receipts of the runs the cut turn finished (ungrounded)",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/sessions/sqlite/store.ts",
    ["apps/gateway/src/sessions/sqlite/contract.test.ts", "apps/gateway/src/runs/resume.e2e.test.ts"],
    [
      [
        "midstream-finished-turns-listed",
        "FROM turns WHERE finished_at IS NULL ORDER BY started_at",
        "FROM turns ORDER BY started_at",
        "finished turns (a graceful stop's aborted ones too) count as cut off and are answered again",
      ],
    ],
  ),
  // #30 console cancel: the console cancels a pending run only on a same-origin POST by an
  // approver, records who, and never cancels a run this gateway runs.
  ...m(
    "apps/gateway/src/console/routes.ts",
    ["apps/gateway/src/console/pending-runs.e2e.test.ts"],
    [
      [
        "console-cancel-unguarded",
        `const refused = await refuseWrite(req, operator, "cancel runs");`,
        `const refused = undefined as Response | undefined;`,
        "a cancel skips both the origin check and the approver check",
      ],
      [
        "console-cancel-cross-site",
        `const refused = await refuseWrite(req, operator, "cancel runs");`,
        `const refused = d.isApprover(operator) ? undefined : await refuseWrite(req, operator, "cancel runs");`,
        "a cross-site form post cancels a run (no CSRF check)",
      ],
      [
        "console-cancel-on-get",
        `if (cancelRun && req.method === "POST")`,
        `if (cancelRun)`,
        "a GET (a link, an image) cancels a run",
      ],
      [
        "console-cancel-unrecorded",
        "d.runs.cancel(runId, `console:${normalizeOperator(operator)}`)",
        `d.runs.cancel(runId, "console")`,
        "the cancel's receipts do not say which operator cancelled the run",
      ],
    ],
  ),
  {
    ...eq(
      "apps/gateway/src/console/routes.ts",
      ["apps/gateway/src/console/pending-runs.e2e.test.ts"],
      "console-cancel-no-approver-check",
      `const refused = await refuseWrite(req, operator, "cancel runs");`,
      `const refused = sameOrigin(req) ? undefined : await refuseWrite(req, operator, "cancel runs");`,
    ),
    description:
      "a cancel skips the write guard's approver check. Equivalent: the per-request check before every route (the same isApprover, in the same request) already refuses a session whose operator is not an approver; pending-runs.e2e.test.ts sees that 403",
  },
  ...m(
    "apps/gateway/src/runs/operator-control.ts",
    ["apps/gateway/src/runs/operator-control.test.ts", "apps/gateway/src/console/pending-runs.e2e.test.ts"],
    [
      [
        "console-cancel-live-run",
        'resumed.has(runId) ? "resumed here" : left.has(runId) ? undefined : "running here"',
        'resumed.has(runId) ? "resumed here" : undefined',
        "the console cancels a run this gateway is running (closing receipts while its call still waits)",
      ],
      [
        "console-cancel-resumed-run",
        "const resumed = new Set(o.resumed);",
        "const resumed = new Set<string>();",
        "the console cancels a run this gateway resumes at start",
      ],
    ],
  ),
  // #35 models: providers, the fallback chain, the strict fake Chat Completions API, /model, doctor
  ...m(
    "apps/gateway/src/model/chain.ts",
    ["apps/gateway/src/model-fallback.test.ts"],
    [
      [
        "models-fallback-any-failure",
        "if (!kind || !OUTAGE_KINDS.has(kind) || !next || opts.signal?.aborted) throw err;",
        "if (!kind || !next || opts.signal?.aborted) throw err;",
        "a failure that is not an outage (billing, a bad request) moves the turn to another model",
      ],
      [
        "models-fallback-no-cooldown",
        "coolingUntil.set(targetLabel(target), now() + Math.max(DEFAULT_COOLDOWN_MS, retryAfterMs));",
        "coolingUntil.delete(targetLabel(target));",
        "the failed model is asked again on the next round of the same turn (the turn goes back and forth)",
      ],
      [
        "models-fallback-drops-own-thinking",
        'if (asked.provider !== "anthropic" || target.provider !== "anthropic") return renamed;',
        'if (target.provider !== "anthropic") return renamed;',
        "a Claude fallback loses its own thinking blocks in the tool loop (a 400 from Claude)",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/model/openai/provider.ts",
    ["apps/gateway/src/model/openai/provider.test.ts"],
    [
      [
        "models-chat-key-not-sent",
        "apiKey: target.apiKey ?? NO_KEY,",
        "apiKey: NO_KEY,",
        "the configured API key of an OpenAI-compatible endpoint is not sent",
      ],
      [
        "models-chat-partial-kept",
        "if (streamed) opts.onDiscard?.({ reason: c.message });",
        "",
        "a reply that broke off mid-stream is made again without withdrawing its partial text (the user sees it twice)",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/model/openai/chat-request.ts",
    ["apps/gateway/src/model/openai/provider.test.ts"],
    [
      [
        "models-chat-no-usage",
        "stream_options: { include_usage: true },",
        "",
        "streamed replies carry no usage (the turn's token budget counts nothing)",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/model/openai/code-block.ts",
    ["apps/gateway/src/model/openai/provider.test.ts"],
    [
      [
        "models-code-block-shown",
        "if (fence >= 0) return text.slice(0, fence);",
        "if (fence < 0) return text.slice(0, fence);",
        "in code-block mode the code to run is streamed to the user as if it were the answer",
      ],
    ],
  ),
  ...m(
    "packages/testkit/src/openai/contract.ts",
    ["packages/testkit/src/openai/fake-server.test.ts"],
    [
      [
        "models-fake-tool-id-unchecked",
        "if (!pending || !pending.has(m.tool_call_id))",
        "if (!pending)",
        "the fake accepts a tool message answering an id the assistant never called (the real API rejects it)",
      ],
    ],
  ),
  ...m(
    "packages/core/src/config/schema.ts",
    ["apps/gateway/src/model/targets.test.ts"],
    [
      [
        "models-api-key-not-secret",
        "apiKey: secret(z.string().min(1)).optional(),",
        "apiKey: z.string().min(1).optional(),",
        "a model endpoint's API key is not registered with the redactor",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/model/catalog.ts",
    ["apps/gateway/src/surfaces/terminal/model-command.test.ts"],
    [
      [
        "models-switch-unknown-accepted",
        "if (models.includes(name)) return { ...t, name };",
        "return { ...t, name };",
        "/model accepts a name no configured endpoint offers (the next turn fails instead)",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/cli/doctor-models.ts",
    ["apps/gateway/src/cli/doctor-models.test.ts"],
    [
      [
        "models-doctor-model-not-checked",
        "if (models.includes(target.name))",
        "if (models.length)",
        "doctor passes an endpoint that does not offer the configured model",
      ],
    ],
  ),
  // #34 client tools
  ...m(
    "apps/gateway/src/clients/registration.ts",
    ["apps/gateway/src/clients/registration.test.ts", "apps/gateway/src/clients/client-tools.e2e.test.ts"],
    [
      [
        "client-tool-own-mode-auto",
        'approval: "required",',
        'approval: "auto",',
        "a client tool runs without a card when no policy rule speaks of it",
      ],
      [
        "client-tool-name-unchecked",
        'if (name.includes(".") || toolPathProblem(name))',
        'if (name.includes("."))',
        "a client may name a tool `then` or `__proto__`, or with characters the declarations cannot hold",
      ],
      [
        "client-tool-description-unescaped",
        "cutText(escapeInvisible((spec.description as string).trim())",
        "cutText((spec.description as string).trim()",
        "a client tool's description reaches the declarations and the card with bidi overrides unescaped",
      ],
      [
        "client-tool-schema-unlimited",
        "if (!prepared.ok) return `inputSchema is past a limit",
        "if (false) return `inputSchema is past a limit",
        "a client's input schema past the sources' limits is taken in",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/clients/hub.ts",
    [
      "apps/gateway/src/clients/hub.test.ts",
      "apps/gateway/src/clients/client-tools.e2e.test.ts",
      "apps/gateway/src/clients/client-resume.e2e.test.ts",
    ],
    [
      [
        "client-tools-any-session",
        "const session = byKey.get(sessionKey);",
        "const session = byKey.get(sessionKey) ?? [...byKey.values()][0];",
        "another session's turns see (and call) a client's tools",
      ],
      [
        "client-resume-any-token",
        "if (!session || session.record.id !== record.id || !sameText(session.resumeKey, m.resume.key)) {",
        "if (!session || !sameText(session.resumeKey, m.resume.key)) {",
        "a client with another token takes over a session it holds the key of",
      ],
      [
        "client-resume-key-unchecked",
        "if (!session || session.record.id !== record.id || !sameText(session.resumeKey, m.resume.key)) {",
        "if (!session || session.record.id !== record.id) {",
        "any connection of the same token resumes (takes over) another session by its id",
      ],
      [
        "client-revocation-ignored",
        "          if (!o.tokens.verify(token)) {",
        "          if (false) {",
        "a revoked token's connection keeps its session",
      ],
      [
        "client-disconnect-never-fails",
        "() => end(s, `the client disconnected and did not come back within ${duration(graceMs)}`),",
        "() => {},",
        "a call to a client that went away waits for ever (until the tool timeout) and its tools stay",
      ],
      [
        "client-pending-not-asked-again",
        "for (const call of session.pending.values()) socket.send(call.frame);",
        "",
        "a resumed session's pending calls are never answered",
      ],
      [
        "client-approvals-to-any-session",
        "const session = sid ? [...sessions.values()].find((s) => s.storedIds.has(sid)) : undefined;",
        "const session = [...sessions.values()][0];",
        "a client is told of another session's approvals",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/clients/tokens.ts",
    ["apps/gateway/src/clients/tokens.test.ts"],
    [
      [
        "client-token-id-only",
        "return given.length === stored.length && crypto.timingSafeEqual(given, stored) ? record : undefined;",
        "return record;",
        "a client token with a known id and any secret opens a session",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/clients/websocket.ts",
    ["apps/gateway/src/clients/client-resume.e2e.test.ts"],
    [
      [
        "client-http-token-opens-client",
        "if (!token || !record)",
        "if (!token)",
        "the HTTP API's token (or any bearer) opens the client connection",
      ],
    ],
  ),
  // #34 mcp server
  ...m(
    "apps/gateway/src/mcp-server/tokens.ts",
    [
      "apps/gateway/src/mcp-server/tokens.test.ts",
      "apps/gateway/src/mcp-server/mcp-server.e2e.test.ts",
      "apps/gateway/src/mcp-server/mcp-server-access.e2e.test.ts",
    ],
    [
      [
        "mcp-token-length-only",
        "if (stored.length === given.length && crypto.timingSafeEqual(stored, given)) found = c;",
        "if (stored.length === given.length) found = c;",
        "any token of the right shape opens the MCP server (only the digest length compared)",
      ],
      [
        "mcp-token-revoke-keeps",
        "write(clients.filter((c) => c.name !== name));",
        "write(clients);",
        "a revoked token keeps working",
      ],
      [
        "mcp-token-file-keeps-token",
        'sha256: sha256(token).toString("hex"),',
        'sha256: sha256(token).toString("hex"), token,',
        "the token itself is written to the token file (readable by anyone who reads the data dir backup)",
      ],
      [
        "mcp-token-any-name",
        "if (!CLIENT_NAME.test(name))",
        "if (name.length === 0)",
        "a client name with markup or spaces is accepted (it names the caller on cards and receipts)",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/mcp-server/server.ts",
    ["apps/gateway/src/mcp-server/mcp-server.e2e.test.ts", "apps/gateway/src/mcp-server/mcp-server-access.e2e.test.ts"],
    [
      [
        "mcp-server-no-token-check",
        "if (!client) return unauthorized();",
        'if (!client) return sessions.open(req, { name: "anonymous", sha256: "", createdAt: 0 });',
        "a request without a valid token opens a session",
      ],
      [
        "mcp-server-any-origin",
        'if (!originAllowed(req.headers.get("origin"))) return',
        "if (false) return",
        "a page on another origin reaches the MCP server (DNS rebinding)",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/mcp-server/sessions.ts",
    ["apps/gateway/src/mcp-server/mcp-server.e2e.test.ts", "apps/gateway/src/mcp-server/mcp-server-access.e2e.test.ts"],
    [
      [
        "mcp-server-no-size-check",
        "const read = await readRequestBody(req, settings.maxRequestBytes);",
        "const read = await readRequestBody(req, settings.maxRequestBytes * 1000);",
        "a body over mcpServer.maxRequestBytes is read before a session exists",
      ],
      [
        "mcp-session-no-size-check",
        "maxRequestBodySize: settings.maxRequestBytes,",
        "maxRequestBodySize: settings.maxRequestBytes * 1000,",
        "a body over mcpServer.maxRequestBytes is read inside a session",
      ],
      [
        "mcp-session-revoked-lives",
        'for (const s of [...byId.values()]) if (!live.has(s.client.sha256)) end(s, "the client\'s token was revoked");',
        "for (const s of [...byId.values()]) if (!live.has(s.client.sha256)) void s;",
        "a revoked client's sessions live on: its call waiting for approval goes on (and runs if approved)",
      ],
      [
        "mcp-approval-wait-silent",
        "if (!waiting) return;\n                  tellWaiting();",
        "return;",
        "a client that asked for progress hears nothing while its call waits for an operator (and times out)",
      ],
      [
        "mcp-session-any-client",
        "if (!session || session.client.name !== client.name || session.client.sha256 !== client.sha256) return undefined;",
        "if (!session) return undefined;",
        "a client's token reaches another client's session",
      ],
      [
        "mcp-session-unbounded",
        "if (byId.size + opening < settings.maxSessions) return true;",
        "if (byId.size + opening < Number.MAX_SAFE_INTEGER) return true;",
        "sessions are never bounded by mcpServer.maxSessions",
      ],
      [
        "mcp-session-evicts-busy",
        "if (s.calls === 0 && (!oldest || s.lastUsed < oldest.lastUsed)) oldest = s;",
        "if (!oldest || s.lastUsed < oldest.lastUsed) oldest = s;",
        "a session with a call waiting for approval is ended to make room (its call denied under the client)",
      ],
      [
        "mcp-call-not-scoped",
        "if (!visible().has(path))",
        "if (!deps.tools())",
        "a client calls a tool outside its token's (or mcpServer.tools') patterns",
      ],
      [
        "mcp-call-no-client-signal",
        "signal: AbortSignal.any([extra.signal, session.ended.signal, stopping]),",
        "signal: AbortSignal.any([session.ended.signal, stopping]),",
        "a call the client cancelled keeps waiting for its approval (and may run after all)",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/mcp-server/tools.ts",
    [
      "apps/gateway/src/mcp-server/mcp-server.e2e.test.ts",
      "apps/gateway/src/mcp-server/mcp-server-access.e2e.test.ts",
      "apps/gateway/src/mcp-server/mcp-server-project.e2e.test.ts",
    ],
    [
      [
        "mcp-denied-reads-as-success",
        'if (call?.status === "denied") {',
        'if (call?.status === "denied" && false) {',
        "a denied call is not reported as an error",
      ],
      [
        "mcp-description-unredacted",
        "description: cutText(redact(definition.description), MAX_DESCRIPTION_CHARS) + approval,",
        "description: cutText(definition.description, MAX_DESCRIPTION_CHARS) + approval,",
        "a secret in a tool's description reaches the MCP client",
      ],
      [
        "mcp-served-patterns-ignored",
        "if (!served.some((p) => matchToolPattern(p, path))) continue;",
        "",
        "mcpServer.tools does not limit what clients see and call",
      ],
    ],
  ),
  ...m(
    "packages/core/src/config/schema.ts",
    ["apps/gateway/src/mcp-server/mcp-server.e2e.test.ts", "apps/gateway/src/mcp-server/mcp-server-access.e2e.test.ts"],
    [
      [
        "mcp-server-on-by-default",
        "enabled: z.boolean().default(false),",
        "enabled: z.boolean().default(true),",
        "the MCP server starts without being enabled",
      ],
    ],
  ),
  ...m(
    "packages/core/src/config/schema.ts",
    ["apps/gateway/src/mcp-server/mcp-server-project.e2e.test.ts"],
    [
      [
        "mcp-config-host-all",
        "host: z.string().min(1).default(`127.0.0.1`),",
        "host: z.string().min(1).default(`0.0.0.0`),",
        "the MCP server's default listen address is every interface",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/config-adapter.ts",
    ["apps/gateway/src/mcp-server/mcp-server-project.e2e.test.ts"],
    [
      [
        "mcp-server-host-all",
        "host: c.mcpServer.host,",
        'host: "0.0.0.0",',
        "the MCP server listens on every interface",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/surfaces/terminal/terminal-surface.ts",
    ["apps/gateway/src/mcp-server/mcp-server-terminal.e2e.test.ts"],
    [
      [
        "mcp-terminal-spinner-when-idle",
        "if (busy && !approvals.length) spinner.set(`tools.${event.outcome.toolPath}",
        "if (!approvals.length) spinner.set(`tools.${event.outcome.toolPath}",
        "an MCP client's call starts the idle terminal's spinner (it never stops until the next turn)",
      ],
    ],
  ),
  // #33 schedules
  ...m(
    "apps/gateway/src/schedules/scheduler.ts",
    ["apps/gateway/src/schedules/scheduler.test.ts", "apps/gateway/src/schedules/two-gateways.test.ts"],
    [
      [
        "schedules-occurrence-run-twice",
        "if (!won) continue; // another gateway took it",
        "// another gateway took it",
        "a gateway that lost an occurrence's claim runs it anyway (two gateways run it twice)",
      ],
      [
        "schedules-failure-no-backoff",
        "backoffUntil: finishedAt + backoffAfter(failures),",
        "backoffUntil: null,",
        "a failing schedule retries at every occurrence (no backoff)",
      ],
      [
        "schedules-no-alert",
        "if (failures === ALERT_AFTER_FAILURES)",
        "if (failures === ALERT_AFTER_FAILURES + 100)",
        "the creator is never alerted after failures in a row",
      ],
      [
        "schedules-paused-fires",
        "if (s.paused) return deps.store.progress(s.id, { checkedThrough: due.at(-1)! });",
        "",
        "a paused schedule keeps firing",
      ],
      [
        "schedules-done-without-success",
        "if (result.ok) {",
        "if (result.ok || result.turnId) {",
        "an occurrence whose turn did not answer is recorded as succeeded",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/schedules/missed.ts",
    ["apps/gateway/src/schedules/scheduler.test.ts"],
    [
      [
        "schedules-missed-skip-runs",
        'policy.missed === "all" ? inGrace : policy.missed === "once" && onTime.length === 0 ? inGrace.slice(-1) : []',
        'policy.missed !== "once" ? inGrace : policy.missed === "once" && onTime.length === 0 ? inGrace.slice(-1) : []',
        "missed occurrences run after downtime under the skip policy",
      ],
      [
        "schedules-missed-once-runs-all",
        "inGrace.slice(-1)",
        "inGrace",
        "policy once catches up every missed occurrence, not the newest",
      ],
      [
        "schedules-grace-ignored",
        "else if (late > policy.graceMs)",
        "else if (late > policy.graceMs * 1000)",
        "an occurrence missed past the grace window still runs",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/schedules/sqlite/store.ts",
    ["apps/gateway/src/schedules/sqlite/store.test.ts", "apps/gateway/src/schedules/two-gateways.test.ts"],
    [
      [
        "schedules-sqlite-claim-always-wins",
        ".changes > 0\n      );",
        ".changes >= 0\n      );",
        "every claim of an occurrence wins on SQLite (no idempotency key)",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/schedules/postgres/store.ts",
    ["apps/gateway/src/schedules/postgres/store.test.ts", "apps/gateway/src/schedules/two-gateways.test.ts"],
    [
      [
        "schedules-pg-claim-always-wins",
        "ON CONFLICT (schedule_id, at) DO NOTHING RETURNING at`;\n      return rows.length > 0;",
        "ON CONFLICT (schedule_id, at) DO NOTHING RETURNING at`;\n      return rows.length >= 0;",
        "every claim of an occurrence wins on PostgreSQL (no idempotency key)",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/schedules/ceiling.ts",
    ["apps/gateway/src/schedules/reminder.e2e.test.ts"],
    [
      [
        "schedules-ceiling-open",
        'if (!ceiling || path.startsWith("$") || ceiling.some((p) => matchToolPattern(p, path))) return undefined;',
        "return undefined;",
        "a scheduled run calls a tool outside its ceiling",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/surfaces/discord/chat/conversations.ts",
    ["apps/gateway/src/schedules/reminder.e2e.test.ts"],
    [
      [
        "schedules-card-not-to-approver-dms",
        'if (request.requestedBy?.startsWith("schedule:")) return false;',
        "",
        "a scheduled run's approval card reaches no approver's DM (only the conversation nobody watches)",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/schedules/tools.ts",
    ["apps/gateway/src/schedules/service.test.ts", "apps/gateway/src/schedules/reminder.e2e.test.ts"],
    [
      [
        "schedules-create-auto",
        'approval: "required",\n      args: z.object(scheduleInputShape),',
        'approval: "auto",\n      args: z.object(scheduleInputShape),',
        "the model creates a schedule without a person's approval",
      ],
      [
        "schedules-card-no-next-times",
        '`Next fire times: ${next.length ? next.map((t) => formatInZone(t, d.timeZone)).join("; ") : "none"}`,',
        "",
        "the creation card does not show the next fire times",
      ],
    ],
  ),
  // #32 abilities
  ...m(
    "packages/core/src/abilities/enforce.ts",
    ["packages/core/src/abilities/service.test.ts", "apps/gateway/src/abilities/abilities-restart.e2e.test.ts"],
    [
      [
        "abilities-session-unenforced",
        "if (allowed.some((p) => matchToolPattern(p, path))) return undefined;",
        "return undefined;",
        "while an ability runs in a conversation, the model's calls outside it run",
      ],
      [
        "abilities-gate-rule-answers",
        "if (path === GATE_PATH)",
        "if (path === GATE_PATH && false)",
        "an ability's gate is not held to a person's decision (an 'approve always' rule could answer it)",
      ],
    ],
  ),
  ...m(
    "packages/core/src/abilities/engine.ts",
    ["packages/core/src/abilities/service.test.ts"],
    [
      [
        "abilities-when-ignored",
        `if (state.status === "pending" && step.when !== undefined && !holds(step.when, scope)) {`,
        `if (state.status === "pending" && step.when !== undefined && false) {`,
        "a step whose when is false runs anyway",
      ],
      [
        "abilities-finished-step-rerun",
        `if (state.status === "completed" || state.status === "skipped") continue;`,
        `if (state.status === "skipped") continue;`,
        "a step finished before a restart is executed again when the run resumes",
      ],
      [
        "abilities-validation-ignored",
        `if (invalid) outcome = { status: "failed", error: invalid };`,
        `if (invalid) void invalid;`,
        "a step whose output fails its validation lets the run go on",
      ],
    ],
  ),
  ...m(
    "packages/core/src/abilities/runner-executor.ts",
    ["packages/core/src/abilities/service.test.ts"],
    [
      [
        "abilities-step-not-replayed",
        "...(log ? { resume: log } : { runId }),",
        "runId,",
        "a step cut off by a restart runs fresh instead of by replay (its gate asked under a new call id, its card from before lost)",
      ],
    ],
  ),
  ...m(
    "packages/core/src/abilities/service.ts",
    ["packages/core/src/abilities/service.test.ts", "apps/gateway/src/abilities/abilities-agent.test.ts"],
    [
      [
        "abilities-inputs-unchecked",
        "const checked = checkInputs(ability.inputSchema, given);",
        "const checked = { ok: true as const, inputs: { ...given } };",
        "a run starts with inputs its definition refuses",
      ],
      [
        "abilities-agent-unenforced",
        "enforcement.enterSession(sessionId, run, step);",
        "void sessionId;",
        "an agent step's model turn may call any tool, not only the step's",
      ],
      [
        "abilities-inputs-unredacted",
        "inputs: o.redact ? redactDeep(checked.inputs, o.redact) : checked.inputs,",
        "inputs: checked.inputs,",
        "a secret typed into /ability run is stored whole and used in steps, cards and prompts",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/services/assemble.ts",
    ["apps/gateway/src/abilities/abilities-restart.e2e.test.ts"],
    [
      [
        "abilities-step-resumed-twice",
        "const resumeHere = resumable.filter((r) => !abilitySteps.has(r.run.runId));",
        "const resumeHere = resumable;",
        "an ability's step run is resumed by the gateway as a conversation run as well as by its ability",
      ],
    ],
  ),
  // #31 console events across gateways
  ...m(
    "apps/gateway/src/events/other-gateways.ts",
    ["apps/gateway/src/events/other-gateways.test.ts", "apps/gateway/src/postgres/console-events.e2e.test.ts"],
    [
      [
        "console-signal-before-durable",
        "await o.durable().catch(() => {}); // a refused commit",
        "o.durable().catch(() => {}); // a refused commit",
        "a console is told of a call before its receipts are committed (its refresh reads the store without them)",
      ],
      [
        "console-signal-every-kind",
        "if (!isLiveType(e.type)) return;\n    seen.add(e.type);",
        "seen.add(e.type as ConsoleLiveType);",
        "every kind of event (each streamed text delta) goes out on the database",
      ],
      [
        "console-signal-unknown-kinds-pass",
        "new Set(signal.types.filter(isLiveType))",
        "new Set(signal.types)",
        "a signal from the database passes kinds no gateway sends to the console streams",
      ],
      [
        "console-signal-one-per-event",
        "(sending ??= (async () => {",
        "(sending = (async () => {",
        "a busy gateway sends a signal per event instead of one at a time",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/console/routes.ts",
    ["apps/gateway/src/postgres/console-events.e2e.test.ts"],
    [
      [
        "console-stream-without-other-gateways",
        "const others = d.otherGateways?.subscribe((type) => listener({ type }));",
        "const others = undefined as (() => void) | undefined;",
        "a gateway's console does not show what the other gateways do",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/sessions/postgres/store.ts",
    ["apps/gateway/src/sessions/postgres/contract.test.ts"],
    [
      [
        "pg-append-no-retry",
        "const APPEND_TRIES = 20;",
        "const APPEND_TRIES = 1;",
        "two appends at once on one session: the later one fails instead of taking the next seqs",
      ],
    ],
  ),
  {
    ...eq(
      "packages/core/src/receipts/postgres/chain.ts",
      ["packages/core/src/receipts/postgres/store.test.ts"],
      "pg-chain-no-rollback",
      "await tx`ROLLBACK`.catch(() => {});",
      "await Promise.resolve();",
    ),
    description:
      "a refused commit skips its ROLLBACK. Equivalent under Bun 1.4.5: releasing a reserved connection ends its aborted transaction (store.test.ts: on a pool of one, the commit after a refused one goes through either way); the ROLLBACK stays so that does not depend on the client",
  },
  ...m(
    "apps/gateway/src/cli/serve.ts",
    ["apps/gateway/src/postgres/discord-lease.e2e.test.ts"],
    [
      [
        "start-prints-sqlite-path-on-postgres",
        "gateway.settings.storageUrl ? storageFor(gateway.settings).described : gateway.settings.databasePath",
        "gateway.settings.databasePath",
        "start on storage.url names the unused SQLite file as its database",
      ],
    ],
  ),
  ...m(
    "packages/core/src/receipts/postgres/ports.ts",
    ["packages/core/src/receipts/postgres/store.test.ts"],
    [
      [
        "pg-read-waits-for-quiet",
        "      await log.durable();\n      return read(...args);",
        "      await log.settled();\n      return read(...args);",
        "a read waits until nothing at all is staged (with many runs staging, each read of a turn waits for the others)",
      ],
    ],
  ),
  ...m(
    "packages/core/src/receipts/postgres/store.ts",
    ["packages/core/src/receipts/postgres/store.test.ts"],
    [
      [
        "pg-durable-waits-for-loop",
        "if (pending.length === 0) return inFlight ?? Promise.resolve();",
        "if (pending.length === 0) return committing ?? Promise.resolve();",
        "durable() with nothing staged waits for every later batch the commit loop takes, not the one in flight",
      ],
    ],
  ),
  // #31 runs across replicas
  ...m(
    "apps/gateway/src/runs/jobs/run-jobs.ts",
    ["apps/gateway/src/runs/jobs/run-jobs.test.ts"],
    [
      [
        "run-job-claimed-outside-tx",
        "const claimed = await boss.fetch<{ runId: string }>(RUNS_QUEUE, { batchSize: runs.length, db });",
        "const claimed = await boss.fetch<{ runId: string }>(RUNS_QUEUE, { batchSize: runs.length });",
        "a new run's job is claimed outside the transaction that sends it (another gateway could take a live run)",
      ],
      [
        "run-job-no-dead-letter",
        "{ ...common, retryLimit: 0, deadLetter: ORPHANED_QUEUE }",
        "{ ...common, retryLimit: 0 }",
        "a dead gateway's runs are failed and never handed to another gateway",
      ],
      [
        "run-job-lost-claim-runs-on",
        "watched.get(runId)?.abort(`the gateway lost its claim on run ${runId}`);",
        "",
        "a gateway that lost a run's claim keeps running it while another resumes it",
      ],
      [
        "run-job-takeover-not-completed",
        "if (!closing) finished(runId);",
        "",
        "a taken-over run's job is never completed: it is handed over again when its gateway stops",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/surfaces/leased.ts",
    ["apps/gateway/src/surfaces/leased.test.ts"],
    [
      [
        "leased-holding-always",
        "holding: () => live && lease.held(),",
        "holding: () => true,",
        "a gateway without the Discord connection takes dead gateways' runs over: their answers never reach Discord",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/runs/jobs/take-over.ts",
    ["apps/gateway/src/runs/jobs/take-over.test.ts"],
    [
      [
        "takeover-ended-run-resumed",
        "  if (calls.length === 0) return undefined;\n",
        "",
        "a run that ended before its job was completed is resumed by the gateway that claims it: its conversation is answered twice",
      ],
    ],
  ),
  ...m(
    "packages/core/src/receipts/postgres/run-journal.ts",
    ["packages/core/src/receipts/postgres/run-journal.test.ts"],
    [
      [
        "run-journal-begin-without-job",
        "if (begins.length > 0 && options.onBegin) {",
        "if (begins.length < 0 && options.onBegin) {",
        "a new run's journal commits without its job (no other gateway would ever resume it)",
      ],
    ],
  ),
  // #35 models follow-up
  ...m(
    "packages/core/src/receipts/mac.ts",
    ["packages/core/src/receipts/sqlite/store.test.ts"],
    [
      [
        "receipt-mac-null-model-encoded",
        "if (!MAC_COLUMNS_ABSENT_WHEN_NULL.has(col)) text += `${col}=-\\n`;",
        "text += `${col}=-\\n`;",
        "a receipt without a model is encoded with an empty model line: every row written before #35 fails verify",
      ],
    ],
  ),
  ...m(
    "packages/core/src/receipts/sqlite/schema.ts",
    ["packages/core/src/receipts/sqlite/store.test.ts"],
    [
      [
        "receipt-model-outside-mac",
        '  "error",\n  "model",\n] as const;',
        '  "error",\n] as const;',
        "the model a receipt names is not covered by its MAC: it can be changed without verify seeing it",
      ],
    ],
  ),
  ...m(
    "packages/core/src/receipts/sqlite/chain-writer.ts",
    ["packages/core/src/receipts/sqlite/contract.test.ts"],
    [
      [
        "receipt-model-not-stored",
        "        content.model ?? null,\n",
        "        null,\n",
        "the store drops the model a receipt names",
      ],
    ],
  ),
  ...m(
    "packages/core/src/codemode/runner.ts",
    ["packages/core/src/codemode/resume.test.ts"],
    [
      [
        "run-receipts-without-model",
        "return { stage: (draft, o) => receipts.stage({ ...draft, model }, o), durable: receipts.durable };",
        "return receipts;",
        "a run's receipts do not name the model that wrote its code",
      ],
      [
        "resumed-run-forgets-model",
        "namingModel(options.receipts, opts.model ?? opts.resume?.context?.model)",
        "namingModel(options.receipts, opts.model)",
        "a run resumed after a restart writes receipts that no longer name the model that wrote its code",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/agent/run-turn.ts",
    ["apps/gateway/src/model-fallback.test.ts"],
    [
      [
        "run-model-ignores-fallback",
        "state.writtenBy = answering ?? `anthropic:${request.model}`;",
        "state.writtenBy = `anthropic:${request.model}`;",
        "after a fallback, the receipts name the model that failed, not the one that wrote the code",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/model/chain.ts",
    ["apps/gateway/src/model-fallback.test.ts"],
    [
      [
        "chain-answer-names-asked-model",
        "opts.onAnswer?.(targetLabel(target));",
        "opts.onAnswer?.(targetLabel(asked));",
        "the chain says the asked model answered when a fallback did",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/model/model-command.ts",
    ["apps/gateway/src/cli/terminal-commands.test.ts"],
    [
      // Moved from the terminal's block: /model's logic is model/model-command.ts now (#35 follow-up).
      [
        "setup-terminal-model-unchecked",
        "  if (!known && arg !== configured) {",
        "  if (!arg) {",
        "/model accepts any name",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/model/model-command.ts",
    ["apps/gateway/src/surfaces/discord/commands/model-command.e2e.test.ts"],
    [
      [
        "model-command-accepts-unknown",
        "if (!known && arg !== configured) {",
        "if (!known && arg === configured) {",
        "/model switches to a name no configured provider offers (the next turn fails)",
      ],
      [
        "model-command-refuses-vendor-names",
        "const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:@/-]*$/;",
        "const MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._:@-]*$/;",
        "/model refuses OpenRouter's and vLLM's vendor-prefixed names (qwen/…)",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/surfaces/discord/chat/conversations.ts",
    ["apps/gateway/src/surfaces/discord/commands/model-command.e2e.test.ts"],
    [
      [
        "discord-model-other-session",
        "if (channel.type === ChannelType.DM) return store.sessionKey(`dm:${userId}`);",
        "if (channel.type === ChannelType.DM) return store.sessionKey(`thread:${userId}`);",
        "Discord's /model switches a session that is not the DM's conversation",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/surfaces/discord/render/render-lists.ts",
    ["apps/gateway/src/surfaces/discord/render/render-lists.test.ts"],
    [
      [
        "discord-receipts-no-model",
        'const writer = r.model && r.phase === "requested" ? ` (code by \\`${echo(escapeInvisible(r.model), 128)}\\`)` : "";',
        'const writer = "";',
        "Discord's /receipts does not say which model wrote the code",
      ],
    ],
  ),
  // #31 grants: pg-boss's schema installed by `db migrate`, a gateway role without DDL rights
  ...m(
    "apps/gateway/src/postgres/migrations.ts",
    ["apps/gateway/src/cli/db.test.ts", "apps/gateway/src/postgres/gateway-role.e2e.test.ts"],
    [
      [
        "db-migrate-without-pgboss",
        "  out.push({ store: PGBOSS_SCHEMA, ...(await installRunJobs(sql)) });\n",
        "",
        "`db migrate` leaves pg-boss's schema to the gateway's start: a least-privilege gateway role cannot start",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/runs/jobs/run-jobs.ts",
    ["apps/gateway/src/runs/jobs/run-jobs.test.ts"],
    [
      [
        "run-jobs-denied-without-advice",
        '${denied ? `: ${INSTALL_AS_OWNER}` : ""}',
        "",
        "a gateway role that may not install pg-boss's schema is refused without saying to run `db migrate` as the owner",
      ],
    ],
  ),
  // #33 ability schedules
  ...m(
    "apps/gateway/src/schedules/ability-fire.ts",
    ["apps/gateway/src/schedules/ability-schedules.e2e.test.ts"],
    [
      [
        "ability-schedule-denied-counts-done",
        'const ok = run.status === "completed";',
        'const ok = run.status !== "failed";',
        "an ability schedule's occurrence whose gate was denied is recorded done (schedule.fired succeeded) instead of failed",
      ],
      [
        "ability-schedule-run-anonymous",
        "requestedBy: scheduleRequester(s.id),",
        "",
        "an ability schedule's run is asked for by nobody: its cards do not name the schedule and its ceiling never applies",
      ],
      [
        "ability-schedule-not-cancelled",
        'else signal.addEventListener("abort", cancel, { once: true });',
        "",
        "an ability schedule's run waiting at its gate is not cancelled at the next occurrence: the occurrence never ends",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/schedules/input.ts",
    ["apps/gateway/src/schedules/ability-schedules.e2e.test.ts"],
    [
      [
        "ability-schedule-unchecked",
        "abilityProblem(input.ability!, inputs, ctx.abilities, field);",
        "",
        "an ability schedule naming an unknown ability or bad inputs is created; it fails at every occurrence",
      ],
      [
        "ability-schedule-turn-ceiling",
        '("ability" in target ? undefined : ctx.usedTools)',
        "ctx.usedTools",
        "a model's ability schedule takes the creating turn's tools as its ceiling: the ability's steps are denied at every occurrence",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/schedules/receipts.ts",
    ["apps/gateway/src/schedules/ability-schedules.e2e.test.ts"],
    [
      [
        "ability-schedule-receipt-no-run",
        "outputPreview: turn.abilityRunId",
        "outputPreview: false",
        "an ability schedule's success receipt names no ability run or step runs (it says a turn answered)",
      ],
    ],
  ),
  // #32 ability replicas
  ...m(
    "packages/core/src/abilities/service.ts",
    ["apps/gateway/src/abilities/abilities-replicas.e2e.test.ts"],
    [
      [
        "ability-resume-ignores-claims",
        "if (closing || (o.claims && !(await o.claims.take(listed.id)))) continue;",
        "if (closing) continue;",
        "a gateway starting beside a live one drives the live one's ability runs too: two gateways drive one run",
      ],
      [
        "ability-start-unclaimed",
        "      if (o.claims && !(await o.claims.take(id)))\n",
        "      if (false)\n",
        "a new ability run is driven without its claim: another gateway's start or sweep drives it too",
      ],
      [
        "ability-claim-kept-after-end",
        "if (!run.parentRunId) await o.claims?.release(run.id).catch(() => {});",
        "void 0;",
        "an ended run's claim is never let go: the gateway's lock connection piles up one lock per run",
      ],
      [
        "ability-no-takeover",
        "if (sweeping || closing || !takeOverWhile()) return;",
        "if (sweeping || closing || takeOverWhile()) return;",
        "a run whose gateway died is never taken over by a live gateway: it waits at its gate until some gateway restarts",
      ],
    ],
  ),
  ...m(
    "packages/core/src/abilities/postgres/run-locks.ts",
    ["packages/core/src/abilities/postgres/run-locks.test.ts"],
    [
      [
        "ability-claim-always-granted",
        "    return Boolean(row.got);",
        "    return true;",
        "every gateway believes it holds every run: two gateways drive one ability run",
      ],
      [
        "ability-claim-no-retake",
        "        void retake(kept);",
        "        void kept;",
        "a gateway whose lock connection dropped no longer holds its runs but keeps driving them: another takes them too",
      ],
    ],
  ),
  ...m(
    "apps/gateway/src/abilities/gateway-abilities.ts",
    ["apps/gateway/src/abilities/abilities-replicas.e2e.test.ts"],
    [
      [
        "ability-step-job-never-completed",
        "      jobs.finished(result.runId);\n",
        "",
        "an ability step's run job stays active forever (touched every 2 s), and is claimed as a dead run when its gateway stops",
      ],
    ],
  ),
  // #32 ability tools
  ...m(
    "apps/gateway/src/abilities/tools.ts",
    ["apps/gateway/src/abilities/ability-tools.test.ts"],
    [
      [
        "ability-tools-foreign-run",
        "if (run && (!sessionId || run.sessionId === sessionId)) return run;",
        "if (run) return run;",
        "the model sees and cancels another conversation's ability run by its id",
      ],
      [
        "ability-tools-run-without-conversation",
        "          ...(ctx.sessionId ? { sessionId: ctx.sessionId } : {}),\n",
        "",
        "an ability the model starts is not its conversation's: its end is never posted there and status/cancel cannot find it",
      ],
      [
        "ability-tools-requested-by-lost",
        "          ...(requestedBy ? { requestedBy } : {}),\n",
        "",
        "a run the model starts forgets the person who asked (its gates and receipts name nobody)",
      ],
      [
        "ability-tools-no-waiting",
        "...(atGate ? { waiting:",
        "...(false ? { waiting:",
        "status does not say the run waits for a person at its gate",
      ],
      [
        "ability-tools-cancel-noop",
        'if (run.status !== "running") return { ...statusOf(run), note:',
        'if (run.status === "running") return { ...statusOf(run), note:',
        "abilities.cancel leaves the running ability running",
      ],
      [
        "ability-tools-required-lost",
        "required: json.required?.includes(name) ?? false,",
        "required: false,",
        "abilities.list says every input is optional",
      ],
      [
        "ability-tools-always-offered",
        "  if (offered) bundled.push(abilityToolsEntry(binding));",
        "  bundled.push(abilityToolsEntry(binding));",
        "a project without abilities gets tools.abilities.* (every tool count changes)",
      ],
      [
        "ability-tools-plugin-abilities-missed",
        "if (!offered && definesAbilities(pluginAbilityDirs(",
        "if (false && definesAbilities(pluginAbilityDirs(",
        "abilities shipped by a plugin are not offered to the model",
      ],
    ],
  ),
  // #32 ability slash
  ...m(
    "apps/gateway/src/surfaces/discord/commands/interactions.ts",
    ["apps/gateway/src/surfaces/discord/commands/ability-command.e2e.test.ts"],
    [
      [
        "ability-slash-autocomplete-unchecked",
        'if (i.commandName !== "ability" || !authorizeChat(config, actorOfInteraction(i)).ok) return i.respond([]);',
        'if (i.commandName !== "ability") return i.respond([]);',
        "/ability run's autocomplete lists the abilities to a stranger",
      ],
    ],
  ),
  // #32 round status
  ...m(
    "apps/gateway/src/agent/run-turn.ts",
    ["apps/gateway/src/abilities/round-status.test.ts"],
    [
      [
        "round-status-not-retold",
        "  if (text === state.roundText) return;\n  state.roundText = text;",
        "  if (text !== undefined || text === state.roundText) return;\n  state.roundText = text;",
        "a round that started an ability is not told its new status: the next round still sees the old one",
      ],
    ],
  ),
  // #33 crash mid-fire
  ...m(
    "apps/gateway/src/schedules/scheduler.ts",
    ["apps/gateway/src/schedules/crash-mid-fire.test.ts", "apps/gateway/src/schedules/crash-mid-fire-pg.test.ts"],
    [
      [
        "schedule-crash-refire-ignores-skip",
        '      s.missed !== "skip" &&',
        "      true &&",
        "an occurrence cut off by a crash is fired again under the missed-run policy skip",
      ],
      [
        "schedule-crash-no-failed-receipt",
        "    deps.receipts.stage(failedReceipt(s, o.at, o.runId, sessionId, detail,",
        "    void (failedReceipt(s, o.at, o.runId, sessionId, detail,",
        "an occurrence cut off by a crash is settled without its schedule.failed receipt (its fired receipt stays started)",
      ],
      [
        "schedule-crash-pg-no-lock",
        "if (d.fire && deps.firing && !(await deps.firing.take(lock))) continue;",
        "if (false) continue;",
        "on PostgreSQL a firing occurrence holds no lock: another gateway settles a live gateway's occurrence as dead",
      ],
    ],
  ),
];
