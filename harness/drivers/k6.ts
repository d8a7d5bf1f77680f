/**
 * The k6 load driver: finds (or builds) k6, writes the job for the one k6 script
 * (k6-script.js), runs k6 pinned to the client cores, and parses its handleSummary JSON into
 * the common LoadOutput.
 *
 * k6 is taken from PATH when its version is at least K6_VERSION, else from the tool cache
 * outside the clone (`cacheBin()`, e.g. ~/.cache/node-http-bakeoff/bin) or the project's old
 * `.tools/bin/`, built into the cache from the Go module `go.k6.io/k6` when Go is available
 * (`just tools`). Without k6 and Go, `findK6` says how to install k6 and k6 cells are skipped.
 *
 * `k6Driver` runs one window (LoadDriver): constant-vus windows last `durationS`; ramping-vus and
 * constant-arrival-rate windows keep the profile's own shape; k6 schedules its own threads.
 * With `job.variants` each iteration draws one variant at random and checks its response against
 * that variant's expectation.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { K6Profile, Profile } from '../core/profiles.ts';
import type { Scenario } from '../contract/scenarios.ts';
import { expectedAt, expectedExact } from '../contract/scenarios.ts';
import { onPath, pinnedCommand, runTracked } from '../lifecycle/processes.ts';
import { ROOT } from '../core/paths.ts';
import { coresOf } from './checks.ts';
import type { DriverProbe, LoadDriver, LoadJob, LoadOutput, WindowOptions } from './driver-types.ts';

/** The pinned k6 release (built from go.k6.io/k6 at this version). */
export const K6_VERSION = '1.8.1';
/** Oldest Go that builds it (k6 1.8's go.mod). */
export const GO_FOR_K6 = '1.25';
const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'k6-script.js');
/** The project's old, git-ignored tool folder (still searched). */
export const TOOLS_BIN = path.join(ROOT, '.tools', 'bin');

/**
 * The tool cache outside the clone, so a fresh clone (CI) reuses what an earlier one built:
 * `$BENCH_TOOLS_DIR`, else `${XDG_CACHE_HOME:-$HOME/.cache}/node-http-bakeoff/bin`.
 */
export function cacheBin(): string {
  if (process.env.BENCH_TOOLS_DIR) return process.env.BENCH_TOOLS_DIR;
  const base = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(base, 'node-http-bakeoff', 'bin');
}

/** "1.8.1" from `k6 version` output, or null. */
export function k6VersionOf(bin: string): string | null {
  const r = spawnSync(bin, ['version'], { encoding: 'utf8', env: { ...process.env, K6_NO_USAGE_REPORT: 'true' } });
  return /k6 v(\d+\.\d+\.\d+)/.exec(r.stdout ?? '')?.[1] ?? null;
}

/** True when version a ≥ b (x.y.z). */
export function versionAtLeast(a: string, b: string): boolean {
  const pa = a.split('.').map(Number);
  const pb = b.split('.').map(Number);
  for (let i = 0; i < 3; i++) if ((pa[i] ?? 0) !== (pb[i] ?? 0)) return (pa[i] ?? 0) > (pb[i] ?? 0);
  return true;
}

/**
 * The k6 binary to use, or `{ bin: null, why }` with instructions. Looks at BENCH_K6 (explicit
 * path, for tests), PATH, then `.tools/bin/k6`; with `build` set, builds the pinned k6 there
 * when Go is available.
 */
export function findK6(opts: { build: boolean; log?: (l: string) => void }): { bin: string | null; why: string } {
  const bin = cacheBin();
  const how = `install k6 ≥ ${K6_VERSION} on PATH, or Go ≥ ${GO_FOR_K6} and run \`npx just tools\` (builds go.k6.io/k6@v${K6_VERSION} into ${bin})`;
  if (process.env.BENCH_K6 !== undefined) {
    const v = process.env.BENCH_K6 ? k6VersionOf(process.env.BENCH_K6) : null;
    return v && versionAtLeast(v, K6_VERSION)
      ? { bin: process.env.BENCH_K6, why: '' }
      : { bin: null, why: `BENCH_K6=${process.env.BENCH_K6} is not k6 ≥ ${K6_VERSION}; ${how}` };
  }
  const sys = onPath('k6');
  const sysV = sys ? k6VersionOf(sys) : null;
  if (sys && sysV && versionAtLeast(sysV, K6_VERSION)) return { bin: sys, why: '' };
  for (const dir of [bin, TOOLS_BIN]) {
    const candidate = path.join(dir, 'k6');
    const v = fs.existsSync(candidate) ? k6VersionOf(candidate) : null;
    if (v && versionAtLeast(v, K6_VERSION)) return { bin: candidate, why: '' };
  }
  const local = path.join(bin, 'k6');
  const go = onPath('go');
  if (!go)
    return {
      bin: null,
      why: `k6 not found${sys ? ` (k6 on PATH is ${sysV ?? 'unreadable'})` : ''} and Go is not installed: ${how}`,
    };
  if (!opts.build) return { bin: null, why: `k6 not built yet: run \`npx just tools\` (${how})` };
  opts.log?.(`building k6 v${K6_VERSION} from go.k6.io/k6 into ${bin} (a few minutes, once)…`);
  fs.mkdirSync(bin, { recursive: true });
  const r = spawnSync(go, ['install', `go.k6.io/k6@v${K6_VERSION}`], {
    encoding: 'utf8',
    env: { ...process.env, GOBIN: bin, GOFLAGS: '-mod=mod' },
  });
  if (r.status !== 0)
    return {
      bin: null,
      why: `building k6 with Go failed: ${(r.stderr ?? '').trim().split('\n').slice(-5).join(' | ')}; ${how}`,
    };
  return k6VersionOf(local)
    ? { bin: local, why: '' }
    : { bin: null, why: `the k6 built into ${local} does not run; ${how}` };
}

/** What the script compares responses with: the scenario's expectation with the load values filled in. */
export function k6Expectation(
  s: Scenario,
  params: LoadJob['params'],
  sharedSchemas: object[],
): Record<string, unknown> {
  const b = s.response.body;
  const expect: Record<string, unknown> = {
    status: s.response.status,
    contentType: s.response.contentType,
    graphql: Boolean(b.graphql),
    at: expectedAt(s, params) ?? null,
  };
  if (b.text !== undefined) expect.text = b.text;
  else if (b.exact !== undefined) expect.exact = expectedExact(s, params);
  else expect.schema = inlineRefs(b.schema, sharedSchemas);
  return expect;
}

function inlineRefs(node: unknown, shared: object[]): unknown {
  if (Array.isArray(node)) return node.map((n) => inlineRefs(n, shared));
  if (node && typeof node === 'object') {
    const o = node as Record<string, unknown>;
    if (typeof o.$ref === 'string') {
      const target = shared.find((s) => (s as { $id?: string }).$id === o.$ref);
      if (!target) throw new Error(`unresolved $ref ${o.$ref}`);
      return inlineRefs(target, shared);
    }
    return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, inlineRefs(v, shared)]));
  }
  return node;
}

/** The k6 executor config for a profile (`durationS` overrides for warm-ups; `rate` resolved). */
export function k6Executor(p: K6Profile, rate: number | null, durationS?: number): Record<string, unknown> {
  const base = { gracefulStop: `${p.timeoutS}s` };
  if (p.executor === 'ramping-vus' && durationS === undefined) {
    return {
      ...base,
      executor: 'ramping-vus',
      startVUs: 0,
      // profiles.ts gives every ramping-vus profile its stages
      stages: (p.stages ?? []).map((s) => ({ duration: `${s.durationS}s`, target: s.target })),
      gracefulRampDown: `${p.timeoutS}s`,
    };
  }
  if (p.executor === 'constant-arrival-rate' && durationS === undefined) {
    if (!rate) throw new Error('constant-arrival-rate needs a rate');
    const vus = p.vus ?? 1000;
    return {
      ...base,
      executor: 'constant-arrival-rate',
      rate: Math.max(1, Math.round(rate)),
      timeUnit: '1s',
      duration: `${p.durationS}s`,
      preAllocatedVUs: Math.min(vus, 200),
      maxVUs: vus,
    };
  }
  return { ...base, executor: 'constant-vus', vus: p.vus ?? 50, duration: `${durationS ?? p.durationS}s` };
}

/** The part of k6's handleSummary JSON (k6 v1) that parseK6Summary reads; any field may be missing. */
export interface K6Summary {
  metrics?: Record<string, { values?: Record<string, number> } | undefined>;
  state?: { testRunDurationMs?: number };
}

/** Parses k6's handleSummary JSON (k6 v1) into a LoadOutput. `firstMismatch` comes from the script's stderr. */
export function parseK6Summary(summary: K6Summary, firstMismatch?: string): LoadOutput {
  const m = summary.metrics ?? {};
  const v = (name: string) => m[name]?.values ?? {};
  const count = (name: string) => Number(v(name).count ?? 0);
  const d = v('http_req_duration');
  const durationS = Number(summary.state?.testRunDurationMs ?? 0) / 1000;
  return {
    driver: 'k6',
    requestsPerSec: { mean: Number(v('http_reqs').rate ?? 0), stddev: 0, samples: [] },
    latencyMs: {
      mean: d.avg ?? 0,
      p50: d['p(50)'] ?? d.med ?? 0,
      p90: d['p(90)'] ?? 0,
      p95: d['p(95)'] ?? 0,
      p99: d['p(99)'] ?? 0,
      max: d.max ?? 0,
    },
    latencyHistogramUs: null,
    requests: { total: count('http_reqs') - count('bench_timeouts') - count('bench_errors'), sent: count('http_reqs') },
    errors: count('bench_errors'),
    timeouts: count('bench_timeouts'),
    non2xx: count('bench_non2xx'),
    bytes: count('data_received'),
    durationS,
    bodyChecks: { sampled: count('bench_body_sampled'), mismatched: count('bench_body_mismatched'), firstMismatch },
    driverCpuMs: null,
  };
}

/** A k6 job: the LoadJob plus what k6-script.js reads (see runK6). */
export type K6Job = LoadJob & {
  timeoutS: number;
  expect: Record<string, unknown>;
  executor: Record<string, unknown>;
  /** Per-variant request and expectation (k6-script.js draws one per iteration). */
  variantExpect?: { request: LoadJob['request']; expect: Record<string, unknown> }[];
};

/**
 * Runs k6 pinned to `cpus` with the job and returns its raw handleSummary JSON (k6 v1: `metrics`
 * by name, each with `values`; `state.testRunDurationMs`) and the script's first body mismatch.
 * Rejects when `signal` aborts, or k6 fails or writes no summary (after `limitS` seconds at most).
 */
export async function runK6Summary(
  bin: string,
  job: K6Job,
  cpus: string | null,
  signal?: AbortSignal,
  onSpawn?: (pid: number) => void,
  limitS = 900,
): Promise<{ summary: K6Summary; firstMismatch?: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-k6-'));
  try {
    const summaryPath = path.join(dir, 'summary.json');
    const cfgPath = path.join(dir, 'job.json');
    fs.writeFileSync(cfgPath, JSON.stringify({ ...job, summaryPath }));
    const [cmd, ...args] = pinnedCommand(cpus, [bin, 'run', '--quiet', '--no-color', SCRIPT]);
    const { code, output } = await runTracked(cmd, args, {
      signal,
      onSpawn,
      timeoutMs: limitS * 1000,
      env: { ...process.env, BENCH_K6_CONFIG: cfgPath, K6_NO_USAGE_REPORT: 'true', K6_WEB_DASHBOARD: 'false' },
    });
    if (signal?.aborted) throw new Error('load run aborted');
    if (!fs.existsSync(summaryPath))
      throw new Error(`k6 exited with code ${code} and wrote no summary: ${output.slice(-2000)}`);
    const firstMismatch = /BENCH_MISMATCH (.*)/.exec(output)?.[1]?.replace(/"\s+source=console.*$/, '');
    return { summary: JSON.parse(fs.readFileSync(summaryPath, 'utf8')), firstMismatch };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * k6's `dropped_iterations` count in a handleSummary JSON: iterations an arrival-rate executor
 * could not start because no VU was free (k6 leaves the metric out when there were none: 0).
 */
export function k6DroppedIterations(summary: unknown): number {
  const m = (summary as { metrics?: Record<string, { values?: { count?: number } }> } | null)?.metrics;
  return Number(m?.dropped_iterations?.values?.count ?? 0);
}

/** Runs k6 pinned to `cpus` with the job; rejects when k6 fails or writes no summary. */
export async function runK6(
  bin: string,
  job: K6Job,
  cpus: string | null,
  signal?: AbortSignal,
  onSpawn?: (pid: number) => void,
  limitS = 900,
): Promise<LoadOutput> {
  const { summary, firstMismatch } = await runK6Summary(bin, job, cpus, signal, onSpawn, limitS);
  return parseK6Summary(summary, firstMismatch);
}

let k6Cache: { key: string; found: { bin: string | null; why: string } } | null = null;

/** findK6 without building, cached per BENCH_K6/PATH value (a window must not spawn `k6 version` each time). */
function k6Found(): { bin: string | null; why: string } {
  const key = `${process.env.BENCH_K6 ?? '\u0000'}|${process.env.PATH ?? ''}|${process.env.BENCH_TOOLS_DIR ?? ''}`;
  if (k6Cache?.key !== key) k6Cache = { key, found: findK6({ build: false }) };
  return k6Cache.found;
}

/** k6 behind the LoadDriver interface (k6 profiles only). */
export const k6Driver: LoadDriver = {
  name: 'k6',
  interleaves: false,
  probe(): DriverProbe {
    const f = k6Found();
    const install = `npx just tools (Go ≥ ${GO_FOR_K6} builds go.k6.io/k6@v${K6_VERSION} into ${cacheBin()})`;
    return f.bin
      ? { name: 'k6', available: true, version: k6VersionOf(f.bin), why: '', install }
      : { name: 'k6', available: false, version: null, why: f.why, install };
  },
  async window(p: Profile, job: LoadJob, o: WindowOptions): Promise<LoadOutput> {
    if (p.driver !== 'k6') throw new Error(`k6 runs the k6 profiles, not ${p.name}`);
    const f = k6Found();
    if (!f.bin) throw new Error(`k6 not available: ${f.why}`);
    const executor =
      o.warmup || p.executor === 'constant-vus'
        ? k6Executor(p, o.rate ?? null, o.durationS)
        : k6Executor(p, o.rate ?? null);
    const variantExpect =
      job.variants && job.variants.length > 1
        ? job.variants.map((v) => ({
            request: v.request,
            expect: k6Expectation(o.scenario, v.params, o.sharedSchemas),
          }))
        : undefined;
    const out = await runK6(
      f.bin,
      {
        ...job,
        variants: undefined,
        timeoutS: p.timeoutS,
        expect: k6Expectation(o.scenario, job.params, o.sharedSchemas),
        executor,
        variantExpect,
      },
      o.cpus,
      o.signal,
      o.onSpawn,
    );
    // k6 schedules its own goroutines over every core it is given (GOMAXPROCS = cores).
    return { ...out, client: { cores: coresOf(o.cpus), threads: coresOf(o.cpus) } };
  },
};
