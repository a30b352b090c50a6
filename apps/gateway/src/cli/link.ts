/**
 * `bun run link` (repo root): `bun link` for the `openassistant` command, then a check that the
 * folder Bun put it in is on PATH. `bun link` itself never says so (and runs no package script
 * after linking), so without this a new user types `openassistant` and gets "command not found".
 */
import { delimiter, join } from "node:path";
import { existsSync } from "node:fs";

const GATEWAY_DIR = join(import.meta.dir, "..", "..");

/** What to tell the user about `bin` (the folder holding the linked command) and PATH. */
export function pathAdvice(bin: string, path: string, shell: string): { onPath: boolean; text: string } {
  const onPath = path.split(delimiter).some((p) => p.replace(/\/+$/, "") === bin.replace(/\/+$/, ""));
  if (onPath)
    return { onPath, text: `openassistant is linked in ${bin}, which is on your PATH: run \`openassistant --help\`.` };
  const rc = shell.endsWith("zsh") ? "~/.zshrc" : shell.endsWith("fish") ? "~/.config/fish/config.fish" : "~/.bashrc";
  const line = shell.endsWith("fish") ? `fish_add_path ${bin}` : `export PATH="${bin}:$PATH"`;
  return {
    onPath,
    text: [
      `openassistant is linked in ${bin}, but that folder is not on your PATH, so \`openassistant\` will not be found.`,
      `Fix: echo '${line}' >> ${rc}   then open a new terminal (or run: ${line}).`,
      "Until then, use `bun run openassistant <command>` inside this repo.",
    ].join("\n"),
  };
}

if (import.meta.main) {
  const link = Bun.spawnSync([process.execPath, "link"], { cwd: GATEWAY_DIR, stdout: "inherit", stderr: "inherit" });
  if (link.exitCode !== 0) process.exit(link.exitCode ?? 1);
  const bin = Bun.spawnSync([process.execPath, "pm", "bin", "-g"], { stdout: "pipe" }).stdout.toString().trim();
  if (!existsSync(join(bin, "openassistant"))) {
    console.error(
      `bun link succeeded, but ${join(bin, "openassistant")} does not exist; run \`bun link\` in apps/gateway and check its output.`,
    );
    process.exit(1);
  }
  const advice = pathAdvice(bin, process.env.PATH ?? "", process.env.SHELL ?? "");
  (advice.onPath ? console.log : console.error)(advice.text);
}
