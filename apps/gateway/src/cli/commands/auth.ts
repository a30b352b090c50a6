import { isCancel, password } from "@clack/prompts";
import { defineCommand, runMain, type ArgsDef } from "citty";
import { maskSecret } from "../../auth/mask.ts";
import { resolveConfigDir } from "../../auth/paths.ts";
import { AuthStoreError, openAuthStore } from "../../auth/store.ts";
import type { AuthProfile, AuthProfileType, EnvLike } from "../../auth/types.ts";
import { validateApiKey, validateSetupToken, type ValidationResult } from "../../auth/validate.ts";
import { commandTable } from "../flags.ts";

/**
 * `openassistant auth …`: manage Anthropic credentials in <configDir>/auth-profiles.json.
 *
 *   auth anthropic setup-token [--profile anthropic:manual]   paste a token from `claude setup-token`
 *   auth anthropic api-key     [--profile anthropic:api-key]  paste an API key
 *   auth list                                                 profiles with masked secrets
 *   auth remove <id>
 *
 * Secrets are read from a masked prompt on a TTY, or from stdin otherwise (for scripts:
 * `echo "$KEY" | openassistant auth anthropic api-key`). They are never accepted as flags, so they
 * don't end up in shell history or `ps`. The config dir comes from OPENASSISTANT_CONFIG_DIR or
 * ~/.config/openassistant.
 */
export interface AuthCommandDeps {
  env?: EnvLike;
  /** Reads the secret when stdin is not a TTY (default: all of stdin). */
  readStdin?: () => Promise<string>;
  isTTY?: () => boolean;
  out?: (line: string) => void;
  err?: (line: string) => void;
  now?: () => Date;
}

class UserError extends Error {}

const PROFILE_ARG = {
  type: "string",
  description: 'Profile id ("anthropic:<name>", or just <name>)',
  valueHint: "id",
} as const;

function createAuthCommand(deps: AuthCommandDeps = {}) {
  const env = deps.env ?? process.env;
  const out = deps.out ?? ((line: string) => console.log(line));
  const err = deps.err ?? ((line: string) => console.error(line));
  const now = deps.now ?? (() => new Date());
  const isTTY = deps.isTTY ?? (() => Boolean(process.stdin.isTTY));
  const readStdin = deps.readStdin ?? (() => Bun.stdin.text());
  const store = () => openAuthStore(resolveConfigDir(env));

  /** Runs a command body; user-facing errors become one stderr line and exit code 1. */
  const guarded =
    <T>(argsDef: ArgsDef, body: (ctx: { args: T; rawArgs: string[] }) => Promise<void> | void) =>
    async (ctx: { args: unknown; rawArgs: string[] }) => {
      try {
        rejectUnknownFlags(ctx.rawArgs, argsDef);
        await body({ args: ctx.args as T, rawArgs: ctx.rawArgs });
      } catch (e) {
        if (e instanceof UserError || e instanceof AuthStoreError) {
          err(`error: ${e.message}`);
          process.exitCode = 1;
          return;
        }
        throw e;
      }
    };

  async function readSecret(
    message: string,
    validate: (raw: string) => ValidationResult,
  ): Promise<ValidationResult & { ok: true }> {
    let raw: string;
    if (isTTY()) {
      const answer = await password({
        message,
        mask: "•",
        validate: (v) => {
          const r = validate(v ?? "");
          return r.ok ? undefined : r.message;
        },
      });
      if (isCancel(answer)) throw new UserError("Cancelled; nothing was saved.");
      raw = answer;
    } else {
      raw = await readStdin();
    }
    const result = validate(raw);
    if (!result.ok) throw new UserError(result.message);
    return result;
  }

  function saveProfile(
    args: { profile?: string },
    fallbackId: string,
    type: AuthProfileType,
    secret: string,
  ): AuthProfile {
    const id = normalizeProfileId(args.profile ?? fallbackId);
    const s = store();
    const previous = s.get(id);
    const profile: AuthProfile = { id, provider: "anthropic", type, secret, createdAt: now().toISOString() };
    s.upsert(profile, { prefer: true });
    out(
      `${previous ? "Replaced" : "Saved"} ${id} (${type === "token" ? "setup-token" : "API key"} ${maskSecret(secret)}) in ${s.path}`,
    );
    out(
      `${id} is now the preferred Anthropic profile (config auth.anthropic.profileOrder, if set, still comes first).`,
    );
    return profile;
  }

  const setupTokenArgs = { profile: PROFILE_ARG } as const satisfies ArgsDef;
  const setupToken = defineCommand({
    meta: {
      name: "setup-token",
      description: "Store a Claude subscription token from `claude setup-token` and prefer it",
    },
    args: setupTokenArgs,
    run: guarded<{ profile?: string }>(setupTokenArgs, async ({ args }) => {
      if (isTTY())
        out(
          "Run `claude setup-token` in another terminal, then paste the token it prints (starts with sk-ant-oat01-).",
        );
      const { value } = await readSecret("Paste your Claude setup-token", validateSetupToken);
      saveProfile(args, "anthropic:manual", "token", value);
      out(
        "Note: Anthropic restricts Claude subscription setup-tokens to its own clients (such as Claude Code), so the API may reject this token here. OpenAssistant does not pretend to be another client; when a token is rejected it falls back to an API key if you have one. Add one with `openassistant auth anthropic api-key`.",
      );
    }),
  });

  const apiKeyArgs = {
    profile: PROFILE_ARG,
    force: {
      type: "boolean",
      description: 'Store a key that does not start with "sk-ant-" (e.g. for a proxy with its own keys)',
      default: false,
    },
  } as const satisfies ArgsDef;
  const apiKey = defineCommand({
    meta: {
      name: "api-key",
      description:
        'Store an Anthropic API key (console.anthropic.com) and prefer it. Pasted at a masked prompt, or read from stdin: echo "$KEY" | openassistant auth anthropic api-key',
    },
    args: apiKeyArgs,
    run: guarded<{ profile?: string; force?: boolean }>(apiKeyArgs, async ({ args }) => {
      // A malformed key is refused (it would only fail later, at the first message) unless --force.
      const strict = (raw: string): ValidationResult => {
        const r = validateApiKey(raw);
        return r.ok && r.warning && !args.force
          ? {
              ok: false,
              message: `${r.warning.replace(/; storing it anyway\.$/, "")}: this is not one. Copy the key again, or pass --force to store it anyway (e.g. for a proxy).`,
            }
          : r;
      };
      const result = await readSecret("Paste your Anthropic API key", strict);
      if (result.warning) err(`warning: ${result.warning}`);
      saveProfile(args, "anthropic:api-key", "api_key", result.value);
    }),
  });

  const listArgs = {} as const satisfies ArgsDef;
  const list = defineCommand({
    meta: { name: "list", description: "List auth profiles (secrets masked)" },
    args: listArgs,
    run: guarded(listArgs, () => {
      const s = store();
      const profiles = s.list();
      const preferred = s.preferredOrder("anthropic");
      const ordered = [
        ...preferred.map((id) => profiles.find((p) => p.id === id)!),
        ...profiles.filter((p) => !preferred.includes(p.id)),
      ];
      if (ordered.length === 0) out(`No auth profiles in ${s.path}.`);
      else out(`Auth profiles in ${s.path} (in preference order):`);
      for (const p of ordered) {
        const status =
          p.cooldownUntil && Date.parse(p.cooldownUntil) > now().getTime()
            ? `cooling down until ${p.cooldownUntil} (${p.lastFailureReason ?? "error"}, ${p.failures ?? 1} failure(s))`
            : "ok";
        const used = p.lastUsedAt ? `last used ${p.lastUsedAt}` : "never used";
        out(
          `  ${p.id}  ${p.type === "token" ? "setup-token" : "api-key"}  ${maskSecret(p.secret)}  ${status}  ${used}`,
        );
      }
      for (const name of ["ANTHROPIC_OAUTH_TOKEN", "ANTHROPIC_API_KEY"] as const) {
        const v = env[name]?.trim();
        if (v)
          out(
            `  env:${name}  ${name === "ANTHROPIC_OAUTH_TOKEN" ? "setup-token" : "api-key"}  ${maskSecret(v)}  (fallback after the profiles)`,
          );
      }
      if (ordered.length === 0 && !env.ANTHROPIC_OAUTH_TOKEN && !env.ANTHROPIC_API_KEY) {
        out("Add one with `openassistant auth anthropic api-key` or `openassistant auth anthropic setup-token`.");
      }
    }),
  });

  const removeArgs = {
    id: { type: "positional", description: "Profile id to remove", required: true },
  } as const satisfies ArgsDef;
  const remove = defineCommand({
    meta: { name: "remove", description: "Remove an auth profile" },
    args: removeArgs,
    run: guarded<{ id: string }>(removeArgs, ({ args }) => {
      const s = store();
      const id = normalizeProfileId(args.id);
      if (!s.remove(id)) {
        throw new UserError(
          `No auth profile "${id}" in ${s.path}. Run \`openassistant auth list\` to see the profiles.`,
        );
      }
      out(`Removed ${id}.`);
    }),
  });

  const anthropic = defineCommand({
    meta: { name: "anthropic", description: "Anthropic credentials" },
    subCommands: commandTable({ "setup-token": setupToken, "api-key": apiKey }),
  });

  return defineCommand({
    meta: { name: "auth", description: "Manage model credentials (auth profiles)" },
    subCommands: commandTable({ anthropic, list, remove }),
  });
}

/** The `auth` command for the main CLI (process env, stdin, console). */
export const authCommand = createAuthCommand();

/** "work" → "anthropic:work"; ids must be "anthropic:" plus letters, digits, ".", "_" or "-". */
function normalizeProfileId(input: string): string {
  const id = input.includes(":") ? input : `anthropic:${input}`;
  if (!/^anthropic:[A-Za-z0-9._-]+$/.test(id)) {
    throw new UserError(
      `Invalid profile id "${input}": use "anthropic:<name>" where <name> is letters, digits, ".", "_" or "-".`,
    );
  }
  return id;
}

/** citty accepts any flag; the CLI contract is that unknown flags are errors. */
function rejectUnknownFlags(rawArgs: string[], argsDef: ArgsDef): void {
  const known = new Set<string>(["help", "h"]);
  for (const [name, def] of Object.entries(argsDef)) {
    known.add(name);
    for (const a of [def.type === "positional" ? [] : ((def as { alias?: string | string[] }).alias ?? [])].flat())
      known.add(a);
  }
  for (const raw of rawArgs) {
    if (raw === "--") break;
    if (!raw.startsWith("-") || raw === "-") continue;
    const name = raw.replace(/^--?/, "").split("=")[0]!.replace(/^no-/, "");
    if (!known.has(name)) throw new UserError(`Unknown option "${raw}". Run with --help to see the options.`);
  }
}

if (import.meta.main) {
  await runMain(defineCommand({ meta: { name: "openassistant" }, subCommands: { auth: authCommand } }));
}
