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

/**
 * A reading: the CPU ticks of every process, whether it was foreign (outside the root's tree, not
 * a kernel thread), and the reading's time in ticks since boot; null without /proc.
 */
export type ForeignSnapshot = {
  at: number;
  procs: Map<number, { ticks: number; foreign: boolean; start: number }>;
} | null;

/** pid → [ppid, ticks, start time in ticks since boot] of every process readable in /proc. */
function processTable(): Map<number, [number, number, number]> {
  const out = new Map<number, [number, number, number]>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      // Fields after "(comm) ": state ppid … utime(14) stime(15) cutime(16) cstime(17) … starttime(22), 1-based in proc(5).
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const ticks = Number(f[11]) + Number(f[12]) + Number(f[13]) + Number(f[14]);
      out.set(Number(d), [Number(f[1]), Number.isFinite(ticks) ? ticks : 0, Number(f[19])]);
    } catch {
      /* gone between readdir and read */
    }
  }
  return out;
}

/** Every process's CPU ticks, marked foreign when outside `rootPid`'s tree (default: this process); null without /proc. */
export function foreignSnapshot(rootPid = process.pid): ForeignSnapshot {
  if (!fs.existsSync('/proc/self/stat')) return null;
  const at = Number(fs.readFileSync('/proc/uptime', 'utf8').split(' ')[0]) * TICKS_PER_S;
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
  const procs = new Map<number, { ticks: number; foreign: boolean; start: number }>();
  for (const [pid, [ppid, ticks, start]] of table)
    procs.set(pid, { ticks, start, foreign: !own.has(pid) && pid !== 2 && ppid !== 2 });
  return { at, procs };
}

/**
 * Seconds of CPU each foreign process used between two snapshots: per process foreign at the
 * end, its ticks minus its ticks at the start; a process that started after the first snapshot
 * counts whole; one that existed before but was not read then counts 0, never its whole life; a
 * process that left the harness's tree (an orphan reparented to init) counts its delta. Null when
 * either snapshot is null.
 */
export function foreignCpuByPid(before: ForeignSnapshot, after: ForeignSnapshot): Map<number, number> | null {
  if (!before || !after) return null;
  const out = new Map<number, number>();
  for (const [pid, p] of after.procs) {
    if (!p.foreign) continue;
    const b = before.procs.get(pid);
    const ticks = b && b.start === p.start ? Math.max(0, p.ticks - b.ticks) : p.start >= before.at - 1 ? p.ticks : 0;
    if (ticks > 0) out.set(pid, ticks / TICKS_PER_S);
  }
  return out;
}

/** Seconds of CPU all foreign processes used between two snapshots (`foreignCpuByPid`, summed); null when either is null. */
export function foreignCpuS(before: ForeignSnapshot, after: ForeignSnapshot): number | null {
  const by = foreignCpuByPid(before, after);
  return by ? [...by.values()].reduce((a, x) => a + x, 0) : null;
}
