/**
 * The start of a `bun -e` script that needs a full disk for real. It ignores SIGXFSZ and defines
 * `limitFileSize(bytes | "unlimited")`, which sets the process's own file-size limit
 * (RLIMIT_FSIZE, through util-linux's `prlimit`). Past the limit write(2) takes what fits and then
 * fails with EFBIG, as it fails with ENOSPC on a full disk. Every file the process writes is
 * limited, its SQLite files included; a process it spawns inherits the limit.
 */
export const FULL_DISK_PRELUDE = `
process.on("SIGXFSZ", () => {});
const limitFileSize = (soft) => {
  const r = Bun.spawnSync(["prlimit", "--pid=" + process.pid, "--fsize=" + soft + ":unlimited"]);
  if (r.exitCode !== 0) throw new Error("prlimit failed: " + r.stderr.toString());
};
`;
