/**
 * wrk (Debian package `wrk`, C, epoll) as a first-class load driver: the native driver with
 * headroom (docs/dev/notes-drivers.md has the ceilings measured here).
 *
 * One window = `durationS` seconds of `wrk -t<threads> -c<connections>`, pinned to the client
 * cores, driven by a generated Lua script (drivers/wrk-script.ts `wrkScript`):
 * - the request (method, path, headers, body) is static; with `job.variants` a `request()` hook
 *   returns one pre-formatted variant drawn at random per request;
 * - pipelining p > 1 (the profile's): `request()` returns p requests concatenated, a batch (each
 *   a random variant when there are variants). wrk (src/wrk.c, 4.1 and 4.2 alike) writes a
 *   batch whole, counts its responses down and writes the next batch only when all p have
 *   arrived: a connection has between 1 and p requests in flight, not p all the time (autocannon
 *   sends a new request per response and keeps p in flight);
 * - checks: defining `response()` makes wrk parse every header and body into Lua, which costs it
 *   about a third more CPU per response (measured here, notes-drivers.md). So a window runs two
 *   wrk processes side by side on the same cores: the main one without response() on most
 *   connections, and a checker on ≈ connections/sampleEvery of them (at least 1) whose
 *   response() counts every non-2xx status (3xx too; the main process counts only wrk's
 *   status > 399) and writes every n-th response (status, content-type, content-length,
 *   transfer-encoding, body) to a file, so about 1 in sampleEvery responses overall is checked,
 *   after the window, in Node with the verifier's ContractChecker (drivers/checks.ts). Pipelined
 *   or not, wrk counts each response, its status and its response() call one by one, so
 *   `requests.total`, non-2xx and the checks stay per response; `requests.sent` is the batches
 *   written × p under pipelining (in flight at the end: sent − total ≤ connections × p), else
 *   the responses;
 * - `done()` prints one JSON line (requests, duration, bytes, errors by kind, p50/p90/p95/p99/
 *   p99.9/max, the process's CPU time from /proc/self/stat) and writes wrk's raw latency values
 *   (`latency(i)`: value µs, count) to a file; both processes' values are merged into one HDR
 *   histogram, from which the window's percentiles are read.
 *
 * Latency (src/wrk.c): wrk records one value per batch, when the batch's last response
 * completes, measured from the start of the batch's write (without pipelining a batch is one
 * request). A batch beyond the timeout counts as one timeout. After the run wrk corrects the
 * histogram for coordinated omission (`stats_correct`): with the expected interval e = duration ÷
 * (responses ÷ connections), every value v ≥ 2e also adds v − e, v − 2e, … down to just above e.
 * So the histogram's counts are not response counts, and under pipelining (v ≈ p × e) about one
 * value in p is measured, the others are the correction's; its percentiles are of batch times
 * spread down to e, not of single responses (autocannon measures each response from its own
 * write). Compare latency between drivers only without pipelining. wrk's readers (`latency(i)`,
 * `percentile`) start at the smallest measured value, so the correction's values below it are
 * counted in the total but never read: the raw values the harness merges lack them (its
 * percentiles lean high under pipelining), and wrk's own percentile, used when the raw values
 * could not be read within done()'s CPU budget (wrk-script.ts), reads 0 for a rank among them;
 * the window then records wrk's maximum for it, an upper bound (`wrkPercentileUs`).
 *
 * `findWrk` returns null when wrk is not installed (BENCH_WRK overrides PATH; an empty value
 * means "none", for tests). Rates in requests/s, latencies in ms unless named Us.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import * as hdr from 'hdr-histogram-js';
import type { ConcreteRequest } from '../contract/scenarios.ts';
import type { Profile } from '../core/profiles.ts';
import { type Argv, onPath, pinnedCommand, runTracked } from '../lifecycle/processes.ts';
import { checkSamples, coresOf, type SampledResponse, variantParams } from './checks.ts';
import type { DriverProbe, LoadDriver, LoadJob, LoadOutput, WindowOptions } from './driver-types.ts';
import { parseWrkSummary, readSampleFile, type WrkSummary, wrkScript } from './wrk-script.ts';

export {
  luaString,
  MAX_SAMPLES_PER_THREAD,
  parseWrkSummary,
  readSampleFile,
  type WrkScriptOptions,
  type WrkSummary,
  wrkScript,
} from './wrk-script.ts';

/** The command that installs wrk on Debian/Ubuntu. */
export const WRK_INSTALL = 'apt-get install -y wrk';

/** The wrk binary (BENCH_WRK when set — an empty value means none, for tests — else PATH) and its version, or null. */
export function findWrk(): { bin: string; version: string } | null {
  const bin = process.env.BENCH_WRK !== undefined ? process.env.BENCH_WRK || null : onPath('wrk');
  if (!bin) return null;
  const r = spawnSync(bin, ['-v'], { encoding: 'utf8' });
  if (r.error) return null;
  const version = /wrk\s+(?:debian\/)?(\S+)/.exec(`${r.stdout}${r.stderr}`)?.[1] ?? 'unknown';
  return { bin, version };
}

/** The wrk argv of one window (before pinning). */
export function wrkArgv(
  bin: string,
  o: { threads: number; connections: number; durationS: number; timeoutS: number; script: string; url: string },
): Argv {
  const threads = Math.max(1, Math.min(o.threads, o.connections));
  return [
    bin,
    `-t${threads}`,
    `-c${o.connections}`,
    `-d${Math.max(1, Math.round(o.durationS))}s`,
    '--timeout',
    `${o.timeoutS}s`,
    '-s',
    o.script,
    o.url,
  ];
}

/**
 * How a window's connections are split (see the module docstring): `checker` connections run in
 * a second wrk process whose response() checks every `every`-th of its responses, the rest run
 * in the main process without response() (it costs wrk about a third more CPU per response,
 * docs/dev/notes-drivers.md). The overall sampling rate stays about 1/sampleEvery.
 * `mode: 'all'` puts response() on every connection (one process); `'none'` on none.
 */
export function splitConnections(
  connections: number,
  sampleEvery: number,
  mode: 'split' | 'all' | 'none' = 'split',
): { main: number; checker: number; every: number } {
  const n = Math.max(1, Math.floor(sampleEvery));
  if (mode === 'none') return { main: connections, checker: 0, every: n };
  if (mode === 'all') return { main: 0, checker: connections, every: n };
  const checker = Math.min(connections, Math.max(1, Math.round(connections / n)));
  return { main: connections - checker, checker, every: Math.max(1, Math.round((n * checker) / connections)) };
}

interface OneRun {
  summary: WrkSummary;
  samples: SampledResponse[];
  latencyFile: string;
  pid: number | null;
}

/** Runs one wrk process of a window (the main or the checker part). */
async function runOne(
  bin: string,
  dir: string,
  a: {
    requests: ConcreteRequest[];
    url: string;
    connections: number;
    threads: number;
    every: number;
    hook: boolean;
    histogram: boolean;
    pipelining: number;
    durationS: number;
    timeoutS: number;
  },
  o: Pick<WindowOptions, 'cpus' | 'signal' | 'onSpawn'>,
): Promise<OneRun> {
  fs.mkdirSync(dir, { recursive: true });
  const script = path.join(dir, 'window.lua');
  fs.writeFileSync(
    script,
    wrkScript({
      requests: a.requests,
      dir,
      sampleEvery: a.every,
      responseHook: a.hook,
      histogram: a.histogram,
      pipelining: a.pipelining,
    }),
  );
  const argv = wrkArgv(bin, { ...a, script });
  const [cmd, ...args] = pinnedCommand(o.cpus, argv);
  let pid: number | null = null;
  const { code, output } = await runTracked(cmd, args, {
    signal: o.signal,
    onSpawn: (p) => {
      pid = p;
      o.onSpawn?.(p);
    },
    timeoutMs: (a.durationS + a.timeoutS + 30) * 1000,
  });
  if (o.signal.aborted) throw new Error('wrk run aborted');
  if (code !== 0) throw new Error(`wrk exited with code ${code}: ${output.slice(-1000).trim()}`);
  const summary = parseWrkSummary(output);
  const samples = a.hook
    ? fs
        .readdirSync(dir)
        .filter((f) => f.startsWith('samples-'))
        .flatMap((f) => readSampleFile(path.join(dir, f)))
    : [];
  return { summary, samples, latencyFile: path.join(dir, 'latency.txt'), pid };
}

/**
 * A percentile as wrk's own `latency:percentile()` read it (µs), or its maximum `maxUs` when it
 * read 0: its rank then lies among the coordinated-omission correction's values below the
 * smallest measured one, which wrk counts but does not read (module docstring), so the maximum
 * is an upper bound of it.
 */
export function wrkPercentileUs(readUs: number, maxUs: number): number {
  return readUs > 0 ? readUs : maxUs;
}

/** Merges raw latency files into one HDR histogram, or null when one is missing or truncated. */
function mergedHistogram(files: string[]): hdr.Histogram | null {
  const h = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 120_000_000,
    numberOfSignificantValueDigits: 3,
  });
  for (const file of files) {
    if (!fs.existsSync(file)) return null;
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
    if (lines.includes('TRUNCATED')) return null;
    for (const l of lines) {
      const [v, c] = l.split(' ').map(Number);
      if (v !== undefined && c !== undefined && c > 0) h.recordValueWithCount(Math.max(1, v), c);
    }
  }
  return h.totalCount > 0 ? h : null;
}

/**
 * Runs one wrk window: the main wrk process (no response()) and the checker process (response()
 * on a few connections) side by side, both pinned to `o.cpus`, each connection sending batches of
 * `p.pipelining` requests, then the sampled checks in Node. `checks` chooses the split (splitConnections). Rejects when wrk fails, prints no result or
 * `o.signal` aborts.
 */
export async function runWrkWindow(
  bin: string,
  p: { connections: number; pipelining: number; timeoutS: number },
  job: LoadJob,
  o: WindowOptions & { checks?: 'split' | 'all' | 'none' },
): Promise<LoadOutput> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-wrk-'));
  try {
    const requests = job.variants?.length ? job.variants.map((v) => v.request) : [job.request];
    const split = splitConnections(p.connections, job.sampleEvery, o.checks ?? 'split');
    const [firstRequest = job.request] = requests;
    const url = job.url.replace(/\/$/, '') + firstRequest.path;
    const pipelining = Math.max(1, Math.floor(p.pipelining));
    const common = {
      requests,
      url,
      durationS: o.durationS,
      timeoutS: p.timeoutS,
      histogram: o.latency !== false,
      pipelining,
    };
    const mainThreads = split.main > 0 ? Math.max(1, Math.min(o.threads, split.main)) : 0;
    const runs = await Promise.all([
      split.main > 0
        ? runOne(
            bin,
            path.join(dir, 'main'),
            { ...common, connections: split.main, threads: mainThreads, every: split.every, hook: false },
            o,
          )
        : null,
      split.checker > 0
        ? runOne(
            bin,
            path.join(dir, 'checker'),
            { ...common, connections: split.checker, threads: 1, every: split.every, hook: true },
            // The scheduler samples the main process's CPU; the checker's is added to driverCpuMs.
            { ...o, onSpawn: split.main > 0 ? undefined : o.onSpawn },
          )
        : null,
    ]);
    const parts = runs.filter((r): r is OneRun => r !== null);
    const sum = (f: (s: WrkSummary) => number) => parts.reduce((acc, r) => acc + f(r.summary), 0);
    const [main, checker] = runs;
    const bodyChecks = checker
      ? checkSamples(o.scenario, o.sharedSchemas, variantParams(job), checker.samples)
      : { sampled: 0, mismatched: 0 };
    const durationS = Math.max(...parts.map((r) => r.summary.durationUs)) / 1e6;
    const requests_ = sum((s) => s.requests);
    const ticks = 100; // USER_HZ on Linux
    const cpuKnown = parts.every((r) => r.summary.utimeTicks >= 0);
    const h = mergedHistogram(parts.map((r) => r.latencyFile));
    const leadRun = main ?? checker;
    if (!leadRun) throw new Error('wrk ran no process (0 connections in the window)');
    const lead = leadRun.summary;
    const pct = (q: number, fallbackUs: number) =>
      (h ? h.getValueAtPercentile(q) : wrkPercentileUs(fallbackUs, lead.maxUs)) / 1000;
    return {
      driver: 'wrk',
      requestsPerSec: { mean: durationS > 0 ? requests_ / durationS : 0, stddev: 0, samples: [] },
      latencyMs: {
        mean: h ? h.mean / 1000 : lead.meanUs / 1000,
        p50: pct(50, lead.p50Us),
        p90: pct(90, lead.p90Us),
        p95: pct(95, lead.p95Us),
        p99: pct(99, lead.p99Us),
        p999: pct(99.9, lead.p999Us),
        max: Math.max(...parts.map((r) => r.summary.maxUs)) / 1000,
      },
      latencyHistogramUs: h ? hdr.encodeIntoCompressedBase64(h) : null,
      requests: { total: requests_, sent: pipelining > 1 ? sum((s) => s.batches) * pipelining : requests_ },
      errors: sum((s) => s.connect + s.read + s.write),
      timeouts: sum((s) => s.timeout),
      // The checker counts every status outside 2xx (3xx too); the main process only wrk's own > 399.
      non2xx: (main?.summary.status ?? 0) + (checker?.summary.non2xx ?? 0),
      bytes: sum((s) => s.bytes),
      durationS,
      bodyChecks,
      driverCpuMs: cpuKnown
        ? { user: (sum((s) => s.utimeTicks) * 1000) / ticks, system: (sum((s) => s.stimeTicks) * 1000) / ticks }
        : null,
      client: { cores: coresOf(o.cpus), threads: mainThreads + (checker ? 1 : 0) },
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** wrk behind the LoadDriver interface (connection profiles only). */
export const wrkDriver: LoadDriver = {
  name: 'wrk',
  interleaves: true,
  probe(): DriverProbe {
    const w = findWrk();
    return w
      ? { name: 'wrk', available: true, version: w.version, why: '', install: WRK_INSTALL }
      : {
          name: 'wrk',
          available: false,
          version: null,
          why: process.env.BENCH_WRK === '' ? 'wrk disabled (BENCH_WRK is empty)' : 'wrk is not installed',
          install: WRK_INSTALL,
        };
  },
  async window(p: Profile, job: LoadJob, o: WindowOptions): Promise<LoadOutput> {
    if (p.driver === 'k6') throw new Error(`wrk runs connection profiles, not the k6 profile ${p.name}`);
    const w = findWrk();
    if (!w) throw new Error(`wrk is not installed (${WRK_INSTALL})`);
    return runWrkWindow(w.bin, p, job, o);
  },
};
