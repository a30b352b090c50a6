/**
 * Audit forwarder (docs/hooks.md): after every tool call, posts what happened (tool, outcome,
 * who asked, run and session — never the input or the result, which may hold personal data) to
 * a webhook as JSON.
 *
 *   config.audit_forwarder (the id of package "audit-forwarder"): { "url": "https://audit.example.com/hook", "token": "${AUDIT_TOKEN}" }
 */
import { definePlugin, z } from "@openassistant/sdk";

export default definePlugin({
  config: z.object({
    url: z.url(),
    /** Sent as `Authorization: Bearer <token>`; a field named token is scrubbed from logs and receipts. */
    token: z.string().optional(),
  }),
  hooks: (ctx) => ({
    tool: {
      async after(call, outcome, hook) {
        const body = {
          at: new Date().toISOString(),
          tool: call.path,
          callId: call.callId,
          status: outcome.status,
          ...(outcome.status === "failed" ? { error: outcome.error } : {}),
          ...(outcome.status === "denied" ? { reason: outcome.reason, deniedBy: outcome.by } : {}),
          runId: hook.runId,
          sessionId: hook.sessionId,
          requestedBy: hook.requestedBy?.userId,
        };
        const response = await fetch(ctx.config.url, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...(ctx.config.token ? { authorization: `Bearer ${ctx.config.token}` } : {}),
          },
          body: JSON.stringify(body),
          // Aborted when the hook's time is up: the call goes on without waiting longer.
          signal: hook.signal,
        });
        if (!response.ok) ctx.logger.warn(`the audit webhook answered HTTP ${response.status} for ${call.path}`);
        // Observe only: the result the model sees stays the tool's own.
        return undefined;
      },
    },
  }),
});
