/**
 * Test support for the assistant-written-tool end-to-end tests: a project folder with the PostHog
 * plugin configured against a fake PostHog, the monitor tool the scripted model writes, and the
 * model's calls. Used by the Discord and terminal e2e tests.
 */
import { existsSync, mkdirSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { toolUseTurn } from "@openassistant/testkit/anthropic/fake-server.ts";
import { makeTempDir } from "@openassistant/testkit/temp.ts";

export const POSTHOG_PLUGIN = resolve(import.meta.dir, "../../../integrations/posthog");
// A wrong path here once went unnoticed (the plugin failed to load and the tests did not look).
if (!existsSync(join(POSTHOG_PLUGIN, "package.json"))) throw new Error(`no PostHog plugin at ${POSTHOG_PLUGIN}`);
export const POSTHOG_KEY = "phx_e2eWorkspaceKey0123456789";
export const MONITOR_FILE = "signup_monitor.ts";
export const REASON = "Notify the user when daily signups drop below 50 (PostHog alert)";

/**
 * The tool the model writes: creates a PostHog threshold alert. The host is written into the
 * source; the key is read from the environment, so the approver sees no secret and the attached
 * file is byte for byte what is installed.
 */
export function monitorSource(posthogUrl: string): string {
  return `import { defineTool, z } from "@openassistant/sdk";

export default defineTool({
  description: "Alert the team when daily signups drop below a threshold",
  approval: "required",
  args: z.object({ insightId: z.number().int(), below: z.number() }),
  run: async ({ insightId, below }, ctx) => {
    const res = await fetch("${posthogUrl}/api/projects/4242/alerts/", {
      method: "POST",
      headers: { "content-type": "application/json", authorization: \`Bearer \${process.env.OA_E2E_POSTHOG_KEY}\` },
      body: JSON.stringify({
        name: \`Signups below \${below}/day\`,
        insight: insightId,
        subscribed_users: [1],
        condition: { type: "absolute_value" },
        threshold: { configuration: { type: "absolute", bounds: { lower: below } } },
        calculation_interval: "daily",
      }),
      signal: ctx?.signal,
    });
    if (!res.ok) throw new Error(\`PostHog answered \${res.status}: \${await res.text()}\`);
    const alert = (await res.json()) as { id: string };
    return { alertId: alert.id, below };
  },
});
`;
}

/** A project folder whose config loads the PostHog plugin against `posthogUrl`. */
export function workspaceProject(posthogUrl: string): string {
  const dir = makeTempDir("oa-ws-surface-");
  mkdirSync(join(dir, ".openassistant", "tools"), { recursive: true });
  writeFileSync(
    join(dir, ".openassistant", "config.json"),
    JSON.stringify({
      plugins: [POSTHOG_PLUGIN],
      config: { posthog: { personalApiKey: "${PH_KEY}", projectId: "4242", host: posthogUrl } },
    }),
  );
  return dir;
}

/** The model's execute call writing `source` to `path`. */
export function writeToolTurn(id: string, path: string, source: string) {
  return toolUseTurn({
    id,
    name: "execute",
    input: {
      code: `return await tools.workspace.writeTool({ path: ${JSON.stringify(path)}, source: ${JSON.stringify(source)}, reason: ${JSON.stringify(REASON)} });`,
    },
  });
}

/** The model's execute call using the new tool (typechecked against the reloaded declarations). */
export function useMonitorTurn(id: string) {
  return toolUseTurn({
    id,
    name: "execute",
    input: { code: "return await tools.signup_monitor({ insightId: 77, below: 50 });" },
  });
}
