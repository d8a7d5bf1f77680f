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
 *
 * This module spawns and stops; the containment and the registry of tracked children are
 * lifecycle/tracked-children.ts's, the limits' guard lifecycle/limit-guard.ts's, the group signals
 * lifecycle/process-group.ts's (what other modules use of them is re-exported here).
 */
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  applyChildLimits,
  type ChildCgroups,
  cgroupParent,
  childProcsFiles,
  freezeChild,
  hasCgroup,
  killPids,
  killV1,
  makeChild,
  type ProcessLimits,
  readKnob,
  removeChild,
  removeCgroupDir,
  v1Populated,
  writeKnob,
} from './cgroups.ts';
import { pinnedCommand, type Argv, onPath } from './command-line.ts';
import {
  contain,
  destroyChild,
  harnessContainment,
  nextChildSeq,
  pidsWithToken,
  reap,
  type TrackedChild,
  track,
  trackedChild,
} from './tracked-children.ts';
import { launcherChain, watchLauncher } from './launcher.ts';
import { guardLimits } from './limit-guard.ts';
import { groupExists, hasExited, signalGroup } from './process-group.ts';
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
export {
  containmentBreaches,
  containmentInfo,
  containmentNote,
  containmentOf,
  cpuUsageUs,
  isTracked,
  pauseTracked,
  sweepStaleCgroups,
  trackedProcesses,
} from './tracked-children.ts';
export { limitBreach } from './limit-guard.ts';
export { hasExited } from './process-group.ts';

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

// Writes its own pid into each cgroup.procs file (the first argument counts them), then execs the real command.
const CGROUP_WRAPPER =
  'n=$1; shift; while [ "$n" -gt 0 ]; do echo $$ > "$1" 2>/dev/null; shift; n=$((n-1)); done; exec "$@"';

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
  const n = nextChildSeq();
  const token = `${c0.token}-${n}`;
  let cg: ChildCgroups | null = makeChild(c0, `c${n}`, cpus ?? null);
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
  track(child, pgid, t);
  if (pgid !== undefined) {
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

/**
 * Stops a child's process group: SIGTERM, then SIGKILL after `graceMs` (default 3000 ms); then
 * kills whatever is left in its cgroup (or carries its token: detached, double-forked or
 * setsid descendants) and removes the cgroup. Resolves when all of it is gone.
 */
export async function stopGroup(child: ChildProcess, graceMs = 3000): Promise<void> {
  const cg = trackedChild(child)?.cg;
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
  const c = harnessContainment();
  if (!c) return;
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
  const c = harnessContainment();
  if (!c) return;
  const { v2, v1, token } = c;
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
