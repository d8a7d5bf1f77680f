/**
 * The harness's containment of its children (lifecycle/cgroups.ts: v2 and v1, or the
 * environment-token fallback) and the registry of tracked children: the harness's own folders
 * (`contain`, set up on first use, stale ones swept first: `sweepStaleCgroups`), each child's
 * cgroups and token (`track`), and what a tracked child's containment reads and does: its
 * processes (`trackedProcesses`), its CPU time (`cpuUsageUs`), its pause (`pauseTracked`), how it
 * is contained (`containmentOf`, `containmentNote`) and what escaped it (`containmentBreaches`);
 * `reap` kills what is left of a child. Spawning and stopping are lifecycle/processes.ts's.
 */
import { spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  applyChildLimits,
  CGROUP_PREFIX,
  type ChildCgroups,
  cgroupParent,
  childCpuUs,
  childPids,
  childPopulated,
  freezeChild,
  freezeKind,
  type HarnessCgroups,
  hasCgroup,
  killChild,
  killPids,
  makeChild,
  makeV1Folders,
  readKnob,
  removeChild,
  removeCgroupDir,
  startTicks,
  sweepStaleV1,
  v1Parents,
  writeKnob,
} from './cgroups.ts';
import { processTree } from './ports.ts';
import { pgidOf, somePids, threadsOn } from './proc-readings.ts';
import { tellWatchdog } from './watchdog.ts';

/**
 * Kills and removes the `bakeoff-<pid>-<ticks>` cgroup folders (beside this harness's own
 * cgroup, in the v2 tree `parent` and in every v1 hierarchy) whose harness is gone (pid dead, or
 * reused: its start time differs). Returns the folders removed. Safe to call at any time, from any
 * harness: a live harness's folder is never touched. Called at a harness's first spawn; lock.ts
 * may call it too to name what it removed.
 */
export function sweepStaleCgroups(parent: string | null = cgroupParent()): string[] {
  const removed = sweepStaleV1();
  if (!parent) return removed;
  let names: string[] = [];
  try {
    names = fs.readdirSync(parent);
  } catch {
    return removed;
  }
  for (const name of names) {
    const m = /^bakeoff-(\d+)-(\d+)$/.exec(name);
    if (!m || startTicks(Number(m[1])) === m[2]) continue;
    const dir = path.join(parent, name);
    writeKnob(dir, 'cgroup.kill', '1');
    for (let i = 0; i < 200 && /^populated 1$/m.test(readKnob(dir, 'cgroup.events') ?? ''); i++)
      spawnSync('sleep', ['0.01']);
    if (removeCgroupDir(dir)) removed.push(dir);
  }
  return removed;
}

/** The harness's containment: its cgroup folders (v2 and v1) and its children's token prefix. */
export interface Containment extends HarnessCgroups {
  /** The token prefix `<pid>-<random>` of the children's BENCH_PROC_TOKEN (set in every mode; scanned without cgroups). */
  token: string;
}

let containment: Containment | undefined;
let seq = 0;

/** The next child number of this harness (its cgroup folder `c<n>`, its token suffix `-<n>`). */
export function nextChildSeq(): number {
  return ++seq;
}

/** The harness's containment if a child was ever contained (stopAll and killAllSync then clean it up). */
export function harnessContainment(): Containment | undefined {
  return containment;
}

/** The harness's containment, set up on first use (sweeping stale folders first). */
export function contain(): Containment {
  if (containment) return containment;
  const token = `${process.pid}-${randomBytes(6).toString('hex')}`;
  const name = `${CGROUP_PREFIX}${process.pid}-${startTicks(process.pid)}`;
  let dir: string | null = null;
  const parent = cgroupParent();
  sweepStaleCgroups(parent);
  if (parent) {
    const d = path.join(parent, name);
    try {
      fs.mkdirSync(d);
      if (fs.existsSync(path.join(d, 'cgroup.kill'))) dir = d;
      else fs.rmdirSync(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') dir = d;
    }
  }
  const v1 = makeV1Folders(v1Parents(), name);
  containment = { v2: dir, v1, token };
  if (dir) tellWatchdog(`H${dir}`);
  for (const d of Object.values(v1)) tellWatchdog(`V${d}`);
  // The watchdog's environ scan (one grep per process) only where there is no cgroup to kill.
  if (!dir && !Object.keys(v1).length) tellWatchdog(`T${token}-`);
  return containment;
}

/** How tracked children are contained on this machine: `cgroup` (with its v2 folder, or null on v1 only) or `environ` (the token fallback). */
export function containmentInfo(): { kind: 'cgroup' | 'environ'; dir: string | null; v1: string[] } {
  const c = contain();
  const v1 = Object.values(c.v1);
  return { kind: c.v2 || v1.length ? 'cgroup' : 'environ', dir: c.v2, v1 };
}

/** Per child: its cgroups (or null), its environment token, and the limit it went over (or null). */
export interface TrackedChild {
  cg: ChildCgroups | null;
  token: string;
  breach: string | null;
}
const tracked = new WeakMap<ChildProcess, TrackedChild>();
const byPid = new Map<number, TrackedChild>();

/** Registers `child` (its group leader `pid`, when it has one) with its containment `t`. */
export function track(child: ChildProcess, pid: number | undefined, t: TrackedChild): void {
  tracked.set(child, t);
  if (pid !== undefined) byPid.set(pid, t);
}

/** The containment of `child`, if it is tracked. */
export function trackedChild(child: ChildProcess): TrackedChild | undefined {
  return tracked.get(child);
}

/** The containment of tracked child `pid` (its group leader's pid), if it is tracked. */
export function trackedByPid(pid: number): TrackedChild | undefined {
  return byPid.get(pid);
}

/** Pids whose /proc/<pid>/environ carries `BENCH_PROC_TOKEN=<token>` (a prefix), from /proc. */
export function pidsWithToken(token: string): number[] {
  const needle = Buffer.from(`BENCH_PROC_TOKEN=${token}`);
  const out: number[] = [];
  let dirs: string[] = [];
  try {
    dirs = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
  for (const d of dirs) {
    if (Number(d) === process.pid) continue;
    try {
      const env = fs.readFileSync(`/proc/${d}/environ`);
      const i = env.indexOf(needle);
      if (i === 0 || (i > 0 && env[i - 1] === 0)) out.push(Number(d));
    } catch {
      /* gone, or not ours to read */
    }
  }
  return out;
}

/**
 * Every process that belongs to tracked child `pid`: with cgroups exactly its cgroups' pids;
 * else its process tree (ports.ts `processTree`) plus, unless `tokens` is false (a cheaper read:
 * no scan of every process's environment), the processes carrying its token. `[pid]` for an
 * untracked pid that is alive.
 */
export function trackedProcesses(pid: number, tokens = true): number[] {
  const t = byPid.get(pid);
  if (t?.cg) {
    const pids = childPids(t.cg);
    if (pids.length) return pids;
  }
  const out = new Set(processTree(pid));
  if (t && tokens) for (const p of pidsWithToken(`${t.token}\0`)) out.add(p);
  return [...out];
}

/** Clock ticks per second of /proc/<pid>/stat's utime and stime (Linux USER_HZ). */
const USER_HZ = 100;

/**
 * CPU time used so far by every process of tracked child `pid`, µs: with cgroups the cgroup's
 * counter (v2 `cpu.stat` usage_usec, v1 `cpuacct.usage`: exited threads and processes included,
 * so the difference over a window is exact); else the sum of utime + stime (10 ms ticks) over
 * `trackedProcesses(pid)`, which misses processes that exited during the window. null when
 * nothing can be read (not Linux).
 */
export function cpuUsageUs(pid: number): number | null {
  const t = byPid.get(pid);
  const fromCgroup = t?.cg ? childCpuUs(t.cg) : null;
  if (fromCgroup !== null) return fromCgroup;
  let ticks = 0;
  let read = false;
  for (const p of trackedProcesses(pid)) {
    try {
      const stat = fs.readFileSync(`/proc/${p}/stat`, 'utf8');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      ticks += Number(f[11]) + Number(f[12]);
      read = true;
    } catch {
      /* gone */
    }
  }
  return read ? (ticks * 1e6) / USER_HZ : null;
}

/** Kills every process of a child's cgroups and waits (≤ `waitMs`) until they are empty; then removes them. True when all are gone. */
export async function destroyChild(cg: ChildCgroups, waitMs = 3000): Promise<boolean> {
  killChild(cg);
  const end = Date.now() + waitMs;
  while (childPopulated(cg) && Date.now() < end) {
    await sleep(10);
    killChild(cg); // a v1 cgroup has no atomic kill: a process forked meanwhile is killed too
  }
  return removeChild(cg);
}

/** Kills whatever is left of a child's containment (cgroups or token set) and removes its cgroups. */
export async function reap(child: ChildProcess): Promise<void> {
  const t = tracked.get(child);
  if (!t) return;
  if (t.cg) {
    if (await destroyChild(t.cg)) t.cg = null;
  } else {
    for (let i = 0; i < 5; i++) {
      const pids = pidsWithToken(`${t.token}\0`);
      if (!pids.length) break;
      killPids(pids);
      await sleep(20);
    }
  }
  if (child.pid !== undefined && !t.cg) byPid.delete(child.pid);
}

/** True when `pid` is a child this harness spawned with spawnTracked and has not reaped yet. */
export function isTracked(pid: number): boolean {
  return byPid.has(pid);
}

/**
 * Pauses (`on`) or resumes every process of tracked child `pid`: its cgroup's freezer where it
 * has one (v2 `cgroup.freeze`, v1 `freezer.state`: detached children included), else SIGSTOP /
 * SIGCONT to its process group (an untracked pid: to its group, else to it). Returns how.
 */
export function pauseTracked(pid: number, on: boolean): 'cgroup-v2' | 'cgroup-v1' | 'signal' {
  const cg = byPid.get(pid)?.cg;
  const kind = cg ? freezeKind(cg) : null;
  if (cg && kind && freezeChild(cg, on)) return kind === 'v2' ? 'cgroup-v2' : 'cgroup-v1';
  const sig = on ? 'SIGSTOP' : 'SIGCONT';
  try {
    process.kill(-pid, sig);
  } catch {
    try {
      process.kill(pid, sig);
    } catch {
      /* gone */
    }
  }
  return 'signal';
}

/**
 * How tracked child `pid` is contained: `cpuset` (the cgroup version whose cpuset pins it, or
 * null: taskset only, which the process can undo), `pause` (how pauseTracked stops it), `cpu`
 * (where cpuUsageUs reads it), `limits` (`kernel` when its cgroups enforce memory and tasks,
 * else `guard`: the harness polls every 100 ms). null for an untracked pid.
 */
export function containmentOf(pid: number): {
  cpuset: 1 | 2 | null;
  pause: 'cgroup-v2' | 'cgroup-v1' | 'signal';
  cpu: 'cgroup' | 'proc';
  limits: 'kernel' | 'guard';
} | null {
  const t = byPid.get(pid);
  if (!t) return null;
  const cg = t.cg;
  const kind = cg ? freezeKind(cg) : null;
  return {
    cpuset: cg?.cpuset?.version ?? null,
    pause: kind === 'v2' ? 'cgroup-v2' : kind === 'v1' ? 'cgroup-v1' : 'signal',
    cpu: cg && childCpuUs(cg) !== null ? 'cgroup' : 'proc',
    limits: cg?.kernel.memory && cg.kernel.pids ? 'kernel' : 'guard',
  };
}

/**
 * What containment could not stop in tracked child `pid`, as clauses for a failure reason ([]
 * when it is contained, or untracked): processes carrying its environment token outside its
 * cgroups (they escape its pin, its pause and its CPU accounting) or, without cgroups, outside its
 * process group (the pause's SIGSTOP does not reach them); and threads allowed on `clientCpus`
 * (the load driver's cores: it re-pinned itself). A process that rewrites its environment escapes
 * the first check: docs/faults.md, "Trust model".
 */
export function containmentBreaches(pid: number, clientCpus: readonly number[]): string[] {
  const t = byPid.get(pid);
  if (!t) return [];
  const out: string[] = [];
  const inside = new Set(trackedProcesses(pid, !t.cg));
  if (t.cg) {
    const outside = pidsWithToken(`${t.token}\0`).filter((p) => !inside.has(p));
    if (outside.length)
      out.push(
        `processes left its cgroup (${somePids(outside)}): they escape its core, its pause and its CPU accounting`,
      );
  } else {
    const apart = [...inside].filter((p) => pgidOf(p) !== pid);
    if (apart.length)
      out.push(
        `processes left its process group (${somePids(apart)}): the pause (SIGSTOP to the group) does not reach them`,
      );
  }
  if (clientCpus.length) {
    const cpus = new Set(clientCpus);
    const on = [...inside].flatMap((p) => threadsOn(p, cpus).map(() => p));
    if (on.length)
      out.push(
        `${on.length} of its threads may run on the load driver's core (CPU ${[...cpus].join(',')}; ${somePids([...new Set(on)])}): it re-pinned itself`,
      );
  }
  return out;
}

/**
 * One clause for the run's CPU plan saying how servers are contained on this machine, from a
 * probe cgroup pinned to `cpus` with limits (removed at once): e.g. "contained by cgroups: core by
 * cpuset (v1), pause by freezing (v2), CPU from the cgroup's counter, memory and task limits by
 * the kernel", or, without cgroups, the fallback and what it cannot stop.
 */
export function containmentNote(cpus: string | null): string {
  const c = contain();
  const probe = makeChild(c, `probe${nextChildSeq()}`, cpus);
  try {
    if (!hasCgroup(probe))
      return 'no cgroups here: pinned by taskset, paused by SIGSTOP to its process group, limits by a 100 ms guard (a server can undo the first two: the cells check it)';
    const kernel = applyChildLimits(c, probe, { memoryBytes: 2 ** 30, pids: 512 });
    const freeze = freezeKind(probe);
    const parts = [
      probe.cpuset
        ? `core by cpuset (v${probe.cpuset.version})`
        : cpus
          ? 'core by taskset only (no cpuset here)'
          : null,
      freeze ? `pause by freezing (v${freeze === 'v2' ? 2 : 1})` : 'pause by SIGSTOP (no freezer here)',
      childCpuUs(probe) !== null ? "CPU from the cgroup's counter" : 'CPU from /proc',
      kernel.memory && kernel.pids ? 'memory and task limits by the kernel' : 'limits by a 100 ms guard (fallback)',
    ];
    return `contained by cgroups: ${parts.filter(Boolean).join(', ')}`;
  } finally {
    removeChild(probe);
  }
}
