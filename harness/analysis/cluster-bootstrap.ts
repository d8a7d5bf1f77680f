/**
 * The self-test's false-difference rate with an interval that counts its dependence. Its null
 * pairs are not independent: every pair of identical copies within one table shares that table's
 * σ̂ (one noisy table turns many of its pairs at once), and each copy is in K − 1 pairs (one copy
 * that drew a low figure is "different" from many others). A binomial interval over the pairs
 * treats them as independent and is too narrow.
 *
 * The interval here is the pigeonhole bootstrap for crossed random effects (Owen 2007, "The
 * pigeonhole bootstrap", Annals of Applied Statistics 1(2):386–411): each replicate draws the
 * tables with replacement and, independently, the copies with replacement; a pair (table t,
 * copies a, b) then weighs w_t·w_a·w_b (how often each was drawn), and the replicate's rate is the
 * weighted share of false differences. The 2.5% and 97.5% quantiles of the replicates give the
 * 95% interval (percentile method); the replicates' variance over the binomial variance
 * p(1 − p)/n is the design effect, and n / design effect the pairs' worth in independent pairs.
 * The bootstrap is conservative, never anti-conservative (Owen 2007, §3): a pair's weight is a
 * product of three resampling counts, so the part of the variance that is each pair's own
 * (binomial) noise is counted up to E[w²]³ − 1 = 7 times over; for pairs that are in fact
 * independent its design effect reads about 5 here (test/unit/cluster-bootstrap.test.ts). Its
 * interval errs wide and its effective pairs low: a certificate from it is a safe one, and the
 * runs it asks for an upper estimate. Tables are each scenario's own servers (independent), and
 * copies share a label across tables, so treating copies as crossed with tables is itself
 * conservative. Random numbers: harness/core/prng.ts (mulberry32, seeded: reproducible).
 *
 * `runsToCertify` turns the effective pairs of one run into the runs needed for an upper end at
 * or below a target.
 */
import fQuantile from '@stdlib/stats-base-dists-f-quantile';
import { UserError } from '../core/errors.ts';
import { mulberry32 } from '../core/prng.ts';

/** One judged pair of identical copies: its table (e.g. the scenario), the two copies, and whether it was called different. */
export interface NullPair {
  table: string;
  a: string;
  b: string;
  hit: boolean;
}

/** A share of pairs with its dependence-aware 95% interval. Rates are shares 0–1. */
export interface ClusteredShare {
  pairs: number;
  hits: number;
  rate: number;
  /** Percentile 95% interval of the pigeonhole bootstrap (contains `rate`). */
  ci95: [number, number];
  /** Bootstrap variance ÷ the binomial variance p(1 − p)/n (1 = independent pairs); null when p is 0 or 1. */
  designEffect: number | null;
  /** pairs ÷ designEffect: what the pairs are worth as independent ones, at least (the bootstrap errs wide); null with designEffect. */
  effectivePairs: number | null;
  tables: number;
  copies: number;
  reps: number;
  seed: number;
  method: string;
}

/** The method sentence stored with a ClusteredShare. */
export const PIGEONHOLE_METHOD =
  'pigeonhole bootstrap over tables and copies (Owen 2007): tables and copies drawn with replacement, each pair weighted by how often its table and its two copies were drawn; percentile 95% interval';

/**
 * The pigeonhole-bootstrap interval of the share of `pairs` with `hit` (see the module docstring).
 * `reps` replicates (default 4000), `seed` for the generator (default 36). Throws UserError for
 * no pairs or a pair of a copy with itself.
 */
export function pigeonholeShare(pairs: readonly NullPair[], o: { reps?: number; seed?: number } = {}): ClusteredShare {
  if (!pairs.length) throw new UserError('pigeonholeShare: no pairs to judge');
  if (pairs.some((p) => p.a === p.b)) throw new UserError('pigeonholeShare: a pair of a copy with itself');
  const reps = o.reps ?? 4000;
  const seed = o.seed ?? 36;
  const tables = [...new Set(pairs.map((p) => p.table))];
  const copies = [...new Set(pairs.flatMap((p) => [p.a, p.b]))];
  const ti = new Map(tables.map((t, i) => [t, i]));
  const ci = new Map(copies.map((c, i) => [c, i]));
  const idx = pairs.map((p) => [ti.get(p.table) ?? 0, ci.get(p.a) ?? 0, ci.get(p.b) ?? 0] as const);
  const rand = mulberry32(seed);
  const counts = (n: number) => {
    const w = new Array<number>(n).fill(0);
    for (let i = 0; i < n; i++) {
      const k = Math.floor(rand() * n);
      w[k] = (w[k] ?? 0) + 1;
    }
    return w;
  };
  const rates: number[] = [];
  for (let r = 0; r < reps; r++) {
    const wt = counts(tables.length);
    const wc = counts(copies.length);
    let num = 0;
    let den = 0;
    idx.forEach(([t, a, b], i) => {
      const w = (wt[t] ?? 0) * (wc[a] ?? 0) * (wc[b] ?? 0);
      den += w;
      if (pairs[i]?.hit) num += w;
    });
    if (den > 0) rates.push(num / den);
  }
  rates.sort((x, y) => x - y);
  const hits = pairs.filter((p) => p.hit).length;
  const rate = hits / pairs.length;
  const q = (p: number) => rates[Math.min(rates.length - 1, Math.max(0, Math.floor(p * rates.length)))] ?? rate;
  const mean = rates.reduce((a, x) => a + x, 0) / rates.length;
  const variance = rates.reduce((a, x) => a + (x - mean) ** 2, 0) / Math.max(1, rates.length - 1);
  const binomial = (rate * (1 - rate)) / pairs.length;
  const designEffect = binomial > 0 ? variance / binomial : null;
  return {
    pairs: pairs.length,
    hits,
    rate,
    ci95: [Math.min(rate, q(0.025)), Math.max(rate, q(0.975))],
    designEffect,
    effectivePairs: designEffect ? pairs.length / designEffect : null,
    tables: tables.length,
    copies: copies.length,
    reps,
    seed,
    method: PIGEONHOLE_METHOD,
  };
}

/**
 * The Clopper–Pearson (exact binomial) upper 95% bound of `x` hits in `n` independent trials
 * (Clopper & Pearson 1934; the beta–F relation), x and n real (an effective count) with 0 ≤ x < n.
 */
export function clopperPearsonUpper(x: number, n: number, alpha = 0.05): number {
  if (!(n > 0) || x < 0 || x > n)
    throw new UserError(`clopperPearsonUpper: need 0 ≤ x ≤ n and n > 0, got ${x} of ${n}`);
  if (x >= n) return 1;
  const f = fQuantile(1 - alpha / 2, 2 * (x + 1), 2 * (n - x));
  return ((x + 1) * f) / (n - x + (x + 1) * f);
}

/**
 * The smallest number of runs (1–1000) whose pooled pairs would put the upper end of the 95%
 * interval at or below `target` (0.08 = 8%), if each run is worth `effectivePairs` independent
 * pairs and the rate stays `rate`: Clopper–Pearson on rate·n of n = runs × effectivePairs. Null
 * when the rate itself is at or above the target (no number of runs certifies it).
 */
export function runsToCertify(rate: number, effectivePairs: number, target = 0.08): number | null {
  if (!(effectivePairs > 0)) throw new UserError(`runsToCertify: effectivePairs must be > 0, got ${effectivePairs}`);
  if (!(rate < target)) return null;
  for (let runs = 1; runs <= 1000; runs++) {
    const n = runs * effectivePairs;
    if (clopperPearsonUpper(rate * n, n) <= target) return runs;
  }
  return null;
}
