import type { Node } from "jsonc-parser";
import type { Diagnostic } from "./diagnostic.ts";
import { formatPath, positionOfPath } from "./positions.ts";

const SECRET_KEY = /(token|api[-_]?key|secret|password|passwd)$/i;
const TOKENISH = /^[A-Za-z0-9_\-+/=.:]{16,}$/;
const KNOWN_PREFIX = /^(sk-ant-|sk-|xox[abp]-|ghp_|github_pat_|glpat-)/;

/** Warnings for literal secret-looking values; the value itself is never included. */
export function findLiteralSecrets(
  value: unknown,
  where: { file: string; text: string; tree: Node | undefined },
): Diagnostic[] {
  const out: Diagnostic[] = [];
  const walk = (v: unknown, path: Array<string | number>) => {
    if (typeof v === "string") {
      if (v.includes("${")) return;
      const key = [...path].reverse().find((p): p is string => typeof p === "string") ?? "";
      const looksSecret = (KNOWN_PREFIX.test(v) && v.length >= 20) || (SECRET_KEY.test(key) && TOKENISH.test(v));
      if (!looksSecret) return;
      const { line, column } = positionOfPath(where.text, where.tree, path);
      const envName = `${formatPath(path).replace(/\W+/g, "_").replace(/^_|_$/g, "").toUpperCase()}`;
      out.push({
        level: "warning",
        id: "config",
        source: where.file,
        line,
        column,
        message: `${formatPath(path)} looks like a literal secret (${v.length} characters, value not shown)`,
        hint: `Move it to the environment and write "\${${envName}}" instead, so the file can be shared and committed safely.`,
      });
    } else if (Array.isArray(v)) v.forEach((x, i) => walk(x, [...path, i]));
    else if (v && typeof v === "object") for (const [k, x] of Object.entries(v)) walk(x, [...path, k]);
  };
  walk(value, []);
  return out;
}
