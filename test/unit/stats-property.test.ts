// Property-based tests (fast-check) of the estimator: every interval the harness computes contains
// its figure — cells (any trials), ratios (paired and unpaired), table rows, compare changes and
// claim values; a ratio's figure is figure A / figure B for complete pairs; ranks agree with the
// significance test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  cellFigure,
  geometricEstimate,
  rankRows,
  ratio,
  sampleRatio,
  significantlyFaster,
  trialStats,
} from '../../harness/analysis/stats.ts';
import { buildTables } from '../../harness/analysis/tables.ts';
import { compareRuns } from '../../harness/report/compare-runs.ts';
import { type Claim, evaluateClaims } from '../../harness/report/claims.ts';
import { makeCell, makeMeta, makeTrial } from '../fixtures.ts';

const RUNS = { numRuns: 300 };
/** Requests/s as drivers report them: positive, from a few to millions. */
const rps = fc.double({ min: 1, max: 2_000_000, noNaN: true, noDefaultInfinity: true });
const trials = (min = 1, max = 12) => fc.array(rps, { minLength: min, maxLength: max });
const contains = (iv: [number, number] | null, x: number) =>
  iv === null || (iv[0] <= x * (1 + 1e-12) && x <= iv[1] * (1 + 1e-12));
const rel = (a: number, b: number) => Math.abs(a - b) / Math.abs(b);

test('a cell: the interval (ci95 / range) contains the figure, for any trials; kind follows the count', () => {
  fc.assert(
    fc.property(trials(1, 15), (xs) => {
      const s = trialStats(xs.map((x) => makeTrial(x)));
      assert.ok(contains(s.rps.interval, s.rps.figure), JSON.stringify(s.rps));
      assert.equal(s.rps.kind, xs.length >= 5 ? 'ci95' : xs.length >= 2 ? 'range' : 'none');
      assert.equal(s.rps.interval === null, xs.length === 1);
      if (s.rps.kind === 'range') assert.deepEqual(s.rps.interval, [Math.min(...xs), Math.max(...xs)]);
    }),
    RUNS,
  );
});

test('a paired ratio: interval contains figure; with every round, figure = figure A / figure B', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 12 }).chain((n) => fc.tuple(trials(n, n), trials(n, n))),
      ([a, b]) => {
        const rounds = a.map((_, i) => i + 1);
        const r = sampleRatio(a, b, rounds, rounds);
        assert.ok(contains(r.interval, r.figure));
        assert.ok(rel(r.figure, geometricEstimate(a).figure / geometricEstimate(b).figure) < 1e-9);
        const ca = makeCell({ label: 'a', trials: a });
        const cb = makeCell({ label: 'b', trials: b });
        const rc = ratio(ca, cb);
        assert.equal(rc.paired, a.length >= 2);
        assert.ok(contains(rc.interval, rc.figure));
        assert.ok(rel(rc.figure, cellFigure(ca) / cellFigure(cb)) < 1e-9);
      },
    ),
    RUNS,
  );
});

test('a paired ratio over partly shared rounds, and an unpaired (Welch) ratio: interval contains figure', () => {
  fc.assert(
    fc.property(trials(1, 10), trials(1, 10), fc.integer({ min: 0, max: 5 }), (a, b, shift) => {
      const r = sampleRatio(
        a,
        b,
        a.map((_, i) => i + 1),
        b.map((_, i) => i + 1 + shift),
      );
      assert.ok(contains(r.interval, r.figure));
      const u = ratio(makeCell({ label: 'a', trials: a }), { ...makeCell({ label: 'b', trials: b }), runId: 'other' });
      assert.equal(u.paired, false);
      assert.ok(contains(u.interval, u.figure));
      assert.ok(rel(u.figure, geometricEstimate(a).figure / geometricEstimate(b).figure) < 1e-9);
    }),
    RUNS,
  );
});

/** k rows of one run, each with the same number of rounds. */
const rowsArb = fc
  .tuple(fc.integer({ min: 5, max: 8 }), fc.integer({ min: 2, max: 6 }))
  .chain(([n, k]) =>
    fc.array(
      fc.tuple(
        fc.double({ min: 1000, max: 3000, noNaN: true }),
        fc.array(fc.double({ min: -0.05, max: 0.05, noNaN: true }), { minLength: n, maxLength: n }),
      ),
      { minLength: k, maxLength: k },
    ),
  )
  .map((rows) =>
    rows.map(([level, noise], i) =>
      makeCell({ label: i === 0 ? 'node-http' : `c${i}`, scenario: 'json', trials: noise.map((e) => level * (1 + e)) }),
    ),
  );

test('ranks: rank = 1 + rows significantly faster, and a significantly faster row always ranks better', () => {
  fc.assert(
    fc.property(rowsArb, (cells) => {
      const ranks = rankRows(cells);
      cells.forEach((c, i) => {
        const faster = cells.filter((o, j) => j !== i && significantlyFaster(o, c)).length;
        assert.equal(ranks[i], 1 + faster);
        cells.forEach((o, j) => {
          if (j !== i && significantlyFaster(o, c)) assert.ok(ranks[j]! < ranks[i]!, `${o.label} ≫ ${c.label}`);
        });
      });
    }),
    { numRuns: 200 },
  );
});

test('table rows: every figure, ratio to baseline and summary ratio lies in its interval; ranks match the test', () => {
  fc.assert(
    fc.property(rowsArb, (cells) => {
      const [t] = buildTables([{ meta: makeMeta(), cells }]);
      for (const r of t!.rows) {
        assert.ok(contains(r.interval, r.figure));
        if (r.vsBaseline) assert.ok(contains(r.vsBaseline.interval, r.vsBaseline.figure));
      }
      for (const c of t!.summary?.comparisons ?? []) {
        assert.ok(contains(c.ratio.interval, c.ratio.figure));
        const top = t!.rows.find((r) => r.label === t!.summary!.fastest)!;
        const row = t!.rows.find((r) => r.label === c.label)!;
        // With a table model the summary's "tied" is the model's verdict (not 'faster'), the same
        // test as the rank ranges; without one, the older per-pair rule.
        if (c.verdict) assert.equal(c.tied, c.verdict !== 'faster');
        else assert.equal(c.tied, !significantlyFaster(top.cell, row.cell));
        if (t!.model && row.rankRange) assert.ok(row.rankRange.best <= row.rankRange.worst);
      }
      // Rows of a table with a model are ordered by their ratio to the baseline.
      if (t!.model) {
        const ranked = t!.rows.filter((r) => r.status === 'ranked').map((r) => r.vsBaseline?.figure ?? 1);
        assert.deepEqual(
          ranked,
          [...ranked].sort((a, b) => b - a),
        );
      }
    }),
    { numRuns: 150 },
  );
});

test('compare: every change lies in its interval', () => {
  fc.assert(
    fc.property(rowsArb, rowsArb, (oldCells, newCells) => {
      const c = compareRuns(
        { meta: makeMeta({ runId: 'o' }), cells: oldCells.map((x) => ({ ...x, runId: 'o' })) },
        { meta: makeMeta({ runId: 'n' }), cells: newCells.map((x) => ({ ...x, runId: 'n' })) },
      );
      for (const ch of c.changes)
        assert.ok(contains(ch.interval && [ch.interval[0] + 1, ch.interval[1] + 1], ch.change + 1));
    }),
    { numRuns: 150 },
  );
});

test('claims: every claim value lies in its band, for every metric and comparison', () => {
  const claimArb = fc.record({
    metric: fc.constantFrom('rps' as const, 'latency' as const),
    compare: fc.constantFrom('ratio' as const, 'increase' as const, 'reduction' as const),
    lo: fc.double({ min: -1, max: 3, noNaN: true }),
    width: fc.double({ min: 0, max: 2, noNaN: true }),
    boundA: fc.boolean(),
    boundB: fc.boolean(),
  });
  fc.assert(
    fc.property(claimArb, trials(5, 8), trials(5, 8), (k, a, b) => {
      const claim: Claim = {
        id: 'p',
        source: 'Nexus/Express/Fastify report',
        claim: 'p',
        sourceFigure: 'p',
        scenario: 'json',
        metric: k.metric,
        compare: k.compare,
        a: 'A',
        b: 'B',
        expected: [k.lo, k.lo + k.width],
        range: { from: 'spread', note: 'generated' },
        profiles: ['pipelined'],
      };
      const n = Math.min(a.length, b.length);
      const cells = [
        makeCell({
          label: 'A',
          scenario: 'json',
          profile: 'pipelined',
          trials: a.slice(0, n),
          resources: { clientBound: k.boundA },
        }),
        makeCell({
          label: 'B',
          scenario: 'json',
          profile: 'pipelined',
          trials: b.slice(0, n),
          resources: { clientBound: k.boundB },
        }),
      ];
      const [r] = evaluateClaims([claim], [{ meta: makeMeta(), cells }]);
      assert.notEqual(r!.verdict, 'not measured');
      assert.ok(r!.band && r!.ours !== null);
      assert.ok(r!.band[0] <= r!.ours && r!.ours <= r!.band[1], JSON.stringify(r!.band) + r!.ours);
      if (r!.verdict === 'refuted') assert.ok(r!.band[1] < k.lo || r!.band[0] > k.lo + k.width);
    }),
    RUNS,
  );
});
