import * as sdk from "@openassistant/sdk";
import * as zod from "zod";

let registered = false;

/**
 * Makes `import ... from "@openassistant/sdk"` (and `"zod"`) in any tool or plugin file, anywhere on
 * disk, resolve to the gateway's own module instances, so nothing is installed from npm and
 * `isToolDefinition` / `instanceof z.ZodObject` checks hold. Uses virtual modules (`build.module`):
 * Bun 1.4's runtime `onResolve` never fires for bare specifiers (oven-sh/bun#40579).
 */
export function registerSdkModule(): void {
  if (registered) return;
  registered = true;
  Bun.plugin({
    name: "openassistant-sdk",
    setup(build) {
      build.module("@openassistant/sdk", () => ({ exports: { ...sdk }, loader: "object" }));
      build.module("zod", () => ({ exports: { ...zod }, loader: "object" }));
    },
  });
}
