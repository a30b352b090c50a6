import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface CalendarEvent {
  id: string;
  title: string;
  startsAt: string;
  endsAt: string;
  notes?: string;
  createdAt: string;
  updatedAt: string;
}

/** A JSON file of events, rewritten atomically (temp file + rename); calls are serialised. */
export class EventStore {
  private readonly file: string;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(dir: string) {
    mkdirSync(dir, { recursive: true });
    this.file = join(dir, "events.json");
  }

  read(): CalendarEvent[] {
    try {
      return JSON.parse(readFileSync(this.file, "utf8")) as CalendarEvent[];
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
      throw new Error(`calendar store ${this.file} is unreadable: ${(err as Error).message}`);
    }
  }

  /** Applies `fn` to the current events and saves the result; returns what `fn` returned. */
  update<T>(fn: (events: CalendarEvent[]) => { events: CalendarEvent[]; result: T }): Promise<T> {
    const next = this.queue.then(() => {
      const { events, result } = fn(this.read());
      const tmp = `${this.file}.${process.pid}.tmp`;
      writeFileSync(tmp, JSON.stringify(events, null, 2));
      renameSync(tmp, this.file);
      return result;
    });
    this.queue = next.catch(() => {});
    return next;
  }
}
