/**
 * The autocannon load driver, run as its own process (pinned to the client cores by the
 * harness) so its CPU use is separate from the orchestrator's.
 *
 * Usage: node autocannon-worker.ts <config.json> <out.json>
 * Config: AutocannonJob (see autocannon.ts). Output: LoadOutput, written when the window ends.
 *
 * Requests and checks go through the hooks in `autocannon-hooks/` (files, because autocannon's
 * `workers` mode needs them as files): with `job.variants` each request is one variant drawn
 * at random (setupRequest); every `sampleEvery`-th response of each thread is kept and checked
 * here, after the window, with the verifier's ContractChecker against the variant it answered.
 *
 * One thread (`workers` ≤ 1): latencies of 2xx responses go into an HDR histogram in µs (autocannon's
 * own has 1 ms buckets) and requests/s per second are kept. With `workers` > 1 autocannon's
 * threads report neither, so latency comes from autocannon's merged histogram (1 ms buckets),
 * no HDR histogram and no per-second samples are recorded.
 *
 * With `job.tickFile`, for the live progress line of the terminal, a WindowTick JSON line is
 * appended there when the load starts (elapsedS 0, requestsPerSec null) and, with one thread
 * (autocannon's worker threads do not forward their ticks), with each per-second count.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRequire } from 'node:module';
import autocannon from 'autocannon';
import * as hdr from 'hdr-histogram-js';
import { loadScenarios, loadSharedSchemas } from '../contract/scenarios.ts';
import type { AutocannonJob } from './autocannon.ts';
import { checkSamples, coresOf, type SampledResponse, variantParams } from './checks.ts';
import type { LoadOutput, WindowTick } from './driver-types.ts';

const HOOKS = path.join(path.dirname(fileURLToPath(import.meta.url)), 'autocannon-hooks');
const MAX_SAMPLES = 20_000;

const [configPath, outPath] = process.argv.slice(2);
if (configPath === undefined || outPath === undefined)
  throw new Error('usage: autocannon-worker <job.json> <out.json>');
const job: AutocannonJob = JSON.parse(fs.readFileSync(configPath, 'utf8'));
const scenario = loadScenarios(job.scenariosDir).find((s) => s.name === job.scenario);
if (!scenario) throw new Error(`autocannon-worker: no scenario named ${job.scenario} in ${job.scenariosDir}`);
const shared = loadSharedSchemas(job.scenariosDir);
const workers = Math.max(1, Math.min(job.workers ?? 1, job.connections));
const variants = job.variants && job.variants.length > 1 ? job.variants.map((v) => v.request) : null;

const samplesDir = path.join(path.dirname(outPath), 'samples');
fs.mkdirSync(samplesDir, { recursive: true });
const hooksConfig = path.join(path.dirname(outPath), 'hooks.json');
fs.writeFileSync(
  hooksConfig,
  JSON.stringify({
    variants,
    pipelining: job.pipelining,
    sampleEvery: Math.max(1, job.sampleEvery),
    samplesDir,
    maxSamples: MAX_SAMPLES,
  }),
);
process.env.BENCH_AC_HOOKS = hooksConfig;
const require = createRequire(import.meta.url);
const hookFile = (name: string) => path.join(HOOKS, name);

const perSecond: number[] = [];
const latencyUs = hdr.build({
  lowestDiscernibleValue: 1,
  highestTrackableValue: 120_000_000,
  numberOfSignificantValueDigits: 3,
});

const first = variants?.[0] ?? job.request;
const request: Record<string, unknown> = {
  method: first.method,
  path: first.path,
  headers: first.headers,
  body: first.body,
  onResponse: workers > 1 ? hookFile('on-response.cjs') : require(hookFile('on-response.cjs')),
};
if (variants)
  request.setupRequest = workers > 1 ? hookFile('setup-request.cjs') : require(hookFile('setup-request.cjs'));

/** Samples of every thread: this one's in memory, the worker threads' from their files (written as they exit). */
async function collectSamples(): Promise<SampledResponse[]> {
  if (workers <= 1) return require(hookFile('state.cjs')).samples;
  const deadline = Date.now() + 5000;
  let files: string[] = [];
  while (Date.now() < deadline) {
    files = fs.readdirSync(samplesDir).filter((f) => f.startsWith('samples-'));
    if (files.length >= workers) break;
    await sleep(50);
  }
  return files.flatMap((f) => JSON.parse(fs.readFileSync(path.join(samplesDir, f), 'utf8')));
}

const cpuStart = process.cpuUsage();
const instance = autocannon(
  {
    url: job.url,
    connections: job.connections,
    pipelining: job.pipelining,
    duration: job.durationS,
    timeout: job.timeoutS,
    ...(workers > 1 ? { workers } : {}),
    // autocannon's typings lack hook file paths (what worker threads need) and setupRequest's real signature.
    requests: [request as unknown as autocannon.Request],
  },
  (err: Error | null, result: autocannon.Result) => {
    if (err) {
      console.error(err.stack ?? String(err));
      process.exit(1);
    }
    void (async () => {
      const bodyChecks = checkSamples(scenario, shared, variantParams(job), await collectSamples());
      const cpu = process.cpuUsage(cpuStart);
      const single = workers <= 1;
      const out: LoadOutput = {
        driver: 'autocannon',
        // autocannon ticks once more after it stops (a 0 it leaves out of its own mean): keep the measured seconds only.
        requestsPerSec: {
          mean: result.requests.mean,
          stddev: result.requests.stddev,
          samples: single ? perSecond.slice(0, Math.max(1, Math.round(job.durationS))) : [],
        },
        latencyMs: single
          ? {
              mean: latencyUs.mean / 1000,
              p50: latencyUs.getValueAtPercentile(50) / 1000,
              p90: latencyUs.getValueAtPercentile(90) / 1000,
              p95: latencyUs.getValueAtPercentile(95) / 1000,
              p99: latencyUs.getValueAtPercentile(99) / 1000,
              p999: latencyUs.getValueAtPercentile(99.9) / 1000,
              max: latencyUs.maxValue / 1000,
            }
          : {
              mean: result.latency.mean,
              p50: result.latency.p50,
              p90: result.latency.p90,
              p99: result.latency.p99,
              p999: result.latency.p99_9,
              max: result.latency.max,
            },
        latencyHistogramUs: single ? hdr.encodeIntoCompressedBase64(latencyUs) : null,
        requests: { total: result.requests.total, sent: result.requests.sent },
        errors: result.errors,
        timeouts: result.timeouts,
        non2xx: result.non2xx,
        bytes: result.throughput.total,
        durationS: result.duration,
        bodyChecks,
        driverCpuMs: { user: cpu.user / 1000, system: cpu.system / 1000 },
        client: { cores: coresOf(job.cpus ?? null), threads: workers },
      };
      fs.writeFileSync(outPath, JSON.stringify(out));
      process.exit(0);
    })();
  },
);
instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
  if (status >= 200 && status < 300) latencyUs.recordValue(Math.max(1, Math.round(ms * 1000)));
});
/** Live progress (autocannon.ts reads it back). */
const sendTick = (tick: WindowTick) => {
  if (job.tickFile) fs.appendFileSync(job.tickFile, `${JSON.stringify(tick)}\n`);
};
// autocannon's Instance typings declare only some of its events ('start' and 'tick' are missing).
const events = instance as unknown as import('node:events').EventEmitter;
events.once('start', () => sendTick({ elapsedS: 0, requestsPerSec: null }));
events.on('tick', ({ counter }: { counter: number }) => {
  perSecond.push(counter);
  // The measured seconds only, not the trailing 0.
  if (perSecond.length <= Math.max(1, Math.round(job.durationS)))
    sendTick({ elapsedS: perSecond.length, requestsPerSec: counter });
});
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.on(sig, () => {
    instance.stop();
    process.exit(130);
  });
