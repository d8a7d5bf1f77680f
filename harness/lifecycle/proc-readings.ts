/**
 * Readings from /proc that tell whether a server stayed in its box (lifecycle/processes.ts
 * `containmentBreaches` puts them together): a process's group, the threads of a process allowed
 * on given CPUs, and a short list of pids for a failure reason.
 */
import fs from 'node:fs';

/** The process group of `pid` (field 5 of /proc/<pid>/stat), or null when gone. */
export function pgidOf(pid: number): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
  } catch {
    return null;
  }
}

/** The thread ids of `pid` whose allowed CPUs (/proc/<pid>/task/<tid>/status) include one of `cpus`. */
export function threadsOn(pid: number, cpus: ReadonlySet<number>): number[] {
  let tids: string[] = [];
  try {
    tids = fs.readdirSync(`/proc/${pid}/task`);
  } catch {
    return [];
  }
  return tids
    .filter((tid) => {
      try {
        const line = /^Cpus_allowed_list:\s*(.*)$/m.exec(fs.readFileSync(`/proc/${pid}/task/${tid}/status`, 'utf8'));
        return (line?.[1] ?? '').split(',').some((part) => {
          const [a = Number.NaN, b = a] = part.split('-').map(Number);
          for (let c = a; c <= b; c++) if (cpus.has(c)) return true;
          return false;
        });
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** "pid 12, 13 and 1 more" for a failure reason. */
export function somePids(pids: number[]): string {
  const shown = pids.slice(0, 3).join(', ');
  return pids.length > 3 ? `pid ${shown} and ${pids.length - 3} more` : `pid ${shown}`;
}
