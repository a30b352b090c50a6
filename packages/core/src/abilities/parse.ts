import { createHash } from "node:crypto";
import type * as Yaml from "yaml";
import type { Node } from "yaml";
import type { z } from "zod";
import type { Diagnostic } from "../config/diagnostic.ts";
import { formatPath } from "../config/positions.ts";
import { definitionProblems, type DefinitionProblem } from "./check.ts";
import { inputProblems, inputSchemaOf } from "./inputs.ts";
import { abilityFileSchema, abilityModuleSchema } from "./schema.ts";
import type { Ability, AbilityStep } from "./types.ts";

export type ParsedAbility = { ok: true; ability: Ability } | { ok: false; diagnostics: Diagnostic[] };

const HINT = "fix the field named, then save: abilities are read again on the next run (docs/abilities.md)";

/** `ability.yaml`'s text → a checked ability, or one diagnostic per problem with its line and column. */
export function parseAbilityYaml(text: string, file: string): ParsedAbility {
  const { LineCounter, parseDocument } = yaml();
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true });
  const diag = (message: string, offset: number | undefined): Diagnostic => {
    const pos = offset === undefined ? { line: 1, col: 1 } : lines.linePos(offset);
    return {
      level: "error",
      id: `ability:${file}`,
      source: file,
      message,
      hint: HINT,
      line: pos.line,
      column: pos.col,
    };
  };
  if (doc.errors.length > 0) return { ok: false, diagnostics: [yamlError(doc.errors[0]!, diag)] };
  const parsed = abilityFileSchema.safeParse(doc.toJS());
  const at = (p: DefinitionProblem) => diag(`${formatPath(p.path)}: ${p.message}`, offsetOf(doc.contents, p.path));
  if (!parsed.success) return { ok: false, diagnostics: zodProblems(parsed.error).map(at) };
  const file_ = parsed.data;
  const problems: DefinitionProblem[] = Object.entries(file_.inputs).flatMap(([name, spec]) =>
    inputProblems(name, spec).map((message) => ({ path: ["inputs", name], message })),
  );
  problems.push(
    ...definitionProblems({
      name: file_.name,
      steps: file_.steps as AbilityStep[],
      inputNames: Object.keys(file_.inputs),
      triggerPatterns: file_.triggers.patterns,
    }),
  );
  if (problems.length > 0) return { ok: false, diagnostics: problems.map(at) };
  return {
    ok: true,
    ability: {
      name: file_.name,
      description: file_.description,
      triggers: file_.triggers,
      inputSchema: inputSchemaOf(file_.inputs),
      steps: file_.steps as AbilityStep[],
      hash: sha256(text),
      source: file,
    },
  };
}

/**
 * What `defineAbility` returned (from an `ability.ts` file or a plugin) → a checked ability. `hash`
 * is the hash of what defines it (the file's text); positions are the file's first line.
 */
export function abilityFromModule(value: unknown, source: string, hash: string): ParsedAbility {
  const diag = (p: DefinitionProblem): Diagnostic => ({
    level: "error",
    id: `ability:${source}`,
    source,
    message: `${formatPath(p.path)}: ${p.message}`,
    hint: HINT,
    line: 1,
    column: 1,
  });
  if ((value as { _tag?: unknown } | null)?._tag !== "AbilityDefinition")
    return {
      ok: false,
      diagnostics: [
        diag({
          path: [],
          message:
            "its default export is not an ability: export default defineAbility({ ... }) from @openassistant/sdk",
        }),
      ],
    };
  const parsed = abilityModuleSchema.safeParse(value);
  if (!parsed.success) return { ok: false, diagnostics: zodProblems(parsed.error).map(diag) };
  const d = parsed.data;
  const inputSchema = (d.inputs ?? inputSchemaOf({})) as z.ZodObject;
  const problems = definitionProblems({
    name: d.name,
    steps: d.steps as AbilityStep[],
    inputNames: Object.keys(inputSchema.shape),
    triggerPatterns: d.triggers.patterns,
  });
  if (problems.length > 0) return { ok: false, diagnostics: problems.map(diag) };
  return {
    ok: true,
    ability: {
      name: d.name,
      description: d.description,
      triggers: d.triggers,
      inputSchema,
      steps: d.steps as AbilityStep[],
      hash,
      source,
    },
  };
}

/** The first YAML error only: the ones after it usually follow from it. */
function yamlError(
  e: { message: string; pos: [number, number] },
  diag: (m: string, o: number) => Diagnostic,
): Diagnostic {
  return diag(`YAML: ${e.message.split("\n")[0]}`, e.pos[0]);
}

export function sha256(text: string): string {
  return createHash("sha256").update(text).digest("hex");
}

/** Zod's issues as problems; a union's mismatch names the step type's own fields. */
function zodProblems(error: z.ZodError): DefinitionProblem[] {
  return error.issues.map((i) => {
    if (i.code === "unrecognized_keys")
      return {
        path: [...i.path, i.keys[0]!] as (string | number)[],
        message: `unknown field "${i.keys.join('", "')}"`,
      };
    if (i.code === "invalid_union" && i.path.at(-1) === "type")
      return {
        path: i.path as (string | number)[],
        message: `step type must be one of tool, code, approval, agent, ability`,
      };
    return { path: i.path as (string | number)[], message: i.message };
  });
}

/** The `yaml` library, loaded on first use (~40–60 ms to import): a gateway without abilities never pays for it. */
function yaml(): typeof Yaml {
  return require("yaml") as typeof Yaml;
}

/** The character offset of a path in the YAML document: a map entry's key, a list item, or the nearest parent. */
function offsetOf(root: unknown, path: readonly (string | number)[]): number | undefined {
  const { isMap, isSeq } = yaml();
  let node = root as Node | null | undefined;
  let offset = node?.range?.[0];
  for (const seg of path) {
    if (isMap(node)) {
      const pair = node.items.find((p) => (p.key as { value?: unknown } | null)?.value === seg);
      if (!pair) break;
      offset = (pair.key as Node).range?.[0] ?? offset;
      node = pair.value as Node | null;
    } else if (isSeq(node) && typeof seg === "number" && node.items[seg]) {
      node = node.items[seg] as Node;
      offset = node.range?.[0] ?? offset;
    } else break;
  }
  return offset;
}
