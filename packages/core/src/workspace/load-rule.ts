/**
 * What an assistant-written tool file may load, judged on its syntax tree by allow-list: the only
 * way to load a module is a static `import` of a specifier `judgeSpecifier` allows; every other
 * construct that reaches a loader (or the Function constructor, which runs code strings that can
 * import anything) is refused by name, wherever and however it is spelled. Fails closed: a global
 * object used in a way that cannot be followed statically is refused too.
 */
import ts from "typescript";
import { judgeSpecifier } from "./specifier-rule.ts";

export interface LoadCheck {
  /** `line L:C: <form>: <why>` for each refused construct. */
  readonly problems: string[];
  /** npm packages the file imports. */
  readonly packages: string[];
}

const CODE_STRINGS = "it runs code strings, which can import anything";
const PROTOTYPES = "it walks prototypes to the Function constructor, which runs code strings";
/** Names that reach a loader wherever they appear: identifier, `.member`, `["member"]`, string, import name. */
const LOADER_NAMES = new Map([
  ["require", "the CommonJS loader loads any file"],
  ["createRequire", "the CommonJS loader loads any file"],
  ["mainModule", "the CommonJS loader loads any file"],
  ["getBuiltinModule", "it loads builtins the check refuses (module, vm)"],
  ["eval", CODE_STRINGS],
  ["Function", CODE_STRINGS],
  ["constructor", `it reaches the Function constructor; ${CODE_STRINGS}`],
  ["Worker", "a Worker loads any file"],
  ["WebAssembly", "it runs WebAssembly"],
  ["dlopen", "it loads native code"],
  ["loadExtension", "it loads native code into SQLite"],
  ["enableLoadExtension", "it loads native code into SQLite"],
  ["__proto__", PROTOTYPES],
  ["getPrototypeOf", PROTOTYPES],
  ["getOwnPropertyDescriptor", PROTOTYPES],
  ["getOwnPropertyDescriptors", PROTOTYPES],
  ["getOwnPropertyNames", PROTOTYPES],
  ["ownKeys", PROTOTYPES],
  ["Reflect", "it reads members by computed names, the Function constructor among them"],
]);
/** CommonJS module objects, refused as identifiers. */
const MODULE_OBJECTS = new Map([
  ["module", "the CommonJS module object reaches the loader"],
  ["exports", "the CommonJS module object reaches the loader"],
]);
/** Global objects: usable only as `root.member`, `root["member"]`, `typeof root` or `const { a, b } = root`. */
const ROOTS = new Set(["globalThis", "global", "self", "window", "process", "Bun"]);
/** Members of a global object refused besides `LOADER_NAMES`. */
const ROOT_MEMBERS = new Map([
  ["plugin", "Bun.plugin changes how modules load"],
  ["binding", "it loads internal modules"],
  ["_linkedBinding", "it loads internal modules"],
  ["module", "the CommonJS module object reaches the loader"],
  ["exports", "the CommonJS module object reaches the loader"],
  ["resolve", "it resolves modules"],
  ["resolveSync", "it resolves modules"],
  ["FFI", "it loads native code"],
  ["registerMacro", "it registers code for the bundler to run"],
  ["ModuleGraph", "it reaches the module loader"],
  ["_eval", CODE_STRINGS],
  ["_preload_modules", "it names modules to load"],
  ["execve", "it replaces the gateway's process with another program"],
]);
/** Modules whose default or namespace import is a global object. */
const ROOT_MODULES = new Set(["bun", "process", "node:process"]);
/** `import.meta.<name>` that only describe the file. */
const IMPORT_META = new Set(["dir", "dirname", "file", "filename", "path", "url", "main", "env"]);

export function checkLoads(sf: ts.SourceFile): LoadCheck {
  const problems: Array<{ start: number; text: string }> = [];
  const packages = new Set<string>();
  const refuse = (node: ts.Node | ts.TextRange, form: string, why: string) => {
    const start = "kind" in node ? node.getStart(sf) : node.pos;
    const at = sf.getLineAndCharacterOfPosition(start);
    problems.push({ start, text: `line ${at.line + 1}:${at.character + 1}: ${form} is not allowed: ${why}` });
  };
  const named = (node: ts.Node, name: string, form = name): boolean => {
    const why = LOADER_NAMES.get(name);
    if (why) refuse(node, form, why);
    return why !== undefined;
  };

  for (const ref of sf.referencedFiles)
    refuse(ref, `/// <reference path="${ref.fileName}" />`, "it reads another file");
  for (const ref of sf.typeReferenceDirectives)
    refuse(ref, `/// <reference types="${ref.fileName}" />`, "it reads another file");
  for (const ref of sf.libReferenceDirectives)
    refuse(ref, `/// <reference lib="${ref.fileName}" />`, "it reads another file");
  for (const dep of sf.amdDependencies)
    refuse({ pos: 0, end: 0 }, `/// <amd-dependency path="${dep.path}" />`, "it loads another file");

  const importDeclaration = (node: ts.ImportDeclaration) => {
    const spec = (node.moduleSpecifier as ts.StringLiteral).text;
    const judged = judgeSpecifier(spec);
    if (judged.kind === "refused") refuse(node.moduleSpecifier, `imports "${spec}"`, judged.why);
    else if (judged.kind === "package") packages.add(judged.name);
    if (node.attributes) refuse(node.attributes, "import attributes (with { ... })", "they change how a module loads");
    const clause = node.importClause;
    if (!clause) return;
    if (ROOT_MODULES.has(spec) && (clause.name || (clause.namedBindings && ts.isNamespaceImport(clause.namedBindings))))
      refuse(clause, `a default or namespace import of "${spec}"`, "import the names the tool uses");
    if (clause.name) identifier(clause.name);
    const bindings = clause.namedBindings;
    if (bindings && ts.isNamespaceImport(bindings)) identifier(bindings.name);
    if (bindings && ts.isNamedImports(bindings))
      for (const el of bindings.elements) {
        const imported = (el.propertyName ?? el.name).text;
        const why = ROOT_MODULES.has(spec) ? ROOT_MEMBERS.get(imported) : undefined;
        if (named(el, imported, `importing "${imported}"`)) continue;
        if (why || (ROOT_MODULES.has(spec) && imported === "default"))
          refuse(el, `importing "${imported}" from "${spec}"`, why ?? "import the names the tool uses");
        else identifier(el.name);
      }
  };

  /** A global object (`process`, `globalThis.Bun`, `globalThis["process"]`) as an expression. */
  const isRoot = (e: ts.Expression): boolean =>
    (ts.isIdentifier(e) && ROOTS.has(e.text)) ||
    (ts.isPropertyAccessExpression(e) && ROOTS.has(e.name.text) && isRoot(e.expression)) ||
    (ts.isElementAccessExpression(e) &&
      ts.isStringLiteralLike(e.argumentExpression) &&
      ROOTS.has(e.argumentExpression.text) &&
      isRoot(e.expression));

  /** Checks how a global object is used: only to read a member by a name that loads nothing. */
  const rootUse = (root: ts.Expression) => {
    const p = root.parent;
    const form = root.getText(sf);
    if (ts.isPropertyAccessExpression(p) && p.expression === root) {
      const why = ROOT_MEMBERS.get(p.name.text);
      if (why) refuse(p, `${form}.${p.name.text}`, why);
      return;
    }
    if (ts.isElementAccessExpression(p) && p.expression === root) {
      if (!ts.isStringLiteralLike(p.argumentExpression))
        return refuse(p, `${form}[…]`, `a computed member of ${form} cannot be checked; use ${form}.<name>`);
      const why = ROOT_MEMBERS.get(p.argumentExpression.text);
      if (why) refuse(p, `${form}["${p.argumentExpression.text}"]`, why);
      return;
    }
    if (ts.isTypeOfExpression(p)) return;
    if (ts.isVariableDeclaration(p) && p.initializer === root && ts.isObjectBindingPattern(p.name)) {
      for (const el of p.name.elements) {
        const key = el.propertyName ?? el.name;
        const name = ts.isIdentifier(key) || ts.isStringLiteralLike(key) ? key.text : undefined;
        if (el.dotDotDotToken || name === undefined)
          refuse(el, `destructuring ${form}`, `name each member: const { a, b } = ${form}`);
        else if (ROOT_MEMBERS.has(name) || ROOTS.has(name))
          refuse(el, `${form}.${name}`, ROOT_MEMBERS.get(name) ?? "another global object");
      }
      return;
    }
    refuse(root, `${form} used as a value`, `use its members directly (${form}.<name>)`);
  };

  const identifier = (id: ts.Identifier) => {
    const p = id.parent;
    const name = id.text;
    if (ts.isPropertyAccessExpression(p) && p.name === id) return void named(id, name, `.${name}`);
    if (ts.isBindingElement(p) && p.propertyName === id) return void named(id, name, `{ ${name}: … }`);
    if (isDeclaredMemberName(p, id)) return;
    if (named(id, name)) return;
    const why = MODULE_OBJECTS.get(name);
    if (why) return refuse(id, name, why);
    if (ROOTS.has(name)) rootUse(id);
  };

  const importMeta = (node: ts.MetaProperty) => {
    const p = node.parent;
    if (ts.isPropertyAccessExpression(p) && p.expression === node) {
      if (!IMPORT_META.has(p.name.text))
        refuse(p, `import.meta.${p.name.text}`, `only import.meta.${[...IMPORT_META].join(", .")} may be used`);
    } else
      refuse(
        node,
        ts.isElementAccessExpression(p) ? "import.meta[…]" : "import.meta used as a value",
        `only import.meta.${[...IMPORT_META].join(", .")} may be used`,
      );
  };

  /** Type positions load nothing, except `import("…")` types, which the typecheck would resolve. */
  const visitType = (node: ts.Node): void => {
    if (ts.isImportTypeNode(node))
      return refuse(node, 'an import("…") type', "it reads another file; import the type with a static import");
    if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name))
      return refuse(node, `declare module "${node.name.text}"`, "it declares another module");
    ts.forEachChild(node, visitType);
  };

  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node)) return importDeclaration(node);
    if (ts.isExportDeclaration(node) && node.moduleSpecifier)
      return refuse(node, `export … from ${node.moduleSpecifier.getText(sf)}`, "a re-export loads another module");
    if (ts.isImportEqualsDeclaration(node))
      return refuse(node, "import … = …", 'use a static import: import x from "package"');
    if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword)
      return refuse(node, "dynamic import()", "use a static import so the operator sees what the tool loads");
    if (isImportMeta(node)) return importMeta(node);
    if (ts.isPropertyAccessExpression(node) && isImportMeta(node.expression)) return importMeta(node.expression);
    if (ts.isModuleDeclaration(node) && ts.isStringLiteral(node.name)) return visitType(node);
    if (isTypeContext(node)) return visitType(node);
    if (ts.isIdentifier(node)) identifier(node);
    else if (ts.isStringLiteralLike(node)) named(node, node.text, JSON.stringify(node.text));
    else if (isRoot(node as ts.Expression) && !ts.isIdentifier(node)) rootUse(node as ts.Expression);
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(sf, visit);
  problems.sort((a, b) => a.start - b.start);
  return { problems: problems.map((p) => p.text), packages: [...packages].sort() };
}

function isImportMeta(node: ts.Node): node is ts.MetaProperty {
  return ts.isMetaProperty(node) && node.keywordToken === ts.SyntaxKind.ImportKeyword;
}

/** The name of a member being declared (`{ name: … }`, a class member, an enum member): not a reference. */
function isDeclaredMemberName(p: ts.Node, id: ts.Identifier): boolean {
  return (
    (ts.isPropertyAssignment(p) ||
      ts.isMethodDeclaration(p) ||
      ts.isPropertyDeclaration(p) ||
      ts.isGetAccessorDeclaration(p) ||
      ts.isSetAccessorDeclaration(p) ||
      ts.isEnumMember(p)) &&
    p.name === id
  );
}

/** Types, and declarations that are only types (`interface`, `type`, `declare …`). */
function isTypeContext(node: ts.Node): boolean {
  if (ts.isExpressionWithTypeArguments(node))
    return !(
      ts.isHeritageClause(node.parent) &&
      node.parent.token === ts.SyntaxKind.ExtendsKeyword &&
      ts.isClassLike(node.parent.parent)
    );
  if (ts.isTypeNode(node) || ts.isInterfaceDeclaration(node) || ts.isTypeAliasDeclaration(node)) return true;
  return (
    ts.canHaveModifiers(node) && (ts.getModifiers(node)?.some((m) => m.kind === ts.SyntaxKind.DeclareKeyword) ?? false)
  );
}

/**
 * The part of the rule that needs types (run once the file compiles): a member read by a computed
 * key from a function or from an untyped (`any`) value could be `constructor`, the way to the
 * Function constructor, so it is refused unless the key is a number or literals that load nothing.
 * Decided on the checker's types, not its diagnostics, so `@ts-ignore` and `as any` change nothing.
 */
export function checkComputedMembers(sf: ts.SourceFile, checker: ts.TypeChecker): string[] {
  const problems: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isElementAccessExpression(node) && !isLiteralKey(node.argumentExpression)) {
      const key = checker.getTypeAtLocation(node.argumentExpression);
      const target = checker.getTypeAtLocation(node.expression);
      const untyped = (target.flags & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) !== 0;
      const callable = target.getCallSignatures().length > 0 || target.getConstructSignatures().length > 0;
      if ((untyped || callable) && !isHarmlessKey(key)) {
        const at = sf.getLineAndCharacterOfPosition(node.getStart(sf));
        problems.push(
          `line ${at.line + 1}:${at.character + 1}: a computed member of ${untyped ? "an untyped value" : "a function"} is not allowed: its key could be "constructor", the way to the Function constructor; give the value a type or use a literal key`,
        );
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return problems;
}

function isLiteralKey(e: ts.Expression): boolean {
  return ts.isStringLiteralLike(e) || ts.isNumericLiteral(e);
}

/** A number, or string/number literals none of which reaches a loader. */
function isHarmlessKey(t: ts.Type): boolean {
  const parts = t.isUnion() ? t.types : [t];
  return parts.every(
    (p) => (p.flags & ts.TypeFlags.NumberLike) !== 0 || (p.isStringLiteral() && !LOADER_NAMES.has(p.value)),
  );
}
