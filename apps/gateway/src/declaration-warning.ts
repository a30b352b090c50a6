import type { Diagnostic } from "@openassistant/core/config";

/** A declaration the generator had to loosen (`tools.x.y: …`), as a warning about that tool. */
export function declarationWarning(warning: string): Diagnostic {
  const [, path = "tools", message = warning] = /^(tools\.[^:]+): (.*)$/s.exec(warning) ?? [];
  return {
    level: "warning",
    id: path,
    source: path,
    message,
    hint: "Give the argument a schema that zod-to-ts can print, or ignore this: the tool still loads.",
  };
}
