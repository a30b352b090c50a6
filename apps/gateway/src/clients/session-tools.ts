import type { ToolTree } from "@openassistant/sdk";
import type { DeclarationsForCode } from "@openassistant/core/codemode";
import { isBuiltinNamespace } from "@openassistant/core/tools";
import { snapshotOf, type ToolSnapshot } from "../tools-source.ts";
import { CLIENT_NAMESPACE } from "./registration.ts";

/** What a turn runs with (TurnDeps.tools). */
export interface TurnTools {
  readonly tree: ToolTree;
  readonly declarations: string;
  readonly declarationsFor?: (code: string) => DeclarationsForCode;
}

const plain = (snapshot: ToolSnapshot): TurnTools => ({
  tree: snapshot.tree,
  declarations: snapshot.declarations.text,
  ...(snapshot.declarationsFor ? { declarationsFor: snapshot.declarationsFor } : {}),
});

/** Views built per gateway snapshot, so a reload or a new registration builds them again, and only then. */
const views = new WeakMap<ToolSnapshot, Map<string, { readonly version: number; readonly view: TurnTools }>>();

/**
 * The tools of one conversation: the gateway's, plus `tools.client.*` when that conversation is a
 * client session that registered tools. Only this session's turns get them: every other session's
 * tree and declarations are the gateway's snapshot, untouched.
 */
export function toolsForSession(
  snapshot: ToolSnapshot,
  sessionKey: string,
  client: { readonly tree: ToolTree; readonly version: number } | undefined,
): TurnTools {
  if (!client) return plain(snapshot);
  let perSession = views.get(snapshot);
  if (!perSession) views.set(snapshot, (perSession = new Map()));
  const cached = perSession.get(sessionKey);
  if (cached?.version === client.version) return cached.view;
  // A tree too large to declare whole carries its discovery tools (`$search`, `$describe`) over the
  // gateway's tools only: they are made again over the merged tree.
  const own = Object.fromEntries(Object.entries(snapshot.tree).filter(([name]) => !isBuiltinNamespace(name)));
  const merged = snapshotOf({ ...own, [CLIENT_NAMESPACE]: client.tree } as ToolTree);
  const view = plain(merged);
  perSession.set(sessionKey, { version: client.version, view });
  return view;
}
