import { unknownGuild, unknownMember, unknownUser, unknownWebhook } from "./http.ts";
import { noContent, ok, type RouteRequest, type Router } from "./router.ts";
import type { Services } from "./services.ts";
import type { Json } from "./types.ts";

/** Gateway info, users, application, guild reads, application commands, interaction callbacks and webhooks. */
export function registerAppRoutes(router: Router, services: Services): void {
  const { world, commands, interactions, config } = services;

  router.add("GET", "/gateway", () => ok({ url: config.gatewayUrl() }), { auth: false });
  router.add("GET", "/gateway/bot", () =>
    ok({
      url: config.gatewayUrl(),
      shards: 1,
      session_start_limit: { total: 1000, remaining: 999, reset_after: 86_400_000, max_concurrency: 1 },
    }),
  );

  router.add("GET", "/users/@me", () =>
    ok({ ...world.apiUser(config.botId), verified: true, mfa_enabled: false, email: null }),
  );
  router.add("GET", "/users/:userId", (req) => {
    if (!world.users.has(req.params.userId!)) throw unknownUser();
    return ok(world.apiUser(req.params.userId!));
  });

  const application = (): Json => ({
    id: config.applicationId,
    name: world.user(config.botId).username,
    icon: null,
    description: "",
    bot_public: true,
    bot_require_code_grant: false,
    bot: world.apiUser(config.botId),
    owner: world.apiUser(config.botId),
    verify_key: "0".repeat(64),
    team: null,
    flags: config.applicationFlags,
    approximate_guild_count: world.guilds.size,
    integration_types_config: { "0": {} },
  });
  router.add("GET", "/applications/@me", () => ok(application()));
  router.add("GET", "/oauth2/applications/@me", () => ok(application()));

  const guildOf = (req: RouteRequest) => {
    const guild = world.guilds.get(req.params.guildId!);
    if (!guild || !guild.members.has(config.botId)) throw unknownGuild();
    return guild;
  };
  router.add("GET", "/guilds/:guildId", (req) => ok(world.apiGuild(guildOf(req).id)));
  router.add("GET", "/guilds/:guildId/channels", (req) =>
    ok(world.guildChannels(guildOf(req).id, false).map((c) => structuredClone(c))),
  );
  router.add("GET", "/guilds/:guildId/threads/active", (req) => {
    const threads = world.guildChannels(guildOf(req).id, true).filter((t) => !t.thread_metadata?.archived);
    return ok({ threads: threads.map((t) => structuredClone(t)), members: [] });
  });
  router.add("GET", "/guilds/:guildId/roles", (req) =>
    ok([...guildOf(req).roles.values()].map((r) => world.apiRole(r))),
  );
  router.add("GET", "/guilds/:guildId/members", (req) => {
    const guild = guildOf(req);
    const limit = Math.min(Number(req.query.limit ?? 1), 1000);
    const after = req.query.after ? BigInt(req.query.after) : 0n;
    const ids = [...guild.members.keys()]
      .filter((id) => BigInt(id) > after)
      .sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1));
    return ok(ids.slice(0, limit).map((id) => world.apiMember(guild.id, id)!));
  });
  router.add("GET", "/guilds/:guildId/members/:userId", (req) => {
    const member = world.apiMember(guildOf(req).id, req.params.userId!);
    if (!member) throw unknownMember();
    return ok(member);
  });

  // Application commands: global (`/applications/:app/commands`) and per guild.
  const scopeOf = (req: RouteRequest): string | null => {
    if (req.params.applicationId !== config.applicationId) throw unknownWebhook();
    return req.params.guildId ? guildOf(req).id : null;
  };
  for (const base of [
    "/applications/:applicationId/commands",
    "/applications/:applicationId/guilds/:guildId/commands",
  ]) {
    router.add("GET", base, (req) => ok(commands.list(scopeOf(req))));
    router.add("PUT", base, (req) => ok(commands.overwrite(scopeOf(req), req.body)));
    router.add("POST", base, (req) => {
      const { command, created } = commands.upsert(scopeOf(req), req.body ?? {});
      return { status: created ? 201 : 200, body: command };
    });
    router.add("GET", `${base}/:commandId`, (req) => ok(commands.get(scopeOf(req), req.params.commandId!)));
    router.add("PATCH", `${base}/:commandId`, (req) =>
      ok(commands.patch(scopeOf(req), req.params.commandId!, req.body ?? {})),
    );
    router.add("DELETE", `${base}/:commandId`, (req) => {
      commands.delete(scopeOf(req), req.params.commandId!);
      return noContent();
    });
  }

  // Interaction callbacks and interaction webhooks carry no bot Authorization header.
  router.add(
    "POST",
    "/interactions/:interactionId/:token/callback",
    (req) =>
      interactions.handleCallback(
        req.params.interactionId!,
        req.params.token!,
        req.body ?? {},
        req.query.with_response === "true",
      ),
    { auth: false },
  );
  router.add(
    "POST",
    "/webhooks/:applicationId/:token",
    (req) => ok(interactions.followUp(req.params.applicationId!, req.params.token!, req.body ?? {}, req.files)),
    { auth: false },
  );
  const ref = (req: RouteRequest) => [req.params.applicationId!, req.params.token!, req.params.messageRef!] as const;
  router.add(
    "GET",
    "/webhooks/:applicationId/:token/messages/:messageRef",
    (req) => ok(interactions.webhookGet(...ref(req))),
    { auth: false },
  );
  router.add(
    "PATCH",
    "/webhooks/:applicationId/:token/messages/:messageRef",
    (req) => ok(interactions.webhookEdit(...ref(req), req.body ?? {}, req.files)),
    { auth: false },
  );
  router.add(
    "DELETE",
    "/webhooks/:applicationId/:token/messages/:messageRef",
    (req) => {
      interactions.webhookDelete(...ref(req));
      return noContent();
    },
    { auth: false },
  );
}
