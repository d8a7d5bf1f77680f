// The table model (harness/analysis/table-model.ts): simulated tables with planted
// effects (coverage of the row intervals, null false-difference rate, equivalence, rank ranges
// containing the true rank, power at the MDD, repeated looks), the budget and print helpers, and
// fast-check properties (interval ∋ figure, best ≤ worst, no inversion). Seeded (mulberry32), so
// every figure below is reproducible; each test logs its figures with t.diagnostic.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { mulberry32 } from '../../harness/core/prng.ts';
import { UserError } from '../../harness/core/errors.ts';
import { rankRanges } from '../../harness/analysis/rank-ranges.ts';
import { formatComparisonInterval, formatRatioInterval } from '../../harness/analysis/ratio-bounds.ts';
import {
  compare,
  comparePairs,
  fitTable,
  fitTwoWay,
  type TwoWayRow,
  ownVariance,
  type TableInput,
} from '../../harness/analysis/table-model.ts';
import { mdd, sequentialAlpha, tableMdd, windowsNeeded } from '../../harness/analysis/table-power.ts';
import { pairedUnits } from '../../harness/analysis/tables.ts';
import type { CellResult } from '../../harness/store/results.ts';

/** A standard normal sampler (Box–Muller) over a seeded uniform PRNG. */
function normal(rand: () => number): () => number {
  return () => Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

/** A simulated table: rows r0..r{k−1} with true log-ratios `mu`, n windows each, noise σ. */
function simTable(z: () => number, mu: number[], n: number | number[], sigma: number | number[]): TableInput {
  return {
    baseline: 'base',
    rows: mu.map((m, i) => ({
      name: `r${i}`,
      d: Array.from(
        { length: (Array.isArray(n) ? n[i] : n)! },
        () => m + (Array.isArray(sigma) ? sigma[i] : sigma)! * z(),
      ),
    })),
  };
}

const pct = (x: number, d = 1) => `${(100 * x).toFixed(d)}%`;

test('coverage: 1,000 tables (8 rows × 6 windows, σ = 0.06, random effects): 95% row intervals hold the truth 93–97%', (t) => {
  const rand = mulberry32(11);
  const z = normal(rand);
  let covered = 0;
  let total = 0;
  let pairCovered = 0;
  let pairs = 0;
  for (let s = 0; s < 1000; s++) {
    const mu = Array.from({ length: 8 }, () => (rand() - 0.5) * 0.6);
    const m = fitTable(simTable(z, mu, 6, 0.06));
    for (const r of m.rows) {
      if (r.baseline) continue;
      total++;
      const truth = Math.exp(mu[Number(r.name.slice(1))]!);
      if (r.ci[0] <= truth && truth <= r.ci[1]) covered++;
    }
    const c = compare(m, 'r0', 'r1');
    pairs++;
    const truth = Math.exp(mu[0]! - mu[1]!);
    if (c.ci[0] <= truth && truth <= c.ci[1]) pairCovered++;
  }
  t.diagnostic(`row intervals: ${covered}/${total} = ${pct(covered / total)} cover the planted ratio`);
  t.diagnostic(`pair r0/r1 intervals: ${pairCovered}/${pairs} = ${pct(pairCovered / pairs)}`);
  assert.ok(covered / total >= 0.93 && covered / total <= 0.97, `coverage ${pct(covered / total)}`);
  assert.ok(pairCovered / pairs >= 0.93 && pairCovered / pairs <= 0.97, `pair coverage ${pct(pairCovered / pairs)}`);
});

test('null tables (all rows equal): faster/slower in ≤ 5.5% of pairs (nominal 5%); equal within 5% for most pairs at small σ', (t) => {
  const rand = mulberry32(12);
  const z = normal(rand);
  let called = 0;
  let pairs = 0;
  let flagged = 0;
  for (let s = 0; s < 1000; s++) {
    const m = fitTable(simTable(z, Array(8).fill(0), 6, 0.06));
    if (m.ownVariance.length) flagged++;
    for (const c of comparePairs(m)) {
      pairs++;
      if (c.verdict === 'faster' || c.verdict === 'slower') called++;
    }
  }
  t.diagnostic(`σ = 0.06: ${called} of ${pairs} pairs (${pct(called / pairs, 2)}) called faster/slower`);
  t.diagnostic(`tables where a row was taken out of the pool: ${flagged}/1000`);
  assert.ok(called / pairs <= 0.055, `false-difference rate ${pct(called / pairs, 2)}`);
  assert.ok(
    called / pairs >= 0.035,
    `a rate far below 5% means the test is too conservative: ${pct(called / pairs, 2)}`,
  );
  assert.ok(flagged <= 20, `the variance check took a row out of the pool in ${flagged}/1000 null tables`);
  let equal = 0;
  let small = 0;
  for (let s = 0; s < 200; s++) {
    for (const c of comparePairs(fitTable(simTable(z, Array(8).fill(0), 6, 0.01)))) {
      small++;
      if (c.verdict === 'equal within 5%') equal++;
    }
  }
  t.diagnostic(`σ = 0.01: ${equal} of ${small} pairs (${pct(equal / small)}) equal within 5%`);
  assert.ok(equal / small >= 0.9, `equal within 5%: ${pct(equal / small)}`);
});

test('rank ranges contain the true rank in every table when effects are well separated (500 tables)', (t) => {
  const rand = mulberry32(13);
  const z = normal(rand);
  const spaced = [-0.525, -0.375, -0.225, -0.075, 0.075, 0.225, 0.375, 0.525];
  let misses = 0;
  let narrow = 0;
  let rows = 0;
  for (let s = 0; s < 500; s++) {
    const mu = [...spaced].sort(() => rand() - 0.5);
    const m = fitTable(simTable(z, mu, 6, 0.06));
    const truth = (name: string) => {
      const v = name === 'base' ? 0 : mu[Number(name.slice(1))];
      return 1 + [0, ...mu].filter((x) => x > v!).length;
    };
    for (const r of rankRanges(m)) {
      rows++;
      const k = truth(r.name);
      if (k < r.best || k > r.worst) misses++;
      if (r.best === r.worst) narrow++;
    }
  }
  t.diagnostic(`${rows - misses}/${rows} ranges contain the true rank; ${narrow} are a single rank`);
  assert.equal(misses, 0);
  assert.ok(narrow / rows > 0.9, 'well-separated rows get single ranks');
});

test('power at the MDD: a planted MDD is detected in ~90% of tables (pair and vs baseline)', (t) => {
  const rand = mulberry32(14);
  const z = normal(rand);
  const sigma = 0.06;
  const n = 6;
  const rowsN = 8;
  const df = rowsN * (n - 1);
  const pairMdd = mdd({ sigma, df, nA: n, nC: n });
  const baseMdd = mdd({ sigma, df, nA: n });
  let hitPair = 0;
  let hitBase = 0;
  const sims = 2000;
  for (let s = 0; s < sims; s++) {
    const mu = [Math.log(1 + pairMdd), 0, 0.3, -0.3, 0.15, -0.15, Math.log(1 + baseMdd), 0.45];
    const m = fitTable(simTable(z, mu, n, sigma));
    if (compare(m, 'r0', 'r1').verdict === 'faster') hitPair++;
    if (compare(m, 'r6', 'base').verdict === 'faster') hitBase++;
  }
  t.diagnostic(`MDD pair ${pct(pairMdd)}: detected ${hitPair}/${sims} = ${pct(hitPair / sims)}`);
  t.diagnostic(`MDD vs baseline ${pct(baseMdd)}: detected ${hitBase}/${sims} = ${pct(hitBase / sims)}`);
  assert.ok(Math.abs(hitPair / sims - 0.9) <= 0.03, `pair power ${pct(hitPair / sims)}`);
  assert.ok(Math.abs(hitBase / sims - 0.9) <= 0.03, `baseline power ${pct(hitBase / sims)}`);
  const fit = fitTable(simTable(z, Array(rowsN).fill(0), n, sigma));
  const tm = tableMdd(fit);
  assert.equal(tm.n, 6);
  assert.ok(Math.abs(tm.pair - mdd({ sigma: fit.sigma, df: fit.df, nA: 6, nC: 6 })) < 1e-12);
  assert.ok(tm.baseline < tm.pair);
});

test('windowsNeeded: the smallest n whose MDD meets the target; errors are one clear line', (t) => {
  for (const [sigma, target, comparison] of [
    [0.06, 0.1, 'pair'],
    [0.06, 0.05, 'pair'],
    [0.06, 0.1, 'baseline'],
    [0.02, 0.03, 'pair'],
  ] as const) {
    const n = windowsNeeded(sigma, target, { rows: 8, comparison });
    const at = (k: number) => mdd({ sigma, df: 8 * (k - 1), nA: k, nC: comparison === 'pair' ? k : undefined });
    assert.ok(at(n) <= target && (n === 2 || at(n - 1) > target), `${sigma} ${target} ${comparison} → ${n}`);
    t.diagnostic(`σ = ${sigma}, MDD ${pct(target, 0)} (${comparison}, 8 rows): ${n} windows per row`);
  }
  assert.equal(windowsNeeded(0, 0.1), 2);
  assert.throws(
    () => windowsNeeded(0.5, 0.001, { max: 50 }),
    (e: Error) => e instanceof UserError && /more than 50/.test(e.message),
  );
  assert.throws(() => windowsNeeded(-1, 0.1), UserError);
  assert.throws(() => windowsNeeded(0.06, 0), /target must be/);
});

test('repeated looks: stopping as soon as a pair differs keeps false differences ≤ 5% with sequentialAlpha (naive looks inflate it)', (t) => {
  const rand = mulberry32(15);
  const z = normal(rand);
  const looks = 5;
  const sims = 2000;
  const run = (alpha: number) => {
    let falseCalls = 0;
    for (let s = 0; s < sims; s++) {
      const d = [[], [], []] as number[][];
      const stopAt = rand() < 0.5 ? looks : 1 + Math.floor(rand() * looks); // half race to the end, half stop at random
      for (let look = 1; look <= stopAt; look++) {
        for (const row of d) while (row.length < 2 + look) row.push(0.06 * z());
        const m = fitTable({ baseline: 'base', rows: d.map((x, i) => ({ name: `r${i}`, d: x })) }, { alpha });
        const v = compare(m, 'r0', 'r1').verdict;
        if (v === 'faster' || v === 'slower') {
          falseCalls++;
          break;
        }
      }
    }
    return falseCalls;
  };
  const adjusted = run(sequentialAlpha(0.05, looks));
  const naive = run(0.05);
  t.diagnostic(`per-look α = 0.05/${looks}: ${adjusted}/${sims} = ${pct(adjusted / sims)} pairs falsely called`);
  t.diagnostic(`naive α = 0.05 at every look: ${naive}/${sims} = ${pct(naive / sims)}`);
  assert.ok(adjusted / sims <= 0.05, `adjusted ${pct(adjusted / sims)}`);
  assert.ok(naive / sims > 0.06, `naive looks should inflate the rate, got ${pct(naive / sims)}`);
  assert.throws(() => sequentialAlpha(0.05, 0), /maxLooks/);
});

test('a much noisier row leaves the pool: its own variance, a wider interval; the others keep a tight σ', () => {
  const z = normal(mulberry32(16));
  const sig = [0.03, 0.03, 0.03, 0.03, 0.03, 0.03, 0.03, 0.3];
  let flagged = 0;
  for (let s = 0; s < 100; s++) {
    const m = fitTable(simTable(z, Array(8).fill(0), 8, sig));
    if (m.ownVariance.includes('r7')) {
      flagged++;
      const r7 = m.rows.find((r) => r.name === 'r7');
      assert.equal(r7?.variance, 'own');
      assert.equal(r7?.df, 7);
      assert.ok(m.sigma < 0.06, `pooled σ without the noisy row: ${m.sigma}`);
    }
  }
  assert.ok(flagged >= 95, `flagged in ${flagged}/100`);
});

test('fitTable: baseline row = 1 exactly; null windows check the setup; bad input is one clear UserError', () => {
  const m = fitTable({
    baseline: 'node-http',
    rows: [
      { name: 'fast', d: [0.1, 0.12, 0.11, 0.09] },
      { name: 'slow', d: [-0.2, -0.21, -0.19] },
    ],
    nullD: [0.3, 0.31, 0.29, 0.3],
  });
  assert.deepEqual(
    m.rows.map((r) => r.name),
    ['fast', 'node-http', 'slow'],
  );
  const b = m.rows[1];
  assert.deepEqual([b!.ratio, b!.ci, b!.n, b!.baseline], [1, [1, 1], 0, true]);
  assert.equal(m.windows, 11);
  assert.equal(m.df, 11 - 3);
  assert.ok(m.nullCheck?.biased, 'null windows at +30% show a biased setup');
  assert.equal(compare(m, 'fast', 'node-http').verdict, 'faster');
  assert.equal(compare(m, 'node-http', 'slow').verdict, 'faster');
  assert.equal(compare(m, 'slow', 'fast').verdict, 'slower');
  const bad: [TableInput, RegExp][] = [
    [{ baseline: 'b', rows: [{ name: 'x', d: [] }] }, /row 'x' has no rounds/],
    [{ baseline: 'b', rows: [{ name: 'b', d: [1, 2] }] }, /appears twice/],
    [{ baseline: 'b', rows: [{ name: 'x', d: [0, Number.NaN] }] }, /non-finite/],
    [{ baseline: 'b', rows: [{ name: 'x', d: [0.1] }] }, /noise cannot be estimated/],
  ];
  for (const [input, re] of bad)
    assert.throws(
      () => fitTable(input),
      (e: Error) => e instanceof UserError && re.test(e.message) && !e.message.includes('\n'),
    );
  assert.throws(() => compare(m, 'fast', 'nope'), /no row 'nope'.*rows are fast, node-http, slow/);
  assert.throws(() => compare(m, 'fast', 'fast'), /itself/);
});

test('formatRatioInterval: fewest decimals so that a significant interval visibly excludes 1 and an equivalent one is visibly inside 0.95–1.05', () => {
  assert.equal(formatRatioInterval([1.0031, 1.187], 'excludes-1'), '1.003–1.19');
  assert.equal(formatRatioInterval([1.0031, 1.187]), '1.00–1.19');
  assert.equal(formatRatioInterval([0.81, 0.9996], 'excludes-1'), '0.81–0.9996');
  assert.equal(formatRatioInterval([0.81, 0.99951], 'excludes-1'), '0.81–0.9996');
  assert.equal(formatRatioInterval([1.00004, 1.2], 'excludes-1'), '1.00004–1.20');
  assert.equal(formatRatioInterval([0.9526, 1.0499], 'inside-equivalence'), '0.952–1.0499');
  assert.equal(formatRatioInterval([0.97, 1.03], 'inside-equivalence'), '0.97–1.03');
  assert.equal(formatRatioInterval([0.9, 1.1], 'excludes-1'), '0.90–1.10');
  fc.assert(
    fc.property(
      fc.double({ min: 0.2, max: 5, noNaN: true }),
      fc.double({ min: 0, max: 2, noNaN: true }),
      fc.constantFrom('excludes-1', 'inside-equivalence', 'plain' as const),
      (lo, w, need) => {
        const hi = lo * (1 + w);
        const [a, b] = formatRatioInterval([lo, hi], need).split('–').map(Number);
        assert.ok(a! <= lo && b! >= hi, `printed ${a}–${b} must contain ${lo}–${hi}`);
        if (need === 'excludes-1' && lo > 1 + 1e-5) assert.ok(a! > 1);
        if (need === 'excludes-1' && hi < 1 - 1e-5) assert.ok(b! < 1);
        if (need === 'inside-equivalence' && lo > 1 / 1.05 && hi < 1.05 - 1e-5) assert.ok(a! > 0.95 && b! < 1.05);
      },
    ),
    { numRuns: 500 },
  );
});

/** Arbitrary tables: 1–7 contender rows, 1–8 windows each (≥ 1 row with 2), log-ratios in ±1. */
const tables = fc
  .array(fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 1, maxLength: 8 }), {
    minLength: 1,
    maxLength: 7,
  })
  .filter((rows) => rows.some((r) => r.length >= 2))
  .map((rows): TableInput => ({ baseline: 'base', rows: rows.map((d, i) => ({ name: `r${i}`, d })) }));

test('properties: every interval contains its figure; best ≤ worst; faster ⇒ higher figure; a higher row never has best ≥ a lower row’s worst', () => {
  const inside = (iv: [number, number], x: number) => iv[0] <= x * (1 + 1e-12) && x <= iv[1] * (1 + 1e-12);
  fc.assert(
    fc.property(tables, (input) => {
      const m = fitTable(input);
      for (const r of m.rows) assert.ok(inside(r.ci, r.ratio), JSON.stringify(r));
      for (const c of comparePairs(m)) {
        assert.ok(inside(c.ci, c.ratio) && inside(c.tostCi, c.ratio), JSON.stringify(c));
        assert.ok(c.ci[0] <= c.tostCi[0] && c.tostCi[1] <= c.ci[1], '90% inside 95%');
        if (c.verdict === 'faster') assert.ok(c.ratio > 1);
        if (c.verdict === 'slower') assert.ok(c.ratio < 1);
        assert.ok(formatComparisonInterval(c).text.includes('–'));
      }
      const ranks = rankRanges(m);
      const n = ranks.length;
      ranks.forEach((r, i) => {
        assert.ok(1 <= r.best && r.best <= r.worst && r.worst <= n, JSON.stringify(r));
        for (const low of ranks.slice(i + 1)) assert.ok(r.best < low.worst, `${r.name} above ${low.name}`);
        if (i > 0) assert.ok(ranks[i - 1]!.ratio >= r.ratio, 'rows in figure order');
      });
    }),
    { numRuns: 300 },
  );
});

/**
 * A simulated interleaved table: C cells (the first is the baseline 'base') with true log
 * efficiencies `mu`, R rounds each with a shared round effect (the host's drift, sd `drift`) and
 * independent noise σ per cell and round.
 */
function simTwoWay(z: () => number, mu: number[], R: number, sigma: number, drift: number): TwoWayRow[] {
  const rounds = Array.from({ length: R }, () => drift * z());
  return mu.map((m, i) => ({
    name: i === 0 ? 'base' : `r${i}`,
    y: new Map(rounds.map((b, k) => [k + 1, 10 + m + b + sigma * z()])),
  }));
}

test('two-way model: 95% intervals of the ratio to the baseline hold the planted ratio in ≥ 93% of rows (1,000 tables), despite a round drift 5× the noise', () => {
  const z = normal(mulberry32(2026));
  let held = 0;
  let rows = 0;
  let nullPairs = 0;
  let falsePairs = 0;
  for (let t = 0; t < 1000; t++) {
    const mu = [0, 0, 0, -0.1, 0.05, -0.3];
    const fit = fitTwoWay('base', simTwoWay(z, mu, 6, 0.05, 0.25));
    assert.ok(fit, 'a complete table fits');
    for (const [i, m] of mu.entries()) {
      if (i === 0) continue;
      const r = fit.rows.find((x) => x.name === `r${i}`);
      assert.ok(r);
      rows++;
      if (r.ci[0] <= Math.exp(m) && Math.exp(m) <= r.ci[1]) held++;
    }
    // r1, r2 and the baseline are identical: three null pairs per table.
    for (const [a, c] of [
      ['r1', 'r2'],
      ['r1', 'base'],
      ['r2', 'base'],
    ] as const) {
      nullPairs++;
      if (compare(fit, a, c).verdict === 'faster' || compare(fit, a, c).verdict === 'slower') falsePairs++;
    }
  }
  assert.ok(held / rows >= 0.93, `coverage ${pct(held / rows)}`);
  assert.ok(falsePairs / nullPairs <= 0.065, `false differences ${pct(falsePairs / nullPairs)}`);
});

test('two-way model: a pair is resolved at its MDD about 90% of the time, and its MDD is √2 tighter than the ratio model on the same data', () => {
  const z = normal(mulberry32(7));
  const probe = fitTwoWay('base', simTwoWay(z, [0, 0, 0, 0], 6, 0.05, 0.2));
  assert.ok(probe);
  const target = tableMdd(probe).pair;
  let hits = 0;
  const N = 600;
  for (let t = 0; t < N; t++) {
    const fit = fitTwoWay('base', simTwoWay(z, [0, 0, Math.log(1 + target), 0], 6, 0.05, 0.2));
    assert.ok(fit);
    if (compare(fit, 'r2', 'r1').verdict === 'faster') hits++;
  }
  assert.ok(hits / N > 0.8 && hits / N < 0.97, `power at the MDD ${pct(hits / N)}`);
  // The same data in the ratio model: each row's log-ratio to the baseline per round.
  const rowsTw = simTwoWay(z, [0, 0, 0, 0, 0, 0], 6, 0.05, 0.2);
  const tw = fitTwoWay('base', rowsTw);
  const b = rowsTw[0]?.y ?? new Map();
  const ratio = fitTable({
    baseline: 'base',
    rows: rowsTw.slice(1).map((r) => ({ name: r.name, d: [...r.y].map(([k, v]) => v - (b.get(k) ?? 0)) })),
  });
  assert.ok(tw);
  const k = tableMdd(ratio).pair / tableMdd(tw).pair;
  assert.ok(k > 1.15, `the ratio model's pair MDD is ${k.toFixed(2)}× the two-way model's`);
});

test('two-way model: no table without the baseline row or 2 common rounds; a much noisier row keeps its own variance', () => {
  const z = normal(mulberry32(11));
  assert.equal(fitTwoWay('base', simTwoWay(z, [0, 0], 1, 0.05, 0.1)), null, 'one round');
  assert.equal(fitTwoWay('nope', simTwoWay(z, [0, 0, 0], 5, 0.05, 0.1)), null, 'no baseline row');
  const rows = simTwoWay(z, [0, 0, 0, 0, 0, 0, 0, 0], 8, 0.03, 0.1);
  const noisy = rows[3];
  assert.ok(noisy);
  for (const k of noisy.y.keys()) noisy.y.set(k, (noisy.y.get(k) ?? 0) + 0.4 * z());
  const fit = fitTwoWay('base', rows);
  assert.ok(fit);
  assert.deepEqual(fit.ownVariance, ['r3']);
  const r3 = fit.rows.find((r) => r.name === 'r3');
  assert.equal(r3?.variance, 'own');
  assert.equal(r3?.df, 7);
});

test('server processes: a planted difference between processes of one build inflates false differences when rounds are the units, not when each process is (pairedUnits)', (tc) => {
  const z = normal(mulberry32(23));
  const C = 10;
  const R = 6;
  const K = 3;
  let pairs = 0;
  const hits = { round: 0, process: 0 };
  for (let t = 0; t < 200; t++) {
    const drift = Array.from({ length: R }, () => 0.2 * z());
    const cells = Array.from({ length: C }, (_, c) => {
      const inst = Array.from({ length: K }, () => 0.04 * z());
      const rounds = Array.from({ length: R }, (_, r) => r + 1);
      const instances = rounds.map((r) => Math.floor((r - 1) / (R / K)) + 1);
      const efficiency = rounds.map((r, i) =>
        Math.exp(10 + (drift[r - 1] ?? 0) + (inst[(instances[i] ?? 1) - 1] ?? 0) + 0.05 * z()),
      );
      return {
        name: c === 0 ? 'base' : `r${c}`,
        cell: { stats: { paired: { rounds, efficiency, instances } } } as unknown as CellResult,
      };
    });
    for (const by of ['round', 'process'] as const) {
      const fit = fitTwoWay(
        'base',
        cells.map((c) => {
          const u = pairedUnits(c.cell);
          assert.equal(u.by, 'process');
          if (by === 'process') return { name: c.name, y: u.y };
          const p = c.cell.stats?.paired;
          return { name: c.name, y: new Map((p?.rounds ?? []).map((k, i) => [k, Math.log(p?.efficiency[i] ?? 1)])) };
        }),
      );
      assert.ok(fit);
      if (by === 'process') assert.equal(fit.rows[0]?.n, K, 'three units per row');
      for (const x of comparePairs(fit)) if (x.verdict === 'faster' || x.verdict === 'slower') hits[by]++;
    }
    pairs += (C * (C - 1)) / 2;
  }
  const rate = (n: number) => n / pairs;
  tc.diagnostic(
    `false differences: rounds as units ${pct(rate(hits.round))}, processes as units ${pct(rate(hits.process))} of ${pairs}`,
  );
  assert.ok(rate(hits.round) > 0.1, `rounds as units: ${pct(rate(hits.round))}`);
  assert.ok(rate(hits.process) <= 0.065, `processes as units: ${pct(rate(hits.process))}`);
});

test("two-way model: a noisy row's own variance is unbiased (Shukla), where SS/(R − 1) reads (1 − 2/C) low in a 4-row table", (tc) => {
  const z = normal(mulberry32(36));
  const C = 4;
  const R = 6;
  const sig = [0.02, 0.02, 0.02, 0.08];
  let naive = 0;
  let shukla = 0;
  const N = 4000;
  for (let t = 0; t < N; t++) {
    const rounds = Array.from({ length: R }, () => 0.2 * z());
    const y = sig.map((s) => rounds.map((b) => b + s * z()));
    const rowMean = y.map((r) => r.reduce((a, x) => a + x, 0) / R);
    const roundMean = rounds.map((_, k) => y.reduce((a, r) => a + (r[k] ?? 0), 0) / C);
    const grand = rowMean.reduce((a, x) => a + x, 0) / C;
    const ss = y.map((r, i) =>
      r.reduce((a, x, k) => a + (x - (rowMean[i] ?? 0) - (roundMean[k] ?? 0) + grand) ** 2, 0),
    );
    const ssAll = ss.reduce((a, x) => a + x, 0);
    naive += (ss[3] ?? 0) / (R - 1);
    shukla += ownVariance(ss[3] ?? 0, ssAll, C, R);
  }
  const truth = 0.08 ** 2;
  tc.diagnostic(`σ² 0.0064: SS/(R−1) ${(naive / N).toFixed(5)}, Shukla ${(shukla / N).toFixed(5)}`);
  assert.ok(Math.abs(shukla / N / truth - 1) < 0.05, `Shukla's estimate is unbiased: ${(shukla / N).toFixed(5)}`);
  assert.ok(naive / N / truth < 0.6, `the plain residual variance is biased low: ${(naive / N).toFixed(5)}`);
  assert.ok(Number.isNaN(ownVariance(1, 2, 2, 5)), 'needs 3 rows');
  // In the fit: the noisy row's SE is the unbiased one (≥ its plain residual SE).
  const rows = simTwoWay(z, [0, 0, 0, 0], 8, 0.02, 0.1);
  const noisy = rows[3];
  assert.ok(noisy);
  for (const k of noisy.y.keys()) noisy.y.set(k, (noisy.y.get(k) ?? 0) + 0.3 * z());
  const fit = fitTwoWay('base', rows);
  const r3 = fit?.rows.find((r) => r.name === 'r3');
  assert.equal(r3?.variance, 'own');
  // sd² = SS/((R − 1)(C − 1)/C), so the old SE √(SS/(R − 1)/R) = sd·√((C − 1)/C / R).
  assert.ok(r3 && r3.se > r3.sd * Math.sqrt(3 / 4 / 8), 'wider than the biased SE');
});
