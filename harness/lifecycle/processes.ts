/**
 * Every child process the harness starts goes through here, so that Ctrl-C, SIGTERM, a crash
 * of the harness or a normal exit stops all of them: servers, load drivers, the upstream mock
 * and build commands. Each child leads its own process group, and the whole group is signalled
 * (a start command such as `npm start` may fork the real server).
 */
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const live = new Set<ChildProcess>();

/** Spawns `cmd args` in its own process group and tracks it until it exits. */
export function spawnTracked(cmd: string, args: string[], opts: SpawnOptions = {}): ChildProcess {
  const child = spawn(cmd, args, { ...opts, detached: true });
  live.add(child);
  child.once('exit', () => live.delete(child));
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
