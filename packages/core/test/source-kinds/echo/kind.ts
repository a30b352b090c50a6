import { defineTool, z } from "@openassistant/sdk";
import { defineSourceKind } from "../../../src/sources/kind.ts";

/** How many times the echo kind was closed (what the kind keeps open across passes: here, a count). */
export const echoCloses = { count: 0 };

/**
 * A test-only source kind, to show that a kind is one folder plus one registration line:
 * `config.echo.<name> = { words: [...] }` mounts `tools.<name>.<word>`, each returning its word.
 * An entry with `fail: "<message>"` throws while listing its tools (a source that is down).
 */
export const echoKind = defineSourceKind({
  key: "echo",
  label: "echo source",
  schema: z
    .record(
      z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/),
      z.strictObject({ words: z.array(z.string().regex(/^[a-z]+$/)).min(1), fail: z.string().optional() }),
    )
    .default({}),
  entries(section) {
    return Object.entries(section).map(([name, e]) => ({
      id: name,
      source: `echo:${name}`,
      configPath: ["echo", name],
      fingerprint: JSON.stringify(e),
      tools: async () => {
        if (e.fail) throw new Error(e.fail);
        return Object.fromEntries(
          e.words.map((w) => [
            w,
            defineTool({ description: `says ${w}`, approval: "auto", args: z.object({}), run: async () => w }),
          ]),
        );
      },
    }));
  },
  async close() {
    echoCloses.count++;
  },
});
