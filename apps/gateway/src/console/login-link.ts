import type { GatewaySettings } from "../settings.ts";
import { consoleApproverCheck, normalizeOperator, operatorConfigKeys } from "./approvers.ts";
import { LOGIN_LINK_TTL_MS } from "./routes.ts";
import { createSigner, loadConsoleKey } from "./signing.ts";

/** The console's address for links, from config alone (the CLI, before or while the gateway runs). */
export function configuredConsoleUrl(http: NonNullable<GatewaySettings["http"]>): string {
  if (http.publicUrl) return http.publicUrl.replace(/\/+$/, "");
  const host =
    !http.host || http.host === "0.0.0.0" ? "127.0.0.1" : http.host.includes(":") ? `[${http.host}]` : http.host;
  return `http://${host}:${http.port}`;
}

/**
 * A signed login link for an approver, valid LOGIN_LINK_TTL_MS: opening it signs them in to the
 * console. Refuses with what to do when the console is off or the id is not an approver.
 */
export function consoleLoginLink(
  settings: Pick<GatewaySettings, "dataDir" | "http" | "surfaces">,
  operator: string,
  now: () => number = Date.now,
): string {
  if (!settings.http)
    throw new Error(
      "The console is off: set http.port in .openassistant/config.jsonc (e.g. 8787) and restart the gateway.",
    );
  const id = normalizeOperator(operator);
  if (!id) throw new Error("Give the operator id to sign in, e.g. your Discord user id.");
  if (!consoleApproverCheck(settings)(id))
    throw new Error(
      `"${id}" is not an approver: add it to http.approvers (or ${operatorConfigKeys().join(", ")}) in .openassistant/config.jsonc first.`,
    );
  // This command prints only the signed link, never the key: nothing to redact here.
  const token = createSigner(loadConsoleKey(settings.dataDir, { add() {} }), now).sign({
    kind: "login",
    operator: id,
    exp: now() + LOGIN_LINK_TTL_MS,
  });
  return `${configuredConsoleUrl(settings.http)}/console/login?t=${token}`;
}
