/**
 * A local npm registry on 127.0.0.1 for tests that run a real `bun install` / `bun add` without the
 * network. Packages are made from file maps and packed with the real `bun pm pack`; every request
 * path is recorded (so a test can assert that `@openassistant/*` was never asked for).
 *
 * It follows the npm registry API (https://github.com/npm/registry/blob/main/docs/REGISTRY-API.md):
 * `GET /<name>` (scoped names as `/@scope%2fname`) answers the packument
 * `{ name, "dist-tags": { latest }, versions: { <v>: { name, version, dist: { tarball, shasum, integrity } } } }`,
 * an unknown package is a 404 `{ "error": "Not found" }`, and tarballs are served from `dist.tarball`.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { makeTempDir } from "./temp.ts";

export interface RegistryPackage {
  readonly name: string;
  readonly version: string;
  /** Files besides package.json (path → text); package.json gets name, version, type module, main index.js. */
  readonly files: Record<string, string>;
  readonly packageJson?: Record<string, unknown>;
}

export interface NpmRegistry {
  readonly url: string;
  /** Decoded request paths, in order. */
  readonly requests: string[];
  stop(): void;
}

export async function startNpmRegistry(packages: readonly RegistryPackage[]): Promise<NpmRegistry> {
  const dir = makeTempDir("oa-npm-registry-");
  const tarballs = new Map<string, Uint8Array>();
  const meta = new Map<
    string,
    Array<{ version: string; file: string; shasum: string; integrity: string; pkg: Record<string, unknown> }>
  >();
  for (const p of packages) {
    const src = join(dir, "src", `${p.name.replace("/", "+")}@${p.version}`);
    const pkg = { name: p.name, version: p.version, type: "module", main: "index.js", ...p.packageJson };
    mkdirSync(src, { recursive: true });
    writeFileSync(join(src, "package.json"), JSON.stringify(pkg, null, 2));
    for (const [rel, text] of Object.entries(p.files)) {
      mkdirSync(dirname(join(src, rel)), { recursive: true });
      writeFileSync(join(src, rel), text);
    }
    const out = join(dir, "tarballs");
    mkdirSync(out, { recursive: true });
    const proc = Bun.spawnSync([process.execPath, "pm", "pack", "--destination", out, "--quiet"], {
      cwd: src,
      stdout: "pipe",
      stderr: "pipe",
    });
    if (proc.exitCode !== 0) throw new Error(`bun pm pack failed for ${p.name}: ${proc.stderr.toString()}`);
    const file = proc.stdout.toString().trim().split("\n").at(-1)!;
    const bytes = new Uint8Array(readFileSync(file));
    const key = `${p.name}-${p.version}.tgz`.replace("/", "-");
    tarballs.set(key, bytes);
    const shasum = new Bun.CryptoHasher("sha1").update(bytes).digest("hex");
    const integrity = `sha512-${new Bun.CryptoHasher("sha512").update(bytes).digest("base64")}`;
    const list = meta.get(p.name) ?? [];
    list.push({ version: p.version, file: key, shasum, integrity, pkg });
    meta.set(p.name, list);
  }

  const requests: string[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch(req, srv): Response {
      const path = decodeURIComponent(new URL(req.url).pathname);
      requests.push(path);
      const base = `http://127.0.0.1:${srv.port}`;
      if (path.startsWith("/-/tarballs/")) {
        const bytes = tarballs.get(path.slice("/-/tarballs/".length));
        return bytes ? new Response(bytes, { headers: { "content-type": "application/octet-stream" } }) : notFound();
      }
      const versions = meta.get(path.slice(1));
      if (!versions) return notFound();
      const name = path.slice(1);
      const sorted = [...versions].sort((a, b) => Bun.semver.order(a.version, b.version));
      const packument = {
        name,
        "dist-tags": { latest: sorted.at(-1)!.version },
        versions: Object.fromEntries(
          sorted.map((v) => [
            v.version,
            {
              ...v.pkg,
              name,
              version: v.version,
              dist: { tarball: `${base}/-/tarballs/${v.file}`, shasum: v.shasum, integrity: v.integrity },
            },
          ]),
        ),
      };
      return Response.json(packument);
    },
  });
  return { url: `http://127.0.0.1:${server.port}/`, requests, stop: () => server.stop(true) };
}

function notFound(): Response {
  return Response.json({ error: "Not found" }, { status: 404 });
}
