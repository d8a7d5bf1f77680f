/**
 * One estimator per table: where a table ranks on interleaved rounds (the two-way model of
 * requests per CPU-second, table-model.ts `fitTwoWay`) but shows requests/s from solo windows, the
 * two can say different things about a row's ratio to the baseline. This module measures the gap
 * per row so the report can say so:
 *
 * - solo: the one-way model (table-model.ts `fitTable`) on each row's per-round log-ratio of solo
 *   requests/s to the baseline's solo window of the same round, σ pooled over the table's rows
 *   (2 solo windows per row give 1 df each; the pool gives the interval its df);
 * - interleaved: the two-way model's comparison of the row with the baseline (`compare`);
 * - gap: g = ln(solo ratio) − ln(interleaved ratio), SE = √(SE_solo² + SE_interleaved²) (the solo
 *   windows and the interleaved rounds are separate measurements), Welch–Satterthwaite df; the
 *   row disagrees when |g| / SE > t(0.975, df), i.e. the 95% interval of the gap excludes 0.
 *
 * Ratios are unitless (1 = the baseline's figure).
 */
import { tQuantile } from './stats.ts';
import { compare, fitTable, type TableModel } from './table-model.ts';

/** A row's two ratios to the baseline and their gap. */
export interface EstimatorGap {
  label: string;
  /** Solo requests/s ratio to the baseline (the one-way model on solo rounds) and its 95% CI. */
  solo: { ratio: number; ci: [number, number] };
  /** Interleaved requests-per-CPU-second ratio to the baseline (the table's model) and its 95% CI. */
  interleaved: { ratio: number; ci: [number, number] };
  /** solo ÷ interleaved: the factor between the two figures. */
  factor: number;
  /** Gap in log units over its SE. */
  z: number;
  /** Welch–Satterthwaite df of the gap. */
  df: number;
  /** true when the gap's 95% interval excludes 0. */
  disagree: boolean;
}

/** One row's solo windows as (round, requests/s). */
export interface SoloRow {
  label: string;
  rounds: number[];
  rps: number[];
}

/** Per-round log-ratios of `row` to the baseline's solo windows of the same rounds (both > 0). */
function logRatios(row: SoloRow, base: SoloRow): number[] {
  const b = new Map(base.rounds.map((r, i) => [r, base.rps[i] ?? 0]));
  const out: number[] = [];
  row.rounds.forEach((r, i) => {
    const x = row.rps[i] ?? 0;
    const y = b.get(r) ?? 0;
    if (x > 0 && y > 0) out.push(Math.log(x / y));
  });
  return out;
}

/**
 * The gap between the solo and the interleaved ratio of every row of a two-way `model` (see the
 * module docstring), from the rows' solo windows (`solo`, the baseline's among them). Rows
 * without a solo round in common with the baseline are left out; [] when the model is not a
 * two-way one, the baseline has no solo windows, or no row has 2 solo rounds (no pooled noise).
 */
export function estimatorGaps(model: TableModel, solo: SoloRow[]): EstimatorGap[] {
  if (model.kind !== 'two-way') return [];
  const base = solo.find((r) => r.label === model.baseline);
  if (!base) return [];
  const names = new Set(model.rows.map((r) => r.name));
  const rows = solo
    .filter((r) => r !== base && names.has(r.label))
    .map((r) => ({ name: r.label, d: logRatios(r, base) }))
    .filter((r) => r.d.length > 0);
  if (!rows.some((r) => r.d.length >= 2)) return [];
  let soloFit: TableModel;
  try {
    soloFit = fitTable({ baseline: model.baseline, rows });
  } catch {
    return [];
  }
  if (!(soloFit.df > 0)) return [];
  return soloFit.rows
    .filter((r) => !r.baseline)
    .map((s) => {
      const c = compare(model, s.name, model.baseline);
      const g = s.logRatio - c.logRatio;
      const v1 = s.se ** 2;
      const v2 = c.se ** 2;
      const se = Math.sqrt(v1 + v2);
      const df = (v1 + v2) ** 2 / (v1 ** 2 / s.df + v2 ** 2 / c.df);
      const z = se > 0 ? g / se : 0;
      const q = tQuantile(0.975, Number.isFinite(df) && df > 0 ? df : 1e9);
      return {
        label: s.name,
        solo: { ratio: s.ratio, ci: s.ci },
        interleaved: { ratio: c.ratio, ci: c.ci },
        factor: Math.exp(g),
        z,
        df,
        disagree: Math.abs(z) > q,
      };
    });
}
