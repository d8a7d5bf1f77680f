/**
 * The npm launcher above the harness: `launcherChain` finds the processes between the harness and
 * the `npx` / `npm exec` that started it, and `watchLauncher` calls back when one of them dies (a
 * CI cancel that reached npm only). Read from /proc.
 */
import fs from 'node:fs';
import { startTicks } from './cgroups.ts';

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
