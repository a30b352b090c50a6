import { Cron } from "croner";
import type { When } from "./types.ts";

/** A bad `when`, `timeZone` or duration: the message names the field and says what to write. */
export class ScheduleInputError extends Error {
  override name = "ScheduleInputError";
}

const UNIT_MS = new Map([
  ["s", 1_000],
  ["m", 60_000],
  ["h", 3_600_000],
  ["d", 86_400_000],
]);

/** `30s`, `15m`, `2h`, `1d` (or a sum: `1h30m`) in ms; throws naming `field`. */
export function parseDuration(text: string, field: string): number {
  const parts = [...text.trim().matchAll(/(\d+)\s*([smhd])/g)];
  const consumed = parts.map((p) => p[0]).join("");
  if (parts.length === 0 || consumed.replace(/\s/g, "") !== text.replace(/\s/g, ""))
    throw new ScheduleInputError(
      `${field}: "${text}" is not a duration; write e.g. "30s", "15m", "2h", "1d" or "1h30m"`,
    );
  return parts.reduce((sum, [, n, unit]) => sum + Number(n) * UNIT_MS.get(unit!)!, 0);
}

/** The shortest interval a schedule may have (a tighter loop is a bug, not a schedule). */
export const MIN_INTERVAL_MS = 10_000;

/** Throws naming the field when `timeZone` is not an IANA zone this runtime knows. */
export function checkTimeZone(timeZone: string, field = "timeZone"): void {
  try {
    new Intl.DateTimeFormat("en-US", { timeZone }).format(0);
  } catch {
    throw new ScheduleInputError(
      `${field}: "${timeZone}" is not an IANA time zone; write one such as "Europe/Oslo", "America/New_York" or "UTC"`,
    );
  }
}

/**
 * The fire times of one `when`, in a time zone: DST is the cron library's (croner): a wall-clock
 * time that does not exist on a spring-forward day fires at the first instant after the gap
 * (02:30 → 03:00), and one that happens twice on a fall-back day fires once, at its first instance.
 */
export interface FireTimes {
  /** The first fire time strictly after `after` (epoch ms), if any. */
  next(after: number): number | undefined;
}

/** Checks `when` and returns its fire times; throws a `ScheduleInputError` naming the field. */
export function fireTimes(when: When, timeZone: string, createdAt: number): FireTimes {
  checkTimeZone(timeZone);
  if ("cron" in when) {
    let cron: Cron;
    try {
      cron = new Cron(when.cron, { timezone: timeZone, paused: true, mode: "5-or-6-parts" });
    } catch (e) {
      throw new ScheduleInputError(
        `when.cron: "${when.cron}" is not a cron pattern (${(e as Error).message}); write 5 fields ("0 9 * * 1-5": 09:00 on weekdays) or 6 with seconds first`,
      );
    }
    return { next: (after) => cron.nextRun(new Date(after))?.getTime() };
  }
  if ("at" in when) {
    const at = atTime(when.at, timeZone);
    return { next: (after) => (at > after ? at : undefined) };
  }
  const every = parseDuration(when.every, "when.every");
  if (every < MIN_INTERVAL_MS)
    throw new ScheduleInputError(
      `when.every: "${when.every}" is shorter than 10s; schedules fire at most every 10 seconds`,
    );
  return {
    next(after) {
      const k = Math.floor((after - createdAt) / every) + 1;
      return createdAt + Math.max(1, k) * every;
    },
  };
}

/** An ISO date-time; without an offset it is a wall-clock time in `timeZone` (croner resolves it). */
function atTime(text: string, timeZone: string): number {
  const hasOffset = /(Z|[+-]\d\d:?\d\d)$/i.test(text.trim());
  if (hasOffset) {
    const ms = Date.parse(text);
    if (Number.isFinite(ms)) return ms;
  } else {
    try {
      const at = new Cron(text.trim(), { timezone: timeZone, paused: true }).nextRun(new Date(0));
      if (at) return at.getTime();
    } catch {
      // named below
    }
  }
  throw new ScheduleInputError(
    `when.at: "${text}" is not a date-time; write an ISO date-time such as "2026-12-01T09:00" (read in the schedule's time zone) or "2026-12-01T08:00:00Z"`,
  );
}

/** The next `count` fire times after `after` (epoch ms). */
export function nextFireTimes(times: FireTimes, after: number, count: number): number[] {
  const out: number[] = [];
  let t = after;
  while (out.length < count) {
    const n = times.next(t);
    if (n === undefined) break;
    out.push(n);
    t = n;
  }
  return out;
}

/** The fire times in (from, to], at most `max` (the newest are kept when there are more). */
export function fireTimesBetween(times: FireTimes, from: number, to: number, max: number): number[] {
  const out: number[] = [];
  let t = from;
  for (;;) {
    const n = times.next(t);
    if (n === undefined || n > to) break;
    out.push(n);
    if (out.length > max) out.shift();
    t = n;
  }
  return out;
}

/** A time as people read it in the schedule's zone: `Fri 2026-11-27 09:00 (Europe/Oslo, UTC+01:00)`. */
export function formatInZone(ms: number, timeZone: string): string {
  const parts = new Intl.DateTimeFormat("en-GB", {
    timeZone,
    weekday: "short",
    year: "numeric",
    month: "2-digit",
    day: "2-digit",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    hourCycle: "h23",
    timeZoneName: "longOffset",
  }).formatToParts(new Date(ms));
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? "";
  const seconds = get("second") === "00" ? "" : `:${get("second")}`;
  const offset = get("timeZoneName").replace("GMT", "UTC") || "UTC";
  return `${get("weekday")} ${get("year")}-${get("month")}-${get("day")} ${get("hour")}:${get("minute")}${seconds} (${timeZone}, ${offset === "UTC" ? "UTC+00:00" : offset})`;
}

/** `when` as one line: `cron 0 9 * * 1-5`, `at 2026-12-01T09:00`, `every 15m`. */
export function describeWhen(when: When): string {
  if ("cron" in when) return `cron ${when.cron}`;
  if ("at" in when) return `at ${when.at}`;
  return `every ${when.every}`;
}
