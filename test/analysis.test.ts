// The issue-analysis rules and the trial statistics, each on fixed result data.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as hdr from 'hdr-histogram-js';
import { findIssues } from '../harness/report/issues.ts';
import { bootstrapCI, mergeLatency, ratioCI, tied, trialStats } from '../harness/analysis/stats.ts';
import { aggregateTrials } from '../harness/scheduler/run.ts';
import type { CellResult } from '../harness/store/results.ts';

function cell(
  label: string,
  scenario: string,
  rps: number,
  patch: Partial<CellResult> = {},
  load: Record<string, unknown> = {},
): CellResult {
  const [contender, variant] = label.split(' +');
  return {
    schemaVersion: 1,
    runId: 'r',
    cellId: `${label}__${scenario}`,
    contender,
    variant: variant ?? null,
    label,
    displayName: label,
    tags: { framework: 'fw', httpClient: 'undici Pool', language: 'javascript' },
    scenario,
    driver: 'autocannon',
    profile: 'quick',
    node: { version: 'v24', major: 24 },
    status: 'ok',
    verification: { level: 'pass', reasons: [] },
    startupMs: 100,
    overheadMs: null,
    load: {
      driver: 'autocannon',
      requestsPerSec: { mean: rps, stddev: 0, samples: [rps, rps, rps] },
      latencyMs: { mean: 1, p50: 1, p90: 2, p99: 3, max: 4 },
      latencyHistogramUs: null,
      requests: { total: rps * 5, sent: rps * 5 },
      errors: 0,
      timeouts: 0,
      non2xx: 0,
      bytes: 1,
      durationS: 5,
      bodyChecks: { sampled: 10, mismatched: 0 },
      driverCpuMs: null,
      profile: { warmupS: 2 } as any,
      ...load,
    },
    failure: null,
    cpuPlan: {} as any,
    logFile: null,
    target: { kind: 'local', url: null },
    startedAt: '',
    finishedAt: '',
    ...patch,
  } as CellResult;
}
const titles = (cells: CellResult[]) =>
  findIssues(cells).map((f) => `${f.severity}|${f.label}|${f.scenario}|${f.title}`);
const res = (p: Partial<{ cpu: number; rssAvg: number; slope: number; clientCpu: number; clientBound: boolean }>) => ({
  server: {
    cpuPctAvg: p.cpu ?? 95,
    cpuPctPeak: 100,
    rssBytesAvg: p.rssAvg ?? 100 * 2 ** 20,
    rssBytesPeak: 120 * 2 ** 20,
    rssSlopeBytesPerS: p.slope ?? 0,
    samples: 25,
    pinnedCores: 1,
  },
  client: { cpuPctAvg: p.clientCpu ?? 50, cores: 1 },
  rpsPerCpuSecond: 1000,
  clientBound: p.clientBound ?? false,
});

test('a healthy set of cells has no findings', () => {
  assert.deepEqual(
    titles(['ping', 'json', 'echo', 'users', 'post'].map((s) => cell('a', s, 10_000, { resources: res({}) }))),
    [],
  );
});

test("seed 003's POST case: timeouts under load and a scenario collapsing against the others", () => {
  const cells = ['ping', 'json', 'echo', 'users']
    .map((s) => cell('nexus', s, 50_000))
    .concat(cell('nexus', 'post', 8, {}, { timeouts: 910, requests: { total: 80, sent: 990 } }));
  const t = titles(cells);
  assert.ok(t.includes('critical|nexus|post|errors under load'));
  assert.ok(t.includes('critical|nexus|post|scenario collapses'));
  const collapse = findIssues(cells).find((f) => f.title === 'scenario collapses')!;
  assert.match(
    collapse.evidence,
    /8 req\/s is 0\.00× the median of its other scenarios \(50000 req\/s\); look at how fw reads and parses the request body/,
  );
});

test('tail latency, RSS growth, client-bound and I/O wait', () => {
  assert.deepEqual(
    titles([cell('t', 'json', 1000, {}, { latencyMs: { mean: 1, p50: 0.5, p90: 1, p99: 40, max: 90 } })]),
    ['minor|t|json|tail latency'],
  );
  assert.deepEqual(
    titles([cell('m', 'json', 1000, { resources: res({ slope: 10 * 2 ** 20 }) })]),
    ['minor|m|json|RSS grows through the window (possible leak)'],
    'a short window only hints',
  );
  assert.deepEqual(titles([cell('m', 'json', 1000, { resources: res({ slope: 10 * 2 ** 20 }) }, { durationS: 60 })]), [
    'major|m|json|RSS grows through the window (possible leak)',
  ]);
  assert.deepEqual(
    titles([
      cell('m', 'json', 1000, { resources: res({ slope: 10 * 2 ** 20 }) }, { profile: { warmupS: 0 }, durationS: 2 }),
    ]),
    [],
    'no leak verdict without a warm-up on a short window',
  );
  assert.deepEqual(titles([cell('c', 'json', 1000, { resources: res({ clientCpu: 97, clientBound: true }) })]), [
    'minor|c|json|client-bound: the figure is a lower bound',
  ]);
  const io = findIssues([
    cell(
      'w',
      'fanout',
      1000,
      { resources: res({ cpu: 20 }) },
      { latencyMs: { mean: 9, p50: 9, p90: 10, p99: 12, max: 20 } },
    ),
  ]);
  assert.deepEqual(
    io.map((f) => f.title),
    ['server idle while latency is high (waiting on I/O)'],
  );
  assert.match(
    io[0].evidence,
    /server CPU 20% of 1 core\(s\) with p50 9\.0 ms; look at the fan-out client \(undici Pool\)/,
  );
});

test('variant overhead, HTTP-client overhead on fan-out, startup outliers and noisy trials', () => {
  const axios = cell('nest-axios', 'fanout', 1000, {}, {});
  axios.tags = { ...axios.tags, framework: 'nestjs', adapter: 'fastify', httpClient: 'axios' };
  const undici = cell('nest-undici', 'fanout', 2000);
  undici.tags = { ...undici.tags, framework: 'nestjs', adapter: 'fastify', httpClient: 'undici' };
  const variant = cell('nest-undici +interceptor', 'fanout', 1600);
  const f = findIssues([axios, undici, variant]);
  assert.match(
    f.find((x) => x.title === 'variant overhead')!.evidence,
    /1600 vs 2000 req\/s without the variant: \+25\.0% time per request/,
  );
  const client = f.filter((x) => x.title === 'HTTP-client overhead on fan-out');
  assert.equal(client.length, 1);
  assert.match(
    client[0].evidence,
    /axios: 1000 req\/s vs undici \(`nest-undici`\): 2000 req\/s, 2\.00× with the same nestjs on fastify/,
  );
  const slow = ['a', 'b', 'c', 'lb4'].map((l) => cell(l, 'ping', 1000, { startupMs: l === 'lb4' ? 2400 : 200 }));
  assert.deepEqual(titles(slow), ['minor|lb4|(all)|slow startup']);
  const noisy = cell('n', 'json', 1000, {
    stats: trialStats([cell('n', 'json', 900), cell('n', 'json', 1000), cell('n', 'json', 1200)]),
  });
  assert.deepEqual(titles([noisy]), ['minor|n|json|noisy — re-run']);
});

test('trial statistics: median, bootstrap interval, merged HDR histograms, ties, ratios', () => {
  const trials = [1000, 1040, 980, 1010, 1020].map((r) => cell('a', 'json', r));
  const s = trialStats(trials);
  assert.equal(s.rps.median, 1010);
  assert.equal(s.rps.method, 'bootstrap over trials');
  assert.ok(s.rps.ci95[0] <= 1010 && s.rps.ci95[1] >= 1010 && s.rps.ci95[0] >= 980 && s.rps.ci95[1] <= 1040);
  assert.equal(s.noisy, false);
  assert.deepEqual(
    bootstrapCI([5, 5, 5], (x) => x[0]),
    [5, 5],
  );
  const one = trialStats([
    cell('a', 'json', 1000, {}, { requestsPerSec: { mean: 1000, stddev: 0, samples: [900, 950, 1100, 1000, 1000] } }),
  ]);
  assert.equal(one.rps.method, 'per-second samples (one trial)');
  assert.ok(one.rps.ci95[0] < 1000 && one.rps.ci95[1] > 1000);

  // Merging histograms is not averaging percentiles: 99 fast + 1 slow trial's tail.
  const enc = (values: number[]) => {
    const h = hdr.build({
      lowestDiscernibleValue: 1,
      highestTrackableValue: 120_000_000,
      numberOfSignificantValueDigits: 3,
    });
    for (const v of values) h.recordValue(v);
    return hdr.encodeIntoCompressedBase64(h);
  };
  const merged = mergeLatency([enc(Array(990).fill(1000)), enc(Array(10).fill(50_000))])!;
  assert.equal(merged.p50, 1);
  assert.ok(merged.p999 > 49 && merged.max > 49);

  const a = cell('a', 'json', 2000, { stats: trialStats([1990, 2000, 2010].map((r) => cell('a', 'json', r))) });
  const b = cell('b', 'json', 1000, { stats: trialStats([990, 1000, 1010].map((r) => cell('b', 'json', r))) });
  const c = cell('c', 'json', 1005, { stats: trialStats([995, 1005, 1015].map((r) => cell('c', 'json', r))) });
  assert.equal(tied(a, b), false);
  assert.equal(tied(b, c), true);
  const r = ratioCI(a, b);
  assert.ok(Math.abs(r.ratio - 2) < 1e-9 && r.ci95[0] < 2.02 && r.ci95[1] > 1.98);
});

test('aggregating trials: all ok → last trial plus stats; a failed trial → that failure, naming the trial', () => {
  const ok = aggregateTrials([cell('a', 'json', 900), cell('a', 'json', 1000), cell('a', 'json', 1100)], 3);
  assert.equal(ok.stats!.trials, 3);
  assert.equal(ok.stats!.rps.median, 1000);
  const crashed = cell('a', 'json', 0, {
    status: 'crashed',
    failure: { reason: 'server exited with code 1 during the load run', logTail: '' },
  });
  const agg = aggregateTrials([cell('a', 'json', 900), crashed, cell('a', 'json', 1100)], 3);
  assert.equal(agg.status, 'crashed');
  assert.equal(agg.failure!.reason, 'trial 2/3: server exited with code 1 during the load run');
});
