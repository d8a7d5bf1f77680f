/**
 * Process liveness, the one check every part of the harness uses (the run lock, the store's
 * `running` → `abandoned` inference, the temp-folder sweep).
 *
 * `kill(pid, 0)` alone is not enough: it succeeds for a zombie (a dead child not yet reaped by its
 * parent) and for an unrelated process that was given the same pid after the first one died. So a
 * pid counts as alive only when it exists, is not a zombie (state `Z` in /proc/<pid>/stat), and,
 * when its start time was recorded, still has that start time (field 22 of /proc/<pid>/stat,
 * clock ticks since boot; proc(5)). Off Linux (no /proc) only the kill(0) answer is used.
 */
import fs from 'node:fs';
import os from 'node:os';

/** The fields of /proc/<pid>/stat after the command name (state is [0]), or null when unreadable. */
function statFields(pid: number): string[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** Start time of `pid` (field 22 of /proc/<pid>/stat, clock ticks since boot) as a string; '' when unknown. */
export function pidStartTime(pid: number): string {
  return statFields(pid)?.[19] ?? '';
}

/**
 * True when process `pid` runs: it exists (kill(0) succeeds or says EPERM), is not a zombie and,
 * when `start` (a `pidStartTime` recorded earlier) is given and not '', has that start time (else
 * the pid was reused by another process). Never throws; a non-positive or non-integer pid is dead.
 */
export function pidAlive(pid: number, start?: string): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const f = statFields(pid);
  if (!f) return os.platform() !== 'linux';
  if (f[0] === 'Z' || f[0] === 'X') return false;
  return !start || f[19] === start;
}
