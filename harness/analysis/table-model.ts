/**
 * The statistical model of one ranked table (analysis/tables.ts `tableModel` picks the form):
 *
 * - Interleaved rounds (scheduler/interleave.ts; the default design): `fitTwoWay`, a two-way
 *   model of each cell's log requests per server CPU-second per round (or per server process),
 *   cell and round effects, the round effect absorbing the host's drift shared by the round, the
 *   baseline a noisy row like the others (see its docstring).
 * - Solo rounds only: `fitTable`, below. Efficiency = requests ÷ server CPU-seconds, or
 *   requests/s of a solo window; per round r a row c's figure is the natural log of its ratio to
 *   the scenario's baseline B in the same round,
 *     d_{c,r} = ln(x_{c,r} / x_{B,r})        (unitless; 0 = as fast as the baseline).
 *   Drift that hits both windows of a round alike cancels in d. The baseline row has no rounds of
 *   its own: its ratio is 1 by definition. Optional null rounds (the baseline against a copy of
 *   itself) measure the setup's own bias and add to the noise estimate.
 *
 * Model of `fitTable` (one-way ANOVA on the log-ratios; e.g. Montgomery, "Design and Analysis of
 * Experiments", ch. 3): d_{c,r} = μ_c + ε_{c,r}, ε ~ N(0, σ²) independent, σ² POOLED over the
 * rows (and the null rounds), df = rounds − groups. A row's ratio to the baseline is exp(μ_c),
 * with the Student-t interval exp(μ̂_c ± t(1−α/2, df)·σ̂/√n_c).
 *
 * Why pooled, and the one exception. With ~6 rounds per row a row's own variance has 5 df
 * (t(0.975, 5) = 2.57), the pooled one has ~40 (t = 2.02) and a far steadier σ̂, so pooling
 * narrows every interval by ~25% and the MDD with it. Pooling is wrong only when a row is much
 * noisier than the rest (a contender with GC stalls or an unstable worker pool): the pooled σ̂
 * would then make that row look more precise than it is, and inflate every other row's
 * interval. So each row with ≥ 3 rounds gets an F test of its variance against the pooled
 * variance of the other groups (one-sided, α = HETEROGENEITY_ALPHA split Bonferroni-wise over the
 * rows tested; F quantile from @stdlib). A row that fails it is taken out of the pool and keeps
 * its own variance (df = n − 1; pairs with it use Welch–Satterthwaite df). This is the simplest
 * rule that fixes the harmful case: under equal variances it changes nothing in ≥ 99% of tables,
 * and a quieter-than-average row just keeps the (conservative) pooled σ̂. A shrinkage estimator
 * (limma-style, Smyth 2004) was considered and not used: it needs a prior df estimated from the
 * data and is harder to explain for no gain at 5–10 rows.
 *
 * Verdicts (`compare`, both forms). A vs C: log ratio μ̂_A − μ̂_C, SE from the model (rounds
 * independent), 100(1−α)% t interval. 'faster'/'slower' = that interval excludes 0 (ratio 1).
 * There is no point threshold on top (stats.ts `NOISE_THRESHOLD` belongs to the rule of tables
 * without a model, stats.ts `rankRows`): the round-to-round noise is in the interval, and a point
 * threshold on top of a test leaves a zone ("significant but not faster") with unknown error
 * rates. Practical relevance is carried by the separate equivalence verdict instead: 'equal
 * within 5%' = the 100(1−2α)% interval (TOST, two one-sided tests at α; Schuirmann 1987) lies
 * inside ±ln(1 + EQUIVALENCE_MARGIN). 'not resolved' otherwise. A pair can be both faster and
 * equivalent (e.g. 1.02, 90% CI 1.01–1.03): the verdict says 'faster' and `equivalent` is true.
 * α is per comparison (not adjusted for the table's many pairs).
 *
 * Ranks are ranges from these verdicts (rank-ranges.ts `rankRanges`); the MDD, the windows a
 * budget needs and the α of repeated looks are in table-power.ts, the printed bounds of a ratio
 * interval in ratio-bounds.ts.
 *
 * Distributions: Student t and F quantiles/CDF from @stdlib (stats-base-dists-t-quantile,
 * -t-cdf, -f-quantile), not hand-rolled.
 */
import fQuantile from '@stdlib/stats-base-dists-f-quantile';
import tCdf from '@stdlib/stats-base-dists-t-cdf';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { UserError } from '../core/errors.ts';

/** Two-sided significance level of intervals and faster/slower verdicts (95% intervals). */
export const ALPHA = 0.05;
/** Equivalence margin: 'equal within 5%' means the TOST interval lies inside ±ln(1.05). */
export const EQUIVALENCE_MARGIN = 0.05;
/** Power the MDD is computed for (90%). */
export const POWER = 0.9;
/** Level of the (Bonferroni-split) F test that takes a much noisier row out of the pool (1%). */
export const HETEROGENEITY_ALPHA = 0.01;

/** One contender row of a table: its name and its per-round log-ratios to the baseline. */
export interface RowInput {
  name: string;
  /** d_r = ln(x_c / x_baseline) per round (natural log, unitless). At least 1 value. */
  d: number[];
}

/** One table's data (one scenario × profile × driver × Node major, one run). */
export interface TableInput {
  /** Name of the baseline row: ratio 1 by definition, no windows of its own. */
  baseline: string;
  /** The contender rows (not the baseline). */
  rows: RowInput[];
  /** Optional null rounds: ln(x_copy / x_baseline) of the baseline against a copy of itself. */
  nullD?: number[];
}

/** How a row's standard error was obtained. */
export type VarianceSource = 'pooled' | 'own' | 'none';

/** A row of the fitted table. Log quantities are natural logs of efficiency ratios. */
export interface RowFit {
  name: string;
  baseline: boolean;
  /** Rounds (or server processes) behind the row (0 for the baseline of `fitTable`). */
  n: number;
  /** μ̂_c: mean of the row's log-ratios (0 for the baseline). */
  logRatio: number;
  /** exp(μ̂_c): efficiency relative to the baseline (1 for the baseline). */
  ratio: number;
  /** Standard error of μ̂_c (log units; 0 for the baseline). */
  se: number;
  /** Degrees of freedom of the row's t quantile (pooled df, n − 1 for an own variance, Infinity for the baseline). */
  df: number;
  /** 100(1−α)% interval of the ratio; always contains `ratio` ([1, 1] for the baseline). */
  ci: [number, number];
  /** The row's own sample SD of d (log units; NaN with < 2 windows). */
  sd: number;
  variance: VarianceSource;
}

/** The null windows' check of the setup: their mean should be 0 (ratio 1). */
export interface NullCheck {
  n: number;
  logRatio: number;
  ratio: number;
  ci: [number, number];
  /** true when the interval excludes 1: the setup favours one side. */
  biased: boolean;
}

/** A fitted table (see the module docstring). */
export interface TableModel {
  baseline: string;
  /** All rows incl. the baseline, by ratio, highest first (ties by name). */
  rows: RowFit[];
  /** Pooled σ̂ of the log-ratios (log units). */
  sigma: number;
  /** Degrees of freedom of σ̂ (pooled windows − pooled groups). */
  df: number;
  /** All windows in the table (rows + null windows). */
  windows: number;
  /** α of the intervals. */
  alpha: number;
  /** Rows taken out of the pool by the F test (noisier than the others). */
  ownVariance: string[];
  nullCheck: NullCheck | null;
  /**
   * 'ratio': rows are log-ratios to the baseline per window (`fitTable`), the baseline exact;
   * 'two-way': rows are each cell's own log figure per round, cell + round effects
   * (`fitTwoWay`), the baseline a noisy row like the others. Absent in older callers = 'ratio'.
   */
  kind?: 'ratio' | 'two-way';
}

/** Options of `fitTable` / `compare`. */
export interface ModelOptions {
  /** Two-sided level (default ALPHA = 0.05). Pass `sequentialAlpha(…)` when looking repeatedly. */
  alpha?: number;
  /** Equivalence margin as a ratio excess (default 0.05 = ±5%). */
  margin?: number;
}

interface Group {
  name: string;
  d: number[];
  mean: number;
  ss: number;
}

const NULL_GROUP = '(null windows)';

function checkInput(t: TableInput): void {
  if (!t || typeof t.baseline !== 'string' || !Array.isArray(t.rows))
    throw new UserError('table model: expected { baseline: string, rows: { name, d: number[] }[] }');
  const names = new Set<string>([t.baseline]);
  for (const r of t.rows) {
    if (names.has(r.name))
      throw new UserError(`table model: row '${r.name}' appears twice (or is the baseline): give each row once`);
    names.add(r.name);
    if (!Array.isArray(r.d) || r.d.length === 0)
      throw new UserError(`table model: row '${r.name}' has no rounds: measure it or leave it out`);
    if (!r.d.every(Number.isFinite))
      throw new UserError(`table model: row '${r.name}' has a non-finite log-ratio: drop windows with 0 requests`);
  }
  if (t.nullD && !t.nullD.every(Number.isFinite))
    throw new UserError('table model: a null window has a non-finite log-ratio: drop windows with 0 requests');
}

function group(name: string, d: number[]): Group {
  const mean = d.reduce((a, x) => a + x, 0) / d.length;
  return { name, d, mean, ss: d.reduce((a, x) => a + (x - mean) ** 2, 0) };
}

function pool(gs: Group[]): { s2: number; df: number } {
  const df = gs.reduce((a, g) => a + g.d.length - 1, 0);
  return { s2: df > 0 ? gs.reduce((a, g) => a + g.ss, 0) / df : Number.NaN, df };
}

/**
 * Names of the groups much noisier than the rest: F = s²_c / s²_others above the
 * 1 − HETEROGENEITY_ALPHA/k quantile of F(n_c − 1, df_others), k = groups tested (n_c ≥ 3).
 * Empty when taking them out would leave no pooled df.
 */
function noisyGroups(gs: Group[]): Set<string> {
  const tested = gs.filter((g) => g.d.length >= 3);
  const out = new Set<string>();
  for (const g of tested) {
    const others = pool(gs.filter((o) => o !== g));
    if (others.df < 1 || !(others.s2 > 0)) continue;
    const f = g.ss / (g.d.length - 1) / others.s2;
    if (f > fQuantile(1 - HETEROGENEITY_ALPHA / tested.length, g.d.length - 1, others.df)) out.add(g.name);
  }
  return pool(gs.filter((g) => !out.has(g.name))).df >= 1 ? out : new Set();
}

/** The Student t quantile at `p` with `df` degrees of freedom (a very large df for an infinite one). */
export function tq(p: number, df: number): number {
  return Number.isFinite(df) ? tQuantile(p, df) : tQuantile(p, 1e9);
}

/** exp(m ± q·se) around exp(m), as an interval that always contains exp(m). */
function interval(m: number, se: number, q: number): [number, number] {
  const f = Math.exp(m);
  return [Math.min(f, Math.exp(m - q * se)), Math.max(f, Math.exp(m + q * se))];
}

/** Throws UserError unless 0 < α < 0.5. */
export function checkAlpha(alpha: number): void {
  if (!(alpha > 0 && alpha < 0.5)) throw new UserError(`table model: alpha must be in (0, 0.5), got ${alpha}`);
}

/**
 * Fits the model of one table. Input: `TableInput` (log-ratios per round). Output: a
 * `TableModel` whose rows (baseline included, ratio 1) carry ratio = exp(μ̂), its 100(1−α)%
 * t interval and n. Throws UserError for a repeated row, a row without windows, a non-finite
 * log-ratio, or when no row has 2 windows (no way to estimate the noise).
 */
export function fitTable(input: TableInput, opts: ModelOptions = {}): TableModel {
  checkInput(input);
  const alpha = opts.alpha ?? ALPHA;
  checkAlpha(alpha);
  const gs = input.rows.map((r) => group(r.name, r.d));
  const nullG = input.nullD?.length ? group(NULL_GROUP, input.nullD) : null;
  const all = nullG ? [...gs, nullG] : gs;
  if (pool(all).df < 1)
    throw new UserError('table model: no row has 2 or more rounds, so the noise cannot be estimated: add rounds');
  const noisy = noisyGroups(all);
  const { s2, df } = pool(all.filter((g) => !noisy.has(g.name)));
  const sigma = Math.sqrt(s2);
  const fit = (g: Group): RowFit => {
    const n = g.d.length;
    const own = noisy.has(g.name);
    const se = own ? Math.sqrt(g.ss / (n - 1) / n) : sigma / Math.sqrt(n);
    const rowDf = own ? n - 1 : df;
    return {
      name: g.name,
      baseline: false,
      n,
      logRatio: g.mean,
      ratio: Math.exp(g.mean),
      se,
      df: rowDf,
      ci: interval(g.mean, se, tq(1 - alpha / 2, rowDf)),
      sd: n >= 2 ? Math.sqrt(g.ss / (n - 1)) : Number.NaN,
      variance: own ? 'own' : 'pooled',
    };
  };
  const base: RowFit = {
    name: input.baseline,
    baseline: true,
    n: 0,
    logRatio: 0,
    ratio: 1,
    se: 0,
    df: Number.POSITIVE_INFINITY,
    ci: [1, 1],
    sd: Number.NaN,
    variance: 'none',
  };
  const rows = [base, ...gs.map(fit)].sort((a, b) => b.logRatio - a.logRatio || a.name.localeCompare(b.name));
  let nullCheck: NullCheck | null = null;
  if (nullG) {
    const f = fit(nullG);
    nullCheck = { n: f.n, logRatio: f.logRatio, ratio: f.ratio, ci: f.ci, biased: f.ci[0] > 1 || f.ci[1] < 1 };
  }
  const windows = all.reduce((a, g) => a + g.d.length, 0);
  return { baseline: input.baseline, rows, sigma, df, windows, alpha, ownVariance: [...noisy], nullCheck };
}

// ---------------------------------------------------------------------------------------------
// The two-way model (interleaved rounds)

/** One row of a two-way table: a cell's log figure (natural log) per round, keyed by round. */
export interface TwoWayRow {
  name: string;
  y: Map<number, number>;
}

/**
 * Fits the two-way model of one table measured in interleaved rounds (scheduler/interleave.ts):
 *     y_{c,r} = μ + α_c + β_r + ε_{c,r},   ε ~ N(0, σ²) independent,
 * y = ln(efficiency), over the rounds every row has (a complete block design; e.g. Montgomery,
 * "Design and Analysis of Experiments", ch. 4, the randomized complete block design). The round
 * effect β_r absorbs the host's drift shared by the round; σ̂² = SS_res / ((C−1)(R−1)). A row's
 * log-ratio to the baseline B is ȳ_c − ȳ_B; each row's mean carries se σ̂/√R, so a pair's SE is
 * σ̂·√(2/R) whether or not the baseline is in it (the baseline is noisy like any row: the one-way
 * model on ratios to B counted B's noise in every row as independent and widened every pair's
 * interval by √2). A row whose residual variance fails the F test of `noisyGroups` (its residuals
 * against the others', Bonferroni over the rows at HETEROGENEITY_ALPHA) keeps its own variance
 * (`ownVariance`: unbiased, never below the pooled σ̂²; df R − 1). Returns null with fewer than 2 rows, 2 common rounds, or a missing baseline row.
 */
export function fitTwoWay(baseline: string, input: TwoWayRow[], opts: ModelOptions = {}): TableModel | null {
  const alpha = opts.alpha ?? ALPHA;
  checkAlpha(alpha);
  if (input.length < 2 || !input.some((r) => r.name === baseline)) return null;
  const rounds = [...(input[0]?.y.keys() ?? [])].filter((k) => input.every((r) => Number.isFinite(r.y.get(k))));
  const C = input.length;
  const R = rounds.length;
  if (R < 2) return null;
  const val = (r: TwoWayRow, k: number) => r.y.get(k) ?? 0;
  const rowMean = new Map(input.map((r) => [r.name, rounds.reduce((a, k) => a + val(r, k), 0) / R]));
  const roundMean = new Map(rounds.map((k) => [k, input.reduce((a, r) => a + val(r, k), 0) / C]));
  const grand = [...rowMean.values()].reduce((a, x) => a + x, 0) / C;
  // Residuals as groups (one per row) so the F test and pooling of the one-way model apply; each
  // row's residuals carry (R − 1)(C − 1)/C degrees of freedom of the (C − 1)(R − 1) in all.
  const gs: Group[] = input.map((r) => {
    const e = rounds.map((k) => val(r, k) - (rowMean.get(r.name) ?? 0) - (roundMean.get(k) ?? 0) + grand);
    return { name: r.name, d: e, mean: 0, ss: e.reduce((a, x) => a + x * x, 0) };
  });
  const rowDf = ((R - 1) * (C - 1)) / C;
  const poolRes = (xs: Group[]) => {
    const df = xs.length * rowDf;
    return { s2: df > 0 ? xs.reduce((a, g) => a + g.ss, 0) / df : Number.NaN, df };
  };
  const noisy = new Set<string>();
  if (R >= 3 && C >= 3)
    for (const g of gs) {
      const others = poolRes(gs.filter((o) => o !== g));
      if (!(others.s2 > 0)) continue;
      const f = g.ss / rowDf / others.s2;
      if (f > fQuantile(1 - HETEROGENEITY_ALPHA / C, rowDf, others.df)) noisy.add(g.name);
    }
  const pooled = poolRes(gs.filter((g) => !noisy.has(g.name)));
  const sigma = Math.sqrt(pooled.s2);
  const df = pooled.df;
  const base = rowMean.get(baseline) ?? 0;
  const ssAll = gs.reduce((a, g) => a + g.ss, 0);
  const seOf = (g: Group) =>
    noisy.has(g.name) ? Math.sqrt(Math.max(ownVariance(g.ss, ssAll, C, R), pooled.s2) / R) : sigma / Math.sqrt(R);
  const dfOf = (g: Group) => (noisy.has(g.name) ? R - 1 : df);
  const baseG = gs.find((g) => g.name === baseline);
  const seB = baseG ? seOf(baseG) : 0;
  const rows: RowFit[] = gs.map((g) => {
    const lr = (rowMean.get(g.name) ?? 0) - base;
    const isBase = g.name === baseline;
    const se = seOf(g);
    const seRatio = Math.sqrt(se ** 2 + seB ** 2);
    return {
      name: g.name,
      baseline: isBase,
      n: R,
      logRatio: isBase ? 0 : lr,
      ratio: isBase ? 1 : Math.exp(lr),
      se,
      df: dfOf(g),
      ci: isBase ? [1, 1] : interval(lr, seRatio, tq(1 - alpha / 2, dfOf(g))),
      sd: Math.sqrt(g.ss / Math.max(1, rowDf)),
      variance: noisy.has(g.name) ? 'own' : 'pooled',
    };
  });
  rows.sort((a, b) => b.logRatio - a.logRatio || a.name.localeCompare(b.name));
  return {
    baseline,
    rows,
    sigma,
    df,
    windows: C * R,
    alpha,
    ownVariance: [...noisy],
    nullCheck: null,
    kind: 'two-way',
  };
}

/**
 * The unbiased variance of one row's own noise in a two-way table of C rows × R rounds (Shukla's
 * stability variance: Shukla 1972, "Some statistical aspects of partitioning genotype-environmental
 * components of variability", Heredity 29:237–245). A row's residuals carry its own noise times
 * (1 − 2/C) plus a share of every row's, E[SS_c] = (R − 1)[σ_c²(1 − 2/C) + Σ_k σ_k² / C²], so
 * SS_c / (R − 1) is biased low by the factor (1 − 2/C) (a third low in a 3-row table); solving
 * with Σ_k SS_k (= (R − 1)(C − 1)/C · Σ_k σ_k² in expectation) gives
 *     σ̂_c² = C·SS_c / ((C − 2)(R − 1)) − Σ_k SS_k / ((C − 1)(C − 2)(R − 1)).
 * `ssRow` = SS_c, `ssAll` = Σ_k SS_k (log units²). Needs C ≥ 3 and R ≥ 2 (NaN otherwise); may be
 * ≤ 0 for a quiet row (the caller floors it).
 */
export function ownVariance(ssRow: number, ssAll: number, C: number, R: number): number {
  if (C < 3 || R < 2) return Number.NaN;
  return (C * ssRow) / ((C - 2) * (R - 1)) - ssAll / ((C - 1) * (C - 2) * (R - 1));
}

// ---------------------------------------------------------------------------------------------
// Pairwise comparisons

/** Three-way (four-word) verdict of A against C. */
export type Verdict = 'faster' | 'slower' | 'equal within 5%' | 'not resolved';

/** A vs C (see `compare`). Ratios are eff_A / eff_C. */
export interface Comparison {
  a: string;
  c: string;
  /** μ̂_A − μ̂_C (log units). */
  logRatio: number;
  ratio: number;
  se: number;
  df: number;
  /** 100(1−α)% interval of the ratio (contains `ratio`). */
  ci: [number, number];
  /** 100(1−2α)% interval of the ratio: the TOST interval of the equivalence test. */
  tostCi: [number, number];
  /** Two-sided p-value of "ratio = 1". */
  p: number;
  /** TOST: `tostCi` inside (1/(1+margin), 1+margin). */
  equivalent: boolean;
  /** 'faster'/'slower' when `ci` excludes 1; else 'equal within 5%' when equivalent; else 'not resolved'. */
  verdict: Verdict;
}

function row(m: TableModel, name: string): RowFit {
  const r = m.rows.find((x) => x.name === name);
  if (!r)
    throw new UserError(`table model: no row '${name}' in the table: rows are ${m.rows.map((x) => x.name).join(', ')}`);
  return r;
}

/** df of a difference of two row means: the pooled df when both use σ̂, else Welch–Satterthwaite. */
function pairDf(m: TableModel, a: RowFit, c: RowFit): number {
  if (m.kind !== 'two-way') {
    if (a.baseline) return c.df;
    if (c.baseline) return a.df;
  }
  if (a.variance === 'pooled' && c.variance === 'pooled') return m.df;
  const va = a.se ** 2;
  const vc = c.se ** 2;
  if (va + vc === 0) return m.df;
  return (va + vc) ** 2 / (va ** 2 / a.df + vc ** 2 / c.df);
}

/**
 * Compares rows `a` and `c` of a fitted table: log ratio μ̂_A − μ̂_C (μ̂ of the baseline = 0,
 * exactly), SE = √(SE_A² + SE_C²) (windows independent), t interval at the model's α (or
 * `opts.alpha`), TOST interval at 2α, verdict (see the module docstring). Throws UserError for an
 * unknown row or a = c.
 */
export function compare(m: TableModel, a: string, c: string, opts: ModelOptions = {}): Comparison {
  if (a === c) throw new UserError(`table model: cannot compare row '${a}' with itself`);
  const alpha = opts.alpha ?? m.alpha;
  checkAlpha(alpha);
  const margin = Math.log(1 + (opts.margin ?? EQUIVALENCE_MARGIN));
  const ra = row(m, a);
  const rc = row(m, c);
  const diff = ra.logRatio - rc.logRatio;
  const se = Math.sqrt(ra.se ** 2 + rc.se ** 2);
  const df = pairDf(m, ra, rc);
  const ci = interval(diff, se, tq(1 - alpha / 2, df));
  const tostCi = interval(diff, se, tq(1 - alpha, df));
  const p = se > 0 ? 2 * (1 - tCdf(Math.abs(diff) / se, Number.isFinite(df) ? df : 1e9)) : diff === 0 ? 1 : 0;
  const equivalent = Math.log(tostCi[0]) > -margin && Math.log(tostCi[1]) < margin;
  const verdict: Verdict =
    ci[0] > 1 ? 'faster' : ci[1] < 1 ? 'slower' : equivalent ? 'equal within 5%' : 'not resolved';
  return { a, c, logRatio: diff, ratio: Math.exp(diff), se, df, ci, tostCi, p, equivalent, verdict };
}

/** Every pair of rows once, in table order (the higher figure as `a`). */
export function comparePairs(m: TableModel, opts: ModelOptions = {}): Comparison[] {
  const out: Comparison[] = [];
  m.rows.forEach((a, i) => {
    for (const c of m.rows.slice(i + 1)) out.push(compare(m, a.name, c.name, opts));
  });
  return out;
}
