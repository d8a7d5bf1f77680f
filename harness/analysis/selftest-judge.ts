/**
 * The self-test's judgement of one measured run (cli/selftest.ts runs it and prints it): every pair of identical
 * copies and each slowed copy against each identical copy, by the table model (analysis/tables.ts
 * `tableModel`, table-model.ts `compare`); the false-difference rate with its Clopper–Pearson
 * interval (pairs as if independent) and with the dependence-aware interval of
 * analysis/cluster-bootstrap.ts (pigeonhole bootstrap over tables and copies). Statistics only:
 * cli/selftest.ts runs the benches and prints, and the report recomputes the interval of a
 * committed record from its run without importing the bench machinery.
 */
import path from 'node:path';
import fQuantile from '@stdlib/stats-base-dists-f-quantile';
import { buildTables, tableModel } from './tables.ts';
import { compare } from './table-model.ts';
import { type NullPair, pigeonholeShare, runsToCertify } from './cluster-bootstrap.ts';
import { UserError } from '../core/errors.ts';
import { readRun } from '../store/runs.ts';
import type { CellResult, RunMeta } from '../store/results.ts';
import type { SelftestSummary } from '../store/selftest-store.ts';

/** The self-test's fixture contender (contenders/_selftest/selftest-burn). */
export const SELFTEST_FIXTURE = 'selftest-burn';

/** Counts of one kind of pair: `hits` of `pairs` with its Clopper–Pearson 95% interval. */
export interface PairShare {
  pairs: number;
  hits: number;
  rate: number | null;
  ci95: [number, number] | null;
}

/**
 * The Clopper–Pearson (exact) 95% interval of `x` successes in `n` trials, from the F quantile
 * (Clopper & Pearson 1934; the beta–F relation, e.g. Agresti, "Categorical Data Analysis" §1.4).
 */
export function clopperPearson(x: number, n: number, alpha = 0.05): [number, number] {
  if (!(n > 0) || x < 0 || x > n) throw new UserError(`clopperPearson: need 0 ≤ x ≤ n and n > 0, got ${x} of ${n}`);
  const lo = x === 0 ? 0 : x / (x + (n - x + 1) * fQuantile(1 - alpha / 2, 2 * (n - x + 1), 2 * x));
  const f = x === n ? 0 : fQuantile(1 - alpha / 2, 2 * (x + 1), 2 * (n - x));
  const hi = x === n ? 1 : ((x + 1) * f) / (n - x + (x + 1) * f);
  return [lo, hi];
}

const share = (hits: number, pairs: number): PairShare => ({
  pairs,
  hits,
  rate: pairs ? hits / pairs : null,
  ci95: pairs ? clopperPearson(hits, pairs) : null,
});

/** The pair verdicts of one run's tables: null pairs (identical copies), and each slowed copy vs each identical copy. */
export function judgePairs(
  snapshot: { meta: RunMeta; cells: CellResult[] },
  scenarios: { name: string; baseline?: string }[],
): {
  nulls: PairShare;
  power10: PairShare;
  power5: PairShare;
  mdds: number[];
  /** The slowdown the slowed copies actually had, as measured in the run (mean over tables; 0.1 = 10%). */
  measured: { slow10: number | null; slow5: number | null };
  /** Every null pair (table = scenario), for the dependence-aware interval (analysis/cluster-bootstrap.ts). */
  nullPairs: NullPair[];
} {
  const gaps = { slow10: [] as number[], slow5: [] as number[] };
  let nulls = [0, 0];
  let p10 = [0, 0];
  let p5 = [0, 0];
  const mdds: number[] = [];
  const nullPairs: NullPair[] = [];
  const isCopy = (l: string) => l === SELFTEST_FIXTURE || l.startsWith(`${SELFTEST_FIXTURE} +copy-`);
  for (const t of buildTables([snapshot], { scenarios, runId: snapshot.meta.runId })) {
    const rankable = t.rows.filter((r) => r.status === 'ranked');
    const m = tableModel(rankable, t.baseline)?.fit;
    if (!m) continue;
    if (t.model) mdds.push(t.model.mdd.pair);
    const labels = m.rows.map((r) => r.name);
    const copies = labels.filter(isCopy);
    for (let i = 0; i < copies.length; i++)
      for (let j = i + 1; j < copies.length; j++) {
        const v = compare(m, copies[i] ?? '', copies[j] ?? '').verdict;
        nulls = [(nulls[0] ?? 0) + (v === 'faster' || v === 'slower' ? 1 : 0), (nulls[1] ?? 0) + 1];
        const hit = v === 'faster' || v === 'slower';
        nullPairs.push({ table: t.key.scenario, a: copies[i] ?? '', b: copies[j] ?? '', hit });
      }
    const meanLog = (pick: (l: string) => boolean) => {
      const xs = m.rows.filter((r) => pick(r.name)).map((r) => r.logRatio);
      return xs.length ? xs.reduce((a, x) => a + x, 0) / xs.length : null;
    };
    const base = meanLog(isCopy);
    for (const k of ['slow10', 'slow5'] as const) {
      const slow = meanLog((l) => l.includes(`+${k}-`));
      if (base !== null && slow !== null) gaps[k].push(1 - Math.exp(slow - base));
    }
    for (const slow of labels.filter((l) => l.includes(' +slow')))
      for (const c of copies) {
        const hit = compare(m, slow, c).verdict === 'slower' ? 1 : 0;
        if (slow.includes('+slow10-')) p10 = [(p10[0] ?? 0) + hit, (p10[1] ?? 0) + 1];
        else p5 = [(p5[0] ?? 0) + hit, (p5[1] ?? 0) + 1];
      }
  }
  return {
    nulls: share(nulls[0] ?? 0, nulls[1] ?? 0),
    power10: share(p10[0] ?? 0, p10[1] ?? 0),
    power5: share(p5[0] ?? 0, p5[1] ?? 0),
    mdds,
    measured: {
      slow10: gaps.slow10.length ? gaps.slow10.reduce((a, x) => a + x, 0) / gaps.slow10.length : null,
      slow5: gaps.slow5.length ? gaps.slow5.reduce((a, x) => a + x, 0) / gaps.slow5.length : null,
    },
    nullPairs,
  };
}

/**
 * The false-difference rate's dependence-aware 95% interval (analysis/cluster-bootstrap.ts
 * `pigeonholeShare` over tables and copies) and the runs of this design that would certify an
 * upper end ≤ 8% at the measured rate and at the 5% target (`runsToCertify`); null without pairs.
 */
export function clusteredFalseDifference(pairs: NullPair[]) {
  if (!pairs.length) return null;
  const c = pigeonholeShare(pairs);
  const eff = c.effectivePairs;
  return {
    ...c,
    runsToCertify8: eff ? runsToCertify(c.rate, eff, 0.08) : null,
    runsToCertify8AtTarget: eff ? runsToCertify(0.05, eff, 0.08) : null,
  };
}

/**
 * The self-test summary the report shows, with the dependence-aware interval of its
 * false-difference rate: the record's own (`falseDifferenceClustered`), else recomputed from its
 * main run under `<results>/selftest/runs/` (judgePairs → clusteredFalseDifference), else null.
 * Never throws: a missing or unreadable run leaves `clustered` null.
 */
export function withClusteredInterval(
  resultsDir: string,
  scenarios: { name: string; baseline?: string }[],
  s: SelftestSummary | null,
): SelftestSummary | null {
  if (!s || s.falseDifference.clustered) return s;
  try {
    const run = readRun(path.join(resultsDir, 'selftest'), s.mainRun, 'run', true);
    const c = clusteredFalseDifference(judgePairs({ meta: run.meta, cells: run.cells }, scenarios).nullPairs);
    const clustered = c ? { ci95: c.ci95, effectivePairs: c.effectivePairs, runsToCertify8: c.runsToCertify8 } : null;
    return { ...s, falseDifference: { ...s.falseDifference, clustered } };
  } catch {
    return { ...s, falseDifference: { ...s.falseDifference, clustered: null } };
  }
}

/**
 * Iterations of fixed work per request of the pilot's probe copies: a grid around the iterations
 * that plant 5–10% on the fixture's scenarios here (about 700–2,100), so the slowed copies' burns
 * are interpolated, not extrapolated. The cost of an iteration is not constant: beside the
 * fixture in interleaved rounds, 64,000 iterations cost 4–5× what 200 did per iteration on ping
 * (docs/decisions/0006-planted-slowdown-in-work.md: probes of 16,000–64,000 iterations, a line through the
 * origin, planted 2.5% and 1.1% for "10%" and "5%"), and the curve differs by scenario (x ∝ n^1.6
 * on ping, n^0.84 on users between 400 and 6,400 iterations, in a pilot run).
 */
export const PROBE_ITERS = [1_000, 2_000, 4_000, 8_000] as const;

/** A probe whose extra cost x is below this share of the fixture's is too noisy to fit on a log scale. */
export const MIN_PROBE_COST = 0.04;

/**
 * The iterations of fixed work per request that cost `slowdown` (0.1 = 10% fewer requests per
 * CPU-second), from probes measured beside the fixture: each probe's `ratio` = its figure ÷ the
 * fixture's (same table, same rounds), so x = 1/ratio − 1 is its extra CPU per request relative
 * to the fixture's. x is fitted as k·n^p (a line on log–log axes, least squares over the probes
 * with x ≥ MIN_PROBE_COST), which holds a cost per iteration that changes with n (PROBE_ITERS);
 * the answer is (x* ÷ k)^(1/p) for x* = 1/(1 − slowdown) − 1, rounded. Throws UserError when fewer
 * than 2 probes cost a measurable x, or the fitted cost does not grow with n (the pilot was too
 * noisy, or the fixture ignores BURN_ITERS).
 */
export function fitBurnIters(probes: readonly { iters: number; ratio: number }[], slowdown: number): number {
  const pts = probes
    .map((q) => ({ u: Math.log(q.iters), x: 1 / q.ratio - 1 }))
    .filter((q) => q.x >= MIN_PROBE_COST)
    .map((q) => ({ u: q.u, v: Math.log(q.x) }));
  const mu = pts.reduce((a, q) => a + q.u, 0) / Math.max(1, pts.length);
  const mv = pts.reduce((a, q) => a + q.v, 0) / Math.max(1, pts.length);
  const suu = pts.reduce((a, q) => a + (q.u - mu) ** 2, 0);
  const p = suu > 0 ? pts.reduce((a, q) => a + (q.u - mu) * (q.v - mv), 0) / suu : 0;
  if (pts.length < 2 || !(p > 0))
    throw new UserError(
      `self-test calibration: the probe copies cost nothing measurable (ratios ${probes.map((q) => q.ratio.toFixed(3)).join(', ')}); re-run on a quieter machine`,
    );
  const target = Math.log(1 / (1 - slowdown) - 1);
  return Math.round(Math.exp(mu + (target - mv) / p));
}

/**
 * Per scenario, the iterations of fixed work per request that cost `slowdown` (`fitBurnIters`),
 * from the pilot run's tables: each probe copy's ratio to the fixture by the table model (the
 * report's own figure: requests per server CPU-second in interleaved rounds). Also the probes'
 * ratios, for the record. Throws UserError when a scenario has no model or no probe.
 */
export function calibrateIters(
  snapshot: { meta: RunMeta; cells: CellResult[] },
  scenarios: { name: string; baseline?: string }[],
  slowdowns: readonly number[],
): { iters: Record<string, number>[]; probes: Record<string, { iters: number; ratio: number }[]> } {
  const iters = slowdowns.map(() => ({}) as Record<string, number>);
  const probes: Record<string, { iters: number; ratio: number }[]> = {};
  for (const t of buildTables([snapshot], { scenarios, runId: snapshot.meta.runId })) {
    const m = tableModel(
      t.rows.filter((r) => r.status === 'ranked'),
      t.baseline,
    )?.fit;
    const names = m?.rows.map((r) => r.name) ?? [];
    const mine = PROBE_ITERS.flatMap((n, i) => {
      const label = `${SELFTEST_FIXTURE} +probe-${i + 1}`;
      return m && names.includes(label) && names.includes(SELFTEST_FIXTURE)
        ? [{ iters: n, ratio: compare(m, label, SELFTEST_FIXTURE).ratio }]
        : [];
    });
    if (!mine.length)
      throw new UserError(`self-test calibration: the pilot's ${t.key.scenario} table has no probe beside the fixture`);
    probes[t.key.scenario] = mine;
    slowdowns.forEach((s, i) => {
      const row = iters[i];
      if (row) row[t.key.scenario] = fitBurnIters(mine, s);
    });
  }
  return { iters, probes };
}
