import { join } from "node:path";
import type { ApprovalBroker } from "@openassistant/core/approvals";
import type { PolicyRule } from "@openassistant/core/policy";
import { resolvePolicy } from "@openassistant/core/policy";
import { RUN_STATUSES, type CallStatus } from "@openassistant/core/receipts";
import type { ReceiptLog, ReceiptReader } from "@openassistant/core/receipts";
import { flattenToolTree } from "@openassistant/core/tools";
import type { EventBus } from "../events/bus.ts";
import type { OtherGatewaysEvents } from "../events/other-gateways.ts";
import type { ToolSnapshot } from "../tools-source.ts";
import { normalizeOperator } from "./approvers.ts";
import type { SafeHtml } from "./html.ts";
import { approvalsList, approvalsPage, NOTICES, type Notice } from "./pages/approvals.ts";
import { messagePage, signedInPage, type Viewer } from "./pages/layout.ts";
import { overviewPage } from "./pages/overview.ts";
import { PENDING_NOTICES, pendingRunsPage, type PendingNotice } from "./pages/pending-runs.ts";
import { RULE_NOTICES, rulesPage, type RuleNotice } from "./pages/rules.ts";
import { scheduleHistoryPage, schedulesPage } from "./pages/schedules.ts";
import type { Schedules } from "../schedules/service.ts";
import { runPage } from "./pages/run.ts";
import { runsPage, runsTable, type RunsQuery } from "./pages/runs.ts";
import { toolsPage, type ToolRow } from "./pages/tools.ts";
import { DEFAULT_PERIOD, isPeriod } from "@openassistant/core/receipts";
import type { RunCodeStore } from "./run-code.ts";
import type { Signer } from "./signing.ts";
import { eventStreamResponse } from "../http/event-stream.ts";
import type { RunControl } from "../runs/operator-control.ts";
import type { AbilityService } from "@openassistant/core/abilities";
import type { Receipt } from "@openassistant/core/receipts";
import { abilityRunPage, abilityRunsPage } from "./pages/abilities.ts";

/** How long links stay valid. A receipt link is read-only; a login link only starts a session. */
export const RECEIPT_LINK_TTL_MS = 7 * 24 * 60 * 60_000;
export const LOGIN_LINK_TTL_MS = 15 * 60_000;
export const SESSION_TTL_MS = 12 * 60 * 60_000;
const COOKIE = "oa_console";
const MAX_REASON = 1000;
/** The newest rules the rules page lists (rules are made by hand, one click each). */
const MAX_RULES_SHOWN = 500;

export interface ConsoleDeps {
  readonly receipts: Pick<
    ReceiptReader,
    "byRun" | "runs" | "conversations" | "conversationOf" | "conversationKeys" | "turnOfRun" | "overview"
  > &
    Pick<ReceiptLog, "verifyRun">;
  readonly approvals: Pick<ApprovalBroker, "pending" | "get" | "decide" | "rules">;
  readonly events: Pick<EventBus, "subscribe">;
  /** Live kinds of event from the other gateways on a shared database: streamed like this gateway's own. */
  readonly otherGateways?: OtherGatewaysEvents;
  readonly tools: () => ToolSnapshot;
  readonly policy: readonly PolicyRule[];
  readonly redact: (text: string) => string;
  readonly signer: Signer;
  /** May this operator log in and decide approvals (checked at login and on every decision)? */
  readonly isApprover: (operator: string) => boolean;
  /** Where links point: `http.publicUrl`, else the local address. */
  readonly baseUrl: () => string;
  readonly runCode: RunCodeStore;
  /** Pending runs and cancelling those no process of this gateway runs (#30). */
  readonly runs: RunControl;
  /** #33: the schedules page and each schedule's history. */
  readonly schedules?: Pick<Schedules, "list" | "get" | "history">;
  /** #32: ability runs, for their pages (absent: the pages say abilities are off). */
  readonly abilities?: Pick<AbilityService, "get" | "recent">;
  readonly now?: () => number;
  readonly keepAliveMs?: number;
}

export interface ConsoleRoutes {
  /** Handles every `/console/…` request. */
  handle(req: Request): Response | Promise<Response>;
  /** Signed, expiring, read-only link to one call on its run's page. */
  callLink(runId: string, callId: string): string;
  /** Signed, short-lived link that signs `operator` in (for `openassistant console login`). */
  loginLink(operator: string): string;
  close(): void;
}

/** Looked up by the file name in the request path: a Map, so `constructor` and friends are just unknown names. */
const STATIC = new Map<string, { file: string; type: string }>([
  ["htmx.min.js", { file: "htmx.org/dist/htmx.min.js", type: "text/javascript; charset=utf-8" }],
  ["live.js", { file: join(import.meta.dir, "static", "live.js"), type: "text/javascript; charset=utf-8" }],
  ["console.css", { file: join(import.meta.dir, "static", "console.css"), type: "text/css; charset=utf-8" }],
]);

const SECURITY_HEADERS = {
  "cache-control": "no-store",
  "content-security-policy":
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  "referrer-policy": "same-origin",
  "x-content-type-options": "nosniff",
};

const page = (body: SafeHtml, status = 200, headers: Record<string, string> = {}) =>
  new Response(body.value, {
    status,
    headers: { "content-type": "text/html; charset=utf-8", ...SECURITY_HEADERS, ...headers },
  });
const redirect = (location: string, headers: Record<string, string> = {}) =>
  new Response(null, { status: 303, headers: { location, ...SECURITY_HEADERS, ...headers } });

const LOGIN_HELP =
  "Sign in with a login link: run `openassistant console login <operator-id>` on the gateway's machine (an approver's id) and open the link it prints.";

function cookieOf(req: Request): string | undefined {
  for (const part of (req.headers.get("cookie") ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === COOKIE) return v.join("=");
  }
  return undefined;
}

function parseTime(value: string | null): number | undefined {
  if (!value) return undefined;
  const t = /^\d+$/.test(value) ? Number(value) : Date.parse(value.length === 16 ? `${value}Z` : value);
  return Number.isFinite(t) ? t : undefined;
}

/** The console's pages and actions, behind signed links and operator sessions. */
export function createConsoleRoutes(d: ConsoleDeps): ConsoleRoutes {
  const now = d.now ?? Date.now;
  const streams = new Set<() => void>();
  // htmx is served from node_modules as installed (no build step).
  const resolveStatic = (file: string) => (file.startsWith("/") ? file : Bun.resolveSync(file, import.meta.dir));

  const viewer = async (operator: string): Promise<Viewer> => ({
    operator,
    pending: (await d.approvals.pending()).length,
  });

  const sessionOf = (req: Request): string | undefined => {
    const checked = d.signer.check(cookieOf(req));
    return checked.ok && checked.grant.kind === "session" ? checked.grant.operator : undefined;
  };

  function sameOrigin(req: Request): boolean {
    const origin = req.headers.get("origin");
    if (!origin) return req.headers.get("sec-fetch-site") !== "cross-site";
    return origin === new URL(req.url).origin || origin === new URL(d.baseUrl()).origin;
  }

  function login(url: URL): Response {
    const checked = d.signer.check(url.searchParams.get("t"));
    if (!checked.ok || checked.grant.kind !== "login")
      return page(
        messagePage(
          "Login link refused",
          checked.ok || checked.reason !== "expired"
            ? `This login link is not valid (it was altered or is not a login link). ${LOGIN_HELP}`
            : `This login link has expired. ${LOGIN_HELP}`,
        ),
        401,
      );
    const operator = checked.grant.operator;
    if (!d.isApprover(operator))
      return page(
        messagePage(
          "Not an approver",
          `${operator} is not allowed to decide approvals (see http.approvers, or discord.approvers / discord.allowedUsers), so the console does not sign them in.`,
        ),
        403,
      );
    const session = d.signer.sign({ kind: "session", operator, exp: now() + SESSION_TTL_MS });
    const secure = d.baseUrl().startsWith("https:") ? "; Secure" : "";
    // A page, not a redirect: when the link is clicked in another site (a Discord DM), a redirect
    // stays part of that cross-site navigation and the browser would withhold the SameSite=Strict
    // cookie from it. The page's own navigation to the console is same-site.
    return page(signedInPage(operator), 200, {
      "set-cookie": `${COOKIE}=${session}; Path=/console; HttpOnly; SameSite=Strict; Max-Age=${SESSION_TTL_MS / 1000}${secure}`,
    });
  }

  /** Every console write: a form from the console's own origin, by an operator who is an approver now. */
  async function refuseWrite(req: Request, operator: string, what: string): Promise<Response | undefined> {
    if (!sameOrigin(req))
      return page(messagePage("Refused", "Cross-site form posts are refused.", await viewer(operator)), 403);
    if (!d.isApprover(operator))
      return page(
        messagePage("Not an approver", `You are not allowed to ${what}. Nothing was changed.`, await viewer(operator)),
        403,
      );
    return undefined;
  }

  async function runRoute(runId: string, url: URL, operator: string | undefined): Promise<Response> {
    const token = url.searchParams.get("t");
    if (!operator) {
      const checked = d.signer.check(token);
      if (!token) return page(messagePage("Sign in required", LOGIN_HELP), 401);
      if (!checked.ok)
        return page(
          messagePage(
            "Link refused",
            checked.reason === "expired"
              ? "This receipt link has expired. Ask the operator for a fresh one (it is in the answer's activity summary)."
              : "This receipt link is not valid: it was altered or cut short. Copy the whole link again.",
          ),
          checked.reason === "expired" ? 410 : 401,
        );
      if (checked.grant.kind !== "run" || checked.grant.runId !== runId)
        return page(messagePage("Link refused", "This link is for another page."), 401);
    }
    const receipts = await d.receipts.byRun(runId);
    if (receipts.length === 0)
      return page(
        messagePage("No such run", `No receipts for run ${runId}.`, operator ? await viewer(operator) : undefined),
        404,
      );
    const asked = [...new Set(receipts.filter((r) => r.policy === "required").map((r) => r.callId))];
    const records = new Map(await Promise.all(asked.map(async (id) => [id, await d.approvals.get(id)] as const)));
    return page(
      runPage({
        runId,
        receipts,
        integrity: await d.receipts.verifyRun(runId),
        code: await d.runCode.codeOf(runId),
        conversation: await d.receipts.conversationOf(receipts[0]!.sessionId),
        turn: await d.receipts.turnOfRun(runId, receipts[0]!.sessionId, receipts[0]!.at),
        approvals: (callId) => records.get(callId),
        redact: d.redact,
        ...(operator ? { viewer: await viewer(operator) } : { linkToken: token ?? undefined }),
        focusCall: url.searchParams.get("call") ?? undefined,
        page: Number(url.searchParams.get("page")) || 1,
      }),
    );
  }

  function runsQuery(url: URL): RunsQuery {
    const p = url.searchParams;
    const get = (k: string) => p.get(k)?.trim() || undefined;
    return {
      session: get("session"),
      tool: get("tool"),
      status: get("status"),
      since: get("since"),
      until: get("until"),
      q: get("q"),
    };
  }

  function runRows(q: RunsQuery) {
    const status = RUN_STATUSES.includes(q.status as CallStatus) ? (q.status as CallStatus) : undefined;
    return d.receipts.runs({
      session: q.session,
      tool: q.tool,
      status,
      since: parseTime(q.since ?? null),
      until: parseTime(q.until ?? null),
      q: q.q,
    });
  }

  function toolRows(snapshot: ToolSnapshot): ToolRow[] {
    return flattenToolTree(snapshot.tree).map((t) => ({
      path: t.path,
      description: t.definition.description,
      approval: t.definition.approval,
      effective: resolvePolicy(t.path, t.definition.approval, d.policy).mode,
    }));
  }

  async function decide(req: Request, operator: string, callId: string, kind: string): Promise<Response> {
    const refused = await refuseWrite(req, operator, "decide approvals");
    if (refused) return refused;
    const form = await req.formData().catch(() => new FormData());
    const reason = String(form.get("reason") ?? "")
      .trim()
      .slice(0, MAX_REASON);
    const by = `console:${normalizeOperator(operator)}`;
    const result = await d.approvals.decide(
      callId,
      kind === "approve"
        ? { decision: "approved", by }
        : reason
          ? { decision: "denied", by, reason }
          : { decision: "denied", by },
    );
    const notice: Notice =
      result.outcome === "decided"
        ? kind === "approve"
          ? "approved"
          : "denied"
        : result.outcome === "unknown"
          ? "unknown"
          : "already";
    return redirect(`/console/approvals?notice=${notice}`);
  }

  async function revoke(req: Request, operator: string, ruleId: string): Promise<Response> {
    const refused = await refuseWrite(req, operator, "revoke approve-always rules");
    if (refused) return refused;
    // The rule's row keeps who revoked it and when (shown on the rules page).
    const revoked = await d.approvals.rules.revoke(ruleId, `console:${normalizeOperator(operator)}`);
    return redirect(`/console/rules?notice=${revoked ? "revoked" : "gone"}`);
  }

  async function cancel(req: Request, operator: string, runId: string): Promise<Response> {
    const refused = await refuseWrite(req, operator, "cancel runs");
    if (refused) return refused;
    const result = await d.runs.cancel(runId, `console:${normalizeOperator(operator)}`);
    return redirect(`/console/pending?notice=${result.outcome}`);
  }

  /** #32: an ability run as its steps, each with its run and receipts. */
  async function abilityRunRoute(id: string, operator: string): Promise<Response> {
    const run = await d.abilities?.get(id);
    if (!run) return page(messagePage("Not found", `No ability run ${id}.`, await viewer(operator)), 404);
    const receipts = new Map<string, Receipt[]>();
    for (const s of run.steps)
      if (s.runId && run.ability.steps.find((x) => x.id === s.id)?.type !== "ability")
        receipts.set(
          s.id,
          (await d.receipts.byRun(s.runId)).sort((a, b) => a.seq - b.seq),
        );
    return page(abilityRunPage(await viewer(operator), { run, receipts }));
  }

  async function pendingRoute(url: URL, operator: string): Promise<Response> {
    const n = url.searchParams.get("notice");
    const notice = n && Object.hasOwn(PENDING_NOTICES, n) ? (n as PendingNotice) : undefined;
    return page(
      pendingRunsPage(await viewer(operator), await d.runs.pending(), {
        canCancel: d.isApprover(operator),
        ...(notice ? { notice } : {}),
      }),
    );
  }

  async function scheduleRoute(id: string, operator: string): Promise<Response> {
    const s = await d.schedules?.get(id);
    if (!s) return page(messagePage("No such schedule", `There is no schedule ${id}.`, await viewer(operator)), 404);
    return page(scheduleHistoryPage(await viewer(operator), s, await d.schedules!.history(id)));
  }

  async function rulesRoute(url: URL, operator: string): Promise<Response> {
    const n = url.searchParams.get("notice");
    const notice = n && Object.hasOwn(RULE_NOTICES, n) ? (n as RuleNotice) : undefined;
    const rules = (await d.approvals.rules.list()).slice(-MAX_RULES_SHOWN);
    const keys = await d.receipts.conversationKeys(rules.flatMap((r) => (r.sessionId ? [r.sessionId] : [])));
    return page(
      rulesPage(await viewer(operator), rules, keys, {
        now: now(),
        canRevoke: d.isApprover(operator),
        ...(notice ? { notice } : {}),
      }),
    );
  }

  /** This gateway's events and the other gateways' live kinds, as one stream of kinds. */
  function liveKinds(listener: (e: { readonly type: string }) => void): () => void {
    const own = d.events.subscribe(listener);
    const others = d.otherGateways?.subscribe((type) => listener({ type }));
    return () => {
      own();
      others?.();
    };
  }

  function events(req: Request): Response {
    // Only which kind of thing changed: pages fetch what they show through their own (authorized) routes.
    return eventStreamResponse(req, {
      events: { subscribe: liveKinds },
      frame: (e) => `event: ${e.type}\ndata: {}\n\n`,
      keepAliveMs: d.keepAliveMs ?? 15_000,
      open: streams,
    });
  }

  async function handle(req: Request): Promise<Response> {
    const url = new URL(req.url);
    const path = url.pathname;
    const asset = /^\/console\/static\/([a-z.]+)$/.exec(path);
    const s = asset ? STATIC.get(asset[1]!) : undefined;
    if (s) {
      return new Response(Bun.file(resolveStatic(s.file)), {
        headers: { "content-type": s.type, "cache-control": "max-age=3600", "x-content-type-options": "nosniff" },
      });
    }
    if (path === "/console/login" && req.method === "GET") return login(url);
    // Fresh facts: a session names who signed in, not what they may do. Whether they are still an
    // approver is asked on every request, so one removed from the approvers loses the console at once.
    const signedIn = sessionOf(req);
    const operator = signedIn !== undefined && d.isApprover(signedIn) ? signedIn : undefined;
    const run = /^\/console\/runs\/([^/]+)$/.exec(path);
    if (run && run[1] !== "table" && req.method === "GET") {
      let runId: string;
      try {
        runId = decodeURIComponent(run[1]!);
      } catch {
        return page(
          messagePage(
            "Bad run id",
            `The run id in ${path} is not valid percent-encoding.`,
            operator ? await viewer(operator) : undefined,
          ),
          400,
        );
      }
      return runRoute(runId, url, operator);
    }
    if (signedIn !== undefined && !operator)
      return page(
        messagePage(
          "Not an approver",
          `${signedIn} is not allowed to decide approvals now (see http.approvers, or discord.approvers / discord.allowedUsers), so this session shows nothing and changes nothing.`,
        ),
        403,
      );
    if (!operator) return page(messagePage("Sign in required", LOGIN_HELP), 401);
    const revokeRule = /^\/console\/rules\/(ar_\d+)\/revoke$/.exec(path);
    if (revokeRule && req.method === "POST") return revoke(req, operator, revokeRule[1]!);
    const cancelRun = /^\/console\/pending\/([^/]+)\/cancel$/.exec(path);
    if (cancelRun && req.method === "POST") {
      let runId: string;
      try {
        runId = decodeURIComponent(cancelRun[1]!);
      } catch {
        return page(
          messagePage("Bad run id", `The run id in ${path} is not valid percent-encoding.`, await viewer(operator)),
          400,
        );
      }
      return cancel(req, operator, runId);
    }
    const schedule = /^\/console\/schedules\/([A-Za-z0-9_-]+)$/.exec(path);
    if (schedule && req.method === "GET") return scheduleRoute(schedule[1]!, operator);
    const decision = /^\/console\/approvals\/([^/]+)\/(approve|deny)$/.exec(path);
    if (decision && req.method === "POST") {
      let callId: string;
      try {
        callId = decodeURIComponent(decision[1]!);
      } catch {
        return page(
          messagePage("Bad call id", `The call id in ${path} is not valid percent-encoding.`, await viewer(operator)),
          400,
        );
      }
      return decide(req, operator, callId, decision[2]!);
    }
    if (req.method !== "GET")
      return page(messagePage("Not allowed", `${req.method} ${path} is not supported.`, await viewer(operator)), 405);
    const abilityRun = /^\/console\/abilities\/([^/]+)$/.exec(path);
    if (abilityRun) return abilityRunRoute(decodeURIComponent(abilityRun[1]!), operator);
    switch (path) {
      case "/console":
      case "/console/":
        return redirect("/console/overview");
      case "/console/overview": {
        const p = url.searchParams.get("period");
        const data = await d.receipts.overview(isPeriod(p) ? p : DEFAULT_PERIOD, now());
        return page(overviewPage(await viewer(operator), data, d.redact));
      }
      case "/console/schedules":
        return page(schedulesPage(await viewer(operator), (await d.schedules?.list()) ?? []));
      case "/console/rules":
        return rulesRoute(url, operator);
      case "/console/pending":
        return pendingRoute(url, operator);
      case "/console/abilities":
        return page(abilityRunsPage(await viewer(operator), (await d.abilities?.recent(100)) ?? []));
      case "/console/runs": {
        const q = runsQuery(url);
        const [rows, conversations] = await Promise.all([runRows(q), d.receipts.conversations()]);
        return page(runsPage(await viewer(operator), q, conversations, rows));
      }
      case "/console/runs/table":
        return page(runsTable(await runRows(runsQuery(url))));
      case "/console/approvals": {
        const n = url.searchParams.get("notice");
        const notice = n && Object.hasOwn(NOTICES, n) ? (n as Notice) : undefined;
        return page(
          approvalsPage(await viewer(operator), await d.approvals.pending(), d.redact, d.isApprover(operator), notice),
        );
      }
      case "/console/approvals/count":
        return new Response(String((await d.approvals.pending()).length), {
          headers: { "content-type": "text/plain; charset=utf-8", ...SECURITY_HEADERS },
        });
      case "/console/approvals/list":
        return page(approvalsList(await d.approvals.pending(), d.redact, d.isApprover(operator)));
      case "/console/tools": {
        const snapshot = d.tools(); // one snapshot for the whole page
        return page(toolsPage(await viewer(operator), toolRows(snapshot), snapshot.diagnostics, snapshot.entries));
      }
      case "/console/events":
        return events(req);
      default:
        return page(messagePage("Not found", `No console page ${path}.`, await viewer(operator)), 404);
    }
  }

  return {
    handle,
    callLink(runId, callId) {
      const t = d.signer.sign({ kind: "run", runId, exp: now() + RECEIPT_LINK_TTL_MS });
      const call = encodeURIComponent(callId);
      return `${d.baseUrl()}/console/runs/${encodeURIComponent(runId)}?t=${t}&call=${call}#call-${call}`;
    },
    loginLink(operator) {
      const t = d.signer.sign({ kind: "login", operator, exp: now() + LOGIN_LINK_TTL_MS });
      return `${d.baseUrl()}/console/login?t=${t}`;
    },
    close() {
      for (const end of [...streams]) end();
    },
  };
}
