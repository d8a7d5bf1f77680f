// The estimator (analysis/stats.ts), the same-run ranked tables (analysis/tables.ts) and the issue
// analysis (report/issues.ts), each on fixed result data built from the real types (fixtures.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import * as hdr from 'hdr-histogram-js';
import {
  cellFailure,
  cellFigure,
  cellInterval,
  geometricEstimate,
  mergeLatency,
  NOISE_THRESHOLD,
  rankRows,
  ratio,
  sampleRatio,
  significantlyFaster,
  tQuantile,
  trialFigure,
  trialStats,
} from '../../harness/analysis/stats.ts';
import { baselineOf, buildTables, type RankedTable } from '../../harness/analysis/tables.ts';
import { findIssues } from '../../harness/report/issues.ts';
import { trialKey } from '../../harness/report/leak-findings.ts';
import { measurementNotes } from '../../harness/report/measurement-notes.ts';
import { describeOverhead, variantOverheads } from '../../harness/report/variant-overhead.ts';
import type { CellResult } from '../../harness/store/results.ts';
import { makeCell, makeMeta, makeTrial } from '../fixtures.ts';
import { loadScenarios } from '../../harness/contract/scenarios.ts';
import { ROOT } from '../helpers.ts';

/** The real scenario files: the issue analysis takes its reference set and hints from them. */
const SCENARIOS = loadScenarios(`${ROOT}/scenarios`);

const close = (a: number, b: number, tol = 1e-9) => Math.abs(a - b) <= tol * Math.max(1, Math.abs(b));
/** Five trials around `rps` with a fixed ±0.5% wobble (same pattern for every row: ratios are tight). */
const five = (rps: number, wobble = [1, 1.005, 0.995, 1.002, 0.998]) => wobble.map((w) => rps * w);

// ------------------------------------------------------------------------------------------------
// stats.ts

test('Student t quantiles match the tables (exact to 6 digits), also for fractional df', () => {
  for (const [df, t] of [
    [1, 12.706205],
    [2, 4.302653],
    [4, 2.776445],
    [9, 2.262157],
    [29, 2.04523],
    [120, 1.97993],
  ] as const)
    assert.ok(close(tQuantile(0.975, df), t, 1e-6), `df ${df}: ${tQuantile(0.975, df)}`);
  assert.ok(close(tQuantile(0.025, 4), -2.776445, 1e-6));
  assert.ok(tQuantile(0.975, 4.5) < tQuantile(0.975, 4) && tQuantile(0.975, 4.5) > tQuantile(0.975, 5));
  assert.throws(() => tQuantile(1, 3), /p must be in \(0, 1\)/);
});

test("a trial's figure is requests completed ÷ window seconds, not the driver's per-second mean", () => {
  const t = makeTrial(1000, { load: { durationS: 5, requests: { total: 5500, sent: 5600 } } });
  t.load!.requestsPerSec.mean = 900; // e.g. autocannon's mean with a slow first second
  assert.equal(trialFigure(t), 1100);
});

test('cell figure = geometric mean; ≥ 5 trials → 95% t-interval on the logs, 2–4 → range, 1 → none', () => {
  const s = trialStats([1000, 1040, 980, 1010, 1020].map((r) => makeTrial(r)));
  const logs = [1000, 1040, 980, 1010, 1020].map(Math.log);
  const m = logs.reduce((a, b) => a + b) / 5;
  const sd = Math.sqrt(logs.reduce((a, x) => a + (x - m) ** 2, 0) / 4);
  assert.ok(close(s.rps.figure, Math.exp(m)));
  assert.equal(s.rps.kind, 'ci95');
  assert.ok(close(s.rps.interval![0], Math.exp(m - (2.776445105 * sd) / Math.sqrt(5)), 1e-8));
  assert.ok(close(s.rps.interval![1], Math.exp(m + (2.776445105 * sd) / Math.sqrt(5)), 1e-8));
  assert.deepEqual(s.rounds, [1, 2, 3, 4, 5]);
  assert.match(s.rps.estimator, /geometric mean.*95% Student-t interval on the logs/);
  assert.equal(s.noisy, false);

  const three = trialStats([900, 1000, 1200].map((r) => makeTrial(r)));
  assert.equal(three.rps.kind, 'range');
  assert.deepEqual(three.rps.interval, [900, 1200]);
  assert.match(three.rps.estimator, /not a confidence interval/);
  assert.equal(three.noisy, true, '900–1200 is 30% apart');

  const one = trialStats([makeTrial(1234)]);
  assert.equal(one.rps.kind, 'none');
  assert.equal(one.rps.interval, null);
  assert.equal(one.rps.figure, 1234);
  assert.deepEqual(trialStats([makeTrial(1), makeTrial(2)], [3, 7]).rounds, [3, 7]);
});

test('merging HDR histograms is not averaging percentiles', () => {
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
  assert.equal(mergeLatency([null, null]), null);
});

test('paired ratio by round = figure A / figure B with all rounds; Welch across runs; ranges below 5', () => {
  const a = makeCell({ label: 'a', trials: [2000, 2100, 1900, 2050, 1950] });
  const b = makeCell({ label: 'b', trials: [1000, 1060, 940, 1020, 990] });
  const r = ratio(a, b);
  assert.equal(r.paired, true);
  assert.equal(r.kind, 'ci95');
  assert.equal(r.df, 4);
  assert.ok(close(r.figure, cellFigure(a) / cellFigure(b)));
  assert.ok(r.interval![0] < r.figure && r.figure < r.interval![1]);
  // Drift cancels: both rows slower in round 3 gives a tighter paired interval than unpaired.
  const unpaired = ratio(a, { ...b, runId: 'other' });
  assert.equal(unpaired.paired, false);
  assert.ok(close(unpaired.figure, r.figure));
  assert.ok(unpaired.interval![1] - unpaired.interval![0] > r.interval![1] - r.interval![0]);
  // 3 rounds: the min–max of the per-round ratios, labelled range.
  const r3 = sampleRatio([200, 220, 180], [100, 100, 100], [1, 2, 3], [1, 2, 3]);
  assert.equal(r3.kind, 'range');
  assert.ok(close(r3.interval![0], 1.8) && close(r3.interval![1], 2.2));
  assert.equal(sampleRatio([5], [1]).kind, 'none');
});

test('significantly faster needs an interval wholly above 1 AND a ratio ≥ 1 + NOISE_THRESHOLD (3%)', () => {
  assert.equal(NOISE_THRESHOLD, 0.03);
  const base = makeCell({ label: 'b', trials: five(1000) });
  const tiny = makeCell({ label: 't', trials: five(1020) }); // 2% faster, tight interval: below the threshold
  const clear = makeCell({ label: 'c', trials: five(1100) });
  const three = makeCell({ label: 'x', trials: [1500, 1510, 1490] }); // 50% faster but only 3 trials: no ci95
  assert.equal(significantlyFaster(tiny, base), false);
  assert.equal(significantlyFaster(clear, base), true);
  assert.equal(significantlyFaster(base, clear), false);
  assert.equal(significantlyFaster(three, makeCell({ label: 'b', trials: [1000, 1001, 999] })), false);
});

test('chain fixture: A ≈ B and B ≈ C but A ≫ C — C does not share A’s rank', () => {
  const A = makeCell({ label: 'A', trials: five(1040) });
  const B = makeCell({ label: 'B', trials: five(1020) });
  const C = makeCell({ label: 'C', trials: five(1000) });
  assert.equal(significantlyFaster(A, B), false);
  assert.equal(significantlyFaster(B, C), false);
  assert.equal(significantlyFaster(A, C), true);
  assert.deepEqual(rankRows([A, B, C]), [1, 1, 2]);
});

test('a failed cell: non-ok status, > 0.1% failed requests, or any wrong body', () => {
  assert.equal(cellFailure(makeCell()), null);
  assert.match(cellFailure(makeCell({ load: { non2xx: 10_000 } }))!, /100% of requests failed/);
  assert.equal(cellFailure(makeCell({ load: { timeouts: 5 }, rps: 10_000 })), null, '5 of 10,005 is 0.05%');
  assert.match(cellFailure(makeCell({ load: { timeouts: 20 } }))!, /0\.20% of requests failed/);
  assert.match(
    cellFailure(makeCell({ load: { bodyChecks: { sampled: 200, mismatched: 1 } } }))!,
    /1 of 200 checked bodies broke the contract/,
  );
  assert.equal(cellFailure(makeCell({ status: 'verify-failed' })), 'verify-failed');
});

// ------------------------------------------------------------------------------------------------
// tables.ts

const run = (runId: string, cells: CellResult[], patch: Parameters<typeof makeMeta>[0] = {}) => ({
  meta: makeMeta({ runId, startedAt: `2026-11-22T0${runId.slice(-1)}:00:00.000Z`, ...patch }),
  cells: cells.map((c) => ({ ...c, runId })),
});
const post = (label: string, trials: number[], patch: Parameters<typeof makeCell>[0] = {}) =>
  makeCell({ label, scenario: 'post', trials, ...patch });

test("issue 11's post · quick table: hono and express no longer share a rank; the summary uses the same test", () => {
  const [t] = buildTables([
    run('r1', [
      post('node-http', five(68_300)),
      post('fastify', five(67_900, [1, 1.01, 0.99, 1.004, 0.996])),
      post('hono', five(55_062)),
      post('express', five(36_669, [1, 1.02, 0.98, 1.01, 0.99])),
    ]),
  ]);
  const rank = Object.fromEntries(t!.rows.map((r) => [r.label, r.rank]));
  // The table model pools the noise: these rows barely vary, so even fastify's 0.6% is resolved.
  assert.deepEqual(rank, { 'node-http': 1, fastify: 2, hono: 3, express: 4 });
  assert.ok(t!.model, 'the table has a model');
  assert.ok(t!.model!.mdd.pair < 0.05, `a quiet table resolves small differences: ${t!.model!.mdd.pair}`);
  assert.equal(t!.baseline, 'node-http');
  assert.equal(t!.runId, 'r1');
  for (const r of t!.rows) {
    assert.equal(r.kind, 'ci95');
    assert.ok(r.interval![0] <= r.figure && r.figure <= r.interval![1]);
    assert.ok(r.vsBaseline!.interval![0] <= r.vsBaseline!.figure && r.vsBaseline!.figure <= r.vsBaseline!.interval![1]);
  }
  const s = t!.summary!;
  assert.equal(s.fastest, 'node-http');
  const by = Object.fromEntries(s.comparisons.map((c) => [c.label, c]));
  assert.equal(by.fastify!.tied, false);
  assert.equal(by.fastify!.verdict, 'faster');
  assert.equal(by.hono!.tied, false);
  assert.ok(close(by.hono!.ratio.figure, 68_300 / 55_062, 1e-3), `${by.hono!.ratio.figure}`);
  assert.ok(close(by.express!.ratio.figure, 68_300 / 36_669, 1e-2));
  // "tied" in the summary ⇔ the model's verdict is not 'faster' ⇔ the rank test.
  for (const c of s.comparisons) assert.equal(c.tied, c.verdict !== 'faster');
  // Rows are ordered by figure, and each rank is a range that holds its best rank.
  const figures = t!.rows.map((r) => r.vsBaseline?.figure ?? 1);
  assert.deepEqual(
    figures,
    [...figures].sort((a, b) => b - a),
  );
  for (const r of t!.rows)
    assert.ok(r.rankRange && r.rankRange.best === r.rank && r.rankRange.best <= r.rankRange.worst);
});

test('a contender that failed 100% of its POSTs is shown as failed and never ranked', () => {
  const [t] = buildTables([
    run('r1', [
      post('node-http', five(60_000)),
      post('nexus', five(90_000), { load: { non2xx: 90_000 } }),
      post('express', five(30_000)),
    ]),
  ]);
  const nexus = t!.rows.find((r) => r.label === 'nexus')!;
  assert.equal(nexus.status, 'failed');
  assert.equal(nexus.rank, null);
  assert.equal(nexus.vsBaseline, null);
  assert.match(nexus.flags.failed!, /100% of requests failed/);
  assert.equal(t!.rows[t!.rows.length - 1]!.label, 'nexus', 'failed rows come last');
  assert.deepEqual(
    t!.rows.filter((r) => r.rank !== null).map((r) => [r.label, r.rank]),
    [
      ['node-http', 1],
      ['express', 2],
    ],
  );
  assert.deepEqual(
    t!.summary!.comparisons.map((c) => c.label),
    ['express'],
  );
});

test('fewer than 5 trials: listed as not ranked with its range; lost services are not ranked', () => {
  const [t] = buildTables([
    run('r1', [
      post('node-http', five(60_000)),
      post('few', [50_100, 55_300, 52_000]),
      post('lost', five(10_000), { servicesLost: ['database'] }),
      post('k6less', [1], { status: 'skipped', load: null, failure: { reason: 'k6 not installed', logTail: '' } }),
    ]),
  ]);
  const skipped = t!.rows.find((r) => r.label === 'k6less')!;
  assert.equal(skipped.status, 'not-ranked');
  assert.equal(skipped.flags.failed, null, 'a skipped cell is not the contender failing');
  assert.deepEqual(skipped.notRanked, { reason: 'skipped', trials: 0, detail: 'k6 not installed' });
  const few = t!.rows.find((r) => r.label === 'few')!;
  assert.equal(few.status, 'not-ranked');
  assert.deepEqual(few.notRanked, { reason: 'few-trials', trials: 3, detail: null });
  assert.equal(few.kind, 'range');
  assert.deepEqual(few.interval, [50_100, 55_300]);
  const lost = t!.rows.find((r) => r.label === 'lost')!;
  assert.equal(lost.rank, null);
  assert.equal(lost.notRanked!.reason, 'services-lost');
  assert.equal(t!.summary, null, 'one ranked row: no summary');
});

test('two VMs with one CPU name and core count get separate tables, named by kernel and told apart by CPU identity', () => {
  const vm = (os: string, family: number) => ({
    machine: {
      cpuModel: 'AMD EPYC',
      cores: 2,
      memoryBytes: 1,
      os,
      arch: 'x64',
      cpu: { vendor: 'AuthenticAMD', family, model: 2, stepping: 1, microcode: '0x1', mitigations: {} },
    },
  });
  const tables = buildTables([
    run('r1', [post('node-http', five(90_000)), post('express', five(60_000))], vm('Linux 6.18.44-fc-v669', 25)),
    run('r2', [post('node-http', five(40_000)), post('express', five(30_000))], vm('Linux 6.18.44-fc-v657', 26)),
    run('r3', [post('node-http', five(41_000)), post('hono', five(35_000))], vm('Linux 6.18.44-fc-v657', 25)),
  ]);
  assert.equal(tables.length, 3, 'kernel or CPU identity differs: never one table');
  const labels = tables.map((t) => t.key.machine.label).sort();
  assert.match(labels[0]!, /AMD EPYC · 2 cores · Node v24[.\d]* · Linux 6\.18\.44-fc-v657$/);
  assert.match(labels[2]!, /· Linux 6\.18\.44-fc-v669$/);
  assert.equal(new Set(tables.map((t) => t.id)).size, 3);
  for (const t of tables) assert.equal(t.otherRuns.length, 0, `${t.runId}: another VM's rows are not borrowed`);
});

test('one run per table: other runs only as ratios to their own baseline; other machines get their own table', () => {
  const tables = buildTables([
    run('r1', [post('node-http', five(30_000)), post('old-one', five(15_000)), post('y', five(10_000))]),
    // As many contenders as r1 (a tie goes to the latest run).
    run('r2', [post('node-http', five(60_000)), post('y', five(45_000)), post('w', five(20_000))]),
    run('r3', [post('node-http', five(90_000)), post('z', five(9_000))], {
      machine: { cpuModel: 'Other CPU', cores: 8, memoryBytes: 1, os: 'Linux', arch: 'x64' },
    }),
  ]);
  assert.equal(tables.length, 2);
  const here = tables.find((t) => t.key.machine.cpuModel === 'AMD EPYC')!;
  assert.equal(here.runId, 'r2');
  assert.deepEqual(
    here.rows.map((r) => [r.label, r.runId]),
    [
      ['node-http', 'r2'],
      ['y', 'r2'],
      ['w', 'r2'],
    ],
  );
  assert.equal(here.otherRuns.length, 1, 'y of r1 is superseded; only old-one comes from r1');
  const o = here.otherRuns[0];
  assert.equal(o!.label, 'old-one');
  assert.equal(o!.runId, 'r1');
  assert.ok(close(o!.vsBaseline!.figure, 0.5, 1e-9), 'ratio to r1’s own node-http, not to r2’s');
  const other = tables.find((t) => t.key.machine.cpuModel === 'Other CPU')!;
  assert.equal(other.runId, 'r3');
  assert.deepEqual(
    other.rows.map((r) => r.label),
    ['node-http', 'z'],
  );
  assert.equal(other.otherRuns.length, 0);
  assert.match(other.key.machine.label, /Other CPU · 8 cores · Node v24/);
  // leaderboard --run r1: that run only, no other-run rows.
  const only = buildTables(
    [
      run('r1', [post('node-http', five(30_000)), post('old-one', five(15_000))]),
      run('r2', [post('node-http', five(60_000))]),
    ],
    { runId: 'r1' },
  );
  assert.deepEqual(
    only.map((t) => [t.runId, t.otherRuns.length]),
    [['r1', 0]],
  );
});

test("the scenario's baseline: Scenario.baseline when given, else node-http / postgraphile-express", () => {
  assert.equal(baselineOf('json'), 'node-http');
  assert.equal(baselineOf('graphql-users'), 'postgraphile-express');
  assert.equal(
    baselineOf('health-db', [{ name: 'health-db', baseline: 'postgraphile-express' }]),
    'postgraphile-express',
  );
  const [t] = buildTables(
    [
      run('r1', [
        makeCell({ label: 'postgraphile-express', scenario: 'graphql-users', trials: five(5000) }),
        makeCell({ label: 'postgraphile-fastify', scenario: 'graphql-users', trials: five(9500) }),
      ]),
    ],
    { scenarios: [{ name: 'graphql-users', baseline: 'postgraphile-express' }] },
  );
  assert.equal(t!.baselineRow!.label, 'postgraphile-express');
  assert.ok(close(t!.rows[0]!.vsBaseline!.figure, 1.9, 1e-6));
});

// ------------------------------------------------------------------------------------------------
// issues.ts

const rules = (cells: CellResult[], trials?: Map<string, CellResult[]>) =>
  findIssues(cells, { trials, scenarios: SCENARIOS }).map((f) => `${f.severity}|${f.label}|${f.scenario}|${f.rule}`);
const cell = (label: string, scenario: string, rps: number, patch: Parameters<typeof makeCell>[0] = {}) =>
  makeCell({ label, scenario, trials: five(rps), resources: {}, ...patch });

test('a healthy set of cells has no findings; client-bound and noisy cells are measurement notes, not findings', () => {
  const cells = ['ping', 'json', 'echo', 'users', 'post'].map((s) => cell('a', s, 10_000));
  assert.deepEqual(rules(cells), []);
  const bound = cell('node-http', 'json', 80_000, { resources: { clientBound: true, client: { cpuPctAvg: 97 } } });
  const noisy = makeCell({ label: 'n', scenario: 'json', trials: [900, 1000, 1200, 1100, 950] });
  assert.deepEqual(rules([bound, noisy]), []);
  const [t] = buildTables([{ meta: makeMeta(), cells: [bound, noisy] }]);
  const notes = measurementNotes(t!);
  assert.deepEqual(
    notes.map((n) => [n.kind, n.labels]),
    [
      ['client-bound', ['node-http']],
      ['noisy', ['n']],
    ],
  );
  assert.match(notes[0]!.detail, /node-http: the load driver used 97% of its core \(≥ 90%\).*lower bounds/);
  // The other reason: the server idled in a closed-loop window (lifecycle/sampler.ts clientBoundRule).
  const idle = cell('node-http', 'json', 9_000, {
    resources: {
      clientBound: true,
      clientBoundBy: 'server-idle',
      client: { cpuPctAvg: 60 },
      server: { cpuPctAvg: 28 },
    },
  });
  const [t2] = buildTables([{ meta: makeMeta(), cells: [idle] }]);
  assert.match(
    measurementNotes(t2!)[0]?.detail ?? '',
    /node-http: the server used 28% of its core \(below 85%\) while the driver kept every connection busy \(driver 60%\)/,
  );
});

test('a new contender joins the bake-off: the run with the most contenders is ranked, a later one-contender run adds a marked row', () => {
  const bakeOff = run('r1', [
    post('node-http', five(30_000)),
    post('fastify', five(28_000)),
    post('express', five(12_000)),
    post('hono', five(25_000)),
  ]);
  const koaRun = run('r2', [post('node-http', five(32_000)), post('koa', five(16_000))]);
  const [t] = buildTables([bakeOff, koaRun]);
  assert.equal(t!.runId, 'r1', 'the bake-off stays the table');
  assert.deepEqual(
    t!.rows.map((r) => [r.label, r.runId]),
    [
      ['node-http', 'r1'],
      ['fastify', 'r1'],
      ['hono', 'r1'],
      ['express', 'r1'],
    ],
  );
  assert.deepEqual(
    t!.otherRuns.map((r) => [r.label, r.runId]),
    [['koa', 'r2']],
  );
  assert.ok(close(t!.otherRuns[0]!.vsBaseline!.figure, 0.5, 1e-9), 'koa by its ratio to r2’s own node-http');
  // A later bake-off of as many contenders replaces the first.
  const again = run('r3', [
    post('node-http', five(30_000)),
    post('fastify', five(28_000)),
    post('express', five(12_000)),
    post('koa', five(15_000)),
  ]);
  const [t2] = buildTables([bakeOff, koaRun, again]);
  assert.equal(t2!.runId, 'r3');
  assert.deepEqual(
    t2!.otherRuns.map((r) => [r.label, r.runId]),
    [['hono', 'r1']],
  );
});

test('measurement notes: few trials, other runs, other machines, a missing baseline', () => {
  const tables = buildTables([
    run('r1', [post('old', five(1000)), post('node-http', five(2000))]),
    run('r2', [post('few', [1000, 1100]), post('x1', five(1000)), post('x2', five(1000))]),
    run('r3', [post('far', five(1000))], { machine: { cpuModel: 'X', cores: 4, memoryBytes: 1, os: 'l', arch: 'x' } }),
  ]);
  const t = tables.find((x: RankedTable) => x.runId === 'r2')!;
  assert.deepEqual(
    measurementNotes(t, tables).map((n) => n.kind),
    ['few-trials', 'no-baseline', 'other-runs', 'other-machines'],
  );
});

test("the Nexus report's POST case: a cell that failed 100% of its POSTs is a critical finding", () => {
  const cells = ['ping', 'json', 'echo', 'users']
    .map((s) => cell('nexus', s, 50_000))
    .concat(cell('nexus', 'post', 8, { load: { timeouts: 910, requests: { total: 0, sent: 990 } } }));
  assert.deepEqual(rules(cells), ['critical|nexus|post|errors-under-load']);
  const f = findIssues(cells, { scenarios: SCENARIOS })[0];
  assert.match(f!.evidence, /910 timeouts, 0 errors, 0 non-2xx of 910 requests \(100\.0% failed\)/);
  // The hint names the thing to check, where, and the command that reproduces the cell.
  assert.match(f!.evidence, /check how nexus reads the request body in contenders\/nexus\//);
  assert.match(f!.evidence, /reproduce: `npx just bench nexus --scenario post --profile quick`/);
  assert.match(f!.title, /cell failed, not ranked/);
});

test('severity of failed requests by share; rare wrong bodies (1 in 200) are critical; a collapsing scenario', () => {
  assert.deepEqual(rules([cell('m', 'json', 10_000, { load: { errors: 3 } })]), ['minor|m|json|errors-under-load']);
  assert.deepEqual(rules([cell('m', 'json', 10_000, { load: { errors: 50 } })]), ['major|m|json|errors-under-load']);
  assert.deepEqual(rules([cell('m', 'json', 10_000, { load: { non2xx: 1000 } })]), [
    'critical|m|json|errors-under-load',
  ]);
  assert.deepEqual(
    rules([cell('w', 'json', 1000, { load: { bodyChecks: { sampled: 200, mismatched: 1, firstMismatch: 'body' } } })]),
    ['critical|w|json|wrong-bodies'],
  );
  const collapse = ['ping', 'json', 'echo'].map((s) => cell('c', s, 50_000)).concat(cell('c', 'post', 400));
  assert.deepEqual(rules(collapse), ['critical|c|post|collapse']);
  // Another run's cells do not count as the contender's other scenarios.
  assert.deepEqual(
    rules(
      ['ping', 'json', 'echo'].map((s) => ({ ...cell('c', s, 50_000), runId: 'other' })).concat(cell('c', 'post', 400)),
    ),
    [],
  );
});

test('lifecycle failures, verification and the concurrency burst', () => {
  const failure = (reason: string) => ({ reason, logTail: 'Error: boom' });
  assert.deepEqual(
    rules([
      makeCell({ label: 'b', status: 'build-failed', failure: failure('tsc exited 2'), load: null }),
      makeCell({ label: 's', status: 'start-failed', failure: failure('no answer on /ping'), load: null }),
      makeCell({ label: 'x', status: 'crashed', failure: failure('exit 1 under load') }),
      makeCell({ label: 'v', status: 'verify-failed', failure: failure('status 500'), load: null }),
      makeCell({
        label: 'u',
        status: 'verify-failed',
        verification: { level: 'fail', reasons: ['concurrency burst (quick): 3 of 2000 responses wrong'] },
        failure: failure('verification failed'),
        load: null,
      }),
      makeCell({ label: 'k', status: 'skipped', load: null }),
    ]),
    // Worst first within a severity: what breaks a running service before what never started.
    [
      'critical|x|ping|crashed',
      'critical|u|ping|burst-failed',
      'critical|v|ping|verify-failed',
      'critical|s|ping|start-failed',
      'critical|b|ping|build-failed',
    ],
  );
});

test('the database went away: said as such, not as a slow or erroring contender', () => {
  const c = cell('postgraphile-express', 'health-db', 200, {
    servicesLost: ['database'],
    load: { non2xx: 5000, latencyMs: { mean: 50, p50: 1, p90: 100, p99: 900, max: 1000 } },
  });
  const f = findIssues([c]);
  assert.deepEqual(
    f.map((x) => x.rule),
    ['database-lost'],
  );
  assert.match(f[0]!.title, /the database went away/);
  assert.doesNotMatch(f[0]!.evidence, /slow/);
});

test('tail latency: a closed-loop tail at saturation is a measurement note; a finding only far above its peers at the same load', () => {
  const lat = (p50: number, p99: number) => ({
    load: { latencyMs: { mean: p50, p50, p90: p50 * 2, p99, max: p99 * 2 } },
  });
  // Alone, or like its peers (every tail 40–80× its p50): the load (coordinated omission), not a finding.
  assert.deepEqual(rules([cell('t', 'json', 1000, lat(0.5, 40))]), []);
  const alike = ['a', 'b', 'c', 't'].map((l, i) => cell(l, 'json', 1000, lat(0.5, 20 + 10 * i)));
  assert.deepEqual(rules(alike), []);
  const [t] = buildTables([{ meta: makeMeta(), cells: alike }]);
  const note = measurementNotes(t!).find((n) => n.kind === 'closed-loop-tail');
  assert.ok(note, 'a measurement note');
  assert.deepEqual(note.labels.sort(), ['a', 'b', 'c', 't']);
  assert.match(note.detail, /coordinated omission.*`npx just capacity`/);
  // Far above three peers at the same load (their p99 is 4× p50; its own 80×): a finding, with both sets of numbers.
  const peers = ['a', 'b', 'c'].map((l) => cell(l, 'json', 1000, lat(1, 4)));
  const outlier = cell('t', 'json', 1000, lat(0.5, 40));
  assert.deepEqual(rules([...peers, outlier]), ['minor|t|json|tail-latency']);
  const f = findIssues([...peers, outlier], { scenarios: SCENARIOS })[0]!;
  assert.match(
    f.evidence,
    /^p99 40\.0 ms is 80× its p50 0\.50 ms at 100 connections .* the 3 other contenders of the table have a median p99 of 4\.0× their p50/,
  );
  assert.match(f.evidence, /reproduce: `npx just bench t --scenario json --profile quick`/);
  // Its note no longer lists it: it is a finding.
  const [t2] = buildTables([{ meta: makeMeta(), cells: [...peers, outlier] }]);
  assert.equal(
    measurementNotes(t2!).find((n) => n.kind === 'closed-loop-tail'),
    undefined,
  );
  // Another run's cells are not peers.
  assert.deepEqual(rules([...peers.map((c) => ({ ...c, runId: 'other' })), outlier]), []);
});

test('RSS growth only when it persists: a long window, or rising in every round without flattening', () => {
  const growing = { server: { rssSlopeBytesPerS: 10 * 2 ** 20 } };
  // Short window, growth over the whole window only: pools and JIT filling, not a finding.
  assert.deepEqual(rules([cell('m', 'json', 1000, { resources: growing, load: { durationS: 5 } })]), []);
  // Long window (stress: 60 s).
  assert.deepEqual(rules([cell('m', 'json', 1000, { resources: growing, load: { durationS: 60 } })]), [
    'major|m|json|rss-growth',
  ]);
  // Across the rounds of one server: rising in every round, by ≥ 50%, still rising after the middle.
  const round = (mib: number, n: number) => ({
    ...makeTrial(1000, {
      label: 'm',
      scenario: 'json',
      load: { durationS: 1 },
      resources: { server: { rssBytesAvg: mib * 2 ** 20 } },
    }),
    round: n,
  });
  const c = cell('m', 'json', 1000, { resources: {}, load: { durationS: 1 } });
  const key = trialKey(c);
  assert.deepEqual(rules([c], new Map([[key, [60, 75, 90, 105, 120].map(round)]])), ['major|m|json|rss-growth']);
  // Warm-up growth that flattens, a round that fell, or too little growth: not a finding.
  assert.deepEqual(rules([c], new Map([[key, [100, 180, 185, 188, 190].map(round)]])), []);
  assert.deepEqual(rules([c], new Map([[key, [60, 75, 70, 105, 120].map(round)]])), []);
  assert.deepEqual(rules([c], new Map([[key, [100, 105, 110, 115, 120].map(round)]])), []);
  // Keyed by run and cell: another run's trials of the same cell id are not this cell's.
  assert.deepEqual(rules([c], new Map([[`other-run/${c.cellId}`, [60, 75, 90, 105, 120].map(round)]])), []);
});

test('startup outliers are judged within one run', () => {
  const slow = ['a', 'b', 'c', 'lb4'].map((l) => cell(l, 'ping', 1000, { startupMs: l === 'lb4' ? 2400 : 200 }));
  assert.deepEqual(rules(slow), ['minor|lb4|(all)|slow-startup']);
});

test('variant overhead carries its interval; "not resolved" when it includes 0 and no model says more, never a negative finding', () => {
  const base = cell('nest', 'fanout', 2000);
  const costly = cell('nest +interceptor', 'fanout', 1600);
  const free = makeCell({ label: 'nest +log', scenario: 'fanout', trials: [2040, 1950, 2030, 1980, 2010] });
  const o = variantOverheads([base, costly, free]);
  const by = Object.fromEntries(o.map((x) => [x.label, x]));
  assert.ok(close(by['nest +interceptor']!.overhead, 0.25, 1e-6));
  assert.equal(by['nest +interceptor']!.measurable, true);
  assert.match(
    describeOverhead(by['nest +interceptor']!),
    /^\+25\.0% time per request \(95% interval \+\d+\.\d% … \+\d+\.\d%\)$/,
  );
  assert.equal(by['nest +log']!.measurable, false);
  assert.match(
    describeOverhead(by['nest +log']!),
    /^not resolved, [+−]\d+\.\d% \(95% interval −\d+\.\d% … \+\d+\.\d%\)$/,
  );
  assert.deepEqual(rules([base, costly, free]), [], 'overheads are not findings');
});

test('cellInterval is what the table shows', () => {
  const c = makeCell({ trials: [10, 11, 12, 13, 14] });
  const iv = cellInterval(c);
  assert.equal(iv.kind, 'ci95');
  assert.ok(iv.interval![0] < cellFigure(c) && cellFigure(c) < iv.interval![1]);
  assert.ok(close(geometricEstimate([10, 11, 12, 13, 14]).figure, cellFigure(c)));
});
