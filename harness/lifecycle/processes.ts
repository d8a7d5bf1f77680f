/**
 * Every child process the harness starts goes through here, so that Ctrl-C, SIGTERM, a crash
 * of the harness or a normal exit stops all of them: servers, load drivers, the upstream mock
 * and build commands. Each child leads its own process group, and the whole group is signalled
 * (a start command such as `npm start` may fork the real server).
 *
 * Containment (lifecycle/cgroups.ts): the harness makes one folder `bakeoff-<pid>-<start ticks>`
 * beside its own cgroup in the v2 tree and in each v1 hierarchy it uses (cpuset, freezer, cpuacct,
 * memory, pids; a hybrid host has both), and one child folder per spawned command in each; a tiny
 * `sh` wrapper writes its own pid into every child folder's `cgroup.procs` and then execs the real
 * command, so nothing it forks, however detached, leaves them. A server's cgroups then pin it to
 * its core (cpuset: `spawnTracked`'s `cpus`), pause it whole (`pauseTracked`: the freezer), count
 * its CPU (`cpuUsageUs`) and enforce its memory and task limits (`limits`: the kernel's, v2 or v1);
 * `containmentBreaches` reports what they could not stop. A child started under another uid
 * (PostgreSQL) cannot join itself; the harness moves it right after spawn.
 *
 * No orphans at all, even after SIGKILL of the harness:
 * - stopping = SIGTERM to the process group (the freezer thawed first), a grace period, then the
 *   cgroups killed (v2 `cgroup.kill`; v1 frozen, SIGKILLed, thawed), emptied and removed;
 * - **fallback** (no usable cgroup, or `BENCH_CGROUP=off`): every child's environment carries
 *   `BENCH_PROC_TOKEN=<harness pid>-<random>-<n>`, and stopping also SIGKILLs every process
 *   whose `/proc/<pid>/environ` carries that token (a process that replaces its environment
 *   escapes it); pinning is then taskset only, the pause SIGSTOP to the group, and the limits a
 *   guard that reads RSS and tasks every 100 ms;
 * - every child runs under `setpriv --pdeathsig KILL --` (util-linux) when it is installed, so
 *   the kernel kills it the moment the harness dies (Linux PR_SET_PDEATHSIG);
 * - the watchdog (lifecycle/watchdog.ts) kills and removes whatever is left when the harness's
 *   pipe to it closes, however the harness died;
 * - folders left by a dead harness (the watchdog killed too) are killed and removed by
 *   `sweepStaleCgroups()` at the next harness's first spawn.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
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
  childProcsFiles,
  freezeChild,
  freezeKind,
  type HarnessCgroups,
  hasCgroup,
  kernelBreach,
  killChild,
  killPids,
  killV1,
  makeChild,
  makeV1Folders,
  type ProcessLimits,
  readKnob,
  removeChild,
  removeCgroupDir,
  startTicks,
  sweepStaleV1,
  v1Parents,
  v1Populated,
  writeKnob,
} from './cgroups.ts';
import { pinnedCommand, type Argv, onPath } from './command-line.ts';
import { launcherChain, watchLauncher } from './launcher.ts';
import { processTree } from './ports.ts';
import { pgidOf, somePids, threadsOn } from './proc-readings.ts';
import { tellWatchdog, watchdogPid } from './watchdog.ts';

export {
  type Argv,
  cgroupParent,
  launcherChain,
  onPath,
  pinnedCommand,
  type ProcessLimits,
  watchdogPid,
  watchLauncher,
};

const live = new Set<ChildProcess>();

let pdeathsig: string[] | undefined;
/** `['setpriv', '--pdeathsig', 'KILL', '--']` when this machine's setpriv supports it, else []. Cached. */
export function orphanGuardPrefix(): string[] {
  if (pdeathsig === undefined) {
    const r = spawnSync('setpriv', ['--pdeathsig', 'KILL', '--', 'true'], { stdio: 'ignore' });
    pdeathsig = r.status === 0 ? ['setpriv', '--pdeathsig', 'KILL', '--'] : [];
  }
  return pdeathsig;
}

// ---------------------------------------------------------------------------------------------
// Containment (lifecycle/cgroups.ts: v2 and v1) and the environment-token fallback.

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

interface Containment extends HarnessCgroups {
  /** The token prefix `<pid>-<random>` of the children's BENCH_PROC_TOKEN (set in every mode; scanned without cgroups). */
  token: string;
}

let containment: Containment | undefined;
let seq = 0;

/** The harness's containment, set up on first use (sweeping stale folders first). */
function contain(): Containment {
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
interface TrackedChild {
  cg: ChildCgroups | null;
  token: string;
  breach: string | null;
}
const tracked = new WeakMap<ChildProcess, TrackedChild>();
const byPid = new Map<number, TrackedChild>();

/** Pids whose /proc/<pid>/environ carries `BENCH_PROC_TOKEN=<token>` (a prefix), from /proc. */
function pidsWithToken(token: string): number[] {
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
async function destroyChild(cg: ChildCgroups, waitMs = 3000): Promise<boolean> {
  killChild(cg);
  const end = Date.now() + waitMs;
  while (childPopulated(cg) && Date.now() < end) {
    await sleep(10);
    killChild(cg); // a v1 cgroup has no atomic kill: a process forked meanwhile is killed too
  }
  return removeChild(cg);
}

/** Kills whatever is left of a child's containment (cgroups or token set) and removes its cgroups. */
async function reap(child: ChildProcess): Promise<void> {
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
function guardLimits(child: ChildProcess, pid: number, t: TrackedChild, limits: ProcessLimits): void {
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
  return byPid.get(pid)?.breach ?? null;
}

// Writes its own pid into each cgroup.procs file (the first argument counts them), then execs the real command.
const CGROUP_WRAPPER =
  'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" 2>/dev/null; shift; n=$((n-1)); done; exec "$@"';

/** True while any process of group `pgid` exists. */
function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Options of spawnTracked beyond node's: the child's limits and the CPUs its cgroup confines it to. */
export interface TrackedOptions extends SpawnOptions {
  limits?: ProcessLimits;
  /** A CPU list ("1") the kernel confines the child to (cgroup cpuset) where it can; the caller still prefixes taskset. */
  cpus?: string | null;
}

/**
 * Spawns `cmd args` in its own process group and its own cgroups (or with its environment
 * token), under the orphan guards of the module comment, and tracks it until it exits. A command
 * line that already starts with (or contains) `setpriv` is not wrapped in setpriv again. The
 * child's pid is that of `cmd` itself (the cgroup wrapper, setpriv and taskset exec). `limits`:
 * its memory and task limits (see the module comment; `limitBreach` tells when it went over);
 * `cpus`: its cpuset.
 */
export function spawnTracked(cmd: string, args: string[], opts: TrackedOptions = {}): ChildProcess {
  const { limits, cpus, ...spawnOpts } = opts;
  const c0 = contain();
  const token = `${c0.token}-${++seq}`;
  let cg: ChildCgroups | null = makeChild(c0, `c${seq}`, cpus ?? null);
  if (!hasCgroup(cg)) cg = null;
  else if (limits) applyChildLimits(c0, cg, limits);
  const files = cg ? childProcsFiles(cg) : [];
  const guard = cmd === 'setpriv' || args.includes('setpriv') ? [] : orphanGuardPrefix();
  const wrap = files.length ? ['sh', '-c', CGROUP_WRAPPER, 'bench-cgroup', String(files.length), ...files] : [];
  const [c = cmd, ...a] = [...guard, ...wrap, cmd, ...args]; // never empty: `cmd` is in it
  const env = { ...(spawnOpts.env ?? process.env), BENCH_PROC_TOKEN: token };
  const child = spawn(c, a, { ...spawnOpts, env, detached: true });
  live.add(child);
  const pgid = child.pid;
  const t: TrackedChild = { cg, token, breach: null };
  tracked.set(child, t);
  if (pgid !== undefined) {
    byPid.set(pgid, t);
    if (limits) guardLimits(child, pgid, t, limits);
    tellWatchdog(`+${pgid}`);
    // A child under another uid cannot join its cgroups itself: move it from here (best effort).
    if (opts.uid !== undefined || opts.gid !== undefined)
      for (const f of files) {
        try {
          fs.writeFileSync(f, String(pgid));
        } catch {
          /* it exited already */
        }
      }
  } else if (cg) removeChild(cg);
  const forget = () => {
    live.delete(child);
    if (pgid !== undefined && !groupExists(pgid)) tellWatchdog(`-${pgid}`);
  };
  child.once('exit', forget);
  child.once('error', () => live.delete(child));
  return child;
}

function signalGroup(child: ChildProcess, sig: NodeJS.Signals): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, sig);
  } catch {
    try {
      child.kill(sig);
    } catch {
      /* already gone */
    }
  }
}

/** True once `child` has exited. */
export function hasExited(child: ChildProcess): boolean {
  return child.exitCode !== null || child.signalCode !== null;
}

/**
 * Stops a child's process group: SIGTERM, then SIGKILL after `graceMs` (default 3000 ms); then
 * kills whatever is left in its cgroup (or carries its token: detached, double-forked or
 * setsid descendants) and removes the cgroup. Resolves when all of it is gone.
 */
export async function stopGroup(child: ChildProcess, graceMs = 3000): Promise<void> {
  const cg = tracked.get(child)?.cg;
  if (cg) freezeChild(cg, false); // a frozen process handles no SIGTERM
  signalGroup(child, 'SIGCONT');
  if (hasExited(child)) {
    signalGroup(child, 'SIGKILL');
    await reap(child);
    return;
  }
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  signalGroup(child, 'SIGTERM');
  const done = await Promise.race([exited.then(() => true), sleep(graceMs).then(() => false)]);
  if (!done) {
    signalGroup(child, 'SIGKILL');
    await exited;
  }
  // Reap anything the group leader left behind.
  signalGroup(child, 'SIGKILL');
  await reap(child);
  if (child.pid !== undefined) {
    for (let i = 0; i < 40 && groupExists(child.pid); i++) await sleep(5);
    if (!groupExists(child.pid)) tellWatchdog(`-${child.pid}`);
  }
}

/** The child folders of harness folder `dir` (absolute paths); [] when it is gone. */
function subfolders(dir: string): string[] {
  try {
    return fs
      .readdirSync(dir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => path.join(dir, d.name));
  } catch {
    return [];
  }
}

/**
 * Stops every tracked child (SIGTERM, then SIGKILL after `graceMs`), then kills and removes
 * every cgroup of this harness (or every process carrying its token), including those of
 * children that exited and left something behind.
 */
export async function stopAll(graceMs = 2000): Promise<void> {
  await Promise.all([...live].map((c) => stopGroup(c, graceMs)));
  if (!containment) return;
  const c = containment;
  if (!c.v2 && !Object.keys(c.v1).length) {
    killPids(pidsWithToken(`${c.token}-`));
    return;
  }
  const names = new Set(
    [c.v2, ...Object.values(c.v1)].flatMap((d) => (d ? subfolders(d) : [])).map((d) => path.basename(d)),
  );
  const children = [...names].map(
    (n): ChildCgroups => ({
      v2: c.v2 ? path.join(c.v2, n) : null,
      v1: Object.fromEntries(Object.entries(c.v1).map(([k, d]) => [k, path.join(d, n)])),
      cpuset: null,
      kernel: { memory: false, pids: false },
    }),
  );
  await Promise.all(children.map((cg) => destroyChild(cg)));
}

/** Last-resort synchronous kill of every tracked group and cgroup (or token carrier), for `process.on('exit')`. */
export function killAllSync(): void {
  for (const c of live) signalGroup(c, 'SIGKILL');
  if (!containment) return;
  const { v2, v1, token } = containment;
  if (!v2 && !Object.keys(v1).length) {
    killPids(pidsWithToken(`${token}-`));
    return;
  }
  if (v2) writeKnob(v2, 'cgroup.kill', '1');
  for (const d of Object.values(v1)) killV1(d);
  // The kill is asynchronous: remove what is already empty; the watchdog removes the rest.
  const busy = () =>
    (v2 !== null && /^populated 1$/m.test(readKnob(v2, 'cgroup.events') ?? '')) ||
    Object.values(v1).some((d) => v1Populated(d));
  for (let i = 0; i < 50 && busy(); i++) spawnSync('sleep', ['0.01']);
  if (v2) removeCgroupDir(v2);
  for (const d of Object.values(v1)) removeCgroupDir(d);
}

/**
 * Runs a command to completion in its own process group, collecting stdout and stderr together.
 * The group is stopped when `signal` aborts or after `timeoutMs`. Resolves with the exit code
 * (null when killed by a signal) and the output, once the command and anything it left behind
 * (its cgroup or token set) are gone.
 */
export function runTracked(
  cmd: string,
  args: string[],
  opts: {
    cwd?: string;
    env?: NodeJS.ProcessEnv;
    signal?: AbortSignal;
    timeoutMs?: number;
    onSpawn?: (pid: number) => void;
  } = {},
): Promise<{ code: number | null; output: string; timedOut: boolean }> {
  return new Promise((resolve) => {
    const child = spawnTracked(cmd, args, { cwd: opts.cwd, env: opts.env, stdio: ['ignore', 'pipe', 'pipe'] });
    if (child.pid !== undefined) opts.onSpawn?.(child.pid);
    let output = '';
    let timedOut = false;
    const take = (b: Buffer) => {
      output += b.toString();
      if (output.length > 1_000_000) output = output.slice(-500_000);
    };
    child.stdout?.on('data', take);
    child.stderr?.on('data', take);
    const onAbort = () => {
      void stopGroup(child, 1000);
    };
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const timer = opts.timeoutMs
      ? setTimeout(() => {
          timedOut = true;
          void stopGroup(child, 1000);
        }, opts.timeoutMs)
      : undefined;
    child.once('error', (e) => {
      output += String(e);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
      void stopGroup(child, 0).then(() => resolve({ code, output, timedOut }));
    });
  });
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
  const probe = makeChild(c, `probe${++seq}`, cpus);
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
