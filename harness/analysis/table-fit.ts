/**
 * A table's model fitted to its ranked rows, and the ranks taken from it: the model's units of a
 * cell (`pairedUnits`: per round, or per server process), the fit (`tableModel`: table-model.ts
 * `fitTwoWay` when every ranked row has interleaved rounds, else `fitTable` on the solo rounds'
 * log-ratios to the baseline), then per ranked row its rank range, its ratio to the baseline with
 * the model's 95% CI, and the flags the model gives (noisy rounds, a solo/interleaved gap).
 */
import type { CellResult } from '../store/results.ts';
import { estimatorGaps } from './estimator-agreement.ts';
import { cellSamples } from './stats.ts';
import type { RankedTable, TableRow } from './table-types.ts';
import { rankRanges } from './rank-ranges.ts';
import { fitTable, fitTwoWay, type TableModel } from './table-model.ts';
import { tableMdd } from './table-power.ts';

/** How a model-based ratio was computed, for the reader (the one-way ratio model, or the two-way model of interleaved rounds). */
export const modelEstimator = (m: TableModel) =>
  m.kind === 'two-way'
    ? "table model: two-way model of each cell's log requests per CPU-second per round (or server process), cell and round effects, residual variance pooled over the table (analysis/table-model.ts fitTwoWay)"
    : 'table model: per-round log-ratio to the baseline of the same round, residual variance pooled over the table (analysis/table-model.ts)';

/** Rounds behind a row of the model (0 for the baseline). */
export function modelRow(m: TableModel, name: string): number {
  return m.rows.find((r) => r.name === name)?.n ?? 0;
}

/** The per-round log-ratios of `c` to the baseline cell `b`, over their common rounds. */
function roundLogRatios(c: CellResult, b: CellResult): number[] {
  const cs = c.stats;
  const bs = b.stats;
  if (!cs || !bs) return [];
  const base = new Map(bs.rounds.map((r, i) => [r, bs.trialRps[i] ?? 0]));
  const out: number[] = [];
  cs.rounds.forEach((r, i) => {
    const x = cs.trialRps[i] ?? 0;
    const y = base.get(r) ?? 0;
    if (x > 0 && y > 0) out.push(Math.log(x / y));
  });
  return out;
}

/** Interleaved rounds behind a cell (0 without them). */
export function pairedRounds(c: CellResult): number {
  return c.stats?.paired?.efficiency.length ?? 0;
}

/**
 * The table model's units of a cell measured in interleaved rounds: ln(efficiency) per round, or,
 * when its rounds ran in several server processes (`stats.paired.instances`, profiles.ts
 * `InterleaveShape.instances`), the mean ln(efficiency) of each process, keyed by process number
 * (1-based). Per-process means put the difference between processes of one build into the
 * model's residual, where rounds of one process cannot see it (docs/noise.md, "Process
 * instances"). Empty map without interleaved rounds; efficiencies ≤ 0 are skipped.
 */
export function pairedUnits(c: CellResult): { by: 'round' | 'process'; y: Map<number, number> } {
  const p = c.stats?.paired;
  if (!p) return { by: 'round', y: new Map() };
  const inst = p.instances;
  if (!inst || new Set(inst).size < 2)
    return {
      by: 'round',
      y: new Map(p.rounds.flatMap((k, i) => ((p.efficiency[i] ?? 0) > 0 ? [[k, Math.log(p.efficiency[i] ?? 0)]] : []))),
    };
  const sums = new Map<number, { s: number; n: number }>();
  p.efficiency.forEach((e, i) => {
    const k = inst[i] ?? 1;
    if (!(e > 0)) return;
    const a = sums.get(k) ?? { s: 0, n: 0 };
    sums.set(k, { s: a.s + Math.log(e), n: a.n + 1 });
  });
  return { by: 'process', y: new Map([...sums].map(([k, a]) => [k, a.s / a.n])) };
}

/**
 * The table's model over its ranked rows: when every row has interleaved rounds, the two-way
 * model of their log efficiencies per round, or per server process when every row ran in several
 * (table-model.ts `fitTwoWay`, `pairedUnits`); else each non-baseline row's per-round log-ratios
 * to the baseline row (same run, same rounds), σ pooled (table-model.ts `fitTable`). Null when the
 * baseline is not a ranked row, fewer than 2 rows are ranked, or the model has no residual df.
 */
export function tableModel(
  rankable: TableRow[],
  baseline: string,
): { fit: TableModel; summary: NonNullable<RankedTable['model']> } | null {
  const base = rankable.find((r) => r.label === baseline);
  if (!base || rankable.length < 2) return null;
  // Interleaved rounds: the two-way model on each cell's own efficiency per round.
  // Rows measured in several server processes each: the model's units are the processes.
  if (rankable.every((r) => pairedRounds(r.cell) > 0)) {
    const units = rankable.map((r) => ({ name: r.label, ...pairedUnits(r.cell) }));
    const byProcess = units.every((u) => u.by === 'process');
    const fit = fitTwoWay(
      baseline,
      units.map((u) => ({ name: u.name, y: byProcess ? u.y : pairedUnits(stripInstances(u.name, rankable)).y })),
    );
    if (!fit || !(fit.df > 0)) return null;
    return { fit, summary: modelSummary(fit, byProcess ? 'process' : 'round') };
  }
  const rows = rankable
    .filter((r) => r !== base)
    .map((r) => ({ name: r.label, d: roundLogRatios(r.cell, base.cell) }))
    .filter((r) => r.d.length > 0);
  if (!rows.some((r) => r.d.length >= 2)) return null;
  const fit = fitTable({ baseline, rows });
  if (!(fit.df > 0)) return null;
  return { fit, summary: modelSummary(fit, 'round') };
}

/** A fitted table model as RankedTable's `model`: σ, df, units per row (`unit`) and the MDDs (table-power.ts `tableMdd`). */
function modelSummary(fit: TableModel, unit: 'round' | 'process'): NonNullable<RankedTable['model']> {
  const m = tableMdd(fit);
  return { sigma: fit.sigma, df: fit.df, rounds: m.n, unit, mdd: { pair: m.pair, baseline: m.baseline } };
}

/** The cell of row `name` with its process numbers dropped (a table whose rows do not all have them ranks on rounds). */
function stripInstances(name: string, rows: TableRow[]): CellResult {
  const c = rows.find((r) => r.label === name)?.cell;
  if (!c?.stats?.paired) throw new Error(`stripInstances: no interleaved rounds in row ${name}`);
  const { instances: _i, ...paired } = c.stats.paired;
  return { ...c, stats: { ...c.stats, paired } };
}

/** Ranks, rank ranges and ratios to the baseline of the ranked rows, from the model. */
export function applyModel(fit: TableModel, rankable: TableRow[]): void {
  const ranges = new Map(rankRanges(fit).map((r) => [r.name, r]));
  for (const r of rankable) {
    const range = ranges.get(r.label);
    const f = fit.rows.find((x) => x.name === r.label);
    if (!range || !f) {
      r.status = 'not-ranked';
      r.notRanked = { reason: 'few-trials', trials: r.trials, detail: 'no round in common with the baseline' };
      continue;
    }
    r.rank = range.best;
    r.rankRange = { best: range.best, worst: range.worst };
    // With interleaved rounds, noisy = the row's rounds disagree much more than the table's
    // others (the model's F test took it out of the pool), not the solo windows' spread.
    if (pairedRounds(r.cell)) r.flags.noisy = fit.ownVariance.includes(r.label);
    if (!f.baseline)
      r.vsBaseline = {
        figure: f.ratio,
        interval: f.ci,
        kind: 'ci95',
        n: f.n,
        paired: true,
        df: Number.isFinite(f.df) ? f.df : null,
        estimator: modelEstimator(fit),
      };
  }
}

/** Flags the rows whose solo requests/s ratio and interleaved ratio to the baseline disagree beyond their intervals. */
export function flagEstimatorGaps(fit: TableModel, rankable: TableRow[]): void {
  const solo = rankable.map((r) => ({ label: r.label, ...cellSamples(r.cell) }));
  const gaps = new Map(estimatorGaps(fit, solo).map((g) => [g.label, g]));
  for (const r of rankable) {
    const g = gaps.get(r.label);
    if (g?.disagree) r.flags.estimatorGap = g;
  }
}
