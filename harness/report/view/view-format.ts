/**
 * The view model's shared estimate helpers: an analysis estimate as the view's `Estimate`
 * (format.ts), and a ratio as the report prints it ("1.24× (95% CI 1.20–1.28)").
 */
import { formatRatioInterval } from '../../analysis/ratio-bounds.ts';
import type { Estimate } from '../../analysis/stats.ts';
import { fmtBounds, fmtFigure, intervalName } from '../../core/format.ts';

/** A ratio as "1.24× (95% CI 1.20–1.28)" (two decimals, bounds outward). */
export function fmtTimes(e: Estimate): string {
  // A 95% CI that excludes 1 prints with enough digits to show it ("1.003–1.19", never "1.00–1.19").
  const excludes = e.kind === 'ci95' && e.interval && (e.interval[0] > 1 || e.interval[1] < 1);
  const b = excludes && e.interval ? formatRatioInterval(e.interval, 'excludes-1') : fmtBounds(e, { step: 0.01 });
  return `${fmtFigure(e, { step: 0.01 })}×${b ? ` (${intervalName(e)} ${b})` : ` (${intervalName(e)})`}`;
}

/** The Estimate of an analysis figure with its interval (requests/s or a ratio; `n` trials or rounds). */
export function estimateOf(x: {
  figure: number;
  interval: [number, number] | null;
  kind: Estimate['kind'];
  n: number;
}): Estimate {
  return { figure: x.figure, interval: x.interval, kind: x.kind, n: x.n };
}
