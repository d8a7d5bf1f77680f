/**
 * The capacity table's column set and texts, shared by the Markdown, terminal and HTML
 * exporters so the three print the same columns and the same figures: rank, contender,
 * "sustainable req/s at p99 ≤ X ms" ("≥" when the open-loop driver reached its limit: a lower
 * bound), interval, % of baseline, closed-loop peak req/s, share of peak at SLO (sustainable ÷
 * peak, %; stored as `knee`), p99 at the capacity (ms), searches bracketed and steps, flags. Rates in requests/s, latencies in ms.
 */
import type { CapacityVerdict } from '../store/results.ts';
import type { Estimate } from '../analysis/stats.ts';
import { fmtFigure, fmtMs, fmtPct, plural, sig } from '../core/format.ts';
import type { RowView, TableView } from './view.ts';

/** `1st`, `2nd`, `3rd`, `4th`, `11th`, `12th`, `13th`, `21st`. */
export function ordinal(n: number): string {
  const t = n % 100;
  const s = t >= 11 && t <= 13 ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${s}`;
}

/** The sustainable-rate column's header: `sustainable req/s at p99 ≤ 10 ms`. */
export function capacityHeader(sloP99Ms: number): string {
  return `sustainable req/s at p99 ≤ ${fmtSlo(sloP99Ms)} ms`;
}

/** An SLO in ms as written in headers and sentences: `10`, `2.5`. */
export function fmtSlo(ms: number): string {
  return String(sig(ms, 3));
}

/**
 * A sustainable rate as printed: `12,400`, `≥ 12,400` (verdict at-least: a lower bound), `never`
 * (not even the lowest rate held the SLO), `interrupted` (no rate found before the stop), `–`.
 */
export function sustainableText(rps: Pick<Estimate, 'figure'> | null, verdict: CapacityVerdict | null): string {
  if (!rps || !Number.isFinite(rps.figure)) return verdict === 'never' || verdict === 'interrupted' ? verdict : '–';
  return `${verdict === 'at-least' ? '≥ ' : ''}${fmtFigure(rps)}`;
}

/**
 * The share of the closed-loop peak sustained at the SLO (stored as `knee`) as a percentage:
 * 0.352 → `35%`; `–` without one.
 */
export function kneeText(knee: number | null): string {
  return knee === null || !Number.isFinite(knee) ? '–' : fmtPct(knee);
}

/** The p99 at the capacity, ms (3 significant digits), or `–`. */
export function p99CapText(ms: number | null): string {
  return ms === null ? '–' : fmtMs(sig(ms));
}

/** The column header of the share of peak (`kneeText`). */
export const SHARE_OF_PEAK_HEADER = 'share of peak at SLO';

/**
 * The searches and steps of a cell: `4 of 5 bracketed, 61 steps` (how many searches
 * bracketed their capacity, the ones the figure comes from); runs that did not record it: `5 searches, 21 steps`.
 */
export function stepsText(c: { steps: number; searches: number; bracketed?: number | null }): string {
  const steps = plural(c.steps, 'step');
  if (c.bracketed === null || c.bracketed === undefined) return `${plural(c.searches, 'search', 'searches')}, ${steps}`;
  return `${c.bracketed} of ${c.searches} bracketed, ${steps}`;
}

/**
 * The rows a table prints in its column set: ranked rows; in a capacity table also the measured
 * own-run rows that are not ranked only for their few searches (the capacity profile runs 3
 * rounds, fewer than a rank needs), so the capacity figures are always in the table. The other
 * rows go to the "Not ranked" list.
 */
export function tableRows(t: TableView): RowView[] {
  return t.rows.filter(
    (r) => r.rank !== null || (t.capacity !== null && !r.otherRun && !r.failed && r.rps !== null && r.capacity),
  );
}

/** Spearman's ρ as printed: two decimals, a true minus sign ("−0.40"), never "−0.00". */
export const fmtRho = (r: number): string => `${Math.round(r * 100) < 0 ? '−' : ''}${Math.abs(r).toFixed(2)}`;
