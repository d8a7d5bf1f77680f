/**
 * Sentences written from the analysis' numbers (analysis/ gives data only).
 *
 * `summaryLine(summary)`: the hyperfine-style line under a ranked table, from `SummaryData`
 * (analysis/tables.ts), which uses the SAME significance test as the ranks: "`node-http` ran
 * 1.24 ± 0.03 times faster than `hono`, 1.86 ± 0.05 times faster than `express`; tied with
 * `fastify` (1.01 ± 0.01)". The ± is the larger distance from the ratio to either end of its
 * 95% interval, rounded up, so "ratio ± pm" always covers the whole (asymmetric) interval.
 */
import type { SummaryData } from '../analysis/tables.ts';

/** Ratio with a conservative ± (2 decimals, ± rounded up); "(no interval)" when there is none. */
export function ratioPm(figure: number, interval: [number, number] | null): string {
  if (!interval) return `${figure.toFixed(2)} (no interval)`;
  const pm = Math.max(figure - interval[0], interval[1] - figure, 0);
  return `${figure.toFixed(2)} ± ${(Math.ceil(pm * 100 - 1e-9) / 100).toFixed(2)}`;
}

/** The summary sentence of a ranked table, or null when fewer than two rows are ranked. */
export function summaryLine(summary: SummaryData | null): string | null {
  if (!summary?.comparisons.length) return null;
  const faster = summary.comparisons
    .filter((c) => !c.tied)
    .map((c) => `${ratioPm(c.ratio.figure, c.ratio.interval)} times faster than \`${c.label}\``);
  const tied = summary.comparisons
    .filter((c) => c.tied)
    .map((c) => `\`${c.label}\` (${ratioPm(c.ratio.figure, c.ratio.interval)})`);
  const parts = [
    faster.length ? `ran ${faster.join(', ')}` : '',
    tied.length ? `${faster.length ? 'tied' : 'is tied'} with ${tied.join(', ')}` : '',
  ].filter(Boolean);
  return `\`${summary.fastest}\` ${parts.join('; ')}.`;
}
