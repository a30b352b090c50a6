/**
 * CPU time of another process's main thread, read from Linux's /proc. A deadline that guards
 * against a stuck or runaway child is judged on this clock, not the wall clock: on a busy host a
 * child waits for a core and its wall time grows while its CPU time does not, and the host being
 * busy must slow a run down, not fail it.
 */
import { readFileSync } from "node:fs";

/**
 * /proc reports utime and stime in clock ticks of USER_HZ, which Linux fixes at 100 for every
 * user-space interface (`man 5 proc`: "measured in clock ticks (divide by sysconf(_SC_CLK_TCK))").
 */
const MS_PER_TICK = 10;

/**
 * CPU time (user + system) the main thread of process `pid` has used, in ms (10 ms steps);
 * undefined where /proc is missing (not Linux) or the process is gone.
 */
export function mainThreadCpuMs(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/task/${pid}/stat`, "latin1");
  } catch {
    return undefined;
  }
  // The command name (field 2) is in parentheses and may hold spaces: count fields after its end.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
  return (utime + stime) * MS_PER_TICK;
}

/**
 * Calls `expire` once the main thread of process `pid` has used `cpuMs` of CPU from now on, or
 * at the latest after `wallCapMs` of wall time (a process that makes no progress at all is not
 * waited for forever). Where /proc cannot be read, `cpuMs` of wall time counts instead. Returns a
 * function that cancels the deadline.
 */
export function cpuDeadline(
  pid: number,
  limits: { readonly cpuMs: number; readonly wallCapMs: number },
  expire: (why: "cpu" | "wall") => void,
): () => void {
  const cpuStart = mainThreadCpuMs(pid);
  const wallStart = performance.now();
  let timer: ReturnType<typeof setTimeout>;
  // A thread cannot use more CPU than the wall time that passed: each check waits at least what is left.
  const arm = (ms: number) => (timer = setTimeout(check, Math.max(ms, 10)));
  const check = () => {
    const wall = performance.now() - wallStart;
    if (wall >= limits.wallCapMs) return expire("wall");
    const cpu = cpuStart === undefined ? undefined : mainThreadCpuMs(pid);
    const used = cpu === undefined || cpuStart === undefined ? wall : cpu - cpuStart;
    if (used >= limits.cpuMs) return expire("cpu");
    arm(Math.min(limits.cpuMs - used, limits.wallCapMs - wall));
  };
  arm(Math.min(limits.cpuMs, limits.wallCapMs));
  return () => clearTimeout(timer);
}
