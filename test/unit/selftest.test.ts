/**
 * The self-test's judgement (harness/cli/selftest.ts): Clopper–Pearson intervals against known
 * values, and the pair verdicts of a table of identical and slowed copies built from fixture cells
 * (the measured runs themselves are a benchmark: `just selftest`, not a test).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mulberry32 } from '../../harness/core/prng.ts';
import {
  calibrateIters,
  clopperPearson,
  fitBurnIters,
  judgePairs,
  PROBE_ITERS,
  SELFTEST_FIXTURE,
} from '../../harness/cli/selftest.ts';
import type { CellResult } from '../../harness/store/results.ts';
import { makeCell, makeMeta } from '../fixtures.ts';

const close = (a: number, b: number, tol: number) => Math.abs(a - b) <= tol;

test('Clopper–Pearson: exact binomial intervals match published values; 0 and n are one-sided', () => {
  // 5 of 100: 1.64%–11.28% (e.g. R's binom.test(5, 100)$conf.int).
  const [lo, hi] = clopperPearson(5, 100);
  assert.ok(close(lo, 0.0164, 5e-4) && close(hi, 0.1128, 5e-4), `${lo} ${hi}`);
  assert.deepEqual(
    clopperPearson(0, 10).map((x) => Math.round(x * 1e4) / 1e4),
    [0, 0.3085],
  );
  assert.deepEqual(
    clopperPearson(10, 10).map((x) => Math.round(x * 1e4) / 1e4),
    [0.6915, 1],
  );
  assert.throws(() => clopperPearson(3, 2), /need 0 ≤ x ≤ n/);
});

test('judgePairs: identical copies are rarely called different; copies 10% slower are called slower', () => {
  const rand = mulberry32(7);
  const rounds = 5;
  // A per-round host factor shared by every row (cancels in the ratios) plus 2% noise per window.
  const host = Array.from({ length: rounds }, () => 1 + 0.3 * (rand() - 0.5));
  const row = (label: string, speed: number): CellResult =>
    makeCell({
      label,
      scenario: 'ping',
      trials: host.map((h) => 50_000 * speed * h * Math.exp(0.02 * (rand() + rand() + rand() - 1.5))),
    });
  const cells = [
    row('node-http', 1),
    row(SELFTEST_FIXTURE, 0.98),
    ...Array.from({ length: 5 }, (_, i) => row(`${SELFTEST_FIXTURE} +copy-${i + 2}`, 0.98)),
    ...Array.from({ length: 3 }, (_, i) => row(`${SELFTEST_FIXTURE} +slow10-${i + 1}`, 0.98 * 0.9)),
    ...Array.from({ length: 3 }, (_, i) => row(`${SELFTEST_FIXTURE} +slow5-${i + 1}`, 0.98 * 0.95)),
  ];
  const meta = makeMeta({ runId: 'st' });
  const j = judgePairs({ meta, cells: cells.map((c) => ({ ...c, runId: 'st' })) }, [
    { name: 'ping', baseline: 'node-http' },
  ]);
  assert.equal(j.nulls.pairs, 15, '6 copies: 15 null pairs');
  assert.equal(j.power10.pairs, 18, '3 slowed × 6 copies');
  assert.equal(j.power5.pairs, 18);
  assert.ok((j.nulls.rate ?? 1) <= 0.2, `false differences ${j.nulls.hits} of ${j.nulls.pairs}`);
  assert.ok((j.power10.rate ?? 0) >= 0.8, `power at 10%: ${j.power10.hits} of ${j.power10.pairs}`);
  assert.ok(j.nulls.ci95 && j.nulls.ci95[0] <= (j.nulls.rate ?? 0) && (j.nulls.rate ?? 0) <= j.nulls.ci95[1]);
  assert.equal(j.mdds.length, 1);
});

test('fitBurnIters: the iterations that cost 10% and 5%, from probes measured beside the fixture (a power law on log–log axes)', () => {
  // A fixture at c = 14 µs per request (ping here). Linear work (1.25 ns per iteration) and a cost
  // per iteration that grows with n (x ∝ n^1.6, as measured on ping) are both recovered exactly.
  for (const cost of [(n: number) => 0.00125 * n, (n: number) => 0.0001 * n ** 1.6]) {
    const ratio = (n: number) => 14 / (14 + cost(n));
    const probes = PROBE_ITERS.map((n) => ({ iters: n, ratio: ratio(n) }));
    const n10 = fitBurnIters(probes, 0.1);
    const n5 = fitBurnIters(probes, 0.05);
    assert.ok(close(1 - ratio(n10), 0.1, 1e-3), `n10 ${n10} costs ${1 - ratio(n10)}`);
    assert.ok(close(1 - ratio(n5), 0.05, 1e-3), `n5 ${n5} costs ${1 - ratio(n5)}`);
  }
  // A line through the origin (the previous fit) is pulled by the far probes when the cost per
  // iteration grows: it plants far less than 10% — what record 11f4 measured (2.5%).
  const convex = (n: number) => 14 / (14 + 0.0001 * n ** 1.6);
  const far = [16_000, 32_000, 64_000].map((n) => ({ iters: n, x: 1 / convex(n) - 1 }));
  const k = far.reduce((a, q) => a + q.x * q.iters, 0) / far.reduce((a, q) => a + q.iters ** 2, 0);
  assert.ok(1 - convex(Math.round(0.111 / k)) < 0.05, 'the origin line under-plants on a convex cost');
  // Noisy probes (±2% on each ratio) land within 2 points of the target.
  const ratio = (n: number) => 14 / (14 + 0.00125 * n);
  const rand = mulberry32(11);
  for (let i = 0; i < 50; i++) {
    const noisy = PROBE_ITERS.map((n) => ({ iters: n, ratio: ratio(n) * Math.exp(0.02 * (2 * rand() - 1)) }));
    const got = 1 - ratio(fitBurnIters(noisy, 0.1));
    assert.ok(close(got, 0.1, 0.02), `noisy probes planted ${got}`);
  }
  // Probes that cost nothing (or look faster) cannot calibrate anything: a clear error.
  assert.throws(
    () =>
      fitBurnIters(
        PROBE_ITERS.map((n) => ({ iters: n, ratio: 1.01 })),
        0.1,
      ),
    /cost nothing measurable/,
  );
});

test('calibrateIters: the pilot’s probe rows (selftest-burn +probe-N) give each scenario the iterations that plant 10% and 5%', () => {
  const rand = mulberry32(5);
  const rounds = 6;
  const host = Array.from({ length: rounds }, () => 1 + 0.3 * (rand() - 0.5));
  // c = 14 µs per request, 1.25 ns per iteration; 2% noise per window.
  const speed = (n: number) => 14 / (14 + 0.00125 * n);
  const row = (label: string, sp: number): CellResult =>
    makeCell({
      label,
      scenario: 'json',
      trials: host.map((h) => 25_000 * sp * h * Math.exp(0.02 * (rand() + rand() + rand() - 1.5))),
    });
  const cells = [
    row('node-http', 1),
    row(SELFTEST_FIXTURE, 1),
    ...PROBE_ITERS.map((n, i) => row(`${SELFTEST_FIXTURE} +probe-${i + 1}`, speed(n))),
  ].map((c) => ({ ...c, runId: 'pilot' }));
  const cal = calibrateIters(
    { meta: makeMeta({ runId: 'pilot' }), cells },
    [{ name: 'json', baseline: 'node-http' }],
    [0.1, 0.05],
  );
  assert.equal(cal.probes.json?.length, PROBE_ITERS.length, 'every probe row was found');
  const [n10 = {}, n5 = {}] = cal.iters;
  assert.ok(
    close(1 - speed(n10.json ?? 0), 0.1, 0.015),
    `10%: ${n10.json} iterations plant ${1 - speed(n10.json ?? 0)}`,
  );
  assert.ok(close(1 - speed(n5.json ?? 0), 0.05, 0.01), `5%: ${n5.json} iterations plant ${1 - speed(n5.json ?? 0)}`);
  // A pilot without probe rows cannot calibrate: a clear error, not a silent zero burn.
  assert.throws(
    () =>
      calibrateIters(
        { meta: makeMeta({ runId: 'pilot' }), cells: cells.slice(0, 2) },
        [{ name: 'json', baseline: 'node-http' }],
        [0.1],
      ),
    /no probe beside the fixture/,
  );
});
