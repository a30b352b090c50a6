/**
 * The checker child process: loads TypeScript, warms up, then answers checks over IPC, one at a
 * time. The gateway kills it when a check runs past its time or memory limit and starts another.
 * Usage: spawned by typecheck.ts with `bun --smol`, an empty environment and IPC (JSON);
 * argv[2]: how many JIT warm-up checks to make once warm (default 0).
 */
import type { CheckerReply, CheckerRequest } from "./typecheck-protocol.ts";
import { createProgramChecker } from "./typecheck-program.ts";

const send = (m: CheckerReply) => process.send!(m);
const checker = createProgramChecker();
/** Declarations texts by key, as many as the checker caches parsed (oldest evicted first). */
const texts = new Map<string, string>();
const KEEP = 4;
/** Diagnostics sent back per check (a long snippet can have thousands). */
const MAX_SENT = 100;

process.on("disconnect", () => process.exit(0));
const keep = (key: string, declarations: string) => {
  texts.delete(key);
  texts.set(key, declarations);
  if (texts.size > KEEP) texts.delete(texts.keys().next().value!);
};

process.on("message", (m: CheckerRequest) => {
  if (m?.type === "prime") {
    if (m.declarations !== undefined) keep(m.key, m.declarations);
    const declarations = texts.get(m.key);
    if (declarations === undefined) return; // evicted: the first check asks for them
    try {
      checker.warmUp(declarations, m.key);
    } catch {
      // nothing to report: the first check against them builds its checker and says what is wrong
    }
    return;
  }
  if (m?.type !== "check") return;
  if (m.declarations !== undefined) keep(m.key, m.declarations);
  const declarations = texts.get(m.key);
  if (declarations === undefined) return send({ type: "need-declarations", id: m.id });
  const c0 = process.cpuUsage();
  const built = checker.stats().built;
  const full = checker.check(m.code, declarations, m.key);
  const cold = checker.stats().built > built;
  // The report text already names how many errors there are; the gateway parses what is sent.
  const result =
    full.ok || full.diagnostics.length <= MAX_SENT
      ? full
      : { ...full, diagnostics: full.diagnostics.slice(0, MAX_SENT) };
  const c = process.cpuUsage(c0);
  send({
    type: "result",
    id: m.id,
    result,
    cpuMs: (c.user + c.system) / 1000,
    cold,
    practised: checker.stats().practised,
  });
  // The reply is on its way; a checker the check retired is replaced now, not in the next check.
  setImmediate(() => checker.prepare());
});

checker.warmUp();
send({ type: "ready" });

/**
 * JIT warm-up in idle time (argv[2], TypecheckerOptions.practiceChecks): that many checks of a
 * lib-only snippet, one at a time between messages, so a check that arrives meanwhile waits for
 * one of them at most.
 */
const practiceChecks = Number(process.argv[2] ?? 0) || 0;
const practise = () => {
  if (checker.stats().practised < practiceChecks && checker.practice(1)) setImmediate(practise);
};
setImmediate(practise);
