/**
 * The self-test's judgement of one measured run (cli/selftest.ts runs it): every pair of identical
 * copies and each slowed copy against each identical copy, by the table model (analysis/tables.ts
 * `tableModel`, table-model.ts `compare`); the false-difference rate with its Clopper–Pearson
 * interval (pairs as if independent) and with the dependence-aware interval of
 * analysis/cluster-bootstrap.ts (pigeonhole bootstrap over tables and copies). Kept apart from
 * cli/selftest.ts (which runs benches) so that the report can recompute the interval of a
 * committed record from its run without importing the bench machinery.
 */
import path from 'node:path';
import fQuantile from '@stdlib/stats-base-dists-f-quantile';
import { buildTables, tableModel } from '../analysis/tables.ts';
import { compare } from '../analysis/table-model.ts';
import { type NullPair, pigeonholeShare, runsToCertify } from '../analysis/cluster-bootstrap.ts';
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
