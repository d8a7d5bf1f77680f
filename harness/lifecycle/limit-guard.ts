/**
 * A tracked child's memory and task limits (spawnTracked's `limits`) where the kernel does not
 * enforce them: a guard that reads the RSS and the tasks of its processes every GUARD_MS and kills
 * all of them once over, and the clause that names the limit it went over (`limitBreach`), the
 * kernel's (cgroup memory limit, pids.max) or the guard's.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import { kernelBreach, killChild, killPids, type ProcessLimits } from './cgroups.ts';
import { type TrackedChild, trackedByPid, trackedProcesses } from './tracked-children.ts';
import { hasExited, signalGroup } from './process-group.ts';

/** "4096 MiB" for a byte count. */
const mib = (b: number) => `${Math.round(b / 2 ** 20)} MiB`;

/** RSS in bytes and tasks (threads) of `pids`, from /proc/<pid>/statm and stat. */
function usageOf(pids: number[]): { rss: number; tasks: number } {
  let rss = 0;
  let tasks = 0;
  for (const p of pids) {
    try {
      rss += Number(fs.readFileSync(`/proc/${p}/statm`, 'utf8').split(' ')[1]) * pageBytes();
      const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      tasks += Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[17]) || 1;
    } catch {
      /* gone */
    }
  }
  return { rss, tasks };
}

let page: number | undefined;
/** Bytes per page of /proc/<pid>/statm (`getconf PAGESIZE`, else 4096), asked once. */
function pageBytes(): number {
  page ??= Number(spawnSync('getconf', ['PAGESIZE'], { encoding: 'utf8' }).stdout) || 4096;
  return page;
}

/** The guard's period, ms: how long a child may be over a limit the kernel does not enforce. */
const GUARD_MS = 100;

/** The breach clause of a limit the kernel enforced (kernelBreach's answer). */
function kernelClause(which: 'memory' | 'pids', limits: ProcessLimits): string {
  return which === 'memory'
    ? `exceeded its memory limit (${mib(limits.memoryBytes)}; killed by the kernel, cgroup memory limit)`
    : `reached its process limit (${limits.pids} tasks, cgroup pids.max: a fork or thread was refused)`;
}

/**
 * Watches tracked child `pid` (entry `t`) against `limits` every GUARD_MS: the kernel's counters
 * where its cgroups enforce a limit (a refused fork first, then an OOM kill: the whole child is
 * then killed, as v2's `memory.oom.group` would), else the tasks and RSS of its processes, killing
 * all of them (group, cgroups or token carriers) once over. Sets `t.breach`.
 */
export function guardLimits(child: ChildProcess, pid: number, t: TrackedChild, limits: ProcessLimits): void {
  const kernel = t.cg?.kernel ?? { memory: false, pids: false };
  const fromKernel = () => {
    const which = t.cg && !t.breach ? kernelBreach(t.cg) : null;
    if (which) t.breach = kernelClause(which, limits);
  };
  child.once('exit', fromKernel);
  const timer = setInterval(() => {
    if (hasExited(child) || t.breach) return clearInterval(timer);
    fromKernel();
    if (!t.breach && !(kernel.memory && kernel.pids)) {
      // Tasks before RSS: the count is exact; the summed RSS counts a child between its fork and
      // its exec at its parent's size, so a forking server can look over its memory limit first.
      const u = usageOf(trackedProcesses(pid, false));
      if (!kernel.pids && u.tasks > limits.pids)
        t.breach = `exceeded its process limit (${limits.pids} tasks; ${u.tasks} when the harness stopped it)`;
      else if (!kernel.memory && u.rss > limits.memoryBytes)
        t.breach = `exceeded its memory limit (${mib(limits.memoryBytes)}; ${mib(u.rss)} in use when the harness stopped it)`;
    }
    if (!t.breach) return;
    clearInterval(timer);
    signalGroup(child, 'SIGKILL');
    if (t.cg) killChild(t.cg);
    else killPids(trackedProcesses(pid, false));
  }, GUARD_MS);
  timer.unref();
  child.once('exit', () => clearInterval(timer));
}

/**
 * The limit tracked child `pid` went over (spawnTracked's `limits`), as a clause for a failure
 * reason ("exceeded its memory limit (4096 MiB; …)"), or null.
 */
export function limitBreach(pid: number): string | null {
  return trackedByPid(pid)?.breach ?? null;
}
