/**
 * A contender's server for the studies (nursery-after-idle.ts, pause-duty-cycle.ts,
 * table-backdrop.ts, verify-before-load.ts, window-length.ts, round-replica.ts): one process
 * pinned to CPU 1 (`taskset`), started with `--trace-gc` and extra V8 flags, its stdout (the GC
 * trace) in a temp file; and a wait for GET /ping. Only for contenders whose manifest starts with
 * `node <file>`; anything else throws, since V8 flags cannot be added. Also what those studies
 * share: wrk's command line and count, a process's CPU-seconds, the collections in its GC trace,
 * and the summary of paired ratios.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { tQuantile } from '../../harness/analysis/stats.ts';
import { CONTENDERS_DIR } from '../../harness/core/paths.ts';

export interface TracedServer {
  name: string;
  port: number;
  child: ChildProcess;
  /** The node process's pid (taskset execs node, so it is the child's). */
  pid: number;
  /** When the process started (performance.now(), ms): the trace's ms stamps count from about then. */
  t0: number;
  /** The file the GC trace goes to: a file, not a pipe, because the studies run wrk synchronously. */
  traceFile: string;
}

/** Starts `name` on 127.0.0.1:`port`; `study` names the trace file. Throws on a non-`node <file>` manifest. */
export function startTraced(study: string, name: string, port: number, flags: string[]): TracedServer {
  const dir = path.join(CONTENDERS_DIR, name);
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'contender.json'), 'utf8')) as { start: string[] };
  if (manifest.start[0] !== 'node' || manifest.start.length !== 2)
    throw new Error(`${name}: its start is not "node <file>", so V8 flags cannot be added`);
  const env = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(port),
    NODE_ENV: 'production',
    UPSTREAM_URL: 'http://127.0.0.1:9',
  };
  const traceFile = path.join(os.tmpdir(), `${study}-${name}-${process.pid}.log`);
  const out = fs.openSync(traceFile, 'w');
  const t0 = performance.now();
  const child = spawn('taskset', ['-c', '1', process.execPath, '--trace-gc', ...flags, manifest.start[1] ?? ''], {
    cwd: dir,
    env,
    stdio: ['ignore', out, 'inherit'],
  });
  fs.closeSync(out);
  if (child.pid === undefined) throw new Error(`${name}: taskset did not start`);
  return { name, port, child, pid: child.pid, t0, traceFile };
}

/** Stops `s` (resumed first, in case it was stopped by SIGSTOP) and deletes its trace file. */
export function stopTraced(s: TracedServer): void {
  s.child.kill('SIGCONT');
  s.child.kill();
  fs.rmSync(s.traceFile, { force: true });
}

/** Resolves once GET /ping answers 2xx; throws after 10 s. */
export async function ready(s: TracedServer): Promise<void> {
  for (let i = 0; i < 50; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${s.port}/ping`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${s.name} did not answer GET /ping on port ${s.port} within 10 s`);
}

/** The connections of every study's wrk: also the requests in flight when it ends. */
export const WRK_CONNECTIONS = 100;

/** taskset's arguments for wrk on CPU 0 (1 thread, `WRK_CONNECTIONS` connections, 10 s timeout) against GET /json on `port` for `seconds`. */
export const wrkArgs = (port: number, seconds: number): string[] => [
  '-c',
  '0',
  'wrk',
  '-t1',
  `-c${WRK_CONNECTIONS}`,
  `-d${seconds}s`,
  '--timeout',
  '10s',
  `http://127.0.0.1:${port}/json`,
];

/** The requests wrk's summary counts ("N requests in"), NaN when absent. */
export const requestsOf = (out: string): number => Number(/(\d+) requests in/.exec(out)?.[1] ?? Number.NaN);

/** Runs wrk (`wrkArgs`) against `port` for `seconds`, waits for it, and returns the requests it counted (NaN when its summary lacks them). */
export const runWrk = (port: number, seconds: number): number =>
  requestsOf(spawnSync('taskset', wrkArgs(port, seconds), { encoding: 'utf8' }).stdout ?? '');

/** The clock ticks per second of /proc's CPU times. */
const TICK = 100;

/** CPU-seconds so far of process `pid` (or of its thread `thread`), user and system, from /proc. */
export function procCpu(pid: number, thread?: number): { user: number; sys: number } {
  const file = thread === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${thread}/stat`;
  const f = fs.readFileSync(file, 'utf8').split(')').pop()?.trim().split(' ') ?? [];
  return { user: Number(f[11]) / TICK, sys: Number(f[12]) / TICK };
}

/** CPU-seconds so far of process `pid`, user + system. */
export function cpuSeconds(pid: number): number {
  const c = procCpu(pid);
  return c.user + c.sys;
}

/** The geometric mean of paired ratios with its 95% CI (t on n − 1 df over the log ratios), as text. */
export function ratioSummary(ratios: number[]): string {
  const logs = ratios.map(Math.log);
  const n = logs.length;
  const mean = logs.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return `mean ${Math.exp(mean).toFixed(3)}`;
  const sd = Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
  const h = (tQuantile(0.975, n - 1) * sd) / Math.sqrt(n);
  return `mean ${Math.exp(mean).toFixed(3)} (95% CI ${Math.exp(mean - h).toFixed(3)}–${Math.exp(mean + h).toFixed(3)}, ${n} pairs)`;
}

/**
 * The trace's collections between two performance.now() times: scavenges, mark-compacts (any
 * "Mark-Compact" line, the memory reducer's included) and their main-thread pause in ms (the first
 * figure of "a / b ms").
 */
export function collections(
  s: TracedServer,
  from: number,
  to: number,
): { scavenges: number; markCompacts: number; ms: number } {
  const out = { scavenges: 0, markCompacts: 0, ms: 0 };
  for (const l of fs.readFileSync(s.traceFile, 'utf8').split('\n')) {
    const m = /\s(\d+) ms: (Scavenge|Mark-Compact)\b.*?, ([\d.]+) \/ [\d.]+ ms/.exec(l);
    if (!m) continue;
    const t = Number(m[1]) + s.t0;
    if (t < from || t >= to) continue;
    if (m[2] === 'Scavenge') out.scavenges++;
    else out.markCompacts++;
    out.ms += Number(m[3]);
  }
  return out;
}
