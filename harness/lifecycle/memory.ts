/**
 * The resident memory of a started server: the sum of VmRSS over every process it runs (its
 * cgroup, else its process tree and token carriers: processes.ts `trackedProcesses`), read once
 * from /proc/<pid>/status. One read costs well under a millisecond, so the scheduler takes it at
 * readiness (idle RSS) and before a stop (RSS after load) without adding time to a run.
 */
import fs from 'node:fs';
import { trackedProcesses } from './processes.ts';

/** VmRSS of one process, bytes; null when it is gone or /proc cannot be read (not Linux). */
export function processRssBytes(pid: number): number | null {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB$/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m?.[1] ? Number(m[1]) * 1024 : null;
  } catch {
    return null;
  }
}

/** RSS of every process of server `pid`, bytes (processes.ts `trackedProcesses`); null when none could be read. */
export function serverRssBytes(pid: number): number | null {
  let sum = 0;
  let read = false;
  for (const p of trackedProcesses(pid)) {
    const b = processRssBytes(p);
    if (b === null) continue;
    sum += b;
    read = true;
  }
  return read ? sum : null;
}
