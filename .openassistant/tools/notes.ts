import { mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { defineTool, z } from "@openassistant/sdk";

/**
 * Named exports → `tools.notes.add`, `tools.notes.list`, `tools.notes.remove`.
 * Notes live in `.openassistant/data/notes/notes.json`; writes need an operator's approval.
 */
const dataDir = join(import.meta.dir, "..", "data", "notes");
const file = join(dataDir, "notes.json");

interface Note {
  id: number;
  text: string;
  createdAt: string;
}

async function readAll(): Promise<Note[]> {
  try {
    return JSON.parse(await readFile(file, "utf8")) as Note[];
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return [];
    throw err;
  }
}

async function writeAll(notes: Note[]): Promise<void> {
  await mkdir(dataDir, { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(notes, null, 2));
  await rename(tmp, file);
}

export const add = defineTool({
  description: "Save a short note",
  approval: "required",
  args: z.object({ text: z.string().min(1).max(2000).describe("The note text") }),
  previewInput: ({ text }) => `note: ${text.slice(0, 80)}`,
  run: async ({ text }) => {
    const notes = await readAll();
    const note: Note = { id: Math.max(0, ...notes.map((n) => n.id)) + 1, text, createdAt: new Date().toISOString() };
    await writeAll([...notes, note]);
    return note;
  },
});

export const list = defineTool({
  description: "List saved notes, newest first",
  approval: "auto",
  readOnly: true,
  args: z.object({ limit: z.number().int().positive().max(100).default(20).describe("How many notes to return") }),
  run: async ({ limit }) => (await readAll()).reverse().slice(0, limit),
});

export const remove = defineTool({
  description: "Delete a note by id",
  approval: "required",
  args: z.object({ id: z.number().int().positive().describe("Note id from notes.list") }),
  previewInput: ({ id }) => `delete note #${id}`,
  run: async ({ id }) => {
    const notes = await readAll();
    if (!notes.some((n) => n.id === id)) throw new Error(`no note with id ${id}`);
    await writeAll(notes.filter((n) => n.id !== id));
    return { deleted: id };
  },
});
