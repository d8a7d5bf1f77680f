/**
 * Runs one autocannon measurement (or warm-up) in a separate, pinned process.
 *
 * `runAutocannon` resolves with a LoadOutput; it rejects when the worker fails, and stops
 * the worker when `signal` aborts (e.g. the server crashed mid-run).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadJob, LoadOutput } from './types.ts';
import { runTracked, pinnedCommand } from '../lifecycle/processes.ts';

/** The job the worker reads: a LoadJob plus the autocannon shape. Durations in seconds. */
export interface AutocannonJob extends LoadJob {
  connections: number;
  pipelining: number;
  durationS: number;
  timeoutS: number;
}

const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'autocannon-worker.ts');

/** Runs the worker pinned to `cpus` (a taskset list, or null for unpinned). */
export async function runAutocannon(
  job: AutocannonJob,
  cpus: string | null,
  signal?: AbortSignal,
  onSpawn?: (pid: number) => void,
): Promise<LoadOutput> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-ac-'));
  try {
    const cfg = path.join(dir, 'job.json');
    const out = path.join(dir, 'out.json');
    fs.writeFileSync(cfg, JSON.stringify(job));
    const [cmd, ...args] = pinnedCommand(cpus, [
      process.execPath,
      '--disable-warning=ExperimentalWarning',
      WORKER,
      cfg,
      out,
    ]);
    const { code, output } = await runTracked(cmd, args, {
      signal,
      onSpawn,
      timeoutMs: (job.durationS + job.timeoutS + 30) * 1000,
    });
    if (signal?.aborted) throw new Error('load run aborted');
    if (code !== 0 || !fs.existsSync(out))
      throw new Error(`autocannon worker exited with code ${code}: ${output.slice(-2000)}`);
    return JSON.parse(fs.readFileSync(out, 'utf8'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
