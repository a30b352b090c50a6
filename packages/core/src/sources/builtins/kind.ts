import { LAYER, type SourceKind } from "../kind.ts";

/** Tool trees the host passes as they are (`loadTools({ bundled })`: an embedding program's own tools). No config key. */
export const builtinsKind: SourceKind<"built-in trees"> = {
  key: "built-in trees",
  label: "built-in tools",
  layer: LAYER.builtin,
  entries: (_section, ctx) => ctx.builtins,
};
