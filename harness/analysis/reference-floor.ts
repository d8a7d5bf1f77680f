/**
 * What a bake-off design with NO bias would read against a reference, given both sides' intervals:
 * the noise floor of the second certificate (analysis/reference-stats.ts `compareWithReference`).
 *
 * A reference is itself measured: its ratios carry a 95% CI (±9–10% per row in the rotation
 * reference of docs/measurements.md), and so do the bake-off's. Even an unbiased design then
 * reads a median bias above zero, leaves some rows uncovered and some rows above 5%. The
 * targets (REFERENCE_TARGETS) judge a design only when that floor is below them; otherwise a
 * missed target says "cannot tell", not "biased". What does say "biased" is a gap the intervals
 * cannot explain: Σ z² over the rows against χ² with one degree of freedom per row (each z is
 * the row's log gap over √(SE_bake-off² + SE_reference²)).
 *
 * The floor is simulated: per draw, every row's log gap ~ Normal(0, gapSe²) (independent rows;
 * rows sharing a baseline are in truth correlated, which widens the spread of the median, not its
 * centre). 4,000 seeded draws (core/prng.ts mulberry32, Box–Muller). The χ² tail comes from
 * @stdlib. Ratios unitless; biases are |ratio ÷ reference − 1|.
 */
import chisquareCdf from '@stdlib/stats-base-dists-chisquare-cdf';
import { mulberry32 } from '../core/prng.ts';
import { median } from './stats.ts';
import { REFERENCE_TARGETS, type ReferenceCheck } from './reference-stats.ts';

/** What an unbiased design reads, and whether this bake-off's gaps are beyond it. */
export interface NoBiasReading {
  /** Rows with both intervals (the only ones the floor and the test can use). */
  rows: number;
  /** Median over draws of the rows' median bias. */
  medianBias: number;
  /** Median over draws of the rows' largest bias. */
  maxBias: number;
  /** Mean over draws of the rows whose bake-off CI covers the reference ratio. */
  covered: number;
  /** Share of draws in which all three targets hold: the chance an unbiased design passes. */
  pass: number;
  /** Σ z² over the rows, its degrees of freedom (rows) and P(χ²_df ≥ Σ z²). */
  chi2: number;
  df: number;
  p: number;
}

/** Draws of the floor (seeded: the same check always reads the same floor). */
export const FLOOR_DRAWS = 4000;

/** A standard normal draw from two uniforms (Box–Muller). */
function normal(rand: () => number): number {
  const u = 1 - rand();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}

/**
 * The no-bias reading of `check`'s rows that have both intervals (`gapSe` and `halfWidth`), or
 * null when none has. `draws` seeded draws with `seed`.
 */
export function noBiasReading(check: ReferenceCheck, draws = FLOOR_DRAWS, seed = 36): NoBiasReading | null {
  const rows = check.rows.filter((r) => r.gapSe !== null && r.halfWidth !== null && r.z !== null);
  if (!rows.length) return null;
  const rand = mulberry32(seed);
  const t = REFERENCE_TARGETS;
  const medians: number[] = [];
  const maxes: number[] = [];
  let covered = 0;
  let pass = 0;
  for (let d = 0; d < draws; d++) {
    const biases: number[] = [];
    let c = 0;
    for (const r of rows) {
      const g = normal(rand) * (r.gapSe ?? 0);
      biases.push(Math.abs(Math.exp(g) - 1));
      if (Math.abs(g) <= (r.halfWidth ?? 0)) c++;
    }
    const m = median(biases);
    const x = Math.max(...biases);
    medians.push(m);
    maxes.push(x);
    covered += c;
    if (m <= t.medianBias && x <= t.maxBias && c / rows.length >= t.covered) pass++;
  }
  const chi2 = rows.reduce((s, r) => s + (r.z ?? 0) ** 2, 0);
  return {
    rows: rows.length,
    medianBias: median(medians),
    maxBias: median(maxes),
    covered: covered / draws,
    pass: pass / draws,
    chi2,
    df: rows.length,
    p: 1 - chisquareCdf(chi2, rows.length),
  };
}

/**
 * One sentence on `r`: what an unbiased design would read, and whether the gaps are beyond it,
 * e.g. "an unbiased design would read median 2.9%, max 8.1%, 12.2 of 14 covered, and pass the
 * targets in 3% of runs; Σz² 31.4 on 14 df (p = 0.005): a bias beyond both intervals".
 */
export function noBiasText(r: NoBiasReading): string {
  const pc = (x: number) => `${(100 * x).toFixed(1)}%`;
  const floor = `an unbiased design would read median ${pc(r.medianBias)}, max ${pc(r.maxBias)}, ${r.covered.toFixed(1)} of ${r.rows} covered, and pass the targets in ${Math.round(100 * r.pass)}% of runs`;
  const p = r.p < 0.001 ? 'p < 0.001' : `p = ${r.p.toFixed(3)}`;
  const verdict = r.p < 0.05 ? 'a bias beyond both intervals' : 'no bias beyond both intervals';
  return `${floor}; Σz² ${r.chi2.toFixed(1)} on ${r.df} df (${p}): ${verdict}`;
}
