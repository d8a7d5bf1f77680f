/**
 * A ratio interval as the report prints it: bounds rounded outward with the fewest decimals that
 * still show what the verdict rests on (a bound beyond 1 prints beyond 1; an equivalence interval
 * prints inside the margin), and the interval a comparison prints for its verdict.
 */
import { type Comparison, EQUIVALENCE_MARGIN } from './table-model.ts';

/** What a printed interval must visibly show. */
export type IntervalNeed = 'excludes-1' | 'inside-equivalence' | 'plain';

function roundDir(x: number, d: number, dir: 'down' | 'up'): string {
  let r = Number(x.toFixed(d));
  if (dir === 'down' && r > x) r -= 10 ** -d;
  if (dir === 'up' && r < x) r += 10 ** -d;
  return r.toFixed(d);
}

function fewest(x: number, dir: 'down' | 'up', ok: (s: number) => boolean, min: number, max: number): string {
  for (let d = min; d < max; d++) {
    const s = roundDir(x, d, dir);
    if (ok(Number(s))) return s;
  }
  return roundDir(x, max, dir);
}

/**
 * A ratio interval [lo, hi] as "lo–hi", rounded OUTWARD (lo down, hi up: the printed interval
 * contains the computed one), each bound with the fewest decimals (≥ minDecimals, ≤ maxDecimals)
 * such that: 'excludes-1' — a bound on the far side of 1 prints on that side ("1.003–1.19",
 * never "1.00–1.19"); 'inside-equivalence' — the bounds print strictly inside 0.95–1.05 (for a
 * margin of 5%: lo > 1 − margin, hi < 1 + margin) when they are inside (1/(1+margin), 1+margin).
 */
export function formatRatioInterval(
  iv: [number, number],
  need: IntervalNeed = 'plain',
  o: { minDecimals?: number; maxDecimals?: number; margin?: number } = {},
): string {
  const min = o.minDecimals ?? 2;
  const max = o.maxDecimals ?? 6;
  const margin = o.margin ?? EQUIVALENCE_MARGIN;
  const [lo, hi] = iv;
  let okLo = (_: number) => true;
  let okHi = (_: number) => true;
  if (need === 'excludes-1') {
    if (lo > 1) okLo = (s) => s > 1;
    if (hi < 1) okHi = (s) => s < 1;
  } else if (need === 'inside-equivalence') {
    if (lo > 1 / (1 + margin)) okLo = (s) => s > 1 - margin;
    if (hi < 1 + margin) okHi = (s) => s < 1 + margin;
  }
  return `${fewest(lo, 'down', okLo, min, max)}–${fewest(hi, 'up', okHi, min, max)}`;
}

/** The interval a comparison should print for its verdict: `ci` (excludes-1) unless 'equal within 5%' (`tostCi`, inside-equivalence). */
export function formatComparisonInterval(c: Comparison): { level: 'ci' | 'tost'; text: string } {
  return c.verdict === 'equal within 5%'
    ? { level: 'tost', text: formatRatioInterval(c.tostCi, 'inside-equivalence') }
    : { level: 'ci', text: formatRatioInterval(c.ci, 'excludes-1') };
}
