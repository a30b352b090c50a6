/**
 * Request text never indexes a plain object: `constructor`, `__proto__`, `toString`,
 * `hasOwnProperty`, `valueOf` and `prototype` sent to every route and lookup keyed by request text
 * (the HTTP API, the console with a signed-in operator, Discord custom ids and slash commands,
 * terminal commands) get the normal "not found" or refusal: no 500, no crash, no member of
 * Object.prototype shown or called.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from "bun:test";
import { runCommand } from "citty";
import { textTurn } from "@openassistant/testkit";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { cli } from "../../test/cli.ts";
import { main } from "../cli/main.ts";
import { startHarness, terminalStreams, type Harness } from "../../test/harness.ts";
import { eventually, startDiscordE2E, type DiscordE2E } from "../../test/discord-e2e.ts";
import { startTerminalSurface } from "../surfaces/terminal/terminal-surface.ts";

setDefaultTimeout(30_000);

const KEYS = ["constructor", "__proto__", "toString", "hasOwnProperty", "valueOf", "prototype"] as const;
const APPROVER = "111111111111111111";
/** What a member of Object.prototype looks like when it leaks into a page or a reply. */
const LEAK = /\[native code\]|function [A-Za-z]*\(|\[object Object\]/;

/** Own names of the built-ins a `table[key] = …` with request text could have written to. */
const builtinsNow = () =>
  [Object, Object.prototype, Function.prototype].map((o) => Object.getOwnPropertyNames(o).sort());
const builtinsBefore = builtinsNow();
afterAll(() => expect(builtinsNow()).toEqual(builtinsBefore));

describe("the HTTP API and the console", () => {
  let h: Harness;
  let base: string;
  let bearer: Record<string, string>;
  let session: Record<string, string>;
  beforeAll(async () => {
    h = await startHarness({ settings: { http: { port: 0, approvers: [APPROVER] } } });
    base = h.gateway.http!.url;
    bearer = { authorization: `Bearer ${h.gateway.http!.token}` };
    const login = await fetch(h.gateway.console!.loginLink(APPROVER), { redirect: "manual" });
    expect(login.status).toBe(200);
    const cookie = /oa_console=[^;]+/.exec(login.headers.get("set-cookie") ?? "")![0];
    session = { cookie, origin: base };
  });
  afterAll(() => h.close());

  /** Every answer: the expected status, and no member of Object.prototype in the body. */
  async function get(path: string, headers: Record<string, string>, status: number, method = "GET") {
    const res = await fetch(`${base}${path}`, { method, headers, redirect: "manual" });
    const body = await res.text();
    expect({ path, method, status: res.status, leak: LEAK.test(body) }).toEqual({ path, method, status, leak: false });
    return { res, body };
  }

  test("every HTTP API route: 404 for a run or a route, 400 for a bad filter, 200 and nothing for a tool or run filter", async () => {
    for (const k of KEYS) {
      const e = encodeURIComponent(k);
      expect((await get(`/runs/${e}`, bearer, 404)).body).toContain(`no receipts for run \\"${k}\\"`);
      expect((await get(`/${e}`, bearer, 404)).body).toContain("no route");
      expect((await get(`/receipts?status=${e}`, bearer, 400)).body).toContain("status must be one of");
      expect((await get(`/receipts?since=${e}`, bearer, 400)).body).toContain("since must be");
      expect((await get(`/receipts?limit=${e}`, bearer, 400)).body).toContain("limit must be");
      for (const q of ["tool", "run"])
        expect(JSON.parse((await get(`/receipts?${q}=${e}`, bearer, 200)).body)).toEqual({ count: 0, receipts: [] });
      expect(JSON.parse((await get(`/health?${e}=${e}`, bearer, 200)).body).ok).toBe(true);
      await get(`/runs/${e}`, { authorization: `Bearer ${k}` }, 401);
    }
  });

  test("every console route, signed in: not found, no such run or approval, refusals; never a 500", async () => {
    for (const k of KEYS) {
      const e = encodeURIComponent(k);
      expect((await get(`/console/${e}`, session, 404)).body).toContain("No console page");
      expect((await get(`/console/static/${e}`, session, 404)).body).toContain("No console page");
      expect((await get(`/console/runs/${e}`, session, 404)).body).toContain("No such run");
      const filters = ["session", "tool", "status", "since", "until", "q"].map((f) => `${f}=${e}`).join("&");
      expect((await get(`/console/runs?${filters}`, session, 200)).body).toContain("<title>Runs");
      await get(`/console/runs/table?${filters}`, session, 200);
      const approvals = await get(`/console/approvals?notice=${e}`, session, 200);
      expect(approvals.body).not.toContain('id="notice"');
      await get(`/console/approvals/list?${e}=1`, session, 200);
      await get(`/console/tools?${e}=1`, session, 200);
      for (const verb of ["approve", "deny"]) {
        const { res } = await get(`/console/approvals/${e}/${verb}`, session, 303, "POST");
        expect(res.headers.get("location")).toBe("/console/approvals?notice=unknown");
      }
      await get(`/console/approvals/${e}/${e}`, session, 405, "POST");
      // Signed out: the unauthenticated answers, with the same names.
      await get(`/console/static/${e}`, {}, 401);
      await get(`/console/runs/${e}?t=${e}`, {}, 401);
      await get(`/console/login?t=${e}`, {}, 401);
      await get(`/console/runs`, { cookie: `oa_console=${e}` }, 401);
    }
    expect(await h.gateway.approvals.pending()).toEqual([]);
  });
});

describe("Discord: custom ids and slash command names", () => {
  let e: DiscordE2E;
  beforeAll(async () => {
    e = await startDiscordE2E();
  });
  afterAll(() => e.close());

  test("buttons and modals whose custom id carries such a name decide nothing and say so", async () => {
    e.h.api.script([textTurn("Here.")]);
    const dm = e.fake.dmChannelId(e.ids.alice);
    e.fake.sendUserMessage({ dmFrom: e.ids.alice, content: "hello" });
    const answer = await eventually(
      () => e.fake.messages(dm).find((m) => m.author?.id === e.fake.botId && m.content.startsWith("Here.")),
      "an answer",
    );
    const unknown = (k: string) => `This approval (\`${k}\`) is unknown to the gateway; nothing was changed.`;
    const privateReply = (i: ReturnType<DiscordE2E["fake"]["clickButton"]>, what: string) =>
      eventually(() => i.followUps()[0]?.content as string | undefined, `the private reply to ${what}`);
    for (const k of KEYS) {
      for (const action of ["approve", "deny", "always", "lapprove", "ldeny"]) {
        const i = e.fake.clickButton({
          messageId: answer.id,
          customId: `oa:${action}:${k}`,
          userId: e.ids.alice,
          force: true,
        });
        expect((await i.callback()).accepted).toBe(true);
        expect(await privateReply(i, `oa:${action}:${k}`)).toBe(unknown(k));
      }
      // Not one of our actions: acknowledged without a word (another app's component), nothing changes.
      const foreign = e.fake.clickButton({
        messageId: answer.id,
        customId: `oa:${k}:call_1`,
        userId: e.ids.alice,
        force: true,
      });
      expect(await foreign.callback()).toMatchObject({ type: 6, accepted: true });
      const modal = e.fake.submitModal({
        customId: `oa:denym:${k}`,
        fields: { reason: "no" },
        userId: e.ids.alice,
        channelId: dm,
      });
      expect((await modal.callback()).accepted).toBe(true);
      // Submitted outside a message: the deferred private reply is edited into the answer.
      const edited = await eventually(() => {
        const o = modal.original();
        return o && !(o.flags & 128) ? (o.content as string) : undefined;
      }, `the reply to oa:denym:${k}`);
      expect(edited).toBe(
        `There is no approval with call id \`${k}\`. Copy the id from the card's footer, or see \`/approvals\`.`,
      );
    }
    expect(e.fake.message(answer.id)!.content).toBe(answer.content);
    expect(e.ran).toEqual([]);
    expect(await e.h.gateway.approvals.pending()).toEqual([]);
    expect(e.logs.filter((l) => /error|TypeError/i.test(l))).toEqual([]);
  });

  test("a slash command registered under such a name (a stale registration) is 'Unknown command'", async () => {
    for (const k of KEYS) {
      const name = k.toLowerCase(); // Discord command names are lower case
      const res = await fetch(
        `${e.fake.apiUrl}/applications/${e.fake.applicationId}/guilds/${e.ids.guildId}/commands`,
        {
          method: "POST",
          headers: { authorization: `Bot ${e.fake.token}`, "content-type": "application/json" },
          body: JSON.stringify({ name, description: "stale", type: 1 }),
        },
      );
      expect(res.status).toBeLessThan(300);
      const i = e.fake.runSlashCommand({ name, userId: e.ids.alice, guildId: e.ids.guildId });
      expect((await i.callback()).accepted).toBe(true);
      const text = await eventually(() => i.original()?.content as string | undefined, `/${name} reply`);
      expect(text).toBe(`Unknown command \`/${name}\`.`);
    }
  });

  test("slash command options carrying such a name: no such approval, no receipts", async () => {
    for (const k of KEYS) {
      for (const [name, options, expected] of [
        ["approve", { id: k, decision: "approve" }, new RegExp(`^There is no approval with call id \`${k}\``)],
        ["receipts", { run: k }, /No receipts for this run id\.$/],
      ] as const) {
        const i = e.fake.runSlashCommand({ name, options, userId: e.ids.alice, guildId: e.ids.guildId });
        expect((await i.callback()).accepted).toBe(true);
        const text = await eventually(() => {
          const o = i.original();
          return o && !(o.flags & 128) ? (o.content as string) : undefined;
        }, `/${name} reply`);
        expect(text).toMatch(expected);
        expect(text).not.toMatch(LEAK);
      }
    }
  });
});

describe("terminal commands", () => {
  test("/<name> is an unknown command and //<name> a message like any other; /model <name> is checked as a plain name; each shown back as typed", async () => {
    const h = await startHarness();
    try {
      h.api.script(KEYS.map((k) => textTurn(`answered ${k}`)));
      const io = terminalStreams();
      const surface = startTerminalSurface({ gateway: h.gateway, input: io.input, output: io.output, tty: false });
      const ask = (line: string, re: RegExp) => {
        const from = io.text.length;
        io.send(line);
        return io.waitFor(re, 20_000, from);
      };
      for (const k of KEYS) {
        const set = await ask(`/model ${k}`, /(model: |"\S+" is not a model).*\n/);
        // `__proto__` does not start with a letter or digit, so it is not a model name at all; the
        // others are names the gateway checks against its known models (a list, not an object's
        // keys), and none of them is one.
        if (k === "__proto__") expect(set).toStartWith(`"__proto__" is not a model name`);
        else expect(set).toStartWith(`"${k}" is not a model the gateway knows; nothing changed. Known models: `);
        expect(await ask("/model default", /model: .*\n/)).toContain("model: back to the configured default");
      }
      // A `/<word>` the terminal does not know is answered locally, naming it as typed; `//<word>`
      // sends it. `/__proto__` is no command word (it starts with `_`): it is a message as it is.
      for (const k of KEYS) {
        if (k === "__proto__") {
          expect(await ask(`/${k}`, /answered \S+/)).toBe(`answered ${k}`);
          continue;
        }
        expect(await ask(`/${k}`, /Unknown command .*\n/)).toBe(
          `Unknown command /${k}: /help lists the commands. To send a message that starts with /, write //.\n`,
        );
        expect(await ask(`//${k}`, /answered \S+/)).toBe(`answered ${k}`);
      }
      io.input.end();
      await surface.done;
      expect(io.text).not.toMatch(LEAK);
    } finally {
      await h.close();
    }
  });
});

describe("CLI command names", () => {
  test("`openassistant <name>` and `openassistant <group> <name>` are unknown commands; `mcp login <name>` names no server", async () => {
    for (const k of KEYS) {
      for (const rawArgs of [[k], ["mcp", k], ["plugins", k], ["auth", k], ["auth", "anthropic", k]]) {
        const error = await runCommand(main, { rawArgs }).then(
          () => undefined,
          (e: Error) => e,
        );
        const message = error?.message.replace(/\u001B\[\d+m/g, "");
        expect({ rawArgs, name: error?.name, message }).toEqual({
          rawArgs,
          name: "CLIError",
          message: `Unknown command ${k}`,
        });
      }
    }
    // The whole process: the usage, one error line, exit 1.
    const cwd = makeTempDir("oa-cli-proto-");
    const r = await cli(["constructor"], { cwd });
    expect(r.code).toBe(1);
    expect(r.stderr).toBe("error: Unknown command constructor\n");
    const login = await cli(["mcp", "login", "toString", "--project", cwd], { cwd });
    expect(login.code).toBe(1);
    expect(login.stderr).toBe('error: no MCP server "toString" in mcp.servers\n');
  });
});
