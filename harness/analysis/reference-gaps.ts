/**
 * The bake-off against the steady-state reference (analysis/reference-stats.ts): per row the log gap
 *     g_i = ln(bake-off ratio_i) − ln(reference ratio_i)
 * (each a ratio to the scenario's baseline; over K bake-offs the mean of their logs; paired,
 * `comparePaired`, the mean of each bake-off's gap against a reference of its own hours), its standard
 * error, its 90% interval and the targets a design must meet. The test of whether the gaps are
 * beyond both sides' noise is reference-test.ts; what an unbiased design reads, reference-floor.ts.
 *
 * Covariance (the shared baseline). On each side a log ratio is a difference of two means, the
 * contender's m_i and the baseline's m_B, with standard errors s_i and s_B (`SeSplit`):
 *     Var(ln r_i) = s_i² + s_B²,   Cov(ln r_i, ln r_j) = s_B²   (i ≠ j, one scenario, one run),
 * because the same m_B is subtracted in every row, while the contenders' means are independent
 * (the table model's row means given the round effects; the reference's means given the block
 * effects, or its separate processes). Hence, with the bake-off side b (runs k = 1..K) and the
 * reference side r,
 *     g_i = (1/K) Σ_k (m_ik − m_Bk) − (m_ir − m_Br),
 *     Var(g_i) = Σ_k (s_ik² + s_Bk²)/K² + s_ir² + s_Br²,   Cov(g_i, g_j) = Σ_k s_Bk²/K² + s_Br²,
 * so the rows of a scenario are correlated (ρ = 0.5 when every SE is equal) and scenarios are
 * independent blocks (separate tables, separate reference fits). Each gap is kept as its random
 * terms (`GapTerm`: a mean, its coefficient, its variance, and the variance estimate it comes
 * from), from which reference-test.ts builds the covariance and simulates the noise.
 *
 * Where the splits come from: the bake-off's two-way table model gives each row's mean SE (σ̂/√R
 * pooled, or the row's own variance on R − 1 df) and the baseline's (`bakeoffRatiosOf`); the
 * reference's block model σ̂/√B for every mean on (C − 1)(B − 1) df, its solo design each side's
 * s/√n on n − 1 df. A ratio with only an interval: SE = log half-width ÷ t(0.975, df), all of it
 * its own (no covariance), df Infinity when the interval does not carry one.
 *
 * A row's 90% interval: t on Welch–Satterthwaite df over its variance estimates (the terms of one
 * pooled estimate counted together). Targets (REFERENCE_TARGETS): every row's gap 90% interval
 * inside ±10% (equivalence, both sides' errors counted), the median |gap| ≤ 5% and the max ≤ 10%,
 * where |gap| = |bake-off ÷ reference − 1|; judged on the mean of ≥ 3 bake-offs. Ratios unitless,
 * logs natural.
 */
import { tQuantile } from './stats.ts';
import type { ReferenceFigure, ReferenceRatio, SeSplit } from './reference-stats.ts';
import type { TableModel } from './table-model.ts';
import type { RankedTable } from './tables.ts';

/**
 * The targets of a design against the reference: each row's gap `level` interval inside ±`margin`
 * (ratio 1 − margin … 1 + margin, the terms |gap| prints in), median |gap| ≤ `medianBias`,
 * max ≤ `maxBias`, judged on the mean of ≥ `runs` bake-offs.
 */
export const REFERENCE_TARGETS = { margin: 0.1, level: 0.9, medianBias: 0.05, maxBias: 0.1, runs: 3 } as const;

/** One bake-off row to compare: its ratio to the table's baseline with the 95% CI the report prints. */
export interface BakeoffRatio {
  label: string;
  scenario: string;
  baseline: string;
  ratio: number;
  ci95: [number, number] | null;
  /** df of the interval's t quantile (null or absent: read as normal). */
  df?: number | null;
  /** The model's split of the ratio's SE (absent: all of the SE is the row's own). */
  split?: SeSplit | null;
}

/** One random term of a gap: `coef` × the noise of one mean. */
export interface GapTerm {
  /** The mean it is: terms with one source are one random variable (a baseline's mean is in every row of its scenario and run). */
  source: string;
  /** Its coefficient in the gap (±1, or ±1/K over K bake-offs). */
  coef: number;
  /** The mean's variance as estimated (log units²). */
  v: number;
  /** Degrees of freedom of that estimate (Infinity when known). */
  df: number;
  /** The variance estimate it comes from: terms of one pool share one estimate (a pooled σ̂²). */
  pool: string;
}

/** A bake-off row against the reference. */
export interface GapRow {
  label: string;
  scenario: string;
  baseline: string;
  /** The bake-off's ratio (geometric mean over its runs). */
  bakeoff: number;
  reference: number;
  /** ln(bakeoff ÷ reference). */
  gap: number;
  /** |bakeoff ÷ reference − 1|. */
  bias: number;
  /** Standard error of `gap` and its Welch–Satterthwaite df; null when either side has no interval. */
  se: number | null;
  df: number | null;
  /** The REFERENCE_TARGETS.level interval of bakeoff ÷ reference; null without `se`. */
  ci: [number, number] | null;
  /** `ci` lies inside ±REFERENCE_TARGETS.margin; null without `ci`. */
  within: boolean | null;
  /** gap ÷ se (the row alone, ignoring its correlation with the others); null without `se`. */
  z: number | null;
  /** The gap's random terms (see the module docstring); null without `se`. */
  terms: GapTerm[] | null;
  /** The reference record of the row's ratio, when the reference is several records read together. */
  record?: string;
}

/** The targets' readings over a check's rows (null when no row has an interval). */
export interface TargetReading {
  /** Every row's interval inside ±margin (rows without one fail it). */
  equivalence: boolean;
  median: boolean;
  max: boolean;
  /** All three. */
  met: boolean;
}

/** The bake-off (one or more runs) against the reference over the rows both have. */
export interface ReferenceCheck {
  unit: 'rps' | 'efficiency';
  /** Bake-off runs averaged (the targets are judged on ≥ REFERENCE_TARGETS.runs). */
  runs: number;
  rows: GapRow[];
  medianBias: number | null;
  maxBias: number | null;
  /** Rows whose gap interval lies inside ±margin. */
  within: number;
  targets: TargetReading | null;
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const n = s.length;
  return n ? ((s[(n - 1) >> 1] ?? 0) + (s[n >> 1] ?? 0)) / 2 : Number.NaN;
};

/** t quantiles by (p, df rounded to 0.01), cached: the simulated floor asks for one per row per draw. */
const tCache = new Map<string, number>();
const tq = (p: number, df: number) => {
  const d = Number.isFinite(df) && df < 1e6 ? Math.round(df * 100) / 100 : 1e9;
  const key = `${p}|${d}`;
  let q = tCache.get(key);
  if (q === undefined) {
    q = tQuantile(p, Math.max(d, 0.01));
    tCache.set(key, q);
  }
  return q;
};

/**
 * A ratio's `SeSplit`: its own when it carries one; else from its 95% interval, SE = log
 * half-width ÷ t(0.975, df) (df Infinity when absent), all of it its own. Null without a usable interval.
 */
export function splitOf(f: {
  ci95: [number, number] | null;
  df?: number | null;
  split?: SeSplit | null;
}): SeSplit | null {
  if (f.split) return f.split;
  const ci = f.ci95;
  if (!ci || !(ci[0] > 0) || !(ci[1] > ci[0])) return null;
  const df = f.df && f.df > 0 ? f.df : Number.POSITIVE_INFINITY;
  const se = (Math.log(ci[1]) - Math.log(ci[0])) / (2 * tq(0.975, df));
  return { own: { se, df, pooled: false }, base: { se: 0, df: Number.POSITIVE_INFINITY, pooled: false } };
}

/** The two terms of one side's log ratio (own +coef, baseline −coef), sources and pools under `side|scenario`. */
function sideTerms(s: SeSplit, side: string, row: { label: string; scenario: string; baseline: string }, coef: number) {
  const at = `${side}|${row.scenario}`;
  const pool = (label: string, pooled: boolean) => (pooled ? `${at}|pooled` : `${at}|own|${label}`);
  return [
    { source: `${at}|${row.label}`, coef, v: s.own.se ** 2, df: s.own.df, pool: pool(row.label, s.own.pooled) },
    {
      source: `${at}|${row.baseline}`,
      coef: -coef,
      v: s.base.se ** 2,
      df: s.base.df,
      pool: pool(row.baseline, s.base.pooled),
    },
  ].filter((t) => t.v > 0);
}

/**
 * A gap's variance from its terms (each source once per row) and its Welch–Satterthwaite df over
 * the pools: df = (Σ_p V_p)² / Σ_p (V_p² / df_p), V_p the variance its pool p contributes.
 * `scale(t, k)` multiplies the k-th term's variance (1: as estimated; reference-test.ts draws it).
 */
export function gapVariance(
  terms: GapTerm[],
  scale: (t: GapTerm, k: number) => number = () => 1,
): { v: number; df: number } {
  const byPool = new Map<string, { v: number; df: number }>();
  for (const [k, t] of terms.entries()) {
    const p = byPool.get(t.pool) ?? { v: 0, df: t.df };
    p.v += t.coef ** 2 * t.v * scale(t, k);
    byPool.set(t.pool, p);
  }
  const ps = [...byPool.values()];
  const v = ps.reduce((a, p) => a + p.v, 0);
  const den = ps.reduce((a, p) => a + (Number.isFinite(p.df) ? p.v ** 2 / p.df : 0), 0);
  return { v, df: den > 0 ? v ** 2 / den : Number.POSITIVE_INFINITY };
}

/**
 * The gap's REFERENCE_TARGETS.level interval as a ratio, and whether it lies inside ±margin in the
 * terms the gap prints in (bake-off ÷ reference − 1): strictly between 1 − margin and 1 + margin.
 */
export function gapInterval(gap: number, v: number, df: number): { ci: [number, number]; within: boolean } {
  const h = tq(1 - (1 - REFERENCE_TARGETS.level) / 2, df) * Math.sqrt(v);
  const ci: [number, number] = [Math.exp(gap - h), Math.exp(gap + h)];
  const m = REFERENCE_TARGETS.margin;
  return { ci, within: ci[0] > 1 - m && ci[1] < 1 + m };
}

/** The three targets over rows' biases and equivalence verdicts (null without rows). */
export function targetsOf(rows: { bias: number; within: boolean | null }[]): TargetReading | null {
  if (!rows.length) return null;
  const t = REFERENCE_TARGETS;
  const equivalence = rows.every((r) => r.within === true);
  const med = median(rows.map((r) => r.bias)) <= t.medianBias;
  const max = Math.max(...rows.map((r) => r.bias)) <= t.maxBias;
  return { equivalence, median: med, max, met: equivalence && med && max };
}

/**
 * The bake-off runs `runs` (each its rows; ≥ 1 run) against the reference ratios (same contender
 * label, scenario and baseline), in `unit` ('rps': the reference's requests/s ratio; 'efficiency':
 * its requests per CPU-second ratio). A row is compared when every run has it; the gap is the
 * mean of the runs' log ratios minus the reference's. Rows the reference lacks are left out.
 */
export function compareRuns(
  runs: BakeoffRatio[][],
  ref: ReferenceRatio[],
  unit: 'rps' | 'efficiency' = 'rps',
): ReferenceCheck {
  return comparePaired(
    runs,
    runs.map(() => ref),
    unit,
  );
}

/**
 * Each bake-off run against its own reference (`refs[k]` for `runs[k]`; a reference of the same
 * hours, since a steady-state ratio can move between hours by more than its interval): per row
 *     g = (1/K) Σ_k [ln(bake-off ratio_k) − ln(reference ratio_k)],
 * the mean of the K paired gaps; the row's `reference` is the geometric mean of its K references.
 * Runs that share a reference (the same `record`, or the same array when a ratio names no record)
 * share its noise: its terms are one source with coefficient −(its runs)/K, so K runs against one
 * reference read exactly as `compareRuns`. A row is compared when every run and its reference have
 * it. Throws Error when `refs` and `runs` differ in length.
 */
export function comparePaired(
  runs: BakeoffRatio[][],
  refs: ReferenceRatio[][],
  unit: 'rps' | 'efficiency' = 'rps',
): ReferenceCheck {
  if (refs.length !== runs.length)
    throw new Error(`comparePaired: ${runs.length} runs but ${refs.length} references (one per run)`);
  const K = runs.length;
  const arrays = [...new Set(refs)];
  const rows: GapRow[] = [];
  for (const r of runs[0] ?? []) {
    const same = (x: { scenario: string; baseline: string }) => x.scenario === r.scenario && x.baseline === r.baseline;
    const xs = refs.map((ref) => ref.find((q) => q.contender === r.label && same(q)));
    const figs = xs.map((x): ReferenceFigure | null | undefined => (unit === 'rps' ? x?.rps : x?.efficiency));
    const mine = runs.map((rs) => rs.find((q) => q.label === r.label && same(q)));
    if (!figs.every((f) => f && f.figure > 0) || !mine.every((q) => q !== undefined && q.ratio > 0)) continue;
    const ofRuns = mine as BakeoffRatio[];
    const ofRefs = figs as ReferenceFigure[];
    const logMean = ofRuns.reduce((a, q) => a + Math.log(q.ratio), 0) / K;
    const refLogMean = ofRefs.reduce((a, f) => a + Math.log(f.figure), 0) / K;
    const gap = logMean - refLogMean;
    const splits = ofRuns.map(splitOf);
    const refSplits = ofRefs.map(splitOf);
    // Ratios of different records share no baseline mean: their terms are separate sources.
    const side = (k: number) => {
      const rec = xs[k]?.record;
      const a = arrays.indexOf(refs[k] as ReferenceRatio[]);
      return rec ? `r:${rec}` : a === 0 ? 'r' : `r${a + 1}`;
    };
    const terms =
      refSplits.every((s) => s !== null) && splits.every((s) => s !== null)
        ? mergeTerms([
            ...splits.flatMap((s, k) => sideTerms(s as SeSplit, `b${k + 1}`, r, 1 / K)),
            ...refSplits.flatMap((s, k) => sideTerms(s as SeSplit, side(k), r, -1 / K)),
          ])
        : null;
    const gv = terms ? gapVariance(terms) : null;
    const iv = gv ? gapInterval(gap, gv.v, gv.df) : null;
    const records = [...new Set(xs.map((x) => x?.record).filter((x) => x !== undefined))];
    rows.push({
      label: r.label,
      scenario: r.scenario,
      baseline: r.baseline,
      bakeoff: Math.exp(logMean),
      reference: Math.exp(refLogMean),
      gap,
      bias: Math.abs(Math.exp(gap) - 1),
      se: gv ? Math.sqrt(gv.v) : null,
      df: gv ? gv.df : null,
      ci: iv?.ci ?? null,
      within: iv?.within ?? null,
      z: gv && gv.v > 0 ? gap / Math.sqrt(gv.v) : null,
      terms,
      ...(records.length ? { record: records.join(', ') } : {}),
    });
  }
  const biases = rows.map((c) => c.bias);
  return {
    unit,
    runs: K,
    rows,
    medianBias: rows.length ? median(biases) : null,
    maxBias: rows.length ? Math.max(...biases) : null,
    within: rows.filter((c) => c.within).length,
    targets: targetsOf(rows),
  };
}

/** Terms of one source summed into one (coefficients added): one random variable, counted once in a gap's variance. */
function mergeTerms(terms: GapTerm[]): GapTerm[] {
  const by = new Map<string, GapTerm>();
  for (const t of terms) {
    const had = by.get(t.source);
    by.set(t.source, had ? { ...had, coef: had.coef + t.coef } : { ...t });
  }
  return [...by.values()];
}

/** One bake-off run's rows against the reference (`compareRuns` of one run). */
export function compareWithReference(
  rows: BakeoffRatio[],
  ref: ReferenceRatio[],
  unit: 'rps' | 'efficiency' = 'rps',
): ReferenceCheck {
  return compareRuns([rows], ref, unit);
}

/**
 * The split of row `name`'s ratio in a fitted table model: the two-way model's row and baseline
 * mean SEs (pooled, or a row's own variance on its own df); the ratio model's (the baseline exact
 * in the model) all the row's own. Null when the model has no such row.
 */
export function splitOfFit(fit: TableModel, name: string): SeSplit | null {
  const mean = (n: string) => {
    const f = fit.rows.find((x) => x.name === n);
    return f ? { se: f.se, df: f.df, pooled: f.variance !== 'own' } : null;
  };
  const own = mean(name);
  const base = fit.kind === 'two-way' ? mean(fit.baseline) : { se: 0, df: Number.POSITIVE_INFINITY, pooled: true };
  return own && base ? { own, base } : null;
}

/**
 * The ranked rows of `tables` as ratios to their table's baseline (the report's "% of baseline"),
 * each with its interval's df and its split from the table model (`splitOfFit`).
 */
export function bakeoffRatiosOf(tables: RankedTable[]): BakeoffRatio[] {
  return tables.flatMap((t) =>
    t.rows
      .filter((r) => r.status === 'ranked' && !r.isBaseline && r.vsBaseline)
      .map((r) => {
        const v = r.vsBaseline;
        return {
          label: r.label,
          scenario: t.key.scenario,
          baseline: t.baseline,
          ratio: v?.figure ?? Number.NaN,
          ci95: v?.kind === 'ci95' ? v.interval : null,
          df: v?.df ?? null,
          split: t.fit ? splitOfFit(t.fit, r.label) : null,
        };
      }),
  );
}
