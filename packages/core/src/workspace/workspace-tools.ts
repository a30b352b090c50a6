import { existsSync, mkdirSync, readFileSync, realpathSync, unlinkSync } from "node:fs";
import { replaceFile } from "../files/whole-writes.ts";
import { basename } from "node:path";
import { defineTool, type ToolTree, z } from "@openassistant/sdk";
import { listToolFiles } from "../sources/workspace-files/files.ts";
import { describeEntry, type EntryRef } from "../sources/describe.ts";
import { normalizeId } from "../tools/plugin-id.ts";
import type { ToolHistory } from "./history.ts";
import { checkToolSource, sha256Hex, type SourceCheck } from "./source-check.ts";
import { resolveToolFile } from "./tool-file.ts";

/** The tool paths whose approval no rule may loosen (see `workspace.allowAutoWrite`). */
export const WORKSPACE_WRITE_TOOLS = ["workspace.writeTool", "workspace.removeTool"] as const;

export interface WorkspaceToolsOptions {
  readonly toolsDir: string;
  readonly history: ToolHistory;
  /** Installs npm packages for the tools folder (exact versions written to its package.json). */
  install(packages: readonly string[]): Promise<void>;
  /** Reloads the gateway's tools and reports what `file` now provides, or why it did not load. */
  reload(file: string): Promise<{ readonly problems: readonly string[]; readonly tools: readonly string[] }>;
  /**
   * Who owns each `tools.<id>` now (the registry's entries). A write whose file would be mounted at
   * a name another source owns is refused before any card: a source never takes over another's name.
   */
  owners?(): readonly EntryRef[];
  /** Who approved a call (from its receipts), for the history. */
  approverOf?(callId: string): string | undefined;
}

const MAX_SOURCE = 200_000;

/**
 * `tools.workspace.*`: the assistant reads and writes its own tool files. Writes are always
 * `approval: "required"`; the source is checked (parse, typecheck, exports, imports, location)
 * while the input is validated, so a bad file goes back to the model and never reaches a card.
 * What is written is byte for byte the approved input, whose SHA-256 the card and receipt show.
 */
export function workspaceTools(o: WorkspaceToolsOptions): ToolTree {
  const checked = new Map<string, SourceCheck>();
  const current = (file: string) => (existsSync(file) ? readFileSync(file, "utf8") : undefined);

  const writeArgs = z
    .object({
      path: z.string().min(1).max(200).describe('File name in the tools folder, e.g. "signups.ts"'),
      source: z
        .string()
        .min(1)
        .max(MAX_SOURCE)
        .describe('The whole TypeScript module (import { defineTool, z } from "@openassistant/sdk")'),
      reason: z.string().min(1).max(1000).describe("Why this tool is needed; shown to the operator"),
    })
    .superRefine(async (input, ctx) => {
      const target = resolveToolFile(o.toolsDir, input.path);
      if (!target.ok) return void ctx.addIssue({ code: "custom", path: ["path"], message: target.problem });
      const taken = takenName(target, o.owners?.() ?? []);
      if (taken) return void ctx.addIssue({ code: "custom", path: ["path"], message: taken });
      const result = await checkToolSource(target.file, input.source);
      for (const problem of result.problems) ctx.addIssue({ code: "custom", path: ["source"], message: problem });
      if (result.problems.length === 0) checked.set(result.sha256, result);
    });

  /** The diff library, loaded by the first write that replaces a file (the preview is synchronous). */
  const unifiedDiff = () => (require("diff") as typeof import("diff")).createTwoFilesPatch;

  /** What a write would do: the file's name, hash, packages, and the diff when it replaces one. */
  const describeWrite = (input: { path: string; source: string }) => {
    const target = resolveToolFile(o.toolsDir, input.path);
    const sha256 = sha256Hex(input.source);
    const name = target.ok ? target.name : input.path;
    const old = target.ok ? current(target.file) : undefined;
    const diff =
      old === undefined
        ? undefined
        : unifiedDiff()(`a/${name}`, `b/${name}`, old, input.source, "", "", { context: 2 });
    return { name, sha256, packages: checked.get(sha256)?.packages ?? [], old, diff };
  };

  return {
    listTools: defineTool({
      description: "List the tool files in the workspace tools folder with their SHA-256 and last approved change",
      approval: "auto",
      readOnly: true,
      args: z.object({}),
      run: async () =>
        listToolFiles(o.toolsDir).map((file) => {
          const name = basename(file);
          const last = o.history.list(name).at(-1);
          return {
            path: name,
            sha256: sha256Hex(readFileSync(file, "utf8")),
            ...(last ? { lastChange: { action: last.action, at: last.at, approvedBy: last.approvedBy } } : {}),
          };
        }),
    }),
    readTool: defineTool({
      description: "Read a tool file from the workspace tools folder",
      approval: "auto",
      readOnly: true,
      args: z.object({ path: z.string().min(1).max(200) }),
      run: async ({ path }) => {
        const target = resolveToolFile(o.toolsDir, path);
        if (!target.ok) throw new Error(target.problem);
        const source = current(target.file);
        if (source === undefined) throw new Error(`no tool file "${target.name}"`);
        return { path: target.name, sha256: sha256Hex(source), source };
      },
    }),
    writeTool: defineTool({
      description:
        "Create or replace a tool file (checked first; an operator must approve the exact source). The new tools are usable in the next execute call.",
      approval: "required",
      args: writeArgs,
      // The card's text (and the `started` receipt's preview): the hash first, so it is never cut off.
      previewInput: (input) => {
        const w = describeWrite(input);
        const head = [
          `${w.old === undefined ? "new" : "replaces"} ${w.name} · sha256 ${w.sha256}`,
          `npm packages: ${w.packages.length ? w.packages.join(", ") : "none"}`,
          `reason: ${input.reason}`,
        ];
        if (w.diff !== undefined) head.push(w.diff);
        return head.join("\n");
      },
      // The approver gets the exact source whole (Discord attaches it as `<name>.ts`) and the diff.
      previewFiles: (input) => {
        const w = describeWrite(input);
        return [
          { name: w.name, text: input.source },
          ...(w.diff !== undefined ? [{ name: `${w.name}.diff`, text: w.diff }] : []),
        ];
      },
      run: async (input, call) => {
        const target = resolveToolFile(o.toolsDir, input.path);
        if (!target.ok) throw new Error(target.problem);
        const sha256 = sha256Hex(input.source);
        const check = checked.get(sha256) ?? (await checkToolSource(target.file, input.source));
        if (check.problems.length)
          throw new Error(`the source no longer passes its checks: ${check.problems.join("; ")}`);
        const previous = current(target.file);
        const previousSha256 = previous === undefined ? undefined : sha256Hex(previous);
        const previousCopy =
          previous === undefined ? undefined : o.history.keep(target.name, previous, previousSha256!);
        mkdirSync(o.toolsDir, { recursive: true });
        replaceFile(target.file, input.source);
        const restore = async (why: string): Promise<never> => {
          if (previous === undefined) unlinkSync(target.file);
          else replaceFile(target.file, previous);
          await o.reload(target.file);
          o.history.record({
            name: target.name,
            action: "rollback",
            ...(previousSha256 ? { sha256: previousSha256 } : {}),
            at: new Date().toISOString(),
            ...(call ? { callId: call.callId } : {}),
            reason: why,
          });
          throw new Error(`${target.name} was written but ${why}; the previous version is back in place`);
        };
        if (check.packages.length) {
          try {
            await o.install(check.packages);
          } catch (e) {
            return restore(`installing ${check.packages.join(", ")} failed: ${(e as Error).message}`);
          }
        }
        const loaded = await o.reload(target.file);
        if (loaded.problems.length || loaded.tools.length === 0)
          return restore(`it did not load: ${loaded.problems.join("; ") || "it provides no tools"}`);
        const approvedBy = call ? o.approverOf?.(call.callId) : undefined;
        o.history.record({
          name: target.name,
          action: "write",
          sha256,
          ...(previousSha256 ? { previousSha256, previousCopy } : {}),
          at: new Date().toISOString(),
          ...(call ? { callId: call.callId } : {}),
          ...(approvedBy ? { approvedBy } : {}),
          reason: input.reason,
        });
        return {
          path: target.name,
          sha256,
          tools: loaded.tools,
          installed: check.packages,
          replaced: previousSha256 ?? null,
        };
      },
    }),
    removeTool: defineTool({
      description: "Remove a tool file (an operator must approve; a copy is kept in the history)",
      approval: "required",
      args: z.object({ path: z.string().min(1).max(200), reason: z.string().min(1).max(1000) }),
      run: async ({ path, reason }, call) => {
        const target = resolveToolFile(o.toolsDir, path);
        if (!target.ok) throw new Error(target.problem);
        const previous = current(target.file);
        if (previous === undefined) throw new Error(`no tool file "${target.name}"`);
        const previousSha256 = sha256Hex(previous);
        const previousCopy = o.history.keep(target.name, previous, previousSha256);
        unlinkSync(target.file);
        await o.reload(target.file);
        const approvedBy = call ? o.approverOf?.(call.callId) : undefined;
        o.history.record({
          name: target.name,
          action: "remove",
          previousSha256,
          previousCopy,
          at: new Date().toISOString(),
          ...(call ? { callId: call.callId } : {}),
          ...(approvedBy ? { approvedBy } : {}),
          reason,
        });
        return { removed: target.name, sha256: previousSha256 };
      },
    }),
  };
}

/** Why writing `target` would take another source's name (`tools.<id>`), or undefined when it would not. */
function takenName(target: { file: string; name: string }, owners: readonly EntryRef[]): string | undefined {
  const id = normalizeId(target.name.replace(/\.ts$/, ""));
  const folded = id.toLowerCase();
  const owner = owners.find(
    (e) => e.id.toLowerCase() === folded && !(e.kind === "tool" && sameFile(e.source, target.file)),
  );
  if (!owner) return undefined;
  const clash =
    owner.id === id ? "already belongs to" : `differs only in letter case from tools.${owner.id}, which belongs to`;
  return (
    `"${target.name}" would be mounted at tools.${id}, which ${clash} ${describeEntry(owner)}; ` +
    "a tool file never takes over another source's name. Choose another file name."
  );
}

function sameFile(a: string, b: string): boolean {
  const real = (p: string) => (existsSync(p) ? realpathSync(p) : p);
  return a === b || real(a) === real(b);
}
