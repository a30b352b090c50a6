/**
 * Test support: several `openassistant start` processes on one PostgreSQL database (docs/scaling.md),
 * each in a project folder of its own with the same config, tools and receipt key, talking to the
 * fake Anthropic and the fake Discord. Used by the Discord-lease and runs-across-replicas tests.
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { receiptKeyPath } from "@openassistant/core/receipts";
import type { FakeDiscord } from "@openassistant/testkit";
import { makeTempDir } from "@openassistant/testkit/temp.ts";
import { startGatewayProcess } from "./cli.ts";

export type ReplicaProcess = ReturnType<typeof startGatewayProcess>;

export interface ReplicaSetup {
  /** `.openassistant/config.jsonc` of every replica (`storage.url` is `${DATABASE_URL}`). */
  readonly config: Record<string, unknown>;
  /** Files of `.openassistant/tools/`, by name. */
  readonly tools?: Readonly<Record<string, string>>;
}

/**
 * Project folders for `count` replicas. Every gateway on one database signs receipts with the same
 * key (docs/scaling.md): one key is written into each folder's config dir before any starts.
 */
export function replicaProjects(count: number, setup: ReplicaSetup): string[] {
  const key = `${Buffer.from(crypto.getRandomValues(new Uint8Array(32))).toString("hex")}\n`;
  return Array.from({ length: count }, () => {
    const dir = makeTempDir("oa-replica-");
    mkdirSync(join(dir, ".openassistant", "tools"), { recursive: true });
    writeFileSync(join(dir, "package.json"), "{}");
    writeFileSync(
      join(dir, ".openassistant", "config.jsonc"),
      JSON.stringify({ storage: { url: "${DATABASE_URL}" }, ...setup.config }),
    );
    for (const [name, text] of Object.entries(setup.tools ?? {}))
      writeFileSync(join(dir, ".openassistant", "tools", name), text);
    mkdirSync(join(dir, "config"), { recursive: true, mode: 0o700 });
    writeFileSync(receiptKeyPath(join(dir, "config")), key, { mode: 0o600 });
    chmodSync(receiptKeyPath(join(dir, "config")), 0o600);
    return dir;
  });
}

/** `openassistant start` in `dir` on the database `url`, with the fake Discord's token and address. */
export function startReplica(
  dir: string,
  opts: { url: string; apiUrl: string; discord: FakeDiscord; env?: Record<string, string> },
): ReplicaProcess {
  return startGatewayProcess({
    cwd: dir,
    apiUrl: opts.apiUrl,
    env: {
      DATABASE_URL: opts.url,
      DISCORD_TOKEN: opts.discord.token,
      OPENASSISTANT_DISCORD_API: opts.discord.apiUrl,
      ...opts.env,
    },
  });
}

/** The fake Discord's IDENTIFY frames (op 2): one per Discord connection a gateway opened. */
export const identifies = (fake: FakeDiscord) => fake.frames.filter((f) => f.direction === "in" && f.op === 2);
