import { definePlugin, defineTool, z } from "@openassistant/sdk";
import { EventStore, type CalendarEvent } from "./store.ts";

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

/** `config.calendar`; openassistant.json carries the same rules as JSON Schema, checked before import. */
const CalendarConfig = z.object({
  timezone: z
    .string()
    .default("UTC")
    .refine(isTimeZone, {
      error: (issue) => `${JSON.stringify(issue.input)} is not an IANA time zone (e.g. "Europe/Oslo")`,
    }),
  defaultDurationMinutes: z.number().int().min(1).max(1440).default(60),
});

const isoDate = z
  .string()
  .refine((s) => !Number.isNaN(Date.parse(s)), { message: "must be an ISO 8601 date-time, e.g. 2025-03-01T09:00:00Z" });

export default definePlugin({
  config: CalendarConfig,
  tools: (ctx) => calendarTools(ctx.config, ctx.dataDir, ctx.logger),
});

function calendarTools(
  config: z.output<typeof CalendarConfig>,
  dataDir: string,
  logger: { info(message: string): void },
) {
  const store = new EventStore(dataDir);
  const show = (e: CalendarEvent) => ({
    ...e,
    local: new Intl.DateTimeFormat("en-GB", {
      timeZone: config.timezone,
      dateStyle: "medium",
      timeStyle: "short",
    }).format(new Date(e.startsAt)),
  });
  const endOf = (startsAt: string, minutes?: number) =>
    new Date(Date.parse(startsAt) + (minutes ?? config.defaultDurationMinutes) * 60_000).toISOString();

  return {
    events: {
      create: defineTool({
        description: "Create a calendar event",
        approval: "required",
        args: z.object({
          title: z.string().min(1).describe("What the event is"),
          startsAt: isoDate.describe("Start, ISO 8601"),
          durationMinutes: z.number().int().positive().max(1440).optional().describe("Length; default from config"),
          notes: z.string().optional(),
        }),
        previewInput: (i) => `${i.title} @ ${i.startsAt}`,
        run: async (input) => {
          const now = new Date().toISOString();
          const event: CalendarEvent = {
            id: `evt_${crypto.randomUUID().slice(0, 8)}`,
            title: input.title,
            startsAt: new Date(input.startsAt).toISOString(),
            endsAt: endOf(input.startsAt, input.durationMinutes),
            ...(input.notes ? { notes: input.notes } : {}),
            createdAt: now,
            updatedAt: now,
          };
          await store.update((events) => ({ events: [...events, event], result: undefined }));
          logger.info(`created ${event.id}`);
          return show(event);
        },
      }),
      update: defineTool({
        description: "Change an existing calendar event (only the given fields)",
        approval: "required",
        args: z.object({
          id: z.string().describe("Event id from events.list"),
          title: z.string().min(1).optional(),
          startsAt: isoDate.optional(),
          durationMinutes: z.number().int().positive().max(1440).optional(),
          notes: z.string().optional(),
        }),
        previewInput: (i) => `update ${i.id}`,
        run: async (input) =>
          show(
            await store.update((events) => {
              const old = events.find((e) => e.id === input.id);
              if (!old) throw new Error(`no event with id ${input.id}; call events.list to find it`);
              const startsAt = input.startsAt ? new Date(input.startsAt).toISOString() : old.startsAt;
              const keptMinutes = (Date.parse(old.endsAt) - Date.parse(old.startsAt)) / 60_000;
              const updated: CalendarEvent = {
                ...old,
                ...(input.title ? { title: input.title } : {}),
                ...(input.notes !== undefined ? { notes: input.notes } : {}),
                startsAt,
                endsAt: endOf(startsAt, input.durationMinutes ?? keptMinutes),
                updatedAt: new Date().toISOString(),
              };
              return { events: events.map((e) => (e.id === old.id ? updated : e)), result: updated };
            }),
          ),
      }),
      list: defineTool({
        description: "List calendar events in a time range, earliest first",
        approval: "auto",
        readOnly: true,
        args: z.object({
          from: isoDate.optional().describe("Start of range (inclusive); default: now"),
          to: isoDate.optional().describe("End of range (exclusive); default: no end"),
          limit: z.number().int().positive().max(200).default(50),
        }),
        run: async ({ from, to, limit }) => {
          const lo = from ? Date.parse(from) : Date.now();
          const hi = to ? Date.parse(to) : Number.POSITIVE_INFINITY;
          return store
            .read()
            .filter((e) => Date.parse(e.endsAt) > lo && Date.parse(e.startsAt) < hi)
            .sort((a, b) => Date.parse(a.startsAt) - Date.parse(b.startsAt))
            .slice(0, limit)
            .map(show);
        },
      }),
      delete: defineTool({
        description: "Delete a calendar event by id",
        approval: "required",
        args: z.object({ id: z.string().describe("Event id from events.list") }),
        previewInput: (i) => `delete ${i.id}`,
        run: async ({ id }) =>
          store.update((events) => {
            if (!events.some((e) => e.id === id))
              throw new Error(`no event with id ${id}; call events.list to find it`);
            return { events: events.filter((e) => e.id !== id), result: { deleted: id } };
          }),
      }),
    },
  };
}
