import ts from "typescript";

/**
 * Prints the type nodes zod-to-ts builds, formatted like TypeScript's printer but with 2-space
 * indentation. TypeScript's generic printer costs ~200 ms for 1000 tools in a fresh process (JIT
 * warm-up); this covers the handful of node kinds involved and falls back to it for anything else.
 */
export function printType(node: ts.TypeNode): string {
  return typeText(node, "");
}

const KEYWORDS: Partial<Record<ts.SyntaxKind, string>> = {
  [ts.SyntaxKind.StringKeyword]: "string",
  [ts.SyntaxKind.NumberKeyword]: "number",
  [ts.SyntaxKind.BigIntKeyword]: "bigint",
  [ts.SyntaxKind.BooleanKeyword]: "boolean",
  [ts.SyntaxKind.UndefinedKeyword]: "undefined",
  [ts.SyntaxKind.VoidKeyword]: "void",
  [ts.SyntaxKind.AnyKeyword]: "any",
  [ts.SyntaxKind.UnknownKeyword]: "unknown",
  [ts.SyntaxKind.NeverKeyword]: "never",
  [ts.SyntaxKind.SymbolKeyword]: "symbol",
  [ts.SyntaxKind.ObjectKeyword]: "object",
};

function typeText(node: ts.Node, indent: string): string {
  const keyword = KEYWORDS[node.kind];
  if (keyword) return keyword;
  switch (node.kind) {
    case ts.SyntaxKind.LiteralType:
      return literalText((node as ts.LiteralTypeNode).literal) ?? fallback(node, indent);
    case ts.SyntaxKind.UnionType:
      return (node as ts.UnionTypeNode).types.map((t) => typeText(t, indent)).join(" | ");
    case ts.SyntaxKind.IntersectionType:
      return (node as ts.IntersectionTypeNode).types.map((t) => typeText(t, indent)).join(" & ");
    case ts.SyntaxKind.ArrayType:
      return `${typeText((node as ts.ArrayTypeNode).elementType, indent)}[]`;
    case ts.SyntaxKind.ParenthesizedType:
      return `(${typeText((node as ts.ParenthesizedTypeNode).type, indent)})`;
    case ts.SyntaxKind.TupleType:
      return `[${(node as ts.TupleTypeNode).elements.map((t) => typeText(t, indent)).join(", ")}]`;
    case ts.SyntaxKind.TypeOperator: {
      const op = node as ts.TypeOperatorNode;
      if (op.operator !== ts.SyntaxKind.ReadonlyKeyword) return fallback(node, indent);
      return `readonly ${typeText(op.type, indent)}`;
    }
    case ts.SyntaxKind.TypeReference: {
      const ref = node as ts.TypeReferenceNode;
      if (!ts.isIdentifier(ref.typeName)) return fallback(node, indent);
      const args = ref.typeArguments?.map((t) => typeText(t, indent)).join(", ");
      return args ? `${ref.typeName.text}<${args}>` : ref.typeName.text;
    }
    case ts.SyntaxKind.TypeLiteral:
      return typeLiteralText(node as ts.TypeLiteralNode, indent);
    default:
      return fallback(node, indent);
  }
}

function typeLiteralText(node: ts.TypeLiteralNode, indent: string): string {
  if (node.members.length === 0) return "{}";
  const inner = `${indent}  `;
  let out = "{\n";
  for (const member of node.members) {
    for (const c of ts.getSyntheticLeadingComments(member) ?? []) {
      const text = c.kind === ts.SyntaxKind.MultiLineCommentTrivia ? `/*${c.text}*/` : `//${c.text}`;
      out += `${inner}${text}\n`;
    }
    if (ts.isPropertySignature(member) && member.type) {
      const readonly = member.modifiers?.some((m) => m.kind === ts.SyntaxKind.ReadonlyKeyword) ? "readonly " : "";
      const name = propertyName(member.name);
      if (name === undefined) return fallback(node, indent);
      out += `${inner}${readonly}${name}${member.questionToken ? "?" : ""}: ${typeText(member.type, inner)};\n`;
    } else if (ts.isIndexSignatureDeclaration(member) && member.parameters.length === 1) {
      const p = member.parameters[0]!;
      if (!ts.isIdentifier(p.name) || !p.type) return fallback(node, indent);
      out += `${inner}[${p.name.text}: ${typeText(p.type, inner)}]: ${typeText(member.type, inner)};\n`;
    } else {
      return fallback(node, indent);
    }
  }
  return `${out}${indent}}`;
}

function propertyName(name: ts.PropertyName): string | undefined {
  if (ts.isIdentifier(name)) return name.text;
  if (ts.isStringLiteral(name)) return JSON.stringify(name.text);
  return undefined;
}

function literalText(literal: ts.LiteralTypeNode["literal"]): string | undefined {
  switch (literal.kind) {
    case ts.SyntaxKind.StringLiteral:
      return JSON.stringify(literal.text);
    case ts.SyntaxKind.NumericLiteral:
    case ts.SyntaxKind.BigIntLiteral:
      return literal.text;
    case ts.SyntaxKind.TrueKeyword:
      return "true";
    case ts.SyntaxKind.FalseKeyword:
      return "false";
    case ts.SyntaxKind.NullKeyword:
      return "null";
    default:
      return undefined; // negative numbers, template strings: let TypeScript print them
  }
}

const printer = ts.createPrinter({ removeComments: false, newLine: ts.NewLineKind.LineFeed });
const printFile = ts.createSourceFile("print.ts", "", ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);

function fallback(node: ts.Node, indent: string): string {
  const text = printer.printNode(ts.EmitHint.Unspecified, node, printFile);
  return text.replace(/^((?: {4})+)/gm, (m) => " ".repeat(m.length / 2)).replaceAll("\n", `\n${indent}`);
}
