/**
 * Spending guard (docs/hooks.md): a call whose input has a numeric `amount` (the field is
 * configurable) needs a person's approval above `limit`, and is denied outside office hours.
 *
 *   config.spending_guard (the id of package "spending-guard"): { "limit": 100, "officeHours": { "timeZone": "Europe/Oslo", "from": 9, "to": 17 }, "critical": true }
 */
import { definePlugin, type PluginHooks, z } from "@openassistant/sdk";

const config = z.object({
  /** Above this amount a person must approve the call. */
  limit: z.number().positive(),
  /** The input field that holds the amount. */
  field: z.string().min(1).default("amount"),
  officeHours: z
    .object({
      timeZone: z.string().default("UTC"),
      /** First hour of the day spending is allowed (0–23), and the hour it stops (1–24). */
      from: z.number().int().min(0).max(23).default(9),
      to: z.number().int().min(1).max(24).default(17),
      /** Days spending is allowed: 0 = Sunday … 6 = Saturday. */
      days: z.array(z.number().int().min(0).max(6)).default([1, 2, 3, 4, 5]),
    })
    .default({ timeZone: "UTC", from: 9, to: 17, days: [1, 2, 3, 4, 5] }),
});

type GuardConfig = z.output<typeof config>;

const WEEKDAYS = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"];

/** The weekday (0–6) and hour (0–23) of `at` in `timeZone`. */
function localTime(at: Date, timeZone: string): { day: number; hour: number; text: string } {
  const parts = new Intl.DateTimeFormat("en-US", {
    timeZone,
    weekday: "short",
    hour: "2-digit",
    minute: "2-digit",
    hourCycle: "h23",
  }).formatToParts(at);
  const part = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  const hour = Number(part("hour"));
  return { day: WEEKDAYS.indexOf(part("weekday")), hour, text: `${part("weekday")} ${part("hour")}:${part("minute")}` };
}

/** The guard's hooks for a config and a clock (tests pass a fixed clock). */
export function spendingGuardHooks(c: GuardConfig, now: () => Date = () => new Date()): PluginHooks {
  const hours = c.officeHours;
  return {
    // Before other plugins' hooks: a denial here stops the call early.
    priority: 100,
    tool: {
      before(call) {
        const amount = call.input[c.field];
        if (typeof amount !== "number") return undefined;
        const local = localTime(now(), hours.timeZone);
        if (!hours.days.includes(local.day) || local.hour < hours.from || local.hour >= hours.to)
          return {
            deny: `spending is allowed only ${hours.days.map((d) => WEEKDAYS[d]).join(", ")} ${hours.from}:00–${hours.to}:00 (${hours.timeZone}); it is ${local.text}`,
          };
        if (amount > c.limit)
          return {
            requireApproval: {
              title: `Spending ${amount} is over the limit`,
              summary: `${call.path} spends ${amount}, above the configured limit of ${c.limit}.`,
            },
          };
        return undefined;
      },
    },
  };
}

/** The plugin with its own clock swapped (a test's fixed time). */
export function spendingGuard(now?: () => Date) {
  return definePlugin({ config, hooks: (ctx) => spendingGuardHooks(ctx.config, now) });
}

export default spendingGuard();
