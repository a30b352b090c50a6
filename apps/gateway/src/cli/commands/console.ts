import { defineCommand } from "citty";
import { consoleLoginLink } from "../../console/login-link.ts";
import { LOGIN_LINK_TTL_MS } from "../../console/routes.ts";
import { loadGatewaySettings } from "../../config-adapter.ts";
import { CliError, commandTable, guard, rejectUnknownFlags } from "../flags.ts";
import { PROJECT_ARG, resolveProject } from "../project.ts";

const loginArgs = {
  operator: {
    type: "positional",
    description: "The approver's id (a Discord user id, or an id in http.approvers)",
    required: true,
    valueHint: "operator-id",
  },
  project: PROJECT_ARG,
} as const;

const loginCommand = defineCommand({
  meta: { name: "login", description: "Print a signed login link for an approver (valid 15 minutes)" },
  args: loginArgs,
  run: ({ args: a, rawArgs }) =>
    guard(async () => {
      rejectUnknownFlags(rawArgs, loginArgs);
      const { settings } = await loadGatewaySettings(resolveProject(a.project), process.env, { tools: false });
      let link: string;
      try {
        link = consoleLoginLink(settings, a.operator);
      } catch (e) {
        throw new CliError((e as Error).message);
      }
      console.log(link);
      console.error(
        `Open it within ${LOGIN_LINK_TTL_MS / 60_000} minutes (it signs ${a.operator} in for 12 hours). Do not share it.`,
      );
    }),
});

/** `openassistant console`: the operator console served by the gateway. */
export const consoleCommand = defineCommand({
  meta: { name: "console", description: "The operator console (served with the HTTP API when http.port is set)" },
  subCommands: commandTable({ login: loginCommand }),
});
