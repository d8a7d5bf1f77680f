/**
 * Every child process the harness starts goes through here, so that Ctrl-C, SIGTERM, a crash
 * of the harness or a normal exit stops all of them: servers, load drivers, the upstream mock
 * and build commands. Each child leads its own process group, and the whole group is signalled
 * (a start command such as `npm start` may fork the real server).
 *
 * Even a SIGKILLed (or OOM-killed) harness leaves nothing behind (issue 13, item 1), by two guards:
 * - every child runs under `setpriv --pdeathsig KILL --` (util-linux) when it is installed, so
 *   the kernel kills it the moment the harness dies (Linux PR_SET_PDEATHSIG);
 * - a process that a child forks (a grandchild) has no such signal, so one tiny watchdog per
 *   harness (`sh`, in its own session, ignoring INT/TERM/HUP) is told the process group of every
 *   child over a pipe; when that pipe closes — the harness exited, however it died — the watchdog
 *   SIGKILLs every group still listed, then exits. Groups are struck from the list once empty.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

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

// The watchdog reads "+PGID" / "-PGID" lines; at end of input it SIGKILLs the groups still listed.
const WATCHDOG_SCRIPT = `trap '' INT TERM HUP
g=' '
while IFS= read -r l; do
  case "$l" in
    +*) g="$g\${l#+} " ;;
    -*) n=" \${l#-} "; case "$g" in *"$n"*) g="\${g%%"$n"*} \${g#*"$n"}" ;; esac ;;
  esac
done
for p in $g; do kill -9 "-$p" 2>/dev/null; done
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
      (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
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
 * Spawns `cmd args` in its own process group, under the orphan guards of the module comment,
 * and tracks it until it exits. A command line that already starts with (or contains) `setpriv`
 * is not wrapped again. The child's pid is that of `cmd` itself (setpriv and taskset exec).
 */
export function spawnTracked(cmd: string, args: string[], opts: SpawnOptions = {}): ChildProcess {
  const guard = cmd === 'setpriv' || args.includes('setpriv') ? [] : orphanGuardPrefix();
  const [c, ...a] = [...guard, cmd, ...args];
  const child = spawn(c, a, { ...opts, detached: true });
  live.add(child);
  const pgid = child.pid;
  if (pgid !== undefined) tellWatchdog(`+${pgid}`);
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
 * Stops a child's process group: SIGTERM, then SIGKILL after `graceMs` (default 3000 ms).
 * Resolves when the child has exited.
 */
export async function stopGroup(child: ChildProcess, graceMs = 3000): Promise<void> {
  if (hasExited(child)) {
    signalGroup(child, 'SIGKILL');
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
  if (child.pid !== undefined) {
    for (let i = 0; i < 40 && groupExists(child.pid); i++) await sleep(5);
    if (!groupExists(child.pid)) tellWatchdog(`-${child.pid}`);
  }
}

/** Stops every tracked child (SIGTERM, then SIGKILL after `graceMs`). */
export async function stopAll(graceMs = 2000): Promise<void> {
  await Promise.all([...live].map((c) => stopGroup(c, graceMs)));
}

/** Last-resort synchronous kill of every tracked group, for `process.on('exit')`. */
export function killAllSync(): void {
  for (const c of live) signalGroup(c, 'SIGKILL');
}

/**
 * Runs a command to completion in its own process group, collecting stdout and stderr together.
 * The group is stopped when `signal` aborts or after `timeoutMs`. Resolves with the exit code
 * (null when killed by a signal) and the output.
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
      resolve({ code, output, timedOut });
    });
  });
}

/** Prefixes argv with `taskset -c <cpus>` when `cpus` is set. */
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
