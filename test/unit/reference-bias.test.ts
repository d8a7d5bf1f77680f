// The accuracy test against the steady-state reference (harness/analysis/reference-gaps.ts,
// reference-test.ts, reference-floor.ts): standard errors from the intervals' own t quantiles, the
// gaps' covariance through the shared baseline, the GLS and row tests' null checked by simulating
// raw data with the real dependence (per contender and side, ratios against the shared baseline,
// both sides' models refitted), their power, the targets and the floor; on the committed data too.
import assert from 'node:assert/strict';
import path from 'node:path';
import test from 'node:test';
import chisquareCdf from '@stdlib/stats-base-dists-chisquare-cdf';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { accuracyDetails, accuracyLine, noBiasReading } from '../../harness/analysis/reference-floor.ts';
import {
  type BakeoffRatio,
  bakeoffRatiosOf,
  comparePaired,
  compareRuns,
  compareWithReference,
  gapInterval,
  splitOf,
  splitOfFit,
} from '../../harness/analysis/reference-gaps.ts';
import {
  blockRatio,
  type ProcessFigures,
  type ReferenceRatio,
  referenceRatios,
  withSplits,
} from '../../harness/analysis/reference-stats.ts';
import { biasTest, gapCovariance } from '../../harness/analysis/reference-test.ts';
import { fitTwoWay } from '../../harness/analysis/table-model.ts';
import { buildTables } from '../../harness/analysis/tables.ts';
import { mulberry32 } from '../../harness/core/prng.ts';
import { readReference } from '../../harness/store/reference-store.ts';
import { readRun } from '../../harness/store/runs.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const REF = path.join(ROOT, 'results/reference/2026-11-27T15-10-39Z-fe9c.json');

const normal = (r: () => number) => Math.sqrt(-2 * Math.log(1 - r())) * Math.cos(2 * Math.PI * r());

/**
 * The committed design, simulated: per scenario a bake-off table of the baseline, the 7 compared
 * contenders and `extra` others, 3 server processes each (two-way model, σ per process), and a
 * reference of the baseline and the 7 in `blocks` rotation blocks (block model, its σ per block).
 * σ's are the committed runs' (bake-off 01bf, reference fe9c).
 */
const SCENARIOS = [
  { name: 'json', extra: 5, bake: 0.053, ref: 0.051 },
  { name: 'users', extra: 3, bake: 0.05, ref: 0.056 },
];
const CONTENDERS = ['c1', 'c2', 'c3', 'c4', 'c5', 'c6', 'c7'];
const truth = (c: string) => (c === 'node-http' ? 0 : -0.2 * (CONTENDERS.indexOf(c) + 1));

/** One simulated bake-off's rows; `bias(scenario, contender)` adds to its true log figure. */
function simulatedBakeoff(rand: () => number, bias: (s: string, c: string) => number = () => 0): BakeoffRatio[] {
  return SCENARIOS.flatMap((s) => {
    const names = ['node-http', ...CONTENDERS, ...Array.from({ length: s.extra }, (_, i) => `x${i}`)];
    const rows = names.map((n) => {
      const m = n.startsWith('x') ? -0.5 : truth(n) + bias(s.name, n);
      // Each process's host speed (0.1 per process) is shared by the table; the two-way model removes it.
      return { name: n, y: new Map([1, 2, 3].map((p) => [p, m + 0.1 * p + s.bake * normal(rand)])) };
    });
    const fit = fitTwoWay('node-http', rows) ?? assert.fail('no fit');
    return CONTENDERS.map((c) => {
      const f = fit.rows.find((x) => x.name === c) ?? assert.fail(c);
      return {
        label: c,
        scenario: s.name,
        baseline: 'node-http',
        ratio: f.ratio,
        ci95: f.ci,
        df: f.df,
        split: splitOfFit(fit, c),
      };
    });
  });
}

/** One simulated rotation reference of `blocks` blocks (requests/s only). */
function simulatedReference(rand: () => number, blocks: number): ReferenceRatio[] {
  const ps: ProcessFigures[] = [];
  for (const s of SCENARIOS)
    for (let b = 1; b <= blocks; b++)
      for (const c of ['node-http', ...CONTENDERS])
        ps.push({
          contender: c,
          scenario: s.name,
          block: b,
          rps: 20_000 * Math.exp(truth(c) + 0.05 * b + s.ref * normal(rand)),
          efficiency: null,
        });
  return referenceRatios(ps, () => 'node-http');
}

test('standard errors from the intervals’ own t quantiles; a row on its own variance keeps its few df, never inflated', () => {
  // An interval on 14 df: SE = log half-width ÷ t(0.975, 14), not ÷ 1.96.
  const h = tQuantile(0.975, 14) * 0.05;
  const s = splitOf({ ci95: [Math.exp(-h), Math.exp(h)], df: 14 }) ?? assert.fail('no split');
  assert.ok(Math.abs(s.own.se - 0.05) < 1e-12 && s.own.df === 14 && s.base.se === 0, JSON.stringify(s));
  // The reference's block model: each mean σ̂/√B, pooled, df (C − 1)(B − 1); the interval is t on √2 of it.
  const rand = mulberry32(3);
  const ps: ProcessFigures[] = [];
  for (let b = 1; b <= 3; b++)
    for (const c of ['node-http', 'a', 'b', 'c'])
      ps.push({ contender: c, scenario: 'json', block: b, rps: Math.exp(0.05 * normal(rand)), efficiency: null });
  const r = blockRatio(ps, 'a', 'node-http', (p) => p.rps);
  assert.equal(r.df, 6);
  const sr = r.split ?? assert.fail('no split');
  assert.ok(sr.own.pooled && sr.base.pooled && sr.own.se === sr.base.se);
  const ci = r.ci95 ?? assert.fail('no interval');
  const back = (Math.log(ci[1]) - Math.log(ci[0])) / 2 / tQuantile(0.975, 6);
  assert.ok(Math.abs(back - Math.SQRT2 * sr.own.se) < 1e-12, `${back} vs ${Math.SQRT2 * sr.own.se}`);
  // A bake-off row much noisier than the others keeps its own variance on R − 1 = 2 df: its gap SE
  // is its own model SE with the baseline's, not its interval's half-width ÷ 1.96 (2.2× as large).
  const rows = ['node-http', 'a', 'b', 'c', 'd', 'e', 'f', 'noisy'].map((n, i) => ({
    name: n,
    y: new Map(
      [1, 2, 3].map((p) => [p, -0.1 * i + (n === 'noisy' ? ([0.5, -0.5, 0.2][p - 1] ?? 0) : 0.02 * normal(rand))]),
    ),
  }));
  const fit = fitTwoWay('node-http', rows) ?? assert.fail('no fit');
  assert.deepEqual(fit.ownVariance, ['noisy']);
  const f = fit.rows.find((x) => x.name === 'noisy') ?? assert.fail('no row');
  const split = splitOfFit(fit, 'noisy') ?? assert.fail('no split');
  assert.equal(split.own.df, 2);
  assert.equal(split.own.pooled, false);
  const row: BakeoffRatio = {
    label: 'noisy',
    scenario: 'json',
    baseline: 'node-http',
    ratio: f.ratio,
    ci95: f.ci,
    df: f.df,
    split,
  };
  const exact: ReferenceRatio = {
    contender: 'noisy',
    scenario: 'json',
    baseline: 'node-http',
    rps: { figure: f.ratio, ci95: [f.ratio * 0.999, f.ratio * 1.001], n: 3, df: 1e6 },
    efficiency: null,
  };
  const gap = compareWithReference([row], [exact]).rows[0] ?? assert.fail('no gap');
  const base = fit.rows.find((x) => x.baseline) ?? assert.fail('no baseline');
  assert.ok(Math.abs((gap.se ?? 0) - Math.hypot(f.se, base.se)) < 1e-3, `gap SE ${gap.se}`);
  const old = (Math.log(f.ci[1]) - Math.log(f.ci[0])) / (2 * 1.96);
  assert.ok(old / (gap.se ?? 1) > 2, `half-width ÷ 1.96 = ${old}, SE ${gap.se}`);
});

test('the gaps’ covariance: the shared baseline on both sides (ρ = 0.5 with equal SEs), scenarios independent', () => {
  const check = compareWithReference(simulatedBakeoff(mulberry32(11)), simulatedReference(mulberry32(12), 3));
  assert.equal(check.rows.length, 14);
  const s = gapCovariance(check.rows);
  const [a, b] = check.rows;
  const json = check.rows.filter((r) => r.scenario === 'json');
  const users = check.rows.findIndex((r) => r.scenario === 'users');
  // Var(g) = s_i² + s_B² on each side; Cov = s_B² + s_B² (the two baselines).
  const split = (r: typeof a) => (r?.terms ?? []).map((t) => t.v);
  const [oi = 0, bi = 0, ori = 0, bri = 0] = split(a);
  assert.ok(Math.abs((s[0]?.[0] ?? 0) - (oi + bi + ori + bri)) < 1e-15);
  assert.ok(Math.abs((s[0]?.[1] ?? 0) - (bi + bri)) < 1e-15);
  assert.equal(split(b)[1], bi, 'one baseline variance per side and scenario');
  assert.equal(s[0]?.[users], 0);
  // Every mean of a side has the same pooled SE here, so ρ = (s_B² + s_Br²) / (2 s_B² + 2 s_Br²) = 0.5.
  const rho = (s[0]?.[1] ?? 0) / Math.sqrt((s[0]?.[0] ?? 0) * (s[1]?.[1] ?? 0));
  assert.ok(Math.abs(rho - 0.5) < 1e-9, `ρ = ${rho}`);
  assert.equal(json.length, 7);
});

test('unbiased checks, simulated with the real dependence: GLS and the row test false-alarm at 5% ± 2%; Σz² on χ² does not', () => {
  // 2,000 seeded checks: raw data of a bake-off (the table model refitted) and a 3-block reference
  // (the block model refitted), each check's own p from 19 simulated draws (an exact 5% Monte Carlo
  // test rejects when its statistic beats all 19).
  const rand = mulberry32(46);
  const n = 2000;
  let gls = 0;
  let row = 0;
  let sumZ2 = 0;
  for (let i = 0; i < n; i++) {
    const check = compareWithReference(simulatedBakeoff(rand), simulatedReference(rand, 3));
    const t = biasTest(check, 19, i + 1)?.test ?? assert.fail('no test');
    if (t.pT <= 0.05) gls++;
    if (t.pMax <= 0.05) row++;
    const z2 = check.rows.reduce((a, r) => a + (r.z ?? 0) ** 2, 0);
    if (1 - chisquareCdf(z2, check.rows.length) < 0.05) sumZ2++;
  }
  const rate = (k: number) => k / n;
  assert.ok(rate(gls) >= 0.03 && rate(gls) <= 0.07, `GLS false alarms ${rate(gls)}`);
  assert.ok(rate(row) >= 0.03 && rate(row) <= 0.07, `row-test false alarms ${rate(row)}`);
  // Σz² ignores the shared baseline: its χ²₁₄ tail is wrong (about 11–15% here).
  assert.ok(rate(sumZ2) > 0.08, `Σz² false alarms ${rate(sumZ2)}`);
});

test('a 10% bias on one row at the targeted reference precision (±3% per row): found by the row test on 3 bake-offs', () => {
  // A reference of 25 blocks (its ratios ±2.9–3.2%), the row c7 on json 10% low in every bake-off.
  const rand = mulberry32(10);
  const biased = (s: string, c: string) => (s === 'json' && c === 'c7' ? Math.log(0.9) : 0);
  const n = 120;
  const found = { one: 0, three: 0, named: 0, gls: 0 };
  for (let i = 0; i < n; i++) {
    const ref = simulatedReference(rand, 25);
    const h = ref[0]?.rps.ci95 ?? assert.fail('no interval');
    if (i === 0)
      assert.ok(h[1] / (ref[0]?.rps.figure ?? 1) < 1.035, `reference ±${h[1] / (ref[0]?.rps.figure ?? 1) - 1}`);
    const one = biasTest(compareWithReference(simulatedBakeoff(rand, biased), ref), 39, i)?.test;
    const three = biasTest(
      compareRuns(
        [0, 1, 2].map(() => simulatedBakeoff(rand, biased)),
        ref,
      ),
      39,
      i,
    )?.test;
    if ((one?.pMax ?? 1) <= 0.05) found.one++;
    if ((three?.pMax ?? 1) <= 0.05) found.three++;
    if ((three?.pT ?? 1) <= 0.05) found.gls++;
    if (three?.beyond.some((b) => b.label === 'c7' && b.scenario === 'json')) found.named++;
  }
  const r = (k: number) => k / n;
  assert.ok(r(found.three) >= 0.8, `found in ${r(found.three)} of checks on 3 bake-offs`);
  assert.ok(r(found.named) >= 0.8, `the row named in ${r(found.named)}`);
  // One bake-off at the default's precision (rows ±9%) cannot (about half); GLS spreads its power over 14 df.
  assert.ok(r(found.one) < 0.8, `one bake-off: ${r(found.one)}`);
  assert.ok(r(found.gls) < r(found.three), `GLS ${r(found.gls)} vs the row test ${r(found.three)}`);
});

test('the targets and the floor: what an unbiased design passes at a given precision', () => {
  const rand = mulberry32(21);
  // The committed design (one bake-off, a 3-block reference): an unbiased design never passes.
  const now = noBiasReading(compareWithReference(simulatedBakeoff(rand), simulatedReference(rand, 3)), 1000);
  assert.ok(now && now.pass < 0.02, `pass ${now?.pass}`);
  // The mean of 3 bake-offs against a ±3% reference: passes in some 35–75% of checks (each row's
  // ±10% equivalence over 14 rows binds), reads median |gap| ≈ 0.674 × its gap SE.
  const check = compareRuns(
    [0, 1, 2].map(() => simulatedBakeoff(rand)),
    simulatedReference(rand, 25),
  );
  const floor = noBiasReading(check, 1000) ?? assert.fail('no floor');
  assert.ok(floor.pass > 0.35 && floor.pass < 0.75, `pass ${floor.pass}`);
  const se = check.rows.map((r) => r.se ?? 0).sort((a, b) => a - b)[7] ?? 0;
  assert.ok(Math.abs(floor.medianBias / (0.674 * se) - 1) < 0.2, `median ${floor.medianBias}, SE ${se}`);
  assert.ok(check.targets !== null && check.runs === 3);
  // An exactly known design (every SE a tenth): passes nearly always.
  const tight = {
    ...check,
    rows: check.rows.map((r) => ({ ...r, terms: r.terms?.map((t) => ({ ...t, v: t.v / 100 })) ?? null })),
  };
  assert.ok((noBiasReading(tight, 500)?.pass ?? 0) > 0.95);
});

test('paired: each bake-off against the reference of its own hour; one shared reference reads as compareRuns', () => {
  const rand = mulberry32(31);
  // K runs against one reference, paired or not: the same gaps, SEs and df.
  const runs = [0, 1, 2].map(() => simulatedBakeoff(rand));
  const ref = simulatedReference(rand, 6);
  const a = compareRuns(runs, ref);
  const b = comparePaired(runs, [ref, ref, ref]);
  assert.equal(b.rows.length, 14);
  for (const [i, r] of a.rows.entries()) {
    const q = b.rows[i] ?? assert.fail('row');
    assert.ok(Math.abs(r.gap - q.gap) < 1e-12 && Math.abs((r.se ?? 0) - (q.se ?? 0)) < 1e-12, `${r.label}`);
    assert.ok(Math.abs((r.df ?? 0) - (q.df ?? 0)) < 1e-6 && r.within === q.within);
  }
  // Hand arithmetic on intervals alone (SE = log half-width ÷ t(0.975, df)): the mean of the paired
  // log gaps, each pair's variances over K²; two runs on one record share its noise (coefficient 2/3).
  const bake = (ratio: number, se: number): BakeoffRatio[] => [
    {
      label: 'a',
      scenario: 'json',
      baseline: 'node-http',
      ratio,
      ci95: [ratio * Math.exp(-tQuantile(0.975, 20) * se), ratio * Math.exp(tQuantile(0.975, 20) * se)],
      df: 20,
    },
  ];
  const refOf = (record: string, figure: number, se: number): ReferenceRatio[] => [
    {
      contender: 'a',
      scenario: 'json',
      baseline: 'node-http',
      rps: {
        figure,
        ci95: [figure * Math.exp(-tQuantile(0.975, 21) * se), figure * Math.exp(tQuantile(0.975, 21) * se)],
        n: 8,
        df: 21,
      },
      efficiency: null,
      record,
    },
  ];
  const two = comparePaired([bake(0.8, 0.03), bake(0.7, 0.04)], [refOf('A', 0.84, 0.02), refOf('B', 0.72, 0.025)]);
  const g = two.rows[0] ?? assert.fail('no row');
  assert.ok(Math.abs(g.gap - (Math.log(0.8 / 0.84) + Math.log(0.7 / 0.72)) / 2) < 1e-12, `${g.gap}`);
  assert.ok(Math.abs((g.se ?? 0) - Math.sqrt(0.03 ** 2 + 0.04 ** 2 + 0.02 ** 2 + 0.025 ** 2) / 2) < 1e-9, `${g.se}`);
  assert.ok(Math.abs(g.reference - Math.sqrt(0.84 * 0.72)) < 1e-12 && g.record === 'A, B');
  const three = comparePaired(
    [bake(0.8, 0.03), bake(0.8, 0.03), bake(0.7, 0.03)],
    [refOf('A', 0.84, 0.02), refOf('A', 0.84, 0.02), refOf('B', 0.72, 0.02)],
  ).rows[0];
  const want = Math.sqrt((3 * 0.03 ** 2 + 4 * 0.02 ** 2 + 0.02 ** 2) / 9);
  assert.ok(Math.abs((three?.se ?? 0) - want) < 1e-9, `${three?.se} vs ${want}`);
  assert.throws(() => comparePaired([bake(0.8, 0.03)], []), /1 runs but 0 references/);
  // The steady state moves between hours (here 5% per hour, as json ratios did on 2026-11-30): paired
  // with their own hours' references, 3 unbiased bake-offs' 90% intervals cover 0 in about 90% of
  // checks; against one reference of another hour, far fewer.
  let paired = 0;
  let other = 0;
  const N = 1500;
  for (let i = 0; i < N; i++) {
    const hour = () => 0.05 * normal(rand);
    const hs = [hour(), hour(), hour()];
    const rs = hs.map((h) => bake(0.8 * Math.exp(h + 0.03 * normal(rand)), 0.03));
    const own = hs.map((h, k) => refOf(`h${k}`, 0.8 * Math.exp(h + 0.02 * normal(rand)), 0.02));
    const covers = (c: ReturnType<typeof comparePaired>) => {
      const ci = c.rows[0]?.ci ?? assert.fail('no interval');
      return ci[0] < 1 && ci[1] > 1;
    };
    if (covers(comparePaired(rs, own))) paired++;
    if (covers(compareRuns(rs, refOf('h4', 0.8 * Math.exp(hour() + 0.02 * normal(rand)), 0.02)))) other++;
  }
  assert.ok(paired / N > 0.87 && paired / N < 0.95, `paired coverage ${paired / N}`);
  assert.ok(other / N < 0.7, `another hour's reference: coverage ${other / N}`);
});

test('±10% in the terms the gap prints in: a 90% interval 0.905–1.02 is inside, 0.895–1.02 and 0.95–1.101 are not', () => {
  const z = tQuantile(0.95, 1e9);
  const at = (lo: number, hi: number) => {
    const h = (Math.log(hi) - Math.log(lo)) / 2;
    return gapInterval((Math.log(hi) + Math.log(lo)) / 2, (h / z) ** 2, Number.POSITIVE_INFINITY);
  };
  const inside = at(0.905, 1.02);
  assert.ok(Math.abs(inside.ci[0] - 0.905) < 1e-6 && Math.abs(inside.ci[1] - 1.02) < 1e-6, `${inside.ci}`);
  // −9.5% is inside ±10% as printed, though beyond ln(1/1.1) (−9.1%) on the log scale.
  assert.equal(inside.within, true);
  assert.equal(at(0.895, 1.02).within, false);
  assert.equal(at(0.95, 1.101).within, false);
});

test('the committed data: 01bf and e959 against fe9c (T, simulated p, the rows beyond both intervals, the line)', () => {
  const ref = readReference(REF);
  const ratios = withSplits(ref.ratios, ref.processes);
  const json = ratios.find((r) => r.contender === 'fastify' && r.scenario === 'json') ?? assert.fail('no row');
  assert.equal(json.rps.df, 14, 'recomputed from the processes: 8 contenders × 3 blocks');
  const of = (dir: string, id: string) => {
    const run = readRun(path.join(ROOT, dir), id, 'run', true);
    return compareWithReference(
      bakeoffRatiosOf(buildTables([{ meta: run.meta, cells: run.cells }], { runId: id })),
      ratios,
    );
  };
  const a = of('results', '2026-11-27T12-52-01Z-01bf');
  const ra = noBiasReading(a) ?? assert.fail('no reading');
  assert.equal(ra.test.rows, 14);
  assert.ok(Math.abs(ra.test.t - 26.5) < 0.05, `T ${ra.test.t}`);
  assert.ok(
    ra.test.pT > 0.03 && ra.test.pT < 0.07 && ra.test.pChi2 < ra.test.pT,
    `p ${ra.test.pT}, χ² ${ra.test.pChi2}`,
  );
  assert.equal(
    accuracyLine(a, ra, ref.runId),
    'accuracy: 12 of 14 rows within ±10% of the steady-state reference `2026-11-27T15-10-39Z-fe9c`; beyond both intervals: loopback4 json −11.4% (one bake-off; the targets are judged on ≥ 3)',
  );
  assert.match(
    accuracyDetails(a, ra, ref.runId),
    /GLS T = 26\.5 on 14 df, p = 0\.0\d\d by 4,000 simulated unbiased checks/,
  );
  const e = of('results/reference', '2026-11-27T15-59-32Z-e959');
  const re = noBiasReading(e) ?? assert.fail('no reading');
  assert.ok(re.test.pT < 0.01, `e959 p ${re.test.pT}`);
  assert.deepEqual(re.test.beyond.map((b) => `${b.label} ${b.scenario}`).sort(), ['loopback4 json', 'loopback4 users']);
  // e959's json fastify keeps its own variance on 2 df: its gap SE is its model's, not 2.2× larger.
  const fastify = e.rows.find((r) => r.label === 'fastify' && r.scenario === 'json') ?? assert.fail('no row');
  assert.ok((fastify.terms ?? []).some((t) => t.df === 2));
});
