/**
 * The overview's capacity matrix (view.ts `CapacityMatrixView`): per scenario its primary capacity
 * table's sustainable requests/s at the p99 objective with intervals and ratios, the ranking
 * comparison against the closed-loop peak (Spearman's ρ, analysis/capacity.ts `compareRankings`)
 * and the open-loop drivers' ceilings (analysis/capacity.ts `driverCeilings`) as sentences.
 */
import { compareRankings, type DriverCeiling, driverCeilings } from '../../analysis/capacity.ts';
import { MIN_CI_TRIALS } from '../../analysis/stats.ts';
import type { RankedTable } from '../../analysis/tables.ts';
import { OPEN_LOOP_BUSY_PCT } from '../../scheduler/capacity-round.ts';
import type { CellResult } from '../../store/results.ts';
import { fmtInt, plural } from '../../core/format.ts';
import { fmtRho, fmtSlo, ordinal } from '../capacity-text.ts';
import type { CapacityMatrixView, CapacityRankingView, TableView } from '../view.ts';
import { primaryTables } from './overview-view.ts';

/**
 * One scenario's line under the capacity matrix: Spearman's ρ between the capacity ranking and
 * the closed-loop peak ranking of the same cells (analysis/capacity.ts `compareRankings`) and the
 * contenders whose rank moves most (at most three).
 */
function rankingLine(scenario: string, t: RankedTable, slo: number): CapacityRankingView {
  const cmp = compareRankings(t.rows.map((r) => r.cell));
  const at = `p99 ≤ ${fmtSlo(slo)} ms`;
  const n = cmp.rows.length;
  const head = `**${scenario}** (${plural(n, 'contender')} with a capacity${cmp.excluded.length ? `; without one: ${cmp.excluded.map((l) => `\`${l}\``).join(', ')}` : ''})`;
  const by =
    cmp.capacityBy === 'rank'
      ? 'capacity ranks: the rank rule'
      : `capacity ranks: the order of the figures, as fewer than ${MIN_CI_TRIALS} searches per cell allow no rank test`;
  if (n < 2) return { scenario, rho: null, n, text: `${head}: fewer than 2 contenders to compare.` };
  const tie = (rank: number, key: 'capacityRank' | 'peakRank') =>
    cmp.rows.filter((r) => r[key] === rank).length > 1 ? ' (tied)' : '';
  const moves = cmp.moves
    .slice(0, 3)
    .map(
      (m) =>
        `\`${m.label}\` is ${ordinal(m.peakRank)}${tie(m.peakRank, 'peakRank')} by closed-loop peak but ${ordinal(m.capacityRank)}${tie(m.capacityRank, 'capacityRank')} at ${at}`,
    );
  const rho =
    cmp.rho === null
      ? 'Spearman’s ρ undefined (one ranking is all ties)'
      : `Spearman’s ρ = ${fmtRho(cmp.rho)} between the capacity and the closed-loop peak rankings`;
  const tail = moves.length ? `; ${moves.join('; ')}` : '; no contender changes rank';
  return { scenario, rho: cmp.rho, n, text: `${head}: ${rho} (${by})${tail}.` };
}

/**
 * The overview's capacity matrix: per scenario its primary capacity table (same choice as the
 * % of baseline matrix, among capacity tables), each contender's sustainable requests/s with its
 * interval and ratio to the baseline; contenders by their mean log ratio, best first. Null when
 * no table has capacity cells.
 */
export function capacityMatrixOf(tables: TableView[], ranked: RankedTable[]): CapacityMatrixView | null {
  const primary = primaryTables(tables.filter((t) => t.capacity));
  if (!primary.length) return null;
  const out: CapacityMatrixView = {
    scenarios: [],
    tableIds: {},
    sloP99Ms: {},
    baselines: {},
    contenders: [],
    cells: {},
    rankings: [],
    driverLines: [],
  };
  const score = new Map<string, number[]>();
  for (const t of primary) {
    if (!t.capacity) continue; // primary holds capacity tables only
    const slo = t.capacity.sloP99Ms;
    out.scenarios.push(t.scenario);
    out.tableIds[t.scenario] = t.id;
    out.sloP99Ms[t.scenario] = slo;
    out.baselines[t.scenario] = t.baseline;
    const row: CapacityMatrixView['cells'][string] = {};
    out.cells[t.scenario] = row;
    for (const r of t.rows.filter((x) => !x.otherRun)) {
      const k = r.capacity;
      row[r.label] = {
        rps: k && r.rps && !r.failed ? r.rps : null,
        verdict: k?.verdict ?? null,
        ratio: r.ratio,
        rank: r.rank,
        status: r.failed ? 'failed' : !r.rps ? r.cellStatus : r.rank === null ? 'not ranked' : 'ok',
        reason: r.failed || !k ? r.notRanked : null,
        isBaseline: r.isBaseline,
        flags: [k?.verdict === 'at-least' ? '≥' : '', !r.failed && r.rank === null ? '†' : ''].filter(Boolean),
      };
      if (r.ratio) score.set(r.label, [...(score.get(r.label) ?? []), Math.log(r.ratio.figure)]);
    }
    const source = ranked[tables.indexOf(t)];
    if (source) out.rankings.push(rankingLine(t.scenario, source, slo));
  }
  const labels = [...new Set(primary.flatMap((t) => t.rows.filter((x) => !x.otherRun).map((r) => r.label)))];
  const mean = (xs: number[] | undefined) => (xs?.length ? xs.reduce((a, b) => a + b, 0) / xs.length : -99);
  out.contenders = labels.sort((a, b) => mean(score.get(b)) - mean(score.get(a)) || a.localeCompare(b));
  out.driverLines = driverLinesOf(primary, ranked, tables);
  return out;
}

/** The driver-ceiling sentences of the capacity matrix: per run of its tables (in order) and driver. */
function driverLinesOf(primary: TableView[], ranked: RankedTable[], tables: TableView[]): string[] {
  const byRun = new Map<string, CellResult[]>();
  for (const t of primary) {
    const cells = (ranked[tables.indexOf(t)]?.rows ?? []).map((r) => r.cell);
    byRun.set(t.runId, [...(byRun.get(t.runId) ?? []), ...cells.filter((c) => c.runId === t.runId)]);
  }
  return [...byRun.entries()].flatMap(([runId, cells]) => driverCeilings(cells).map((d) => driverLine(runId, d)));
}

/** One driver's ceiling in one run, as a sentence (the figures and their cells, the run id). */
function driverLine(runId: string, d: DriverCeiling): string {
  const clean = d.clean
    ? `it delivered up to ${fmtInt(d.clean.rps)} requests/s cleanly (\`${d.clean.label}\` · ${d.clean.scenario}; ≥ 95% of the offered rate, ≤ 0.1% failed), a lower bound on its ceiling`
    : 'no step was delivered cleanly';
  const limit = d.lowestAtLimit
    ? `at its limit (≥ ${OPEN_LOOP_BUSY_PCT}% of its core) in ${fmtInt(d.atLimit)} of ${fmtInt(d.steps)} steps, the lowest at ${fmtInt(d.lowestAtLimit.rate)} requests/s offered (\`${d.lowestAtLimit.label}\` · ${d.lowestAtLimit.scenario})`
    : `never at its limit (≥ ${OPEN_LOOP_BUSY_PCT}% of its core) in ${fmtInt(d.steps)} steps`;
  return `**${d.driver}** in run \`${runId}\`: ${clean}; ${limit}.`;
}
