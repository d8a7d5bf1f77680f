/**
 * One estimator per figure (docs/decisions/0011-one-model-per-table.md; hyperfine and criterion.rs are the models). Rates in
 * requests/s, latencies in ms.
 *
 * - A trial's figure = requests completed ÷ window seconds (`load.requests.total / load.durationS`).
 * - A cell's figure = the geometric mean of its trials. With ≥ 5 trials its interval is a 95%
 *   Student-t interval on the logs, exp(mean ± t(0.975, n−1)·sd/√n); with 2–4 trials the min–max
 *   of the trials (kind 'range', never called an interval); with 1 trial none. Both come from the
 *   same statistic over the same samples, so the interval always contains the figure.
 * - A ratio A/B within one run is paired by round: figure = exp(mean of the per-round log
 *   differences), which equals figure A / figure B when both cells have every round; 95%
 *   t-interval on the paired differences (≥ 5 pairs), their min–max (2–4), none (1). Cells of
 *   different runs (or without common rounds) use Welch's t-interval on the logs; the figure is
 *   then exactly figure A / figure B.
 * - "A is significantly faster than B" = the ratio A/B has a 95% interval wholly above 1 AND a
 *   figure ≥ 1 + NOISE_THRESHOLD. Ranks and the summary sentence use this one test.
 * - Latency percentiles come from the trials' HDR histograms merged (hdr-histogram-js), never
 *   from averaged percentiles.
 */
import * as hdr from 'hdr-histogram-js';
import stdlibTCdf from '@stdlib/stats-base-dists-t-cdf';
import stdlibTQuantile from '@stdlib/stats-base-dists-t-quantile';
import type { CellResult, CellStats } from '../store/results.ts';

/** Ranks and summary sentences: a row is faster only when the ratio is ≥ 1.03 (and its interval excludes 1). */
export const NOISE_THRESHOLD = 0.03;
/** `compare` between runs: a change counts only beyond ±5% (and when its interval excludes 0). */
export const COMPARE_THRESHOLD = 0.05;
/** Trials whose (max − min) / figure exceeds this make the cell "noisy" (a measurement note, 10%). */
export const NOISY_THRESHOLD = 0.1;
/** Trials needed for a 95% interval, and so for a rank or a claim verdict. */
export const MIN_CI_TRIALS = 5;
/**
 * A cell with more than this share of failed requests (errors + timeouts + non-2xx over all
 * requests) or any wrong body under load is failed: shown as failed, never ranked (0.1%).
 */
export const FAILED_REQUEST_SHARE = 0.001;

/** Kind of an uncertainty: a 95% confidence interval, the min–max of 2–4 samples, or nothing (1 sample). */
export type IntervalKind = 'ci95' | 'range' | 'none';

/** A figure with its uncertainty. `interval` is [low, high] (null when kind is 'none') and always contains `figure`. */
export interface Estimate {
  figure: number;
  interval: [number, number] | null;
  kind: IntervalKind;
  /** Samples the estimate is computed from (trials, or round pairs of a paired ratio). */
  n: number;
}

/** A ratio A/B (see `ratio`). */
export interface RatioEstimate extends Estimate {
  /** true: paired by round within one run; false: Welch on the logs (or too few samples). */
  paired: boolean;
  /** Degrees of freedom of the t quantile (null unless kind is 'ci95'). */
  df: number | null;
  /** How the figure and interval were computed, for the reader. */
  estimator: string;
}

/** The median of `xs` (NaN for an empty list). */
export function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  if (!s.length) return Number.NaN;
  const hi = s[m] ?? Number.NaN; // m < s.length here
  return s.length % 2 ? hi : ((s[m - 1] ?? Number.NaN) + hi) / 2;
}

function mean(xs: number[]): number {
  return xs.reduce((a, b) => a + b, 0) / xs.length;
}

/** Sample variance (n − 1); 0 for fewer than 2 values. */
function variance(xs: number[]): number {
  if (xs.length < 2) return 0;
  const m = mean(xs);
  return xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1);
}

// ---------------------------------------------------------------------------------------------
// Student t: quantile and CDF from @stdlib (stats-base-dists-t-*), not hand-rolled.

/** The CDF of Student's t with `df` (> 0, may be fractional, as Welch's) degrees of freedom (@stdlib). */
export function tCdf(t: number, df: number): number {
  return stdlibTCdf(t, df);
}

/**
 * The p-quantile of Student's t with `df` degrees of freedom (@stdlib; e.g. tQuantile(0.975, 4)
 * = 2.776445). Throws a RangeError for p outside (0, 1) or df ≤ 0.
 */
export function tQuantile(p: number, df: number): number {
  if (!(p > 0 && p < 1)) throw new RangeError(`tQuantile: p must be in (0, 1), got ${p}`);
  if (!(df > 0)) throw new RangeError(`tQuantile: df must be > 0, got ${df}`);
  return stdlibTQuantile(p, df);
}

/** The standard normal's 0.975 quantile (two-sided 95%). */
const Z_975 = 1.959963984540054;

/**
 * The Wilson score 95% interval of a binomial share: `k` successes in `n` trials (Wilson 1927;
 * Agresti & Coull 1998 recommend it over the normal approximation for small n or shares near 0).
 * [low, high] within [0, 1], containing k/n; [0, 1] for n = 0. Throws a RangeError unless
 * 0 ≤ k ≤ n are integers.
 */
export function wilsonInterval(k: number, n: number): [number, number] {
  if (!Number.isInteger(k) || !Number.isInteger(n) || k < 0 || k > n)
    throw new RangeError(`wilsonInterval: need integers 0 ≤ k ≤ n, got k=${k}, n=${n}`);
  if (n === 0) return [0, 1];
  const p = k / n;
  const z2 = Z_975 ** 2;
  const centre = (p + z2 / (2 * n)) / (1 + z2 / n);
  const half = (Z_975 / (1 + z2 / n)) * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n));
  return [k === 0 ? 0 : Math.max(0, centre - half), k === n ? 1 : Math.min(1, centre + half)];
}

// ---------------------------------------------------------------------------------------------
// Cells

/**
 * A trial's figure: requests completed ÷ window seconds (requests/s); the driver's mean when the
 * window length is unknown; for a capacity trial the sustainable rate its search found (0 when none).
 */
export function trialFigure(t: CellResult): number {
  // A capacity trial: the highest open-loop rate that held the SLO.
  if (t.capacitySearch) return t.capacitySearch.rps ?? 0;
  const l = t.load;
  if (!l) return 0;
  if (l.durationS > 0 && Number.isFinite(l.requests?.total)) return l.requests.total / l.durationS;
  return l.requestsPerSec.mean;
}

/**
 * The geometric mean of positive samples with its uncertainty: a 95% t-interval on the logs
 * (n ≥ 5), the min–max (2–4), none (1). Zero or negative samples are clamped to 1e-9 (a window
 * that completed no request).
 */
export function geometricEstimate(xs: number[]): Estimate {
  const logs = xs.map((x) => Math.log(Math.max(x, 1e-9)));
  const n = logs.length;
  if (!n) return { figure: Number.NaN, interval: null, kind: 'none', n: 0 };
  const m = mean(logs);
  const figure = Math.exp(m);
  const [only] = xs;
  if (n === 1 && only !== undefined) return { figure: only, interval: null, kind: 'none', n };
  if (n < MIN_CI_TRIALS) {
    const lo = Math.min(...xs);
    const hi = Math.max(...xs);
    return { figure: clamp(figure, lo, hi), interval: [lo, hi], kind: 'range', n };
  }
  const h = (tQuantile(0.975, n - 1) * Math.sqrt(variance(logs))) / Math.sqrt(n);
  return { figure, interval: [Math.min(figure, Math.exp(m - h)), Math.max(figure, Math.exp(m + h))], kind: 'ci95', n };
}

function clamp(x: number, lo: number, hi: number): number {
  return Math.min(hi, Math.max(lo, x));
}

/** The estimator sentence of each kind, stored in CellStats.rps.estimator. */
export const ESTIMATOR_TEXT: Record<IntervalKind, string> = {
  ci95: 'geometric mean of the trials (requests completed ÷ window seconds); 95% Student-t interval on the logs',
  range: 'geometric mean of 2–4 trials; range = min–max of the trials (not a confidence interval)',
  none: 'one trial: requests completed ÷ window seconds; no interval',
};

/**
 * Statistics of one cell from its trials (all `ok`, same cell, in run order), as the scheduler
 * stores them in `CellResult.stats`. `rounds` gives each trial's round (1-based; default 1..n,
 * one trial per round); a trial record carrying a numeric `round` field overrides the default.
 */
export function trialStats(trials: CellResult[], rounds?: number[]): CellStats {
  const rps = trials.map(trialFigure);
  const est = geometricEstimate(rps);
  const rs =
    rounds ??
    trials.map((t, i) => {
      const r = (t as CellResult & { round?: unknown }).round;
      return typeof r === 'number' ? r : i + 1;
    });
  const spread = trials.length > 1 ? (Math.max(...rps) - Math.min(...rps)) / est.figure : 0;
  return {
    trials: trials.length,
    trialRps: rps,
    rounds: rs,
    rps: { figure: est.figure, interval: est.interval, kind: est.kind, estimator: ESTIMATOR_TEXT[est.kind] },
    latencyMs: mergeLatency(trials.map((t) => t.load?.latencyHistogramUs ?? null)),
    spread,
    noisy: spread > NOISY_THRESHOLD,
  };
}

/** A cell's trials as (requests/s, round) pairs, from its stats (or its one window when it has none). */
export function cellSamples(c: CellResult): { rps: number[]; rounds: number[] } {
  const s = c.stats;
  if (s?.trialRps?.length) {
    const rounds =
      Array.isArray(s.rounds) && s.rounds.length === s.trialRps.length ? s.rounds : s.trialRps.map((_, i) => i + 1);
    return { rps: s.trialRps, rounds };
  }
  return { rps: c.load ? [trialFigure(c)] : [], rounds: c.load ? [1] : [] };
}

/** Number of trials behind a cell's figure. */
export function cellTrialCount(c: CellResult): number {
  return cellSamples(c).rps.length;
}

/** A cell's figure and uncertainty (recomputed from its trials, so old cell files get the same estimator). */
export function cellEstimate(c: CellResult): Estimate {
  // A capacity cell whose searches disagreed (capacity.ts `reconcileCapacity`): its figure is a
  // lower bound over every search with their min–max, never a t-interval over mixed searches.
  const k = c.capacity;
  if (k?.heldAbove && k.rps)
    return { figure: k.rps.figure, interval: k.rps.interval, kind: k.rps.kind, n: cellSamples(c).rps.length };
  return geometricEstimate(cellSamples(c).rps);
}

/** The cell's requests/s figure: the geometric mean of its trials. */
export function cellFigure(c: CellResult): number {
  return cellEstimate(c).figure;
}

/** The cell's uncertainty: `{ interval, kind }` (ci95 with ≥ 5 trials, range with 2–4, none with 1). */
export function cellInterval(c: CellResult): { interval: [number, number] | null; kind: IntervalKind } {
  const e = cellEstimate(c);
  return { interval: e.interval, kind: e.kind };
}

// ---------------------------------------------------------------------------------------------
// Ratios

/**
 * The ratio of two sets of samples. Paired (`roundsA`/`roundsB` given and ≥ 2 common rounds):
 * exp(mean of the per-round log differences) with a t-interval (≥ 5 pairs) or the min–max of the
 * per-round ratios (2–4). Unpaired: figure = geomean(A) / geomean(B); Welch's t-interval on the
 * logs when both sides have ≥ 5 samples, else [min A / max B, max A / min B] when both have ≥ 2,
 * else none. The interval always contains the figure.
 */
export function sampleRatio(
  a: number[],
  b: number[],
  roundsA: number[] | null = null,
  roundsB: number[] | null = null,
): RatioEstimate {
  const la = a.map((x) => Math.log(Math.max(x, 1e-9)));
  const lb = b.map((x) => Math.log(Math.max(x, 1e-9)));
  if (roundsA && roundsB) {
    const byRound = new Map<number, number>();
    for (const [i, r] of roundsB.entries()) {
      const v = lb[i];
      if (v !== undefined) byRound.set(r, v);
    }
    const diffs: number[] = [];
    const seen = new Set<number>();
    roundsA.forEach((r, i) => {
      const v = byRound.get(r);
      if (v !== undefined && !seen.has(r)) {
        seen.add(r);
        diffs.push((la[i] ?? Number.NaN) - v);
      }
    });
    if (diffs.length >= 2) {
      const n = diffs.length;
      const m = mean(diffs);
      const figure = Math.exp(m);
      if (n < MIN_CI_TRIALS) {
        const lo = Math.exp(Math.min(...diffs));
        const hi = Math.exp(Math.max(...diffs));
        return {
          figure,
          interval: [Math.min(lo, figure), Math.max(hi, figure)],
          kind: 'range',
          n,
          paired: true,
          df: null,
          estimator: `paired by round (${n} rounds): exp(mean log difference); range = min–max of the per-round ratios`,
        };
      }
      const h = (tQuantile(0.975, n - 1) * Math.sqrt(variance(diffs))) / Math.sqrt(n);
      return {
        figure,
        interval: [Math.min(figure, Math.exp(m - h)), Math.max(figure, Math.exp(m + h))],
        kind: 'ci95',
        n,
        paired: true,
        df: n - 1,
        estimator: `paired by round (${n} rounds): exp(mean log difference), 95% t-interval on the differences`,
      };
    }
  }
  const n = Math.min(a.length, b.length);
  if (!n)
    return { figure: Number.NaN, interval: null, kind: 'none', n: 0, paired: false, df: null, estimator: 'no samples' };
  const ma = mean(la);
  const mb = mean(lb);
  const figure = Math.exp(ma - mb);
  if (a.length >= MIN_CI_TRIALS && b.length >= MIN_CI_TRIALS) {
    const va = variance(la) / la.length;
    const vb = variance(lb) / lb.length;
    const se = Math.sqrt(va + vb);
    const df =
      se > 0 ? (va + vb) ** 2 / (va ** 2 / (la.length - 1) + vb ** 2 / (lb.length - 1)) : la.length + lb.length - 2;
    const h = tQuantile(0.975, df) * se;
    return {
      figure,
      interval: [Math.min(figure, Math.exp(ma - mb - h)), Math.max(figure, Math.exp(ma - mb + h))],
      kind: 'ci95',
      n,
      paired: false,
      df,
      estimator: 'unpaired: geometric means; 95% Welch t-interval on the logs',
    };
  }
  if (a.length >= 2 && b.length >= 2) {
    const lo = Math.min(...a) / Math.max(...b);
    const hi = Math.max(...a) / Math.min(...b);
    return {
      figure,
      interval: [Math.min(lo, figure), Math.max(hi, figure)],
      kind: 'range',
      n,
      paired: false,
      df: null,
      estimator: 'unpaired, fewer than 5 trials: geometric means; range = min A / max B … max A / min B',
    };
  }
  return {
    figure,
    interval: null,
    kind: 'none',
    n,
    paired: false,
    df: null,
    estimator: 'one trial on a side: no interval',
  };
}

/** Per-round requests/s ratios a/b over the rounds both cells have (cells of one run), in round order. */
export function roundRatios(a: CellResult, b: CellResult): number[] {
  const sa = cellSamples(a);
  const sb = cellSamples(b);
  const byRound = new Map<number, number>();
  for (const [i, r] of sb.rounds.entries()) {
    const v = sb.rps[i];
    if (v !== undefined) byRound.set(r, v);
  }
  const out: [number, number][] = [];
  const seen = new Set<number>();
  sa.rounds.forEach((r, i) => {
    const v = byRound.get(r);
    if (v !== undefined && !seen.has(r)) {
      seen.add(r);
      out.push([r, Math.max(sa.rps[i] ?? Number.NaN, 1e-9) / Math.max(v, 1e-9)]);
    }
  });
  return out.sort((x, y) => x[0] - y[0]).map(([, q]) => q);
}

/**
 * Ratio of requests/s A/B of two cells: paired by round when both come from the same run (same
 * runId) and share ≥ 2 rounds, else unpaired (Welch). See `sampleRatio`.
 */
export function ratio(a: CellResult, b: CellResult): RatioEstimate {
  const sa = cellSamples(a);
  const sb = cellSamples(b);
  const sameRun = a.runId === b.runId;
  return sampleRatio(sa.rps, sb.rps, sameRun ? sa.rounds : null, sameRun ? sb.rounds : null);
}

/**
 * The one significance test of ranks and summary sentences: A is significantly faster than B
 * when the ratio A/B has a 95% interval (kind 'ci95') wholly above 1 AND a figure ≥ 1 + threshold.
 */
export function significantlyFaster(a: CellResult, b: CellResult, threshold = NOISE_THRESHOLD): boolean {
  return isSignificant(ratio(a, b), threshold);
}

/** `significantlyFaster` on a computed ratio A/B. */
export function isSignificant(r: RatioEstimate, threshold = NOISE_THRESHOLD): boolean {
  return r.kind === 'ci95' && r.interval !== null && r.interval[0] > 1 && r.figure >= 1 + threshold;
}

/**
 * Ranks without chains: rank of row i = 1 + the number of rows significantly faster than it
 * (`significantlyFaster`). Returns the ranks in input order; the caller passes only rankable
 * cells (ok, not failed, ≥ 5 trials, one run).
 */
export function rankRows(cells: CellResult[], threshold = NOISE_THRESHOLD): number[] {
  return cells.map((c, i) => 1 + cells.filter((o, j) => j !== i && significantlyFaster(o, c, threshold)).length);
}

/**
 * Why a cell is failed, or null: a non-ok status, more than FAILED_REQUEST_SHARE of its requests
 * failed (errors + timeouts + non-2xx), or any wrong body under load. Reads the cell's `load`
 * (the last trial's window).
 */
export function cellFailure(c: CellResult): string | null {
  if (c.status === 'load-failed') return (c.failure?.reason ?? 'failed under load').replace(/^failed under load: /, '');
  if (c.status !== 'ok') return c.status;
  const cap = c.capacity;
  if (cap && !cap.rps) {
    const low = [...cap.steps].sort((a, b) => a.rate - b.rate)[0];
    return cap.verdict === 'never'
      ? `never held p99 ≤ ${cap.sloP99Ms} ms${low ? ` (lowest rate tried ${Math.round(low.rate)} req/s: ${low.reason})` : ''}`
      : 'capacity search interrupted before it found a rate';
  }
  const l = c.load;
  if (!l) return 'no measurement';
  const bad = l.errors + l.timeouts + l.non2xx;
  const all = Math.max(1, l.requests.total + l.errors + l.timeouts);
  if (bad / all > FAILED_REQUEST_SHARE)
    return `${((100 * bad) / all).toFixed(bad / all >= 0.1 ? 0 : 2)}% of requests failed (${l.errors} errors, ${l.timeouts} timeouts, ${l.non2xx} non-2xx)`;
  if (l.bodyChecks.mismatched > 0)
    return `${l.bodyChecks.mismatched} of ${l.bodyChecks.sampled} checked bodies broke the contract`;
  return null;
}

/** Merges HDR histograms (compressed base64, µs) and reads percentiles in ms; null without histograms. */
export function mergeLatency(encoded: (string | null)[]): CellStats['latencyMs'] {
  const hs = encoded.filter((e): e is string => Boolean(e));
  if (!hs.length) return null;
  const merged = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 120_000_000,
    numberOfSignificantValueDigits: 3,
  });
  for (const e of hs) merged.add(hdr.decodeFromCompressedBase64(e));
  const at = (p: number) => merged.getValueAtPercentile(p) / 1000;
  return {
    p50: at(50),
    p75: at(75),
    p90: at(90),
    p95: at(95),
    p99: at(99),
    p999: at(99.9),
    max: merged.maxValue / 1000,
  };
}

/** A cell's latency percentiles, ms: merged over its trials when known, else its last window's. */
export function cellLatency(c: CellResult): {
  p50: number;
  p90: number;
  p99: number;
  max: number;
} | null {
  return c.stats?.latencyMs ?? c.load?.latencyMs ?? null;
}
