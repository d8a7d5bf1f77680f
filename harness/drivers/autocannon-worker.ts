/**
 * The autocannon load driver, run as its own process (pinned to the client cores by the
 * harness) so its CPU use is separate from the orchestrator's.
 *
 * Usage: node autocannon-worker.ts <config.json> <out.json>
 * Config: AutocannonJob (see autocannon.ts). Output: LoadOutput, written when the run ends.
 * Every `sampleEvery`-th response is checked against the scenario contract (status,
 * content-type, framing, body); failures count as body mismatches.
 */
import fs from 'node:fs';
import autocannon from 'autocannon';
import * as hdr from 'hdr-histogram-js';
import { ContractChecker } from '../contract/verify.ts';
import { loadScenarios, loadSharedSchemas } from '../contract/scenarios.ts';
import type { AutocannonJob } from './autocannon.ts';
import type { LoadOutput } from './types.ts';

const [configPath, outPath] = process.argv.slice(2);
const job: AutocannonJob = JSON.parse(fs.readFileSync(configPath, 'utf8'));
const scenario = loadScenarios(job.scenariosDir).find((s) => s.name === job.scenario)!;
const checker = new ContractChecker(loadSharedSchemas(job.scenariosDir));

let seen = 0;
let sampled = 0;
let mismatched = 0;
let firstMismatch: string | undefined;
const perSecond: number[] = [];
// autocannon's own latency histogram has 1 ms resolution (p50 of a fast server reads 0 ms);
// this one records every 2xx response's latency in microseconds.
const latencyUs = hdr.build({
  lowestDiscernibleValue: 1,
  highestTrackableValue: 120_000_000,
  numberOfSignificantValueDigits: 3,
});

function onResponse(
  status: number,
  body: string,
  _ctx: unknown,
  headers: Record<string, string | string[] | undefined> | undefined,
) {
  if (seen++ % job.sampleEvery !== 0) return;
  sampled++;
  const lower: Record<string, string | string[] | undefined> = {};
  for (const [k, v] of Object.entries(headers ?? {})) lower[k.toLowerCase()] = v;
  const v = checker.checkResponse(scenario, job.params, { status, headers: lower, body: body ?? '' });
  if (v.level === 'fail') {
    mismatched++;
    firstMismatch ??= v.reasons.join('; ');
  }
}

const cpuStart = process.cpuUsage();
const instance = autocannon(
  {
    url: job.url,
    connections: job.connections,
    pipelining: job.pipelining,
    duration: job.durationS,
    timeout: job.timeoutS,
    requests: [{ ...job.request, method: job.request.method as autocannon.Request['method'], onResponse }],
  },
  (err: Error | null, result: any) => {
    if (err) {
      console.error(err.stack ?? String(err));
      process.exit(1);
    }
    const cpu = process.cpuUsage(cpuStart);
    const out: LoadOutput = {
      driver: 'autocannon',
      // autocannon ticks once more after it stops (a 0 it leaves out of its own mean): keep the measured seconds only.
      requestsPerSec: {
        mean: result.requests.mean,
        stddev: result.requests.stddev,
        samples: perSecond.slice(0, Math.max(1, Math.round(job.durationS))),
      },
      latencyMs: {
        mean: latencyUs.mean / 1000,
        p50: latencyUs.getValueAtPercentile(50) / 1000,
        p90: latencyUs.getValueAtPercentile(90) / 1000,
        p99: latencyUs.getValueAtPercentile(99) / 1000,
        max: latencyUs.maxValue / 1000,
      },
      latencyHistogramUs: hdr.encodeIntoCompressedBase64(latencyUs),
      requests: { total: result.requests.total, sent: result.requests.sent },
      errors: result.errors,
      timeouts: result.timeouts,
      non2xx: result.non2xx,
      bytes: result.throughput.total,
      durationS: result.duration,
      bodyChecks: { sampled, mismatched, firstMismatch },
      driverCpuMs: { user: cpu.user / 1000, system: cpu.system / 1000 },
    };
    fs.writeFileSync(outPath, JSON.stringify(out));
    process.exit(0);
  },
);
instance.on('response', (_client: unknown, status: number, _bytes: number, ms: number) => {
  if (status >= 200 && status < 300) latencyUs.recordValue(Math.max(1, Math.round(ms * 1000)));
});
(instance as unknown as import('node:events').EventEmitter).on('tick', ({ counter }: { counter: number }) =>
  perSecond.push(counter),
);
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.on(sig, () => {
    instance.stop();
    process.exit(130);
  });
