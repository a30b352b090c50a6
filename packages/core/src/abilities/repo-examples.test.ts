import { expect, test } from "bun:test";
import { join } from "node:path";
import { loadAbilities } from "./load.ts";

const REPO_ABILITIES = join(import.meta.dir, "../../../../.openassistant/abilities");

test("the repository's example abilities (release, posthog-alert) load without a diagnostic", async () => {
  const loaded = await loadAbilities([REPO_ABILITIES]);
  expect(loaded.diagnostics).toEqual([]);
  expect([...loaded.abilities.keys()].sort()).toEqual(["posthog-alert", "release"]);
  const release = loaded.abilities.get("release")!;
  expect(release.steps.map((s) => `${s.id}:${s.type}`)).toEqual([
    "ci:tool",
    "approve:approval",
    "release:tool",
    "announce:tool",
  ]);
  expect(release.inputSchema.safeParse({ repo: "acme/app", tag: "v1.2.3", announce_issue: "42" }).data).toEqual({
    repo: "acme/app",
    tag: "v1.2.3",
    notes: "",
    draft: false,
    announce_issue: 42,
  });
});
