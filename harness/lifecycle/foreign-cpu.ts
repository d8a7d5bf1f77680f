/**
 * CPU time used by processes outside the harness during a measured window: every user-space
 * process that is not the harness itself or one of its descendants (servers, drivers, services),
 * read from `/proc/<pid>/stat` (utime + stime + cutime + cstime, so children reaped inside the
 * window count for their parent). Kernel threads (children of kthreadd, pid 2) are left out: they
 * include the loopback traffic's own softirq work. A quiet machine shows a few hundredths of a
 * core (the VM's agent); a build or a test suite on the client core shows tenths, and that slows
 * a fast server measurably through the shared caches and the load driver's wake-ups.
 *
 * Units: seconds of CPU time. Linux only; elsewhere (no /proc) every reading is null. The limit a
 * window is judged by is analysis/reference-stats.ts FOREIGN_CPU_LIMIT.
 */
import fs from 'node:fs';

/** USER_HZ: the unit of /proc/<pid>/stat's times (100 on every Linux architecture Node supports). */
const TICKS_PER_S = 100;

/** A reading: per foreign pid its CPU ticks so far; null without /proc. */
export type ForeignSnapshot = Map<number, number> | null;

/** pid → [ppid, ticks] of every process readable in /proc. */
function processTable(): Map<number, [number, number]> {
  const out = new Map<number, [number, number]>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      // Fields after "(comm) ": state ppid … utime(14) stime(15) cutime(16) cstime(17), 1-based in proc(5).
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
      out.set(Number(d), [Number(f[1]), Number.isFinite(ticks) ? ticks : 0]);
    } catch {
      /* gone between readdir and read */
    }
  }
  return out;
}

/** The CPU ticks of every user-space process outside `rootPid`'s tree (default: this process); null without /proc. */
export function foreignSnapshot(rootPid = process.pid): ForeignSnapshot {
  if (!fs.existsSync('/proc/self/stat')) return null;
  const table = processTable();
  const children = new Map<number, number[]>();
  for (const [pid, [ppid]] of table) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const own = new Set<number>();
  const stack = [rootPid];
  while (stack.length) {
    const p = stack.pop() as number;
    if (own.has(p)) continue;
    own.add(p);
    stack.push(...(children.get(p) ?? []));
  }
  const out = new Map<number, number>();
  for (const [pid, [ppid, ticks]] of table) {
    if (own.has(pid) || pid === 2 || ppid === 2) continue;
    out.set(pid, ticks);
  }
  return out;
}

/**
 * Seconds of CPU the foreign processes used between two snapshots: per pid present at the end,
 * its ticks minus its ticks at the start (0 when it started inside the interval); null when
 * either snapshot is null.
 */
export function foreignCpuS(before: ForeignSnapshot, after: ForeignSnapshot): number | null {
  if (!before || !after) return null;
  let ticks = 0;
  for (const [pid, t] of after) ticks += Math.max(0, t - (before.get(pid) ?? 0));
  return ticks / TICKS_PER_S;
}
