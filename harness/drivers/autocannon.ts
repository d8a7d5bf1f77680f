/**
 * Runs one autocannon measurement (or warm-up) in a separate, pinned process.
 *
 * `runAutocannon` resolves with AutocannonOutput; it rejects when the worker fails, and stops
 * the worker when `signal` aborts (e.g. the server crashed mid-run).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConcreteRequest, ParamValues } from '../contract/scenarios.ts';
import { runTracked, pinnedCommand } from '../lifecycle/processes.ts';

/** The job the worker reads. Durations in seconds. */
export interface AutocannonJob {
  url: string;
  scenario: string;
  scenariosDir: string;
  params: ParamValues;
  request: ConcreteRequest;
  connections: number;
  pipelining: number;
  durationS: number;
  timeoutS: number;
  /** Check every N-th response against the contract. */
  sampleEvery: number;
}

/** What one autocannon run measured. Latencies in ms, bytes in bytes, rates in requests/s. */
export interface AutocannonOutput {
  requestsPerSec: { mean: number; stddev: number; samples: number[] };
  /** Latency of 2xx responses, ms, from an HDR histogram with microsecond resolution. */
  latencyMs: { mean: number; p50: number; p90: number; p99: number; max: number };
  /** That histogram (µs), compressed base64 (hdr-histogram-js), so trials can be merged exactly. */
  latencyHistogramUs: string;
  requests: { total: number; sent: number };
  errors: number;
  timeouts: number;
  non2xx: number;
  bytes: number;
  durationS: number;
  bodyChecks: { sampled: number; mismatched: number; firstMismatch?: string };
  /** CPU time the driver process used, ms (user and system). */
  driverCpuMs: { user: number; system: number };
}

const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'autocannon-worker.ts');

/** Runs the worker pinned to `cpus` (a taskset list, or null for unpinned). */
export async function runAutocannon(job: AutocannonJob, cpus: string | null, signal?: AbortSignal): Promise<AutocannonOutput> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-ac-'));
  try {
    const cfg = path.join(dir, 'job.json');
    const out = path.join(dir, 'out.json');
    fs.writeFileSync(cfg, JSON.stringify(job));
    const [cmd, ...args] = pinnedCommand(cpus, [process.execPath, '--disable-warning=ExperimentalWarning', WORKER, cfg, out]);
    const { code, output } = await runTracked(cmd, args, { signal, timeoutMs: (job.durationS + job.timeoutS + 30) * 1000 });
    if (signal?.aborted) throw new Error('load run aborted');
    if (code !== 0 || !fs.existsSync(out)) throw new Error(`autocannon worker exited with code ${code}: ${output.slice(-2000)}`);
    return JSON.parse(fs.readFileSync(out, 'utf8'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
