/**
 * A claim's units: the comparison value of a requests/s ratio a/b (ratio a/b, increase a/b − 1,
 * reduction 1 − a/b; latency claims through Little's law as the inverse requests/s ratio), its
 * inverse, the decision range of a source's figure ± a tolerance, and their text ("3.62×", "+49%",
 * "60% lower", "3.08× … 4.16× (the source's 3.62× ± 15% on the ratio)").
 */
import { fmtPct } from '../core/format.ts';
import type { Claim } from './claim-types.ts';

/** The metric ratio a/b behind comparison value v (inverse of `valueOfMetric`). */
const metricOf = (compare: Claim['compare'], v: number) =>
  compare === 'ratio' ? v : compare === 'increase' ? v + 1 : 1 - v;
const valueOfMetric = (compare: Claim['compare'], m: number) =>
  compare === 'ratio' ? m : compare === 'increase' ? m - 1 : 1 - m;

/** The decision range of a `tolerance` range: the figure's metric ratio × (1 ± tolerance), in the claim's units, sorted. */
export function toleranceRange(compare: Claim['compare'], figure: number, tolerance: number): [number, number] {
  const m = metricOf(compare, figure);
  return ascending(valueOfMetric(compare, m * (1 - tolerance)), valueOfMetric(compare, m * (1 + tolerance)));
}

/** The comparison value of a requests/s ratio r = a/b in the claim's units (monotonic in r). */
export function claimValue(claim: Pick<Claim, 'metric' | 'compare'>, r: number): number {
  return valueOfMetric(claim.compare, claim.metric === 'rps' ? r : 1 / r);
}

/** The inverse of claimValue: the requests/s ratio a/b that gives comparison value v. */
export function ratioForValue(claim: Pick<Claim, 'metric' | 'compare'>, v: number): number {
  const m = metricOf(claim.compare, v);
  return claim.metric === 'rps' ? m : 1 / m;
}

/** "3.62×", "+49%", "60% lower" style rendering of a comparison value. */
export function formatComparison(compare: Claim['compare'], v: number): string {
  if (compare === 'ratio') return `${v.toFixed(2)}×`;
  const pct = v * 100;
  return compare === 'increase'
    ? `${pct >= 0 ? '+' : '−'}${Math.abs(pct).toFixed(1)}%`
    : `${Math.abs(pct).toFixed(1)}% ${pct >= 0 ? 'lower' : 'higher'}`;
}

/** "3.08× … 4.16×" of a sorted pair in the claim's units. */
export function formatRange(compare: Claim['compare'], [lo, hi]: [number, number]): string {
  return `${formatComparison(compare, lo)} … ${formatComparison(compare, hi)}`;
}

/** The decision range and where it comes from: "3.08× … 4.16× (3.62× ± 15% on the ratio)". */
export function describeRange(claim: Pick<Claim, 'compare' | 'expected' | 'range'>): string {
  const r = formatRange(claim.compare, ascending(claim.expected[0], claim.expected[1]));
  const src =
    claim.range.from === 'tolerance'
      ? `the source's ${formatComparison(claim.compare, claim.range.figure)} ± ${fmtPct(claim.range.tolerance)} on the ratio`
      : `the source's spread: ${claim.range.note}`;
  return `${r} (${src})`;
}

/** The pair in ascending order (kept as given when equal or not comparable, like Array#sort). */
export const ascending = (x: number, y: number): [number, number] => (y < x ? [y, x] : [x, y]);

/** A requests/s ratio and its interval in the claim's units: the figure, and a sorted band that contains it. */
export function inClaimUnits(claim: Pick<Claim, 'metric' | 'compare'>, figure: number, [lo, hi]: readonly number[]) {
  const ours = claimValue(claim, figure);
  const ends = ascending(claimValue(claim, lo ?? figure), claimValue(claim, hi ?? figure));
  const band: [number, number] = [Math.min(ends[0], ours), Math.max(ends[1], ours)];
  return { ours, band };
}
