/**
 * The CPU plan: which cores the server gets and which the load driver and the services
 * (upstream mock, database) share, so they do not compete. Recorded with every result.
 *
 * Rule: with `taskset` available and at least 2 allowed cores, the server gets the upper half
 * of the allowed cores and the client and services the lower half (2 cores: server 1, client 0).
 * Otherwise everything runs unpinned and the plan says why.
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
  note: string;
}

/** The CPUs this process may run on (from /proc/self/status, else 0..n-1). */
export function allowedCores(): number[] {
  try {
    const line = fs
      .readFileSync('/proc/self/status', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Cpus_allowed_list:'));
    if (line) {
      return line
        .split(':')[1]
        .trim()
        .split(',')
        .flatMap((part) => {
          const [a, b] = part.split('-').map(Number);
          return b === undefined ? [a] : Array.from({ length: b - a + 1 }, (_, i) => a + i);
        });
    }
  } catch {
    /* not Linux */
  }
  return Array.from({ length: os.availableParallelism() }, (_, i) => i);
}

function hasTaskset(): boolean {
  return spawnSync('taskset', ['-c', '0', 'true'], { stdio: 'ignore' }).status === 0;
}

/** Builds the plan for this machine. `BENCH_NO_PIN=1` forces an unpinned plan. */
export function makeCpuPlan(): CpuPlan {
  const cores = allowedCores();
  const unpinned = (note: string): CpuPlan => ({
    pinned: false,
    server: null,
    client: null,
    services: null,
    allowedCores: cores,
    note,
  });
  if (process.env.BENCH_NO_PIN === '1') return unpinned('unpinned: BENCH_NO_PIN=1');
  if (cores.length < 2)
    return unpinned(`unpinned: only ${cores.length} core available, server and load driver share it`);
  if (!hasTaskset())
    return unpinned('unpinned: taskset not found (install util-linux); server and load driver compete for cores');
  const half = Math.floor(cores.length / 2);
  const client = cores.slice(0, half).join(',');
  const server = cores.slice(half).join(',');
  return {
    pinned: true,
    server,
    client,
    services: client,
    allowedCores: cores,
    note: `server on CPU ${server}; load driver and services on CPU ${client}`,
  };
}
