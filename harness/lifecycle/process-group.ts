/**
 * Signals to a tracked child's process group (each child leads its own group, and a start command
 * such as `npm start` may fork the real server): the signal to the whole group, whether the child
 * has exited, whether any process of the group is left.
 */
import type { ChildProcess } from 'node:child_process';

/** Sends `sig` to `child`'s process group (to the child alone when the group is gone already). */
export function signalGroup(child: ChildProcess, sig: NodeJS.Signals): void {
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

/** True while any process of group `pgid` exists. */
export function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
