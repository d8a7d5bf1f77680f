/**
 * Every child process the harness starts goes through here, so that Ctrl-C, SIGTERM, a crash
 * of the harness or a normal exit stops all of them: servers, load drivers, the upstream mock
 * and build commands. Each child leads its own process group, and the whole group is signalled
 * (a start command such as `npm start` may fork the real server).
 *
 * No orphans at all, even after SIGKILL of the harness, and even for a child that leaves its
 * process group (a `detached` spawn, a double fork, `setsid`):
 * - **cgroup v2** (when usable: Linux, a writable cgroup2 mount, root or a delegated subtree):
 *   the harness makes one cgroup folder `bakeoff-<pid>-<start ticks>` beside its own cgroup and
 *   one child cgroup per spawned command; a tiny `sh` wrapper writes its own pid into the child
 *   cgroup's `cgroup.procs` and then execs the real command, so nothing it forks, however
 *   detached, leaves the cgroup. Stopping = SIGTERM to the process group, a grace period, then
 *   `cgroup.kill`, wait until `cgroup.procs` is empty, rmdir. A child started under another uid
 *   (PostgreSQL) cannot write `cgroup.procs` itself; the harness moves it right after spawn.
 * - **fallback** (no usable cgroup2, or `BENCH_CGROUP=off`): every child's environment carries
 *   `BENCH_PROC_TOKEN=<harness pid>-<random>-<n>`, and stopping also SIGKILLs every process
 *   whose `/proc/<pid>/environ` carries that token. A process that replaces its environment
 *   (an exec with a new env, PostgreSQL rewriting its title over it) escapes the fallback.
 * - every child runs under `setpriv --pdeathsig KILL --` (util-linux) when it is installed, so
 *   the kernel kills it the moment the harness dies (Linux PR_SET_PDEATHSIG);
 * - one tiny watchdog per harness (`sh`, in its own session, ignoring INT/TERM/HUP) is told the
 *   process group of every child, the harness's cgroup folder and the fallback token over a
 *   pipe; when that pipe closes — the harness exited, however it died — it SIGKILLs every group
 *   still listed, writes 1 to the folder's `cgroup.kill` and removes the folders (or, in the
 *   fallback, kills every process carrying the token), then exits.
 * - a cgroup folder left by a dead harness (the watchdog killed too) is killed and removed by
 *   `sweepStaleCgroups()` at the next harness's first spawn.
 *
 * Limits (`spawnTracked`'s `limits`, given for contender servers: core/profiles.ts
 * `contenderLimits`): where the cgroup2 `memory` and `pids` controllers can be enabled for the
 * harness's folder, the child's cgroup gets `memory.max`, `memory.swap.max` 0, `memory.oom.group`
 * 1 and `pids.max` before the command starts, and the kernel enforces them (`memory.events`
 * `oom_kill` tells afterwards). Where it cannot (no cgroup2, a hybrid host whose memory and pids
 * controllers sit on cgroup v1, a subtree without them), a guard in the harness reads the RSS and
 * the tasks (threads) of the child's processes every 100 ms and SIGKILLs them all once over. Either
 * way `limitBreach(pid)` then says which limit the child went over.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { processTree } from './ports.ts';

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

// The watchdog reads "+PGID" / "-PGID" lines, "H<cgroup folder>" and "T<token prefix>"; at end of
// input it SIGKILLs the groups still listed, kills and removes the cgroup folder, and kills every
// process whose environment carries the token.
const WATCHDOG_SCRIPT = `trap '' INT TERM HUP
g=' '; h=''; t=''
while IFS= read -r l; do
  case "$l" in
    +*) g="$g\${l#+} " ;;
    -*) n=" \${l#-} "; case "$g" in *"$n"*) g="\${g%%"$n"*} \${g#*"$n"}" ;; esac ;;
    H*) h="\${l#H}" ;;
    T*) t="\${l#T}" ;;
  esac
done
for p in $g; do kill -9 "-$p" 2>/dev/null; done
if [ -n "$h" ] && [ -d "$h" ]; then
  echo 1 > "$h/cgroup.kill" 2>/dev/null
  i=0
  while [ $i -lt 100 ]; do
    for d in "$h"/*/; do [ -d "$d" ] && rmdir "$d" 2>/dev/null; done
    rmdir "$h" 2>/dev/null && break
    i=$((i+1)); sleep 0.05
  done
fi
if [ -n "$t" ]; then
  for f in /proc/[0-9]*/environ; do
    if grep -qa "BENCH_PROC_TOKEN=$t" "$f" 2>/dev/null; then p=\${f#/proc/}; kill -9 "\${p%/environ}" 2>/dev/null; fi
  done
fi
exit 0`;

let watchdog: ChildProcess | null | undefined;
/** Tells the watchdog (started on first use) a line; a no-op when it could not be started. */
function tellWatchdog(line: string): void {
  if (watchdog === undefined) {
    try {
      watchdog = spawn('sh', ['-c', WATCHDOG_SCRIPT], { detached: true, stdio: ['pipe', 'ignore', 'ignore'] });
      watchdog.once('error', () => {
        watchdog = null;
      });
      watchdog.stdin?.on('error', () => {});
      watchdog.unref();
      // The pipe is a net.Socket at run time (it has unref); its declared type, Writable, does not say so.
      (watchdog.stdin as (typeof watchdog.stdin & { unref?: () => void }) | null)?.unref?.();
    } catch {
      watchdog = null;
    }
  }
  if (watchdog?.stdin?.writable) watchdog.stdin.write(`${line}\n`);
}

/** The pid of this harness's watchdog (see the module comment), or null when none runs. */
export function watchdogPid(): number | null {
  return watchdog?.pid ?? null;
}

// ---------------------------------------------------------------------------------------------
// cgroup v2 containment (see the module comment) and the environment-token fallback.

const CGROUP_PREFIX = 'bakeoff-';

/** Field 22 of /proc/<pid>/stat (start time in clock ticks since boot), or null when gone. */
function startTicks(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? null;
  } catch {
    return null;
  }
}

/**
 * The cgroup2 folder that holds this process's own cgroup (where the harness's per-run folders
 * go), from /proc/self/mountinfo and /proc/self/cgroup ("0::/path"); null off Linux or without
 * a cgroup2 mount.
 */
export function cgroupParent(): string | null {
  try {
    const mount = fs
      .readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .map((l) => l.split(' '))
      .find((f) => f[f.indexOf('-') + 1] === 'cgroup2')?.[4];
    const own = /^0::(.*)$/m.exec(fs.readFileSync('/proc/self/cgroup', 'utf8'))?.[1];
    if (!mount || own === undefined) return null;
    return path.join(mount, own.replace(/ \(deleted\)$/, ''));
  } catch {
    return null;
  }
}

/** Writes 1 to `<dir>/cgroup.kill` (SIGKILL to every process in it and its descendants); false when not possible. */
function cgroupKill(dir: string): boolean {
  try {
    fs.writeFileSync(path.join(dir, 'cgroup.kill'), '1');
    return true;
  } catch {
    return false;
  }
}

/** The pids in cgroup `dir` (not its descendants), [] when it is gone. */
function cgroupPids(dir: string): number[] {
  try {
    return fs.readFileSync(path.join(dir, 'cgroup.procs'), 'utf8').split('\n').filter(Boolean).map(Number);
  } catch {
    return [];
  }
}

/** True while cgroup `dir` or one of its descendants holds a process (cgroup.events `populated 1`). */
function cgroupPopulated(dir: string): boolean {
  try {
    return /^populated 1$/m.test(fs.readFileSync(path.join(dir, 'cgroup.events'), 'utf8'));
  } catch {
    return false;
  }
}

/**
 * Kills every process in cgroup `dir` and its descendants, waits (≤ `waitMs`) until it is
 * empty, and removes it (children first). True when the folder is gone.
 */
async function destroyCgroup(dir: string, waitMs = 3000): Promise<boolean> {
  if (!fs.existsSync(dir)) return true;
  cgroupKill(dir);
  const end = Date.now() + waitMs;
  while (cgroupPopulated(dir) && Date.now() < end) await sleep(10);
  return removeCgroupDir(dir);
}

/** rmdir of cgroup `dir` and its (empty) child cgroups; true when it is gone. */
function removeCgroupDir(dir: string): boolean {
  try {
    for (const d of fs.readdirSync(dir, { withFileTypes: true }))
      if (d.isDirectory()) removeCgroupDir(path.join(dir, d.name));
    fs.rmdirSync(dir);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ENOENT';
  }
}

/**
 * Kills and removes the `bakeoff-<pid>-<ticks>` cgroup folders (beside this harness's own
 * cgroup) whose harness is gone (pid dead, or reused: its start time differs). Returns the
 * folders removed. Safe to call at any time, from any harness: a live harness's folder is never
 * touched. Called at a harness's first spawn; lock.ts may call it too to name what it removed.
 */
export function sweepStaleCgroups(parent: string | null = cgroupParent()): string[] {
  if (!parent) return [];
  let names: string[] = [];
  try {
    names = fs.readdirSync(parent);
  } catch {
    return [];
  }
  const removed: string[] = [];
  for (const name of names) {
    const m = /^bakeoff-(\d+)-(\d+)$/.exec(name);
    if (!m || startTicks(Number(m[1])) === m[2]) continue;
    const dir = path.join(parent, name);
    cgroupKill(dir);
    for (let i = 0; i < 200 && cgroupPopulated(dir); i++) spawnSync('sleep', ['0.01']);
    if (removeCgroupDir(dir)) removed.push(dir);
  }
  return removed;
}

interface Containment {
  /** The harness's cgroup folder, or null in the fallback. */
  dir: string | null;
  /** The token prefix `<pid>-<random>` of the children's BENCH_PROC_TOKEN (set in both modes; scanned in the fallback). */
  token: string;
}

let containment: Containment | undefined;
let seq = 0;

/** The harness's containment, set up on first use (sweeping stale folders first). */
function contain(): Containment {
  if (containment) return containment;
  const token = `${process.pid}-${randomBytes(6).toString('hex')}`;
  let dir: string | null = null;
  const parent = process.env.BENCH_CGROUP === 'off' ? null : cgroupParent();
  if (parent) {
    sweepStaleCgroups(parent);
    const d = path.join(parent, `${CGROUP_PREFIX}${process.pid}-${startTicks(process.pid)}`);
    try {
      fs.mkdirSync(d);
      if (fs.existsSync(path.join(d, 'cgroup.kill'))) dir = d;
      else fs.rmdirSync(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EEXIST') dir = d;
    }
  }
  containment = { dir, token };
  // The watchdog's environ scan (one grep per process) only where there is no cgroup to kill.
  tellWatchdog(dir ? `H${dir}` : `T${token}-`);
  return containment;
}

/** How tracked children are contained on this machine: `cgroup` (with its folder) or `environ` (the token fallback). */
export function containmentInfo(): { kind: 'cgroup' | 'environ'; dir: string | null } {
  const c = contain();
  return { kind: c.dir ? 'cgroup' : 'environ', dir: c.dir };
}

/** The limits of a tracked child: memory in bytes (RSS), tasks (threads included). */
export interface ProcessLimits {
  memoryBytes: number;
  pids: number;
}

/** Per child: its cgroup folder (or null), its environment token, and the limit it went over (or null). */
interface TrackedChild {
  cgroup: string | null;
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

function killPids(pids: number[]): void {
  for (const p of pids) {
    try {
      process.kill(p, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
}

/**
 * Every process that belongs to tracked child `pid`: with cgroups exactly its cgroup's pids;
 * else its process tree (ports.ts `processTree`) plus, unless `tokens` is false (a cheaper read:
 * no scan of every process's environment), the processes carrying its token. `[pid]` for an
 * untracked pid that is alive.
 */
export function trackedProcesses(pid: number, tokens = true): number[] {
  const t = byPid.get(pid);
  if (t?.cgroup) {
    const pids = cgroupPids(t.cgroup);
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
 * `cpu.stat` `usage_usec` (µs resolution, exited threads and processes included, so the difference
 * over a window is exact); else the sum of utime + stime (10 ms ticks) over `trackedProcesses(pid)`,
 * which misses processes that exited during the window. null when nothing can be read (not Linux).
 */
export function cpuUsageUs(pid: number): number | null {
  const t = byPid.get(pid);
  if (t?.cgroup) {
    try {
      const m = /^usage_usec (\d+)$/m.exec(fs.readFileSync(path.join(t.cgroup, 'cpu.stat'), 'utf8'));
      if (m?.[1]) return Number(m[1]);
    } catch {
      /* fall through to /proc */
    }
  }
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

/** Kills whatever is left of a child's containment (cgroup or token set) and removes its cgroup. */
async function reap(child: ChildProcess): Promise<void> {
  const t = tracked.get(child);
  if (!t) return;
  if (t.cgroup) {
    if (await destroyCgroup(t.cgroup)) t.cgroup = null;
  } else {
    for (let i = 0; i < 5; i++) {
      const pids = pidsWithToken(`${t.token}\0`);
      if (!pids.length) break;
      killPids(pids);
      await sleep(20);
    }
  }
  if (child.pid !== undefined && !t.cgroup) byPid.delete(child.pid);
}

/** "4096 MiB" for a byte count. */
const mib = (b: number) => `${Math.round(b / 2 ** 20)} MiB`;

let controllers: { memory: boolean; pids: boolean } | undefined;
/** Enables the cgroup2 memory and pids controllers for the children of `dir` (once); which ones it could. */
function enableControllers(dir: string): { memory: boolean; pids: boolean } {
  if (controllers) return controllers;
  for (const c of ['memory', 'pids'])
    try {
      fs.writeFileSync(path.join(dir, 'cgroup.subtree_control'), `+${c}`);
    } catch {
      /* not available here: the guard watches this one */
    }
  let on = '';
  try {
    on = fs.readFileSync(path.join(dir, 'cgroup.subtree_control'), 'utf8');
  } catch {
    /* none */
  }
  controllers = { memory: /\bmemory\b/.test(on), pids: /\bpids\b/.test(on) };
  return controllers;
}

/** Writes `value` to `<dir>/<file>`; false when it cannot. */
function writeKnob(dir: string, file: string, value: string): boolean {
  try {
    fs.writeFileSync(path.join(dir, file), value);
    return true;
  } catch {
    return false;
  }
}

/** Applies `limits` to the child cgroup `dir` of the harness's folder `parent`; which ones the kernel now enforces. */
function applyCgroupLimits(parent: string, dir: string, limits: ProcessLimits): { memory: boolean; pids: boolean } {
  const on = enableControllers(parent);
  const memory = on.memory && writeKnob(dir, 'memory.max', String(limits.memoryBytes));
  if (memory) {
    writeKnob(dir, 'memory.swap.max', '0'); // a limit swapped out is no limit on a host with swap
    writeKnob(dir, 'memory.oom.group', '1'); // the whole server, not one of its processes
  }
  return { memory, pids: on.pids && writeKnob(dir, 'pids.max', String(limits.pids)) };
}

/** A counter of a cgroup `*.events` file (`oom_kill`, `max`), 0 when unreadable. */
function cgroupEvent(dir: string, file: string, key: string): number {
  try {
    return Number(new RegExp(`^${key} (\\d+)$`, 'm').exec(fs.readFileSync(path.join(dir, file), 'utf8'))?.[1] ?? 0);
  } catch {
    return 0;
  }
}

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

/**
 * Watches tracked child `pid` (entry `t`) against `limits`: the kernel's verdict from the cgroup's
 * events where `kernel` says it enforces a limit (a refused fork is also read every GUARD_MS, before
 * the RSS), else the RSS and tasks of its processes every GUARD_MS, killing all of them (group,
 * cgroup or token carriers) once over. Sets `t.breach`.
 */
function guardLimits(
  child: ChildProcess,
  pid: number,
  t: TrackedChild,
  limits: ProcessLimits,
  kernel: { memory: boolean; pids: boolean },
): void {
  const fromKernel = () => {
    if (!t.cgroup || t.breach) return;
    if (kernel.memory && cgroupEvent(t.cgroup, 'memory.events', 'oom_kill') > 0)
      t.breach = `exceeded its memory limit (${mib(limits.memoryBytes)}; killed by the kernel, cgroup memory.max)`;
    else if (kernel.pids && cgroupEvent(t.cgroup, 'pids.events', 'max') > 0)
      t.breach = `reached its process limit (${limits.pids} tasks, cgroup pids.max: a fork or thread was refused)`;
  };
  child.once('exit', fromKernel);
  if (kernel.memory && kernel.pids) return;
  const timer = setInterval(() => {
    if (hasExited(child) || t.breach) return clearInterval(timer);
    // A fork the kernel refused comes first: the RSS summed over the processes counts a child
    // between its fork and its exec at its parent's size, so a forking server can look over its
    // memory limit right after it reached its task limit.
    if (kernel.pids) fromKernel();
    if (!t.breach) {
      // Tasks before RSS: the count is exact, the summed RSS is not (see above).
      const u = usageOf(trackedProcesses(pid, false));
      if (!kernel.pids && u.tasks > limits.pids)
        t.breach = `exceeded its process limit (${limits.pids} tasks; ${u.tasks} when the harness stopped it)`;
      else if (!kernel.memory && u.rss > limits.memoryBytes)
        t.breach = `exceeded its memory limit (${mib(limits.memoryBytes)}; ${mib(u.rss)} in use when the harness stopped it)`;
    }
    if (!t.breach) return;
    clearInterval(timer);
    signalGroup(child, 'SIGKILL');
    if (t.cgroup) cgroupKill(t.cgroup);
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

// Writes its own pid into the cgroup (argument 1), then execs the real command.
const CGROUP_WRAPPER = 'echo $$ > "$1/cgroup.procs" 2>/dev/null; shift; exec "$@"';

/** True while any process of group `pgid` exists. */
function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Spawns `cmd args` in its own process group and its own cgroup (or with its environment
 * token), under the orphan guards of the module comment, and tracks it until it exits. A command
 * line that already starts with (or contains) `setpriv` is not wrapped in setpriv again. The
 * child's pid is that of `cmd` itself (the cgroup wrapper, setpriv and taskset exec). `limits`:
 * its memory and task limits (see the module comment; `limitBreach` tells when it went over).
 */
export function spawnTracked(
  cmd: string,
  args: string[],
  opts: SpawnOptions & { limits?: ProcessLimits } = {},
): ChildProcess {
  const { limits, ...spawnOpts } = opts;
  const c0 = contain();
  const token = `${c0.token}-${++seq}`;
  let cgroup: string | null = null;
  let kernel = { memory: false, pids: false };
  if (c0.dir) {
    const d = path.join(c0.dir, `c${seq}`);
    try {
      fs.mkdirSync(d);
      cgroup = d;
      if (limits) kernel = applyCgroupLimits(c0.dir, d, limits);
    } catch {
      cgroup = null;
    }
  }
  const guard = cmd === 'setpriv' || args.includes('setpriv') ? [] : orphanGuardPrefix();
  const wrap = cgroup ? ['sh', '-c', CGROUP_WRAPPER, 'bench-cgroup', cgroup] : [];
  const [c = cmd, ...a] = [...guard, ...wrap, cmd, ...args]; // never empty: `cmd` is in it
  const env = { ...(spawnOpts.env ?? process.env), BENCH_PROC_TOKEN: token };
  const child = spawn(c, a, { ...spawnOpts, env, detached: true });
  live.add(child);
  const pgid = child.pid;
  const t: TrackedChild = { cgroup, token, breach: null };
  tracked.set(child, t);
  if (pgid !== undefined) {
    byPid.set(pgid, t);
    if (limits) guardLimits(child, pgid, t, limits, kernel);
    tellWatchdog(`+${pgid}`);
    // A child under another uid cannot join the cgroup itself: move it from here (best effort).
    if (cgroup && (opts.uid !== undefined || opts.gid !== undefined)) {
      try {
        fs.writeFileSync(path.join(cgroup, 'cgroup.procs'), String(pgid));
      } catch {
        /* it exited already */
      }
    }
  } else if (cgroup) removeCgroupDir(cgroup);
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

/**
 * Stops every tracked child (SIGTERM, then SIGKILL after `graceMs`), then kills and removes
 * every cgroup of this harness (or every process carrying its token), including those of
 * children that exited and left something behind.
 */
export async function stopAll(graceMs = 2000): Promise<void> {
  await Promise.all([...live].map((c) => stopGroup(c, graceMs)));
  if (!containment) return;
  if (containment.dir) {
    const dir = containment.dir;
    let subs: string[] = [];
    try {
      subs = fs
        .readdirSync(dir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => path.join(dir, d.name));
    } catch {
      /* gone */
    }
    await Promise.all(subs.map((d) => destroyCgroup(d)));
  } else killPids(pidsWithToken(`${containment.token}-`));
}

/** Last-resort synchronous kill of every tracked group and cgroup (or token carrier), for `process.on('exit')`. */
export function killAllSync(): void {
  for (const c of live) signalGroup(c, 'SIGKILL');
  if (!containment) return;
  if (containment.dir) {
    cgroupKill(containment.dir);
    // The kill is asynchronous: remove what is already empty; the watchdog removes the rest.
    for (let i = 0; i < 50 && cgroupPopulated(containment.dir); i++) spawnSync('sleep', ['0.01']);
    removeCgroupDir(containment.dir);
  } else killPids(pidsWithToken(`${containment.token}-`));
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

/** A command line: the program, then its arguments. */
export type Argv = [command: string, ...args: string[]];

/** Prefixes argv with `taskset -c <cpus>` when `cpus` is set. */
export function pinnedCommand(cpus: string | null, argv: Argv): Argv;
export function pinnedCommand(cpus: string | null, argv: string[]): string[];
export function pinnedCommand(cpus: string | null, argv: string[]): string[] {
  return cpus ? ['taskset', '-c', cpus, ...argv] : argv;
}

/** The first executable `name` on PATH, or null. */
export function onPath(name: string): string | null {
  for (const dir of (process.env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, name);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      return p;
    } catch {
      /* next */
    }
  }
  return null;
}

/** True when `pid` is a child this harness spawned with spawnTracked and has not reaped yet. */
export function isTracked(pid: number): boolean {
  return byPid.has(pid);
}

/** The parent pid of `pid` (from /proc/<pid>/stat), or null when gone. */
function parentOf(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** An npm or npx process (`npm exec …`, `npx …`, node …/npm-cli.js), by its command line. */
const NPM_LAUNCHER = /^(npm|npx)( |$)|\/(npm|npx)( |$)|(npm|npx)-cli\.js/;

/**
 * The processes between this one and the nearest `npm exec` / `npx` ancestor (both included
 * except this one), with their start times; [] when no npm launched this process. Read from /proc.
 */
export function launcherChain(self = process.pid): { pid: number; start: string }[] {
  const chain: { pid: number; start: string }[] = [];
  for (let pid = parentOf(self); pid !== null && pid > 1 && chain.length < 16; pid = parentOf(pid)) {
    const start = startTicks(pid);
    if (start === null) return [];
    chain.push({ pid, start });
    let cmd = '';
    try {
      cmd = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    } catch {
      return [];
    }
    if (NPM_LAUNCHER.test(cmd)) return chain;
  }
  return [];
}

/**
 * Calls `onGone` once when a process between this one and the `npx` / `npm exec` that launched
 * it dies (polled every `everyMs`, default 500 ms; the timer does not keep the process alive).
 * Why: a CI runner's cancel sends SIGTERM to `npx just …` only; npm passes it to its `sh -c`
 * child, which dies, but the npm wrapper of just (`node_modules/.bin/just`) does not pass it on,
 * so the harness would run to the end holding the run lock. `just` itself (≥ 1.41) forwards
 * SIGTERM to its recipe. A no-op when no npm launched this process (direct `just`, `node`).
 */
export function watchLauncher(onGone: () => void, everyMs = 500): void {
  const chain = launcherChain();
  if (!chain.length) return;
  const timer = setInterval(() => {
    if (chain.every((p) => startTicks(p.pid) === p.start)) return;
    clearInterval(timer);
    onGone();
  }, everyMs);
  timer.unref();
}
