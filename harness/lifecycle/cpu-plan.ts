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
