/**
 * The CPU plan: which core the server gets and which cores the load driver and the services
 * (upstream mock, database) share, so they do not compete. Recorded with every result.
 *
 * Rule (the one-server-core rule): with `taskset` available and at least 2 allowed
 * cores, the server gets ONE core (the highest allowed) and the client and services all the
 * others; the load driver runs `clientThreads` = client cores threads/workers (wrk -t,
 * autocannon workers; k6 schedules its own). 2 cores: server 1, client 0; 8 cores: server 7,
 * client 0-6 with 7 threads. Otherwise everything runs unpinned, the plan says why, and the
 * driver gets one thread per core but one (at least 1).
 */
import fs from 'node:fs';
import os from 'node:os';
import { spawnSync } from 'node:child_process';

export interface CpuPlan {
  pinned: boolean;
  /** taskset CPU lists, or null when unpinned. */
  server: string | null;
  client: string | null;
  services: string | null;
  allowedCores: number[];
  /** Threads/workers the load driver may use = client cores (unpinned: cores − 1, at least 1). */
  clientThreads: number;
  note: string;
}

/** The CPUs of a Linux CPU list ("0", "0,2", "0-3,8"), in its order: "0-2,5" → [0, 1, 2, 5]. */
export function parseCpuList(list: string): number[] {
  return list
    .trim()
    .split(',')
    .flatMap((part) => {
      const [a = Number.NaN, b] = part.split('-').map(Number); // split yields at least one part
      return b === undefined ? [a] : Array.from({ length: b - a + 1 }, (_, i) => a + i);
    });
}

/** The CPUs this process may run on (from /proc/self/status, else 0..n-1). */
export function allowedCores(): number[] {
  try {
    const line = fs
      .readFileSync('/proc/self/status', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Cpus_allowed_list:'));
    const list = line?.split(':')[1];
    if (list !== undefined) return parseCpuList(list);
  } catch {
    /* not Linux */
  }
  return Array.from({ length: os.availableParallelism() }, (_, i) => i);
}

function hasTaskset(): boolean {
  return spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' }).status === 0;
}

/** A taskset CPU list for `cores`: runs of 3 or more consecutive cores become ranges ("0-6", "0,2"). */
export function cpuList(cores: number[]): string {
  const parts: string[] = [];
  for (let i = 0; i < cores.length; ) {
    let j = i;
    while (j + 1 < cores.length && cores[j + 1] === (cores[j] ?? Number.NaN) + 1) j++;
    if (j - i >= 2) parts.push(`${cores[i]}-${cores[j]}`);
    else for (let k = i; k <= j; k++) parts.push(String(cores[k]));
    i = j + 1;
  }
  return parts.join(',');
}

/**
 * Builds the plan. `cores` defaults to this process's allowed cores (tests pass fake lists);
 * `taskset` defaults to whether `taskset` runs here. `BENCH_NO_PIN=1` forces an unpinned plan.
 */
export function makeCpuPlan(cores: number[] = allowedCores(), taskset?: boolean): CpuPlan {
  const sorted = [...new Set(cores)].sort((a, b) => a - b);
  const unpinned = (note: string): CpuPlan => ({
    pinned: false,
    server: null,
    client: null,
    services: null,
    allowedCores: sorted,
    clientThreads: Math.max(1, sorted.length - 1),
    note,
  });
  if (process.env.BENCH_NO_PIN === '1') return unpinned('unpinned: BENCH_NO_PIN=1');
  if (sorted.length < 2)
    return unpinned(`unpinned: only ${sorted.length} core available, server and load driver share it`);
  if (!(taskset ?? hasTaskset()))
    return unpinned('unpinned: taskset not found (install util-linux); server and load driver compete for cores');
  const serverCore = sorted[sorted.length - 1];
  const clientCores = sorted.slice(0, -1);
  const client = cpuList(clientCores);
  const server = String(serverCore);
  const threads = clientCores.length;
  return {
    pinned: true,
    server,
    client,
    services: client,
    allowedCores: sorted,
    clientThreads: threads,
    note: `server on CPU ${server} (one core); load driver (${threads} thread${threads === 1 ? '' : 's'}) and services on CPU ${client}`,
  };
}

/** One lane of a separate-core duet: a server and its own load driver, each on its own cores. */
export interface DuetLane {
  /** taskset CPU list of the server: one logical CPU (its physical core's siblings stay idle). */
  server: string;
  /** taskset CPU list of this lane's load driver, and its thread count. */
  client: string;
  clientThreads: number;
}

/**
 * The plan of a duet on separate cores ("on machines with ≥ 4 cores: two contenders
 * with their own clients, measured at the same time on separate core pairs"): `lanes` is null
 * below 4 physical cores, where the duet shares the one server core (scheduler/interleave.ts).
 */
export interface DuetPlan {
  lanes: [DuetLane, DuetLane] | null;
  /** taskset CPU list of the services (upstream mock, database), or null when there are no lanes. */
  services: string | null;
  /** Logical CPUs no process gets: the SMT siblings of the server cores, and a spare core. */
  idle: number[];
  note: string;
}

/** Groups of logical CPUs sharing a physical core (sysfs thread_siblings_list), else one group per CPU. */
export function cpuSiblings(cores: number[] = allowedCores()): number[][] {
  const seen = new Set<number>();
  const out: number[][] = [];
  for (const c of cores) {
    if (seen.has(c)) continue;
    let group = [c];
    try {
      group = parseCpuList(fs.readFileSync(`/sys/devices/system/cpu/cpu${c}/topology/thread_siblings_list`, 'utf8'));
    } catch {
      /* no sysfs topology: each logical CPU is its own core */
    }
    const allowed = group.filter((x) => cores.includes(x));
    for (const x of allowed) seen.add(x);
    out.push(allowed.length ? allowed : [c]);
  }
  return out;
}

/**
 * Builds the separate-core duet plan from the allowed logical CPUs grouped by physical core
 * (`siblings`; tests pass fake lists). Physical cores sorted by their first CPU; with ≥ 5, the
 * lowest goes to the services; the rest split into two equal halves (an odd one out goes to the
 * services too), the upper half lane A, the lower lane B; in each lane the highest physical core
 * is the server's (its first logical CPU; the siblings stay idle, so no other thread shares the
 * server's core) and every logical CPU of the others is the lane's client's. With exactly 4
 * physical cores the services share both lanes' client cores (as the one-server-core plan shares
 * client and services). Below 4, or without taskset, `lanes` is null and the note says why.
 */
export function makeDuetPlan(siblings: number[][] = cpuSiblings(), taskset?: boolean): DuetPlan {
  const units = siblings
    .map((g) => [...new Set(g)].sort((a, b) => a - b))
    .filter((g) => g.length > 0)
    .sort((a, b) => (a[0] ?? 0) - (b[0] ?? 0));
  const none = (note: string): DuetPlan => ({ lanes: null, services: null, idle: [], note });
  if (units.length < 4)
    return none(
      `duet on the one server core: ${units.length} physical core${units.length === 1 ? '' : 's'}, a duet on separate cores needs 4`,
    );
  if (!(taskset ?? hasTaskset())) return none('duet on the one server core: taskset not found (install util-linux)');
  const services: number[][] = units.length >= 5 ? [units[0] ?? []] : [];
  const rest = units.slice(services.length);
  const half = Math.floor(rest.length / 2);
  if (rest.length % 2) services.push(rest[0] ?? []);
  const lower = rest.slice(rest.length % 2, (rest.length % 2) + half);
  const upper = rest.slice((rest.length % 2) + half);
  const idle: number[] = [];
  const lane = (cores: number[][]): DuetLane => {
    const server = cores[cores.length - 1] ?? [];
    idle.push(...server.slice(1));
    const client = cores.slice(0, -1).flat();
    return { server: String(server[0]), client: cpuList(client), clientThreads: client.length };
  };
  const a = lane(upper);
  const b = lane(lower);
  const svc = services.length
    ? services.flat()
    : [...upper.slice(0, -1), ...lower.slice(0, -1)].flat().sort((x, y) => x - y);
  return {
    lanes: [a, b],
    services: cpuList(svc),
    idle: idle.sort((x, y) => x - y),
    note: `duet on separate cores: A server CPU ${a.server}, client CPU ${a.client}; B server CPU ${b.server}, client CPU ${b.client}; services CPU ${cpuList(svc)}${services.length ? '' : ' (shared with the clients)'}${idle.length ? `; idle SMT siblings ${cpuList(idle.sort((x, y) => x - y))}` : ''}`,
  };
}
