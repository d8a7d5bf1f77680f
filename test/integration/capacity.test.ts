// The capacity search (issues 15 and 23): the bisection against model servers (no processes),
// the majority verdict of a rate, bounds per search, independent starts and the cap above the
// peak, the cell summary (figure from bracketed searches only) and its "never" rule, and one real
// search with a real open-loop driver against a fixture with a fixed CPU burn per request, whose
// capacity queueing predicts (test/unit/capacity-truth.test.ts: many simulated searches).
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import path from 'node:path';
import test from 'node:test';
import { cellFailure } from '../../harness/analysis/stats.ts';
import { getProfile, type CapacityShape } from '../../harness/core/profiles.ts';
import { parseProfileOverrides, withOverrides } from '../../harness/core/profile-overrides.ts';
import { decideRate, exploreRate, judgeStep, searchCapacity } from '../../harness/scheduler/capacity-search.ts';
import {
  priorStart,
  searchCap,
  searchPrior,
  searchStart,
  summarizeCapacity,
} from '../../harness/scheduler/capacity-round.ts';
import { aggregateTrials } from '../../harness/scheduler/aggregate.ts';
import type { CapacitySearch, CapacityStep } from '../../harness/store/results.ts';
import { SELFTEST_FIXTURES } from '../../harness/cli/selftest.ts';
import { loadScenarios } from '../../harness/contract/scenarios.ts';
import { loadManifests } from '../../harness/core/manifest.ts';
import { makeTrial } from '../fixtures.ts';
import {
  alive,
  CLI,
  descendants,
  readCells,
  readMetas,
  readRunAt,
  ROOT,
  runCli,
  TEST_LOCK_FILE,
  tmpDir,
} from '../helpers.ts';
import { listRuns } from '../../harness/store/runs.ts';

const CAPACITY = getProfile('capacity');
/** The capacity profile's own search shape. */
const SHAPE: CapacityShape =
  CAPACITY.driver !== 'k6' && CAPACITY.capacity ? CAPACITY.capacity : assert.fail('no shape');

/**
 * A model server with service rate `mu` (requests/s) and a fixed service time: below mu the p99
 * is the service time; above it the queue grows through the step (D/D/1), so the last request
 * waits (rate/mu − 1) × step seconds.
 */
function model(mu: number, opts: { clientLimit?: number } = {}) {
  const calls: number[] = [];
  const step = async (rate: number): Promise<CapacityStep> => {
    calls.push(rate);
    const s = 1000 / mu;
    const queueMs = rate > mu ? (rate / mu - 1) * SHAPE.stepS * 1000 : 0;
    const bound = opts.clientLimit !== undefined && rate > opts.clientLimit;
    const p99 = bound ? 500 : s + queueMs;
    return judgeStep(
      1,
      rate,
      {
        achievedRps: Math.min(rate, mu, opts.clientLimit ?? Number.POSITIVE_INFINITY),
        latencyMs: { p50: s, p90: s, p99, max: p99 },
        scheduled: rate * SHAPE.stepS,
        failed: 0,
        durationS: SHAPE.stepS,
        clientBound: bound,
      },
      10,
    );
  };
  return { step, calls };
}

/** A model's true capacity at the 10 ms SLO of `model`: its queue grows ≤ 10 ms over a step up to mu × (1 + 0.01 / stepS). */
const truth = (mu: number) => mu * (1 + 0.01 / SHAPE.stepS);

test('the search brackets a model server’s capacity within the precision, up to 1.5 × the closed-loop peak', async () => {
  for (const [mu, peak] of [
    [4000, 4100],
    [900, 1000],
    [20000, 26000],
    [5000, 4000], // a peak window that read low: the search goes above it
  ]) {
    const m = model(mu!);
    const r = await searchCapacity({
      search: 1,
      peakRps: peak!,
      capRps: 1.5 * peak!,
      shape: SHAPE,
      step: m.step,
      signal: new AbortController().signal,
    });
    assert.equal(r.verdict, 'met', `mu ${mu}`);
    assert.equal(r.bound, 'bracketed');
    // Slightly above mu the queue of a step stays under the 10 ms SLO: (rate/mu − 1) × stepS ≤ 10 ms.
    assert.ok(r.heldRps! <= truth(mu!) && r.failRps! > truth(mu!), `mu ${mu}: ${r.heldRps}–${r.failRps}`);
    assert.ok(r.failRps! / r.heldRps! <= SHAPE.precision, 'bracketed within the precision');
    assert.equal(
      r.rps,
      Math.round(Math.sqrt(r.heldRps! * r.failRps!)),
      'the figure is the bracket’s geometric midpoint',
    );
    assert.ok(r.steps.length <= SHAPE.maxSteps);
    assert.ok(
      r.steps.every((s) => s.pass || s.rate > mu!),
      'every step within the model’s capacity passed',
    );
  }
});

test('an early knee: a server far slower than its closed-loop peak is found by dividing the rate', async () => {
  const m = model(300);
  const r = await searchCapacity({
    search: 1,
    peakRps: 5000,
    shape: SHAPE,
    step: m.step,
    signal: new AbortController().signal,
  });
  assert.equal(r.verdict, 'met');
  assert.deepEqual(
    m.calls.slice(0, 5),
    [2500, 2500, 625, 625, 156],
    'from half the peak, ÷ 4 per failure, a failure decided by the majority (two agreeing steps here)',
  );
  assert.ok(r.steps.length <= SHAPE.maxSteps);
  const at = (rate: number) => r.steps.filter((s) => s.rate === rate);
  assert.ok(
    at(r.heldRps!).length >= 2 && at(r.failRps!).length >= 2,
    'both ends of the bracket confirmed by the majority',
  );
  assert.ok(r.heldRps! <= truth(300) && r.failRps! > truth(300) && r.failRps! / r.heldRps! <= SHAPE.precision);
});

test('no failure up to the cap is a lower bound (≥ the highest held rate), never a measured figure', async () => {
  const m = model(50000);
  const r = await searchCapacity({
    search: 1,
    peakRps: 10000,
    capRps: 15000,
    shape: SHAPE,
    step: m.step,
    signal: new AbortController().signal,
  });
  assert.equal(r.verdict, 'at-least');
  assert.equal(r.bound, 'no-failure');
  assert.equal(r.rps, r.heldRps, 'the highest held rate, not a midpoint');
  assert.ok(r.rps! > 10000 && r.rps! <= 15000 && 15000 / r.rps! <= SHAPE.precision, String(r.rps));
  assert.ok(Math.max(...m.calls) <= 15000, 'never above the cap');
});

test('later rounds start near the first bracketed search only: its figure times a seeded factor within 2^±(priorSpread/2), at most the cap', () => {
  const s = (rps: number | null, verdict: 'met' | 'at-least', bound: 'bracketed' | 'no-failure'): CapacitySearch => ({
    sloP99Ms: 10,
    driver: 'model',
    peakRps: 9000,
    rps,
    verdict,
    bound,
    steps: [],
  });
  assert.equal(searchPrior([], SHAPE), null, 'the first round has no prior');
  assert.equal(searchPrior([s(5000, 'at-least', 'no-failure')], SHAPE), null, 'a lower bound is no prior');
  const searches = [s(5000, 'at-least', 'no-failure'), s(4000, 'met', 'bracketed'), s(6000, 'met', 'bracketed')];
  assert.equal(searchPrior(searches, SHAPE), 4000, 'the first bracketed search, not the latest');
  const { gallop: _g, ...wide } = SHAPE;
  assert.equal(searchPrior(searches, wide), null, 'a profile without gallop has no priors');
  const w = SHAPE.priorSpread ?? 0;
  const starts = Array.from({ length: 200 }, (_, i) => priorStart(4000, 1e9, SHAPE, `seed/cell/${i}`));
  for (const x of starts) assert.ok(x >= 4000 * 2 ** (-w / 2) - 1e-9 && x < 4000 * 2 ** (w / 2), String(x));
  assert.ok(new Set(starts.map((x) => Math.round(x))).size > 150, 'the start is dithered between rounds');
  assert.equal(priorStart(4000, 3000, SHAPE, 'k'), 3000, 'never above the cap');
});

test('the first round starts independently of earlier results: a seeded start within 2^±½ of startShare × its peak', () => {
  const starts = Array.from({ length: 200 }, (_, i) => searchStart(10000, SHAPE, `seed/cell/${i}`));
  for (const x of starts) {
    assert.ok(x >= SHAPE.startShare * 10000 * 2 ** -0.5 - 1e-9 && x < SHAPE.startShare * 10000 * 2 ** 0.5, String(x));
  }
  assert.equal(searchStart(10000, SHAPE, 'a/b/1'), searchStart(10000, SHAPE, 'a/b/1'), 'seeded: reproducible');
  assert.ok(new Set(starts.map((x) => Math.round(x))).size > 150, 'the start is dithered between rounds');
  // The cap: capShare × the median peak so far, at least this round's peak.
  assert.equal(searchCap(1000, [1000, 2000, 4000], SHAPE), SHAPE.capShare * 2000);
  assert.equal(searchCap(9000, [1000, 2000, 9000], SHAPE), 9000);
});

test('a rate’s verdict is the majority of up to 3 steps, the same rule for a pass as for a fail', () => {
  const P = { pass: true, clientBound: false };
  const F = { pass: false, clientBound: false };
  assert.equal(decideRate([]), null);
  assert.equal(decideRate([P]), null, 'one pass does not decide');
  assert.equal(decideRate([F]), null, 'one failure does not decide');
  assert.equal(decideRate([P, P]), true);
  assert.equal(decideRate([F, F]), false);
  assert.equal(decideRate([P, F]), null);
  assert.equal(decideRate([F, P]), null);
  assert.equal(decideRate([P, F, F]), false, 'a pass then two failures fails (the old rule kept the pass)');
  assert.equal(decideRate([F, P, P]), true);
  assert.equal(decideRate([F, P, F]), false);
  assert.equal(decideRate([{ pass: false, clientBound: true }]), false, 'the driver at its limit decides at once');
  // While exploring, one pass holds a rate for now; a failure takes the majority (a stall is common).
  assert.equal(exploreRate([P]), true);
  assert.equal(exploreRate([F]), null, 'one failure does not decide');
  assert.equal(exploreRate([F, F]), false);
  assert.equal(exploreRate([F, P]), null);
  assert.equal(exploreRate([F, P, P]), true);
  assert.equal(exploreRate([F, P, F]), false);
  assert.equal(exploreRate([{ pass: false, clientBound: true }]), false, 'the driver at its limit decides at once');
  // A held rate's final verdict is the majority: P(held) = p·p(2 − p) + (1 − p)·p² = p²(3 − 2p).
  for (const p of [0.2, 0.5, 0.8]) {
    let held = 0;
    for (const seq of [0, 1, 2, 3, 4, 5, 6, 7]) {
      const steps = [0, 1, 2].map((k) => ((seq >> k) & 1 ? P : F));
      const pr = steps.reduce((a, x) => a * (x.pass ? p : 1 - p), 1);
      // explore, then confirm with the majority on the same steps (as RateBook does)
      const first = exploreRate(steps.slice(0, 1)) ?? exploreRate(steps.slice(0, 2)) ?? exploreRate(steps);
      const used = first === true && steps[0]!.pass ? (decideRate(steps.slice(0, 2)) ?? decideRate(steps)) : first;
      if (used) held += pr;
    }
    assert.ok(Math.abs(held - p * p * (3 - 2 * p)) < 1e-12, `p ${p}: held ${held}`);
  }
});

test('a bracket that whole requests/s cannot split ends the search (no repeats of the same rate)', async () => {
  const rates: number[] = [];
  const r = await searchCapacity({
    search: 1,
    peakRps: 3,
    shape: { ...SHAPE, floorRps: 1 },
    signal: new AbortController().signal,
    step: async (rate) => {
      rates.push(rate);
      const p99 = rate <= 1 ? 1 : 50;
      const m = { p50: p99, p90: p99, p99, max: p99 };
      return judgeStep(
        1,
        rate,
        { achievedRps: rate, latencyMs: m, scheduled: rate, failed: 0, durationS: 1, clientBound: false },
        10,
      );
    },
  });
  assert.equal(r.verdict, 'met');
  assert.deepEqual([r.heldRps, r.failRps], [1, 2]);
  assert.deepEqual(rates, [2, 2, 1, 1], 'a failure decided by two agreeing steps, the held rate confirmed by a second');
});

test('the bracket’s two rates are confirmed by the majority: a lucky step above the capacity is overturned and the search goes on', async () => {
  // Capacity 1000 req/s, but the first step at any rate in (1000, 1300] passes (a lucky second):
  // while exploring one pass holds a rate for now, so the search climbs on it.
  const seen = new Set<number>();
  const rates: number[] = [];
  const r = await searchCapacity({
    search: 1,
    peakRps: 1400,
    capRps: 2000,
    start: 700,
    shape: SHAPE,
    signal: new AbortController().signal,
    step: async (rate) => {
      rates.push(rate);
      const lucky = rate > 1000 && rate <= 1300 && !seen.has(rate);
      seen.add(rate);
      const p99 = rate <= 1000 || lucky ? 5 : 50;
      const m = { p50: p99, p90: p99, p99, max: p99 };
      const measured = {
        achievedRps: rate,
        latencyMs: m,
        scheduled: rate,
        failed: 0,
        durationS: 1,
        clientBound: false,
      };
      return judgeStep(1, rate, measured, 10);
    },
  });
  assert.equal(r.verdict, 'met');
  assert.ok(r.heldRps! <= 1000 && r.failRps! > 1000, `bracket ${r.heldRps}–${r.failRps} holds the capacity`);
  assert.ok(r.failRps! / r.heldRps! <= SHAPE.precision, 'within the precision');
  const lucky = r.steps.filter((s) => s.rate > 1000 && s.rate <= 1300 && s.pass);
  assert.ok(lucky.length > 0, `the lucky steps happened: ${rates.join(' ')}`);
  assert.ok(
    lucky.every((s) => s.ratePass !== true),
    'no rate above the capacity kept its lucky pass',
  );
  for (const rate of [r.heldRps!, r.failRps!])
    assert.ok(r.steps.filter((s) => s.rate === rate).length >= 2, `${rate} decided by the majority`);
});

test('a server that never holds the SLO is reported as never, not as 0 req/s', async () => {
  const m = model(5); // 200 ms per request: p99 > 10 ms at any rate
  const r = await searchCapacity({
    search: 1,
    peakRps: 5,
    shape: SHAPE,
    step: m.step,
    signal: new AbortController().signal,
  });
  assert.equal(r.verdict, 'never');
  assert.equal(r.rps, null);
  assert.equal(m.calls.at(-1), SHAPE.floorRps, 'it went down to the floor rate');
  const trials = [1, 2, 3].map((round) =>
    makeTrial(1000, {
      round,
      capacitySearch: { sloP99Ms: 10, driver: 'model', peakRps: 5, rps: null, verdict: 'never', steps: r.steps },
    }),
  );
  const cell = aggregateTrials(trials, 3);
  assert.equal(cell.capacity?.verdict, 'never');
  assert.equal(cell.stats, undefined, 'no figure at all');
  assert.match(
    cellFailure(cell) ?? '',
    /^never held p99 ≤ 10 ms \(lowest rate tried 20 req\/s: p99 \d+\.\d ms > 10 ms/,
  );
});

test('a client-bound failure makes the capacity a lower bound (at-least)', async () => {
  const m = model(50000, { clientLimit: 8000 });
  const r = await searchCapacity({
    search: 1,
    peakRps: 52000,
    shape: SHAPE,
    step: m.step,
    signal: new AbortController().signal,
  });
  assert.equal(r.verdict, 'at-least');
  assert.equal(r.bound, 'driver-limit');
  assert.ok(r.rps! <= 8000 && r.rps! >= 8000 / SHAPE.precision, String(r.rps));
});

test('an abort keeps the steps already done (verdict interrupted)', async () => {
  const ac = new AbortController();
  const m = model(1000);
  const seen: CapacityStep[] = [];
  const r = await searchCapacity({
    search: 2,
    peakRps: 1200,
    shape: SHAPE,
    step: async (rate) => {
      const s = await m.step(rate);
      if (m.calls.length === 3) ac.abort();
      return s;
    },
    signal: ac.signal,
    onStep: (s) => seen.push(s),
  });
  assert.equal(r.verdict, 'interrupted');
  assert.equal(r.steps.length, 2, 'the step cut by the abort is not a measurement');
  assert.deepEqual(seen, r.steps);
});

test('the cell summary: figure over the searches that found a rate, knee = figure ÷ peak, every step kept', () => {
  const search = (rps: number | null, peakRps: number, verdict: CapacitySearch['verdict']): CapacitySearch => ({
    sloP99Ms: 10,
    driver: 'oha',
    peakRps,
    rps,
    verdict,
    steps: [
      judgeStep(
        1,
        rps ?? 10,
        {
          achievedRps: rps ?? 10,
          latencyMs: { p50: 1, p90: 2, p99: 3, max: 4 },
          scheduled: 100,
          failed: 0,
          durationS: 2,
          clientBound: false,
        },
        10,
      ),
    ],
  });
  const trials = [search(1000, 2000, 'met'), search(1100, 2100, 'met'), search(null, 1900, 'never')].map((s, i) =>
    makeTrial(1000, { round: i + 1, capacitySearch: s }),
  );
  const sum = summarizeCapacity(trials)!;
  assert.equal(sum.verdict, 'met');
  assert.equal(sum.searches, 3);
  assert.equal(sum.never, 1);
  assert.equal(sum.rps?.kind, 'range');
  assert.deepEqual(sum.rps?.interval, [1000, 1100]);
  assert.ok(Math.abs(sum.rps!.figure - Math.sqrt(1000 * 1100)) < 1e-6);
  assert.ok(Math.abs(sum.knee! - sum.rps!.figure / sum.peakRps.figure) < 1e-12);
  assert.equal(sum.steps.length, 3);
  const cell = aggregateTrials(trials, 3);
  assert.deepEqual(cell.stats?.trialRps, [1000, 1100], 'the figure is over the two searches that found a rate');
  assert.equal(cell.stats?.latencyMs, null, 'closed-loop latency is not the capacity cell’s');
  assert.equal((cell as { capacitySearch?: unknown }).capacitySearch, undefined);
  assert.equal(cellFailure(cell), null);
});

test('the cell figure and interval come only from searches that bracketed their capacity; none bracketed: a lower bound', () => {
  const search = (rps: number, verdict: CapacitySearch['verdict'], bound: CapacitySearch['bound']): CapacitySearch => ({
    sloP99Ms: 10,
    driver: 'oha',
    peakRps: 2000,
    rps,
    verdict,
    bound,
    steps: [],
  });
  const cell = (list: CapacitySearch[]) =>
    aggregateTrials(
      list.map((s, i) => makeTrial(1000, { round: i + 1, capacitySearch: s })),
      list.length,
    );
  const mixed = cell([
    search(1000, 'met', 'bracketed'),
    search(1100, 'met', 'bracketed'),
    search(1050, 'met', 'bracketed'),
    search(1020, 'met', 'bracketed'),
    search(1500, 'at-least', 'driver-limit'),
  ]);
  assert.equal(mixed.capacity?.verdict, 'met', 'one driver-limited search does not make the cell a lower bound');
  assert.equal(mixed.capacity?.bracketed, 4);
  assert.equal(mixed.capacity?.searches, 5);
  assert.deepEqual(mixed.stats?.trialRps, [1000, 1100, 1050, 1020], 'the lower bound is not in the figure');
  assert.equal(mixed.capacity?.rps?.kind, 'range', 'an interval over the 4 bracketed searches');
  assert.equal(mixed.capacity?.boundsAbove, 1, 'the lower bound above the figure is counted (a flag)');
  const bounds = cell([search(3000, 'at-least', 'no-failure'), search(3200, 'at-least', 'driver-limit')]);
  assert.equal(bounds.capacity?.verdict, 'at-least');
  assert.equal(bounds.capacity?.bracketed, 0);
  assert.equal(bounds.capacity?.boundsAbove, 0);
  assert.deepEqual(bounds.stats?.trialRps, [3000, 3200]);
});

test('--slo-p99 applies to the capacity profile only and must be a positive number of ms', () => {
  const p = withOverrides(getProfile('capacity'), parseProfileOverrides({ sloP99: '25' }));
  assert.equal(p.driver !== 'k6' && p.capacity?.sloP99Ms, 25);
  assert.throws(
    () => withOverrides(getProfile('quick'), { sloP99Ms: 25 }),
    /--slo-p99 applies to the capacity profile only/,
  );
  assert.throws(() => parseProfileOverrides({ sloP99: '-1' }), /--slo-p99 must be a positive number/);
});

test('the self-test fixture: found by the self-test under contenders/_selftest, never a contender, not an npm workspace', () => {
  const scenarios = loadScenarios(path.join(ROOT, 'scenarios'));
  const names = scenarios.map((s) => s.name);
  const [fixture] = loadManifests(SELFTEST_FIXTURES, names);
  assert.equal(fixture?.name, 'selftest-burn');
  assert.ok(!loadManifests(path.join(ROOT, 'contenders'), names).some((m) => m.name === 'selftest-burn'));
  // npm workspaces are contenders/* folders with a package.json: _selftest has none.
  assert.ok(!fs.existsSync(path.join(SELFTEST_FIXTURES, 'package.json')));
  // The self-test's default scenarios (the reference ones) are all served by the fixture.
  const reference = scenarios.filter((s) => s.reference).map((s) => s.name);
  assert.deepEqual(reference, ['ping', 'json', 'echo', 'users', 'post']);
  assert.deepEqual(
    reference.filter((s) => !fixture.scenarios.includes(s)),
    [],
  );
});

/** The trial files of every run under `results`. */
const trialsOf = (results: string) => listRuns(results).flatMap((run) => readRunAt(run.dir).trials);

/** A contenders folder holding the selftest-burn fixture set to burn `burnUs` µs of CPU per request. */
function burnFixture(prefix: string, burnUs: number): string {
  const contenders = tmpDir(prefix);
  const dir = path.join(contenders, 'selftest-burn');
  fs.cpSync(path.join(SELFTEST_FIXTURES, 'selftest-burn'), dir, { recursive: true });
  const manifest = path.join(dir, 'contender.json');
  const m = JSON.parse(fs.readFileSync(manifest, 'utf8'));
  fs.writeFileSync(manifest, JSON.stringify({ ...m, env: { BURN_US: String(burnUs) } }));
  return contenders;
}

test('a real search against a fixed 2 ms CPU burn per request finds what queueing predicts (≈ 500 req/s)', async (t) => {
  const BURN_MS = 2;
  const contenders = burnFixture('capacity-contenders', BURN_MS * 1000);
  const results = tmpDir('capacity-results');
  const r = await runCli([
    '--results-dir',
    results,
    '--contenders-dir',
    contenders,
    'bench',
    'selftest-burn',
    '--scenario',
    'ping',
    '--profile',
    'capacity',
    '--slo-p99',
    '200',
    '--rounds',
    '1',
    '--no-baseline',
    '--no-fidelity',
  ]);
  if (/no open-loop driver/.test(r.stderr + JSON.stringify(readCells(results).map((c) => c.failure)))) {
    t.skip('no open-loop driver (oha or k6) installed: `npx just tools`');
    return;
  }
  assert.equal(r.code, 0, r.stderr);
  const [cell] = readCells(results);
  assert.equal(cell.status, 'ok', JSON.stringify(cell.failure));
  const cap = cell.capacity;
  assert.ok(cap, 'the cell has a capacity summary');
  assert.equal(cap.sloP99Ms, 200);
  // One server core, a deterministic 2 ms service time and evenly spaced arrivals (D/D/1): the
  // queue stays empty up to mu = 1000 / 2 ms = 500 req/s and grows by (rate/mu − 1) × 1 s over a
  // 1 s step above it, so a 200 ms objective holds up to 1.2 mu (the search may go above the
  // closed-loop peak ≈ mu, up to 1.5 × the median peak: issue 23). HTTP parsing and this host's
  // stalls (a 200 ms SLO absorbs stalls of up to ~100 ms) cost some, so it may stop below mu:
  // the stated tolerance is 0.7 mu … 1.25 mu, and the search must have bracketed it.
  const mu = 1000 / BURN_MS;
  assert.equal(cap.verdict, 'met', JSON.stringify(cap.steps));
  assert.equal(cap.bracketed, 1, 'the one search bracketed its capacity');
  assert.ok(cap.rps.figure >= 0.7 * mu && cap.rps.figure <= 1.25 * mu, `capacity ${cap.rps.figure} vs predicted ${mu}`);
  assert.ok(cap.steps.length >= 3, 'a bisection, not one probe');
  for (const s of cap.steps) {
    if (s.rate > 1.3 * mu) assert.equal(s.pass, false, `a rate of ${s.rate} > 1.3 mu cannot hold the SLO`);
    assert.ok(s.latencyMs.p99 >= s.latencyMs.p50 && s.latencyMs.p50 > 0);
  }
  assert.ok(cap.knee > 0.5 && cap.knee <= 1.5, `share of peak at SLO ${cap.knee}`);
  const search = trialsOf(results)[0].capacitySearch;
  assert.equal(search.bound, 'bracketed');
  assert.ok(
    search.heldRps < search.failRps && search.failRps / search.heldRps <= SHAPE.precision,
    JSON.stringify(search),
  );
  assert.equal(trialsOf(results).length, 1, 'the search is kept in its trial file');
});

test('Ctrl-C during a search keeps the steps already done and leaves no process behind', async (t) => {
  const contenders = burnFixture('capacity-int-contenders', 2000);
  const results = tmpDir('capacity-int');
  const child = spawn(
    process.execPath,
    [
      '--disable-warning=ExperimentalWarning',
      CLI,
      '--results-dir',
      results,
      '--contenders-dir',
      contenders,
      'bench',
      'selftest-burn',
      '--scenario',
      'ping',
      '--profile',
      'capacity',
      '--no-baseline',
    ],
    { cwd: ROOT, env: { ...process.env, BENCH_LOCK_FILE: TEST_LOCK_FILE }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.on('data', (b) => {
    stderr += b;
  });
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline && (stderr.match(/^ {4}step /gm) ?? []).length < 2 && child.exitCode === null)
    await sleep(100);
  if (/no open-loop driver/.test(stderr)) {
    child.kill('SIGKILL');
    t.skip('no open-loop driver (oha or k6) installed: `npx just tools`');
    return;
  }
  assert.ok((stderr.match(/^ {4}step /gm) ?? []).length >= 2, `two steps ran: ${stderr.slice(-2000)}`);
  const pids = descendants(child.pid!);
  child.kill('SIGINT');
  assert.equal(await exited, 130, stderr.slice(-2000));
  for (let i = 0; i < 30 && pids.some(alive); i++) await sleep(100);
  assert.deepEqual(pids.filter(alive), [], 'no child process may outlive the harness');
  const [run] = listRuns(results);
  const trials = readRunAt(run!.dir).trials;
  assert.equal(trials.length, 1, 'the interrupted search is saved as a trial');
  const search = trials[0].capacitySearch;
  assert.equal(search.verdict, 'interrupted');
  assert.ok(search.steps.length >= 2, `the steps done are kept: ${search.steps.length}`);
  assert.equal(trials[0].status, 'ok', 'Ctrl-C is not recorded as a driver failure');
  const [cell] = readCells(results);
  assert.equal(cell.capacity.verdict, 'interrupted');
  assert.equal(cell.capacity.steps.length, search.steps.length);
  assert.equal(readMetas(results)[0].state, 'interrupted');
});
