import { defineTool, z } from "@openassistant/sdk";

/** `tools.clock({ timeZone })` — current date and time in a time zone (approval: auto). */
export default defineTool({
  description: "Current date and time in an IANA time zone (e.g. Europe/Oslo); defaults to the gateway's zone",
  approval: "auto",
  readOnly: true,
  args: z.object({
    timeZone: z.string().optional().describe('IANA time zone such as "America/New_York"; omitted = gateway local time'),
  }),
  run: async ({ timeZone }) => {
    const now = new Date();
    const zone = timeZone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    let formatted: string;
    try {
      formatted = new Intl.DateTimeFormat("en-GB", { timeZone: zone, dateStyle: "full", timeStyle: "long" }).format(
        now,
      );
    } catch {
      throw new Error(`unknown time zone "${zone}"; use an IANA name like "Europe/Oslo"`);
    }
    return { timeZone: zone, iso: now.toISOString(), formatted };
  },
});
