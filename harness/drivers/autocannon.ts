/**
 * autocannon behind the LoadDriver interface: one window runs in a separate, pinned process
 * (autocannon-worker.ts) so its CPU use is separate from the orchestrator's. With
 * `threads` > 1 it uses autocannon's `workers` (worker threads; connections are divided among them).
 *
 * `runAutocannon` resolves with a LoadOutput; it rejects when the worker fails, and stops the
 * worker when `signal` aborts (e.g. the server crashed mid-run). With `onTick` the worker appends
 * autocannon's per-second counts to a file (one JSON line a second) that is read back every
 * 250 ms for the live progress line.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { Profile } from '../core/profiles.ts';
import { pinnedCommand, runTracked } from '../lifecycle/processes.ts';
import type { DriverProbe, LoadDriver, LoadJob, LoadOutput, WindowOptions, WindowTick } from './driver-types.ts';

/** The job the worker reads: a LoadJob plus the autocannon shape. Durations in seconds. */
export interface AutocannonJob extends LoadJob {
  connections: number;
  pipelining: number;
  durationS: number;
  timeoutS: number;
  /** autocannon worker threads (1 = none). */
  workers?: number;
  /** The client CPU list it runs on (recorded as LoadOutput.client). */
  cpus?: string | null;
  /** When set, the worker appends one WindowTick JSON line per second here (live progress). */
  tickFile?: string;
}

const WORKER = path.join(path.dirname(fileURLToPath(import.meta.url)), 'autocannon-worker.ts');

/** How often the tick file is read back, ms. */
const TICK_POLL_MS = 250;

/**
 * Calls `onTick` for every complete line appended to `file` since the last call; returns the
 * poller's stop function (reads once more, then clears its unref'd interval).
 */
function followTicks(file: string, onTick: (s: WindowTick) => void): () => void {
  let offset = 0;
  let rest = '';
  const read = () => {
    let fd: number;
    try {
      fd = fs.openSync(file, 'r');
    } catch {
      return; // not written yet
    }
    try {
      const buf = Buffer.alloc(4096);
      let n = fs.readSync(fd, buf, 0, buf.length, offset);
      while (n > 0) {
        offset += n;
        rest += buf.toString('utf8', 0, n);
        n = fs.readSync(fd, buf, 0, buf.length, offset);
      }
    } finally {
      fs.closeSync(fd);
    }
    const lines = rest.split('\n');
    rest = lines.pop() ?? '';
    for (const l of lines) {
      let tick: WindowTick;
      try {
        tick = JSON.parse(l);
      } catch {
        continue; // a torn line: skip it
      }
      onTick(tick);
    }
  };
  const timer = setInterval(read, TICK_POLL_MS);
  timer.unref();
  return () => {
    clearInterval(timer);
    read();
  };
}

/** Runs the worker pinned to `cpus` (a taskset list, or null for unpinned); `onTick`: live per-second samples. */
export async function runAutocannon(
  job: AutocannonJob,
  cpus: string | null,
  signal?: AbortSignal,
  onSpawn?: (pid: number) => void,
  onTick?: (s: WindowTick) => void,
): Promise<LoadOutput> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-ac-'));
  const tickFile = onTick ? path.join(dir, 'ticks.ndjson') : undefined;
  const stopTicks = tickFile && onTick ? followTicks(tickFile, onTick) : () => {};
  try {
    const cfg = path.join(dir, 'job.json');
    const out = path.join(dir, 'out.json');
    fs.writeFileSync(cfg, JSON.stringify({ ...job, cpus, ...(tickFile ? { tickFile } : {}) }));
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
    stopTicks();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** autocannon's installed version (from its package.json). */
export function autocannonVersion(): string {
  try {
    return createRequire(import.meta.url)('autocannon/package.json').version as string;
  } catch {
    return 'unknown';
  }
}

/** autocannon behind the LoadDriver interface (connection profiles; always available: an npm dependency). */
export const autocannonDriver: LoadDriver = {
  name: 'autocannon',
  interleaves: true,
  probe(): DriverProbe {
    return { name: 'autocannon', available: true, version: autocannonVersion(), why: '', install: 'npm ci' };
  },
  window(p: Profile, job: LoadJob, o: WindowOptions): Promise<LoadOutput> {
    if (p.driver === 'k6') return Promise.reject(new Error(`autocannon runs connection profiles, not ${p.name}`));
    return runAutocannon(
      {
        ...job,
        connections: p.connections,
        pipelining: p.pipelining,
        timeoutS: p.timeoutS,
        durationS: o.durationS,
        workers: o.threads,
      },
      o.cpus,
      o.signal,
      o.onSpawn,
      o.onTick,
    );
  },
};
