/**
 * The rows of the report's tables (view.ts `RowView`) from the analysis' rows (analysis/tables.ts
 * `TableRow`, `OtherRunRow`): figure and ratio with their intervals, rank text, latency (ms),
 * resources (CPU % of one core, MiB), errors, the capacity search of a capacity cell, and the
 * row's flags as short phrases. Every number comes from the analysis or the stored cell.
 */
import { MIN_CI_TRIALS, median } from '../../analysis/stats.ts';
import { type OtherRunRow, pairedRounds, type TableRow } from '../../analysis/tables.ts';
import type { EstimatorGap } from '../../analysis/estimator-agreement.ts';
import { p99AtCapacity } from '../../analysis/capacity.ts';
import type { CellResult } from '../../store/results.ts';
import { fmtBounds, fmtFigure, fmtInt, fmtPct, intervalName, plural } from '../../core/format.ts';
import { fmtSlo } from '../capacity-text.ts';
import type { CapacityRowView, RowView } from '../view.ts';
import { estimateOf } from './view-format.ts';

const MiB = 2 ** 20;

function latencyOf(c: CellResult): RowView['latencyMs'] {
  // A capacity cell's latency is its curve (capacity.steps), not its closed-loop peak window's.
  if (c.capacity) return null;
  const l = c.stats?.latencyMs ?? c.load?.latencyMs ?? null;
  if (!l) return null;
  return { p50: l.p50, p90: l.p90, p95: l.p95 ?? null, p99: l.p99, p999: l.p999 ?? null, max: l.max };
}

function resourcesOf(c: CellResult): RowView['resources'] {
  const r = c.resources;
  if (!r) return null;
  return {
    cpuAvgPct: r.server.cpuPctAvg,
    cpuPeakPct: r.server.cpuPctPeak,
    cpuCapPct: Math.max(1, r.server.pinnedCores) * 100,
    rssAvgMiB: r.server.rssBytesAvg / MiB,
    rssPeakMiB: r.server.rssBytesPeak / MiB,
    rpsPerCpuSecond: r.rpsPerCpuSecond,
  };
}

function errorsOf(c: CellResult): number | null {
  const l = c.load;
  return l ? l.errors + l.timeouts + l.non2xx + l.bodyChecks.mismatched : null;
}

function notRankedText(r: TableRow): string | null {
  const n = r.notRanked;
  if (!n) return null;
  if (n.reason === 'failed') return `failed: ${n.detail ?? 'see the findings'}`;
  if (n.reason === 'services-lost') return n.detail ?? 'a service went away';
  if (n.reason === 'skipped') return `${r.cell.status}: ${n.detail ?? 'not measured'}`;
  const e = estimateOf({ figure: r.figure, interval: r.interval, kind: r.kind, n: r.trials });
  const b = fmtBounds(e);
  return `${plural(n.trials, 'trial')} (fewer than ${MIN_CI_TRIALS}): ${fmtInt(r.figure)} requests/s${b ? `, ${intervalName(e)} ${b}` : ''}`;
}

/** A capacity cell's search results for its row (null for other cells). */
function capacityRowView(c: CellResult): CapacityRowView | null {
  const k = c.capacity;
  if (!k) return null;
  return {
    sloP99Ms: k.sloP99Ms,
    driver: k.driver,
    verdict: k.verdict,
    peakRps: { ...k.peakRps, n: k.searches },
    knee: k.knee,
    p99AtCapacityMs: p99AtCapacity(k.steps),
    steps: k.steps.length,
    searches: k.searches,
    bracketed: k.bracketed ?? null,
    never: k.never,
    curve: k.steps
      .map((s) => ({ rate: s.rate, p99: s.latencyMs.p99, pass: s.pass, clientBound: s.clientBound, search: s.search }))
      .sort((a, b) => a.rate - b.rate || a.search - b.search),
  };
}

function rowFlags(
  c: CellResult,
  f: { clientBound: boolean; failed: string | null; servicesLost: string[]; estimatorGap?: EstimatorGap | null },
  trials: number,
): string[] {
  const k = c.capacity;
  return [
    f.failed ? 'failed' : '',
    k?.verdict === 'at-least'
      ? k.heldAbove
        ? `${k.heldAbove} of ${k.searches} searches held more than the bracketed figure: ≥ the mean over every search (lower bound)`
        : k.bracketed === undefined
          ? `${k.driver} at its limit (lower bound)`
          : `no search bracketed its capacity (lower bound)`
      : '',
    k?.rps && k.never ? `${k.never} of ${k.searches} searches never held p99 ≤ ${fmtSlo(k.sloP99Ms)} ms` : '',
    k?.boundsAbove && !k.heldAbove
      ? `${k.boundsAbove} of ${k.searches} searches held more without bracketing (lower bounds above the figure)`
      : '',
    f.clientBound ? 'client-bound (lower bound)' : '',
    f.estimatorGap ? estimatorGapFlag(f.estimatorGap) : '',
    // Noisy rows are named once per table, in its measurement notes, not flagged on each row.
    f.servicesLost.length ? `${f.servicesLost.join(', ')} lost` : '',
    // With interleaved rounds the ranks rest on them; the solo windows' count is no flag then.
    trials < MIN_CI_TRIALS && !f.failed && !pairedRounds(c) ? plural(trials, 'trial') : '',
    c.verification?.level === 'warn' ? 'verify warn' : '',
    c.target?.kind === 'external' ? 'external' : '',
  ].filter(Boolean);
}

/** "solo requests/s 6.1% of baseline (95% CI 5.5–6.8%) ≠ interleaved 9.0% (8.0–10%)": a row whose two estimators disagree. */
function estimatorGapFlag(g: EstimatorGap): string {
  const n = (x: number) => (100 * x).toFixed(x < 0.1 ? 1 : 0);
  const p = (x: number) => fmtPct(x, 'adaptive');
  const iv = ([lo, hi]: [number, number]) => `${n(lo)}–${p(hi)}`;
  return `solo requests/s ${p(g.solo.ratio)} of baseline (95% CI ${iv(g.solo.ci)}) ≠ interleaved ${p(g.interleaved.ratio)} (${iv(g.interleaved.ci)})`;
}

/** One ranked table's row as the report shows it: figure, ratio, rank text, latency, resources, flags. */
export function rowView(r: TableRow): RowView {
  const c = r.cell;
  return {
    cellId: c.cellId,
    label: r.label,
    contender: c.contender,
    displayName: c.displayName,
    runId: r.runId,
    otherRun: false,
    rank: r.rank,
    rankText: r.rankRange
      ? r.rankRange.best === r.rankRange.worst
        ? String(r.rankRange.best)
        : `${r.rankRange.best}–${r.rankRange.worst}`
      : r.rank === null
        ? '–'
        : String(r.rank),
    status: r.status === 'failed' ? 'failed' : r.status === 'not-ranked' ? 'not ranked' : 'ok',
    cellStatus: c.status,
    notRanked: notRankedText(r),
    isBaseline: r.isBaseline,
    rps:
      r.status === 'failed' || r.notRanked?.reason === 'skipped' || !Number.isFinite(r.figure)
        ? null
        : estimateOf({ figure: r.figure, interval: r.interval, kind: r.kind, n: r.trials }),
    ratio: r.vsBaseline ? estimateOf(r.vsBaseline) : null,
    latencyMs: r.status === 'failed' ? null : latencyOf(c),
    errors: errorsOf(c),
    clientBound: r.flags.clientBound,
    noisy: r.flags.noisy,
    failed: r.status === 'failed',
    trials: r.trials,
    paired: pairedRounds(c),
    resources: r.status === 'failed' ? null : resourcesOf(c),
    efficiency: r.status === 'failed' || !c.stats?.paired?.efficiency.length ? null : median(c.stats.paired.efficiency),
    startupMs: c.startupMs,
    flags: rowFlags(c, r.flags, r.trials),
    capacity: capacityRowView(c),
  };
}

/** "87% of node-http in run ID (95% CI 80–95)" of an other-run row, or that its run has no usable baseline cell. */
function otherRunRatio(r: OtherRunRow): string {
  const v = r.vsBaseline;
  if (!v) return `no usable ${r.baseline} cell in run ${r.runId}`;
  const iv = v.interval ? ` (${intervalName(v)} ${fmtBounds(v, { scale: 100 })})` : '';
  return `${fmtFigure(v, { scale: 100 })}% of ${r.baseline} in run ${r.runId}${iv}`;
}

/** A row from another run than its table's: its ratio to that run's own baseline only, never ranked. */
export function otherRowView(r: OtherRunRow): RowView {
  const c = r.cell;
  return {
    cellId: c.cellId,
    label: r.label,
    contender: c.contender,
    displayName: c.displayName,
    runId: r.runId,
    otherRun: true,
    rank: null,
    rankText: '–',
    status: r.failed ? 'failed' : 'other run',
    cellStatus: c.status,
    notRanked: `${otherRunRatio(r)}; other run: ratio only, not ranked`,
    isBaseline: false,
    rps: null,
    ratio: r.vsBaseline ? estimateOf(r.vsBaseline) : null,
    latencyMs: null,
    errors: null,
    clientBound: Boolean(c.resources?.clientBound),
    noisy: Boolean(c.stats?.noisy),
    failed: Boolean(r.failed),
    trials: r.trials,
    paired: pairedRounds(c),
    resources: null,
    efficiency: null,
    startupMs: null,
    flags: [`run ${r.runId}`],
    capacity: null,
  };
}
