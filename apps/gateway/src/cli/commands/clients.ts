import { defineCommand } from "citty";
import { join } from "node:path";
import { openClientTokens } from "../../clients/tokens.ts";
import { CliError, commandTable, guard, rejectUnknownFlags } from "../flags.ts";
import { PROJECT_ARG, resolveProject } from "../project.ts";

/** The project's client tokens (in its data dir, where `start` reads them). */
const tokensOf = (project: string | undefined) =>
  openClientTokens(join(resolveProject(project), ".openassistant", "data"));

const createArgs = {
  name: { type: "positional", description: "Who holds it (e.g. laptop)", required: true, valueHint: "name" },
  project: PROJECT_ARG,
} as const;
const createCommand = defineCommand({
  meta: {
    name: "create",
    description: "Make a client token (printed once) for `openassistant connect` or @openassistant/client",
  },
  args: createArgs,
  run: ({ args: a, rawArgs }) =>
    guard(async () => {
      rejectUnknownFlags(rawArgs, createArgs);
      let made: ReturnType<ReturnType<typeof openClientTokens>["create"]>;
      try {
        made = tokensOf(a.project).create(a.name);
      } catch (e) {
        throw new CliError((e as Error).message);
      }
      console.log(made.token);
      console.error(
        `Client token "${made.record.name}" (id ${made.record.id}) made. It is shown once: give it to the client (OPENASSISTANT_CLIENT_TOKEN). It opens only the client connection; revoke it with \`openassistant clients revoke ${made.record.name}\`.`,
      );
    }),
});

const listArgs = { project: PROJECT_ARG } as const;
const listCommand = defineCommand({
  meta: { name: "list", description: "List client tokens (names, ids, dates; never the tokens)" },
  args: listArgs,
  run: ({ args: a, rawArgs }) =>
    guard(async () => {
      rejectUnknownFlags(rawArgs, listArgs);
      const tokens = tokensOf(a.project).list();
      if (tokens.length === 0) console.log("No client tokens. Make one with `openassistant clients create <name>`.");
      for (const t of tokens) console.log(`${t.name}\t${t.id}\t${t.createdAt}`);
    }),
});

const revokeArgs = {
  token: { type: "positional", description: "The token's name or id", required: true, valueHint: "name-or-id" },
  project: PROJECT_ARG,
} as const;
const revokeCommand = defineCommand({
  meta: { name: "revoke", description: "Revoke a client token: its sessions end at their next message or call" },
  args: revokeArgs,
  run: ({ args: a, rawArgs }) =>
    guard(async () => {
      rejectUnknownFlags(rawArgs, revokeArgs);
      if (!tokensOf(a.project).revoke(a.token))
        throw new CliError(`no client token named or with id "${a.token}"; see \`openassistant clients list\``);
      console.log(`Revoked client token ${a.token}.`);
    }),
});

/** `openassistant clients`: the tokens that open client connections (docs/client-tools.md). */
export const clientsCommand = defineCommand({
  meta: {
    name: "clients",
    description: "Client tokens: `clients create <name>`, `clients list`, `clients revoke <name>`",
  },
  subCommands: commandTable({ create: createCommand, list: listCommand, revoke: revokeCommand }),
});
