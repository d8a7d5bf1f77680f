/**
 * What a table model can detect, and what a budget needs: the minimum detectable difference
 * (`mdd`, a table's `tableMdd` at its σ̂ and window counts), the windows per row a target MDD needs
 * (`windowsNeeded`), and the per-look α when a pair is looked at repeatedly (`sequentialAlpha`).
 * σ is the table model's, in log units (table-model.ts).
 */
import { UserError } from '../core/errors.ts';
import { median } from './stats.ts';
import { ALPHA, checkAlpha, POWER, type TableModel, tq } from './table-model.ts';

/** Inputs of `mdd`: σ (log units), its df, and window counts (nC omitted = comparison with the baseline). */
export interface MddInput {
  sigma: number;
  df: number;
  nA: number;
  nC?: number;
  alpha?: number;
  power?: number;
}

/**
 * Minimum detectable difference, as a ratio excess (0.1 = 10%): the true ratio a two-sided
 * level-α t test detects with probability `power`:
 *     MDD = exp((t(1−α/2, df) + t(power, df)) · σ · √(1/n_A + 1/n_C)) − 1,
 * i.e. exp((t₀.₉₇₅ + t₀.₉₀)·σ·√(2/n)) − 1 for two rows of n windows, √(1/n) against the
 * baseline (whose log-ratio is 0 exactly). Source: the standard power approximation of the
 * two-sample t test, normal quantiles replaced by t quantiles (e.g. Chow, Shao & Wang, "Sample
 * Size Calculations in Clinical Research", §3.2; van Belle, "Statistical Rules of Thumb", §2.4).
 * It slightly overstates power at small df (the noncentral t is wider); the test file measures it.
 */
export function mdd(x: MddInput): number {
  const alpha = x.alpha ?? ALPHA;
  const power = x.power ?? POWER;
  if (!(x.sigma >= 0) || !(x.df > 0) || !(x.nA > 0) || (x.nC !== undefined && !(x.nC > 0)))
    throw new UserError(`mdd: need sigma ≥ 0, df > 0 and window counts > 0, got ${JSON.stringify(x)}`);
  const k = Math.sqrt(1 / x.nA + (x.nC === undefined ? 0 : 1 / x.nC));
  return Math.exp((tq(1 - alpha / 2, x.df) + tq(power, x.df)) * x.sigma * k) - 1;
}

/** The table's MDD at its σ̂, df and median window count per contender row: pair and vs baseline. */
export function tableMdd(
  m: TableModel,
  opts: { alpha?: number; power?: number } = {},
): {
  pair: number;
  baseline: number;
  n: number;
} {
  // NaN when no row is outside the baseline.
  const n = median(m.rows.filter((r) => !r.baseline).map((r) => r.n));
  const base = { sigma: m.sigma, df: m.df, nA: n, ...opts };
  const pair = mdd({ ...base, nC: n });
  // Two-way: the baseline is a noisy row like any other (its ratio's SE is a pair's).
  return { pair, baseline: m.kind === 'two-way' ? pair : mdd(base), n };
}

/** Options of `windowsNeeded`. */
export interface BudgetOptions {
  /** Contender rows that share σ̂ (df = rows·(n − 1)); default 2. */
  rows?: number;
  /** 'pair' (two contenders, √(2/n)) or 'baseline' (√(1/n)); default 'pair'. */
  comparison?: 'pair' | 'baseline';
  alpha?: number;
  power?: number;
  /** Give up above this many windows per row (default 1000). */
  max?: number;
}

/**
 * Windows per row needed so that `mdd` ≤ `target` (a ratio excess, 0.1 = 10%) at noise σ (log
 * units), with df = rows·(n − 1): the smallest n ≥ 2. For the scheduler's budgets. Throws
 * UserError for σ < 0, target ≤ 0, or when more than `max` windows would be needed.
 */
export function windowsNeeded(sigma: number, target: number, o: BudgetOptions = {}): number {
  if (!(sigma >= 0)) throw new UserError(`windowsNeeded: sigma must be ≥ 0 (log units), got ${sigma}`);
  if (!(target > 0)) throw new UserError(`windowsNeeded: target must be a ratio excess > 0 (0.1 = 10%), got ${target}`);
  const rows = o.rows ?? 2;
  const max = o.max ?? 1000;
  for (let n = 2; n <= max; n++) {
    const x = { sigma, df: rows * (n - 1), nA: n, alpha: o.alpha, power: o.power };
    if (mdd(o.comparison === 'baseline' ? x : { ...x, nC: n }) <= target) return n;
  }
  throw new UserError(
    `windowsNeeded: more than ${max} windows per row to detect ${(100 * target).toFixed(1)}% at σ = ${sigma}: relax the target or reduce the noise`,
  );
}

/**
 * Per-look α for a pair examined at up to `maxLooks` interim looks (the scheduler adding windows
 * to undecided pairs): Bonferroni over looks, α/maxLooks. By the union bound the chance of ANY
 * false 'faster'/'slower' over all looks is ≤ α whatever the stopping rule (stop early, at
 * random, when decided), provided no pair is looked at more than `maxLooks` times. It is more
 * conservative than Pocock or O'Brien–Fleming boundaries (which need planned, equally spaced
 * looks) but valid without any plan. Pass the result as `alpha` to fitTable/compare at every look.
 */
export function sequentialAlpha(alpha: number, maxLooks: number): number {
  checkAlpha(alpha);
  if (!Number.isInteger(maxLooks) || maxLooks < 1)
    throw new UserError(`sequentialAlpha: maxLooks must be a whole number ≥ 1, got ${maxLooks}`);
  return alpha / maxLooks;
}
