/**
 * The k6 open-loop driver (drivers/open-loop.ts): one step is one k6 run of the bake-off's k6
 * script (k6-script.js) with a constant-arrival-rate executor: k6 starts an iteration (one
 * request) every 1/rate s on schedule, on a free VU; when no VU is free the iteration is
 * *dropped* (k6's `dropped_iterations`), so `dropped > 0` means the rate was not held.
 *
 * Latency: k6's `http_req_duration` runs from the actual send. With a free VU the send is on
 * schedule, so that is the latency from the scheduled time; requests that would have waited are
 * dropped and counted instead of measured (no coordinated omission, but the queueing delay shows
 * as drops rather than as latency). VUs: `preAllocatedVUs = min(connections, max(20, ⌈rate × 0.05⌉))`,
 * `maxVUs = connections` (each VU keeps its own keep-alive connection).
 *
 * No contract checks run in a step (`sampleEvery: 0`): the capacity search runs after the
 * verifier and the closed-loop windows have checked the bodies. `job.variants` are sent as in the
 * k6 windows: one drawn at random per iteration.
 */
import { findK6, GO_FOR_K6, K6_VERSION, cacheBin, k6DroppedIterations, k6VersionOf, runK6Summary } from './k6.ts';
import { childCpuMeter, type OpenLoopDriver, type OpenLoopOutput, type OpenLoopStep } from './open-loop-base.ts';
import type { LoadJob } from './driver-types.ts';

/** The command that gets k6 (the same as `just doctor` prints). */
export const K6_INSTALL = `npx just tools (Go ≥ ${GO_FOR_K6} builds go.k6.io/k6@v${K6_VERSION} into ${cacheBin()}), or k6 ≥ ${K6_VERSION} on PATH`;

let found: { key: string; bin: string | null; version: string | null; why: string } | null = null;

/**
 * findK6 without building, with the version, cached per BENCH_K6 / PATH / BENCH_TOOLS_DIR (a
 * step must not spawn `k6 version` each time). `bin` null with `why` when k6 is missing.
 */
export function k6OpenLoopFound(): { bin: string | null; version: string | null; why: string } {
  const key = `${process.env.BENCH_K6 ?? '\u0000'}|${process.env.PATH ?? ''}|${process.env.BENCH_TOOLS_DIR ?? ''}`;
  if (found?.key !== key) {
    const f = findK6({ build: false });
    found = { key, bin: f.bin, version: f.bin ? k6VersionOf(f.bin) : null, why: f.why };
  }
  return found;
}

/**
 * The constant-arrival-rate executor of one step: `rate` (requests/s, rounded to a whole number
 * ≥ 1, as k6 takes an integer per `timeUnit`) for `durationS` s, the VUs of the module comment,
 * and a graceful stop of `timeoutS + 1` s so that a request still in flight at the end finishes
 * or times out (counted) instead of being cut off silently.
 */
export function k6OpenLoopExecutor(o: Pick<OpenLoopStep, 'rate' | 'durationS' | 'connections' | 'timeoutS'>) {
  const maxVUs = Math.max(1, Math.floor(o.connections));
  return {
    executor: 'constant-arrival-rate',
    rate: Math.max(1, Math.round(o.rate)),
    timeUnit: '1s',
    duration: `${Math.round(o.durationS * 1000)}ms`,
    preAllocatedVUs: Math.min(maxVUs, Math.max(20, Math.ceil(o.rate * 0.05))),
    maxVUs,
    gracefulStop: `${Math.ceil(o.timeoutS) + 1}s`,
  };
}

/**
 * Maps k6's handleSummary JSON of one step to an OpenLoopOutput: responses = http_reqs −
 * bench_errors − bench_timeouts; errors = bench_errors + bench_timeouts; non2xx = bench_non2xx;
 * dropped = dropped_iterations; latencies from http_req_duration (ms); achievedRps = 2xx
 * responses ÷ `step.durationS`; `scheduled` = the executor's whole rate × `step.durationS`.
 */
export function k6OpenLoopOutput(
  summary: unknown,
  step: Pick<OpenLoopStep, 'rate' | 'durationS'>,
  driverCpuMs: number | null,
): OpenLoopOutput {
  const s = (summary ?? {}) as {
    metrics?: Record<string, { values?: Record<string, number> }>;
    state?: { testRunDurationMs?: number };
  };
  const m = s.metrics ?? {};
  const v = (name: string): Record<string, number> => m[name]?.values ?? {};
  const count = (name: string) => Number(v(name).count ?? 0);
  const errors = count('bench_errors') + count('bench_timeouts');
  const responses = Math.max(0, count('http_reqs') - errors);
  const non2xx = count('bench_non2xx');
  const d = v('http_req_duration');
  return {
    driver: 'k6',
    rate: step.rate,
    scheduled: Math.round(Math.max(1, Math.round(step.rate)) * step.durationS),
    responses,
    achievedRps: step.durationS > 0 ? (responses - non2xx) / step.durationS : 0,
    latencyMs: {
      p50: Number(d['p(50)'] ?? d.med ?? 0),
      p90: Number(d['p(90)'] ?? 0),
      p99: Number(d['p(99)'] ?? 0),
      max: Number(d.max ?? 0),
    },
    errors,
    non2xx,
    dropped: k6DroppedIterations(summary),
    durationS: Number(s.state?.testRunDurationMs ?? 0) / 1000,
    driverCpuMs,
  };
}

/** k6 behind the OpenLoopDriver interface (see the module comment). */
export const k6OpenLoop: OpenLoopDriver = {
  name: 'k6',
  version() {
    const f = k6OpenLoopFound();
    return f.bin ? `k6 ${f.version ?? 'version unknown'}` : null;
  },
  /** Runs one step; rejects when k6 is missing or fails, `o.rate` is not positive, or `o.signal` aborts. */
  async step(job: LoadJob, o: OpenLoopStep): Promise<OpenLoopOutput> {
    if (!(o.rate > 0) || !(o.durationS > 0)) throw new Error(`an open-loop step needs rate > 0 and durationS > 0`);
    const f = k6OpenLoopFound();
    if (!f.bin) throw new Error(`k6 not available: ${f.why}`);
    const variantExpect =
      job.variants && job.variants.length > 1
        ? job.variants.map((x) => ({ request: x.request, expect: {} }))
        : undefined;
    const meter = childCpuMeter();
    let cpu: number | null = null;
    const { summary } = await runK6Summary(
      f.bin,
      {
        ...job,
        variants: undefined,
        sampleEvery: 0,
        timeoutS: o.timeoutS,
        expect: {},
        executor: k6OpenLoopExecutor(o),
        variantExpect,
      },
      o.cpus,
      o.signal,
      (pid) => {
        meter.watch(pid);
        o.onSpawn?.(pid);
      },
      o.durationS + o.timeoutS + 120,
    ).finally(() => {
      cpu = meter.stop();
    });
    return k6OpenLoopOutput(summary, o, cpu);
  },
};
