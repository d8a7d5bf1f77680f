/**
 * Builds the report's view model (view.ts) from a snapshot: the analysis' ranked tables
 * (analysis/tables.ts `buildTables`: same-run tables, ranks without chains, ratios to the
 * scenario's baseline with their intervals, other-run rows as ratios only, machines never mixed),
 * the findings (issues.ts), the claims (claims.ts) and the runs' metadata. This module adds
 * order, labels and sentences; every number comes from the analysis.
 */
import { DEFAULT_PROFILE, PROFILES, getProfile, isConnectionProfile } from '../core/profiles.ts';
import { NATIVE_FALLBACK_NOTE } from '../drivers/driver-registry.ts';
import { buildTables, type OtherRunRow, pairedRounds, type RankedTable, type TableRow } from '../analysis/tables.ts';
import { median, MIN_CI_TRIALS, NOISE_THRESHOLD } from '../analysis/stats.ts';
import { formatRatioInterval } from '../analysis/table-model.ts';
import type { EstimatorGap } from '../analysis/estimator-agreement.ts';
import { compareWithReference, REFERENCE_TARGETS } from '../analysis/reference-stats.ts';
import type { ReferenceRecord } from '../store/reference-store.ts';
import { compareRankings, type DriverCeiling, driverCeilings, p99AtCapacity } from '../analysis/capacity.ts';
import { OPEN_LOOP_BUSY_PCT, SETTLE_SHARE } from '../scheduler/capacity-round.ts';
import type { CellResult, RunMeta } from '../store/results.ts';
import {
  findIssues,
  leakCoverage,
  type MeasurementNote,
  measurementNotes,
  RULES,
  trialKey,
  variantOverheads,
} from './issues.ts';
import {
  claimsRule,
  describeRange,
  evaluateClaims,
  formatComparison,
  formatRange,
  loadClaims,
  headroomText,
  sharedText,
  verdictText,
} from './claims.ts';
import {
  type Estimate,
  fmtBounds,
  fmtDf,
  fmtFigure,
  fmtGiB,
  fmtInt,
  fmtStep,
  intervalName,
  outward,
} from './format.ts';
import type { ReportSnapshot } from './snapshot.ts';
import { selftestText } from './resolution-text.ts';
import { referenceOf } from './reference-run.ts';
import { driverAgreementOf } from './driver-agreement.ts';
import { nodeMatrixOf } from './node-matrix.ts';
import { whyIssueFindings, whyRowNotes, whyView } from './why-view.ts';
import { footprintViews } from './footprint-view.ts';
import { fmtRho, fmtSlo, ordinal } from './capacity-text.ts';
import type {
  CapacityMatrixView,
  CapacityRankingView,
  CapacityRowView,
  ClaimView,
  MatrixView,
  ReferenceRunView,
  ReportView,
  RowView,
  RunRatioView,
  TableView,
  WinnerView,
} from './view.ts';

const MiB = 2 ** 20;

/** Options of buildView. */
export interface ViewOptions {
  /** Only this run's tables (the snapshot is usually already restricted with selectRun). */
  runId?: string;
  now?: Date;
}

/** A ratio as "1.24× (95% CI 1.20–1.28)" (two decimals, bounds outward). */
export function fmtTimes(e: Estimate): string {
  // A 95% CI that excludes 1 prints with enough digits to show it ("1.003–1.19", never "1.00–1.19").
  const excludes = e.kind === 'ci95' && e.interval && (e.interval[0] > 1 || e.interval[1] < 1);
  const b = excludes && e.interval ? formatRatioInterval(e.interval, 'excludes-1') : fmtBounds(e, { step: 0.01 });
  return `${fmtFigure(e, { step: 0.01 })}×${b ? ` (${intervalName(e)} ${b})` : ` (${intervalName(e)})`}`;
}

function estimateOf(x: {
  figure: number;
  interval: [number, number] | null;
  kind: Estimate['kind'];
  n: number;
}): Estimate {
  return { figure: x.figure, interval: x.interval, kind: x.kind, n: x.n };
}

const anchor = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

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
  return `${n.trials} trial${n.trials === 1 ? '' : 's'} (fewer than ${MIN_CI_TRIALS}): ${fmtInt(r.figure)} requests/s${b ? `, ${intervalName(e)} ${b}` : ''}`;
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
    trials < MIN_CI_TRIALS && !f.failed && !pairedRounds(c) ? `${trials} trial${trials === 1 ? '' : 's'}` : '',
    c.verification?.level === 'warn' ? 'verify warn' : '',
    c.target?.kind === 'external' ? 'external' : '',
  ].filter(Boolean);
}

/** "solo requests/s 6.1% of baseline (95% CI 5.5–6.8%) ≠ interleaved 9.0% (8.0–10%)": a row whose two estimators disagree. */
function estimatorGapFlag(g: EstimatorGap): string {
  const n = (x: number) => (100 * x).toFixed(x < 0.1 ? 1 : 0);
  const p = (x: number) => `${n(x)}%`;
  const iv = ([lo, hi]: [number, number]) => `${n(lo)}–${p(hi)}`;
  return `solo requests/s ${p(g.solo.ratio)} of baseline (95% CI ${iv(g.solo.ci)}) ≠ interleaved ${p(g.interleaved.ratio)} (${iv(g.interleaved.ci)})`;
}

function rowView(r: TableRow): RowView {
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

function otherRowView(r: OtherRunRow): RowView {
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
    notRanked: `${r.vsBaseline ? `${fmtFigure(r.vsBaseline, { scale: 100 })}% of ${r.baseline} in run ${r.runId}${r.vsBaseline.interval ? ` (${intervalName(r.vsBaseline)} ${fmtBounds(r.vsBaseline, { scale: 100 })})` : ''}` : `no usable ${r.baseline} cell in run ${r.runId}`}; other run: ratio only, not ranked`,
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

/**
 * The hyperfine-style sentence under a table, from the analysis' summary data (the rank test);
 * for a capacity table in terms of the sustainable rate ("sustained 1.25× … the rate of `b`").
 */
function summarySentence(t: RankedTable): string | null {
  const s = t.summary;
  if (!s) return null;
  const cap = t.rows.some((r) => r.cell.capacity);
  // A fastest capacity that is a lower bound (the open-loop driver was the limit) makes its ratios lower bounds too.
  const atLeast = cap && t.rows.some((r) => r.cell.label === s.fastest && r.cell.capacity?.verdict === 'at-least');
  const faster = s.comparisons.filter((c) => !c.tied);
  const tied = s.comparisons.filter((c) => c.tied && c.verdict !== 'equal within 5%');
  const equal = s.comparisons.filter((c) => c.tied && c.verdict === 'equal within 5%');
  const parts: string[] = [];
  if (faster.length)
    parts.push(
      cap
        ? `sustained ${atLeast ? 'at least ' : ''}${faster.map((c) => `${fmtTimes(estimateOf(c.ratio))} the rate of \`${c.label}\``).join(', ')}`
        : `ran ${faster.map((c) => `${fmtTimes(estimateOf(c.ratio))} as fast as \`${c.label}\``).join(', ')}`,
    );
  if (equal.length)
    parts.push(
      `is equal within 5% to ${equal.map((c) => `\`${c.label}\` (${fmtTimes(estimateOf(c.ratio))})`).join(', ')}`,
    );
  if (tied.length)
    parts.push(
      `${s.comparisons.some((c) => c.verdict) ? 'is not resolved from' : cap ? 'does not sustain a significantly higher rate than' : 'is not significantly faster than'} ${tied.map((c) => `\`${c.label}\` (${fmtTimes(estimateOf(c.ratio))})`).join(', ')}`,
    );
  return `\`${s.fastest}\` ${parts.join('; it ')}.`;
}

const NOTE_KIND: Record<MeasurementNote['kind'], string> = {
  'client-bound': 'client-bound',
  noisy: 'noisy',
  'few-trials': 'few trials',
  'other-runs': 'other runs',
  'other-machines': 'other machines',
  'no-baseline': 'no baseline',
  'services-lost': 'services lost',
  'paused-failures': 'paused, not failed',
  'capacity-lower-bound': 'capacity lower bound',
  'closed-loop-tail': 'closed-loop tail',
  'estimators-disagree': 'estimators disagree',
};

/** The fastest row's lead over the next significantly slower row, from the summary data: "1.06× (95% CI 1.05–1.07) the next (`b`)". */
function marginOf(t: RankedTable): string | null {
  const next = t.summary?.comparisons.filter((c) => !c.tied).sort((a, b) => a.ratio.figure - b.ratio.figure)[0];
  return next ? `${fmtTimes(estimateOf(next.ratio))} the next (\`${next.label}\`)` : null;
}

/** "Measurement notes" of a table (issues.ts `measurementNotes`: conditions, not contender problems), as sentences. */
function notesOf(t: RankedTable, all: RankedTable[]): string[] {
  return measurementNotes(t, all).map((n) => {
    const who = n.labels.length ? ` (${n.labels.map((l) => `\`${l}\``).join(', ')})` : '';
    const tail =
      n.kind === 'client-bound'
        ? ' — the server may be faster than measured.'
        : n.kind === 'few-trials'
          ? ' — the range of the trials is shown, not a 95% CI.'
          : n.kind === 'noisy'
            ? ' — the interval is wide; re-run to narrow it.'
            : '.';
    return `${NOTE_KIND[n.kind]}${who}: ${n.detail.replace(/\.$/, '')}${tail}`;
  });
}

/** Variant overheads of a table's run and group (issues.ts `variantOverheads`, from the table's model), as sentences with their interval. */
function variantLines(t: RankedTable): string[] {
  const cells = t.rows.map((r) => r.cell);
  const pct = (x: number) => `${x >= 0 ? '+' : '−'}${fmtStep(Math.abs(x * 100), 0.1)}%`;
  return variantOverheads(cells, t.fit ?? null).map((o) => {
    const iv = o.interval ? outward([o.interval[0] * 100, o.interval[1] * 100], 0.1) : null;
    const name =
      o.source === 'model'
        ? '95% CI, table model'
        : intervalName({ kind: o.kind, n: cells.find((c) => c.label === o.label)?.stats?.trials ?? 0 });
    const bounds = iv ? ` (${name} ${pct(iv[0] / 100)} … ${pct(iv[1] / 100)})` : ' (one trial: no interval)';
    const fig = Math.round(o.overhead * 1000) / 1000;
    const unit = o.source === 'model' && t.fit?.kind === 'two-way' ? 'CPU time per request' : 'time per request';
    const head = `\`${o.label}\` vs \`${o.base}\``;
    if (o.verdict === 'equal within 5%' && o.tost) {
      const tv = outward([o.tost[0] * 100, o.tost[1] * 100], 0.1);
      return `${head}: equal within 5%, ${pct(fig)} ${unit} (90% CI, table model ${pct(tv[0] / 100)} … ${pct(tv[1] / 100)}).`;
    }
    if (o.verdict === 'not resolved') return `${head}: not resolved, ${pct(fig)} ${unit}${bounds}.`;
    return `${head}: ${pct(fig)} ${unit}${bounds}.`;
  });
}

/** The run's driver fidelity sentence (RunMeta.fidelity, or driverCrossCheck in older runs), or null. */
function fidelityLine(m: RunMeta): string | null {
  const summary = m.fidelity?.summary ?? m.driverCrossCheck?.summary;
  return summary ? `driver fidelity (run ${m.runId}): ${summary.replace(/`/g, '').replace(/\.\s*$/, '')}` : null;
}

function machineLine(m: RunMeta): string {
  const x = m.machine;
  return `${x.cpuModel}, ${x.cores} cores, ${fmtGiB(x.memoryBytes)} RAM, ${x.os} (${x.arch}); ${m.cpuPlan.note}`;
}

function runView(m: RunMeta, cells: number): RunView {
  return {
    runId: m.runId,
    startedAt: m.startedAt,
    state: m.state,
    profile: m.profile,
    node: m.node.version,
    commit: `${m.git.commit?.slice(0, 10) ?? 'unknown'}${m.git.dirty ? '+dirty' : ''}`,
    machine: `${m.machine.cpuModel} · ${m.machine.cores} cores`,
    cpuPlan: m.cpuPlan.note,
    cells,
  };
}
type RunView = ReportView['runs'][number];

/** The capacity facts of a table whose cells have `capacity` (its first capacity row's SLO and driver), else null. */
function tableCapacity(t: RankedTable): TableView['capacity'] {
  const caps = t.rows.map((r) => r.cell.capacity).filter((k) => k !== undefined);
  const [first] = caps;
  if (!first) return null;
  return {
    sloP99Ms: first.sloP99Ms,
    driver: first.driver,
    atLeast: caps.some((k) => k.verdict === 'at-least'),
  };
}

/**
 * "Resolves 12% between two rows and 8% against `node-http` (90% power; noise σ 0.061 per round,
 * 5 rounds per row, df 40)", or "σ 0.031 per server process (the mean of its rounds), 3 processes
 * per row, df 22.2" when the model's units are processes: the table model's minimum detectable
 * differences; null without a model.
 */
export function resolutionOf(t: Pick<RankedTable, 'model' | 'baseline'>): string | null {
  const m = t.model;
  if (!m) return null;
  const pct = (x: number) => `${(100 * x).toFixed(x < 0.1 ? 1 : 0)}%`;
  const unit =
    m.unit === 'process'
      ? `per server process (the mean of its rounds), ${m.rounds} processes per row`
      : `per round, ${m.rounds} rounds per row`;
  return `Resolves ${pct(m.mdd.pair)} between two rows and ${pct(m.mdd.baseline)} against \`${t.baseline}\` (90% power, 5% two-sided; noise σ ${m.sigma.toFixed(3)} ${unit}, df ${fmtDf(m.df)}).`;
}

function tableView(t: RankedTable, all: RankedTable[], id: string, scenarioTitle: string): TableView {
  return {
    id,
    scenario: t.key.scenario,
    scenarioTitle,
    profile: t.key.profile,
    driver: t.key.driver,
    nodeMajor: t.key.nodeMajor,
    runId: t.runId,
    machine: t.key.machine.label,
    baseline: t.baseline,
    summary: summarySentence(t),
    margin: marginOf(t),
    resolution: resolutionOf(t),
    mddPair: t.model?.mdd.pair ?? null,
    notes: notesOf(t, all),
    variants: variantLines(t),
    rows: [...t.rows.map(rowView), ...t.otherRuns.map(otherRowView)],
    capacity: tableCapacity(t),
  };
}

/**
 * The one profile of the overview's closed-loop tables (one first screen never mixes
 * load shapes): the default profile when a closed-loop table has it, else the profile with the
 * most closed-loop tables (the first in PROFILES order on a tie); null without closed-loop tables.
 */
function overviewProfile(tables: TableView[]): string | null {
  const closed = tables.filter((t) => !t.capacity);
  if (closed.some((t) => t.profile === DEFAULT_PROFILE)) return DEFAULT_PROFILE;
  const count = (p: string) => closed.filter((t) => t.profile === p).length;
  const names = [...new Set(closed.map((t) => t.profile))];
  const order = (p: string) => PROFILES.findIndex((x) => x.name === p);
  return names.sort((a, b) => count(b) - count(a) || order(a) - order(b))[0] ?? null;
}

/**
 * The table that answers for each scenario in the overview: a closed-loop table before a
 * capacity one (capacity tables have their own matrix), then the one with the most ranked rows,
 * then the default profile, then the harness's pinned Node major, then the first in table order.
 */
function primaryTables(tables: TableView[]): TableView[] {
  const best = new Map<string, { t: TableView; score: number[] }>();
  const pinned = Number(process.versions.node.split('.')[0]);
  tables.forEach((t, i) => {
    const score = [
      t.capacity ? 0 : 1,
      t.rows.filter((r) => r.rank !== null).length,
      t.profile === DEFAULT_PROFILE ? 1 : 0,
      t.nodeMajor === pinned ? 1 : 0,
      -i,
    ];
    const prev = best.get(t.scenario);
    const k = prev ? score.findIndex((x, j) => x !== prev.score[j]) : -1;
    if (!prev || (k >= 0 && (score[k] ?? 0) > (prev.score[k] ?? 0))) best.set(t.scenario, { t, score });
  });
  return tables.filter((t) => best.get(t.scenario)?.t === t);
}

function winnersOf(primary: TableView[]): WinnerView[] {
  return primary.map((t) => {
    const ranked = t.rows.filter((r) => r.rank !== null);
    const winners = ranked.filter((r) => r.rank === 1).map((r) => r.label);
    let margin: string | null = null;
    if (!ranked.length) margin = `nobody ranked: no cell has ${MIN_CI_TRIALS} trials`;
    else if (winners.length === 1 && t.margin) margin = t.margin;
    return {
      scenario: t.scenario,
      tableId: t.id,
      profile: t.profile,
      driver: t.driver,
      nodeMajor: t.nodeMajor,
      baseline: t.baseline,
      winners,
      margin,
    };
  });
}

function matrixOf(primary: TableView[], profile: string | null): MatrixView {
  const cells: MatrixView['cells'] = {};
  const joined = new Map<string, { label: string; runId: string; scenarios: string[] }>();
  for (const t of primary) {
    const row: MatrixView['cells'][string] = {};
    cells[t.scenario] = row;
    for (const r of t.rows.filter((x) => !x.otherRun)) {
      row[r.label] = {
        ratio: r.ratio,
        rank: r.rank,
        status: r.failed ? 'failed' : r.rank === null ? 'not ranked' : 'ok',
        // Noisy is said once per table (MatrixView.noisy, on the scenario's column), not per cell.
        flags: [r.clientBound ? '≥' : '', !r.failed && r.rank === null ? '†' : ''].filter(Boolean),
        isBaseline: r.isBaseline,
      };
    }
    // A contender measured only in another run: a marked row by its ratio to that run's own baseline, never ranked.
    for (const r of t.rows.filter((x) => x.otherRun)) {
      row[r.label] = {
        ratio: r.ratio,
        rank: null,
        status: r.failed ? 'failed' : 'other run',
        flags: ['‡'],
        isBaseline: false,
        runId: r.runId,
      };
      const k = `${r.label}|${r.runId}`;
      const j = joined.get(k) ?? { label: r.label, runId: r.runId, scenarios: [] };
      j.scenarios.push(t.scenario);
      joined.set(k, j);
    }
  }
  return {
    scenarios: primary.map((t) => t.scenario),
    contenders: orderedLabels(primary),
    families: [...new Set(primary.map((t) => t.baseline))].map((baseline) => {
      const ts = primary.filter((t) => t.baseline === baseline);
      return { baseline, scenarios: ts.map((t) => t.scenario), contenders: orderedLabels(ts) };
    }),
    cells,
    noisy: Object.fromEntries(
      primary.map((t) => [t.scenario, t.rows.filter((r) => !r.otherRun && r.noisy).map((r) => r.label)]),
    ),
    joined: [...joined.values()],
    profile,
    joinedNote: joinedNote([...joined.values()], primary),
  };
}

/**
 * "‡ measured in a later run than its scenario's table: `koa` (run `X`: ping, json) …, by the
 * ratio to that run's own baseline, not ranked; to rank it, …": null without such rows.
 */
function joinedNote(joined: MatrixView['joined'], primary: TableView[]): string | null {
  if (!joined.length) return null;
  const runs = new Map(primary.map((t) => [t.scenario, t.runId]));
  const who = joined.map((j) => `\`${j.label}\` (run \`${j.runId}\`: ${j.scenarios.join(', ')})`).join('; ');
  const labels = [...new Set(joined.map((j) => j.label))].join(' ');
  const tableRuns = [...new Set(primary.map((t) => runs.get(t.scenario)))].map((r) => `\`${r}\``).join(', ');
  const it = labels.includes(' ') ? 'them' : 'it';
  return `‡ measured in another run than its scenario's table (${tableRuns}): ${who}; shown by its ratio to the baseline of its own run, with its interval, and not ranked. To rank ${it}, measure ${it} in one run with the others: \`npx just bake-off\` (every contender), or \`npx just bench ${labels} <the contenders to compare it with>\`.`;
}

/**
 * The row labels of `tables` (other-run rows too, by their ratio to their own run's baseline), by
 * their mean log ratio to the baseline over these tables (best first), then by name.
 */
function orderedLabels(tables: TableView[]): string[] {
  const score = new Map<string, number[]>();
  for (const t of tables)
    for (const r of t.rows) if (r.ratio) score.set(r.label, [...(score.get(r.label) ?? []), Math.log(r.ratio.figure)]);
  const labels = [...new Set(tables.flatMap((t) => t.rows.map((r) => r.label)))];
  const mean = (xs: number[] | undefined) => (xs?.length ? xs.reduce((a, b) => a + b, 0) / xs.length : -99);
  return labels.sort((a, b) => mean(score.get(b)) - mean(score.get(a)) || a.localeCompare(b));
}

/**
 * One scenario's line under the capacity matrix: Spearman's ρ between the capacity ranking and
 * the closed-loop peak ranking of the same cells (analysis/capacity.ts `compareRankings`) and the
 * contenders whose rank moves most (at most three).
 */
function rankingLine(scenario: string, t: RankedTable, slo: number): CapacityRankingView {
  const cmp = compareRankings(t.rows.map((r) => r.cell));
  const at = `p99 ≤ ${fmtSlo(slo)} ms`;
  const n = cmp.rows.length;
  const head = `**${scenario}** (${n} contender${n === 1 ? '' : 's'} with a capacity${cmp.excluded.length ? `; without one: ${cmp.excluded.map((l) => `\`${l}\``).join(', ')}` : ''})`;
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
function capacityMatrixOf(tables: TableView[], ranked: RankedTable[]): CapacityMatrixView | null {
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

function claimsOf(
  runs: { meta: RunMeta; cells: CellResult[] }[],
  scenarios: { name: string; baseline?: string }[],
): { claims: ClaimView[]; rule: string } {
  const results = evaluateClaims(loadClaims(), runs, { scenarios });
  const claims = results.map((r) => {
    const band = r.band ? ` (95% CI ${formatRange(r.claim.compare, r.band)})` : '';
    const bits = [
      r.verdict === 'not measured' || r.band === null ? r.note : '',
      r.runId && !r.note.includes(r.runId) ? `run ${r.runId}` : '',
      r.trials ? `${r.trials.a} and ${r.trials.b} trials` : '',
      r.clientBound.length ? `client-bound: ${r.clientBound.join(', ')} (lower bound)` : '',
      r.mdd !== null
        ? `the table model's minimum detectable difference ±${(r.mdd * 100).toFixed(1)}%${r.mddReference ? ` (against ${r.mddReference} as the reference row: no baseline row in the run)` : ''}`
        : '',
      sharedText(r),
      r.command ? `measure it: \`${r.command}\`` : '',
    ].filter(Boolean);
    return {
      id: r.claim.id,
      claim: r.claim.claim,
      source: r.claim.source,
      sourceFigure: r.claim.sourceFigure,
      range: describeRange(r.claim),
      a: r.claim.a,
      b: r.claim.b,
      scenario: r.claim.scenario,
      loadShape: r.profile,
      ours: r.ours === null ? '–' : `${formatComparison(r.claim.compare, r.ours)}${band}`,
      headroom: r.headroom ? headroomText(r.claim, r.headroom) : null,
      verdict: verdictText(r),
      provisional: r.provisional,
      rule: '',
      note: bits.join('; '),
    };
  });
  return { claims, rule: claimsRule() };
}

function ratiosOf(snapshot: ReportSnapshot, scenarios: { name: string; baseline?: string }[]): RunRatioView[] {
  const all = snapshot.runs.map((r) => ({ meta: r.meta, cells: [...r.cells] }));
  const out: RunRatioView[] = [];
  for (const run of all) {
    for (const t of buildTables(all, { scenarios, runId: run.meta.runId })) {
      for (const r of t.rows) {
        if (!r.vsBaseline || r.status === 'failed') continue;
        out.push({
          runId: t.runId,
          key: `${r.label}|${t.key.scenario}|${t.key.profile}|${t.key.driver}|${t.key.nodeMajor}`,
          label: r.label,
          scenario: t.key.scenario,
          profile: t.key.profile,
          driver: t.key.driver,
          nodeMajor: t.key.nodeMajor,
          ratio: estimateOf(r.vsBaseline),
        });
      }
    }
  }
  return out;
}

/** The scenarios with their baselines for buildTables (GRAPHQL's Scenario.baseline when present). */
function scenarioList(snapshot: ReportSnapshot): { name: string; baseline?: string }[] {
  return snapshot.scenarios.map((s) => (s.baseline ? { name: s.name, baseline: s.baseline } : { name: s.name }));
}

/** The CPU models of the runs behind `tables` (their meta.json `machine.cpuModel`). */
function hostsOf(tables: TableView[], metas: RunMeta[]): string[] {
  const ids = new Set(tables.map((t) => t.runId));
  return [...new Set(metas.filter((m) => ids.has(m.runId)).map((m) => m.machine.cpuModel))];
}

/**
 * The median minimum detectable difference between two rows over the overview's tables (one
 * profile, each scenario's primary table) when they have models, else over every table, so a
 * report that also holds claims, matrix or capacity runs still states the bake-off's resolution.
 * `med` is a ratio − 1 (0.074 = 7.4%), null without a table model.
 */
export function medianMddOf(
  tables: TableView[],
  overview: TableView[],
): { mddTables: TableView[]; mdds: number[]; med: number | null } {
  const mddTables = overview.some((t) => t.mddPair !== null) ? overview : tables;
  const mdds = mddTables
    .map((t) => t.mddPair)
    .filter((x): x is number => x !== null && Number.isFinite(x))
    .sort((a, b) => a - b);
  const med = mdds.length ? (mdds[(mdds.length - 1) >> 1] ?? 0) / 2 + (mdds[mdds.length >> 1] ?? 0) / 2 : null;
  return { mddTables, mdds, med };
}

/**
 * A one-line answer to "how sure are these numbers?": this machine's self-test (when the snapshot
 * says, resolution-text.ts), then these tables' median minimum detectable difference, trials,
 * intervals, how many of the same tables have noisy rows (once per table, not per cell: the
 * overview's tables when they have models, as for the MDD), client-bound cells
 * and the driver fidelity of the overview's run (else of the newest run that has one).
 */
function certaintyOf(
  tables: TableView[],
  overview: TableView[],
  fidelity: string[],
  selftest: string | null,
  reference: string | null = null,
): string {
  const rows = tables.flatMap((t) => t.rows.filter((r) => !r.otherRun && !r.failed && r.rps));
  if (!rows.length) return selftest ? `No measured cell yet · ${selftest}.` : 'No measured cell yet.';
  const trials = rows.map((r) => r.trials);
  const hi = Math.max(...trials);
  const ci = rows.filter((r) => r.rps?.kind === 'ci95').length;
  const paired = rows.map((r) => r.paired).filter((n) => n > 0);
  const span = (xs: number[]) => {
    const a = Math.min(...xs);
    const b = Math.max(...xs);
    return a === b ? `${a}` : `${a}–${b}`;
  };
  const isMeasured = (t: TableView) => t.rows.some((r) => !r.otherRun && !r.failed && r.rps);
  const bound = rows.filter((r) => r.clientBound && !r.capacity).length;
  const capRows = rows.filter((r) => r.capacity);
  const capBound = capRows.filter((r) => r.capacity?.verdict === 'at-least').length;
  const { mddTables, mdds, med } = medianMddOf(tables, overview);
  const ofOverview = mddTables === overview && overview.length < tables.length;
  // The noisy count over the same tables as the median MDD (the overview's, when it has models).
  const measured = mddTables.filter(isMeasured);
  const noisy = measured.filter((t) => t.rows.some((r) => !r.otherRun && r.noisy)).length;
  const parts = [
    ...(selftest ? [selftest] : []),
    ...(reference ? [reference] : []),
    ...(med !== null
      ? [
          `${selftest ? 'these tables: ' : ''}median minimum detectable difference ${(100 * med).toFixed(med < 0.1 ? 1 : 0)}% between two rows (90% power; ${mdds.length} table${mdds.length === 1 ? '' : 's'}${ofOverview ? ' of the overview' : ''})`,
        ]
      : []),
    ...(paired.length
      ? [
          `ranks and ratios from ${span(paired)} interleaved round${Math.max(...paired) === 1 ? '' : 's'} per cell (requests per CPU-second, beside the table's other servers); requests/s and latency from ${span(trials)} solo window${hi === 1 ? '' : 's'}`,
        ]
      : [`${span(trials)} trial${hi === 1 ? '' : 's'} per cell; ${ci} of ${rows.length} cells have a 95% CI`]),
    `${noisy} of ${measured.length} table${measured.length === 1 ? '' : 's'}${ofOverview ? ' of the overview' : ''} noisy (see their notes)`,
    `${bound} client-bound closed-loop (lower bounds)`,
    ...(capRows.length ? [`${capBound} of ${capRows.length} capacity cells “≥” (lower bounds)`] : []),
    // The overview's run's fidelity (the run these tables come from), else the newest run's.
    (fidelity.find((l) => overview.some((t) => l.startsWith(`driver fidelity (run ${t.runId})`))) ?? fidelity.at(-1))
      ?.replace(/^driver fidelity \(run [^)]*\): /, 'driver fidelity: ')
      .replace(/^driver fidelity: driver fidelity on /, 'driver fidelity on ') ?? 'driver fidelity: not measured',
  ];
  return `${parts.join(' · ')}.`;
}

/**
 * The rank rule as the report prints it, from the table model (analysis/tables.ts `tableModel`:
 * table-model.ts `fitTwoWay` on interleaved rounds, `fitTable` on solo rounds, `compare`).
 */
export const RANK_RULE = `Rows are ordered by figure. A rank is a range: best = 1 + the rows significantly faster, worst = N − the rows significantly slower, from the table's model. With interleaved rounds it is a two-way model of each cell's log requests per CPU-second per round (per server process, the mean of its rounds, when a cell ran in several): a cell effect plus a round effect that absorbs the host's drift, the noise pooled over the table (a row much noisier than the others keeps its own variance, F test at 1%), and the baseline a noisy row like the others; with solo rounds only, each row's per-round log-ratio to the baseline of the same round, the noise pooled. "Significantly" = the pair's 95% CI excludes 1; "equal within 5%" = its 90% CI lies inside 0.95–1.05; otherwise "not resolved". Tables without a model (no baseline row): rank = 1 + rows whose paired ratio's 95% CI lies above 1 and is at least ${(1 + NOISE_THRESHOLD).toFixed(2)}.`;

/**
 * The how-sure line's second certificate: the overview's ratios to their baselines against the
 * newest steady-state reference (analysis/reference-stats.ts `compareWithReference`, its requests/s
 * ratios): "reference `ID`: bias median 1.2%, max 4.0% over 12 rows; their 95% CIs cover the
 * reference ratio in 11 of 12 (targets ≤ 2%, ≤ 5%, ≥ 90%: met)"; null without a record or a shared row.
 */
function referenceText(ref: ReferenceRecord | null, overview: TableView[]): string | null {
  if (!ref) return null;
  const rows = overview.flatMap((t) =>
    t.rows
      .filter((r) => !r.otherRun && !r.isBaseline && r.ratio)
      .map((r) => ({
        label: r.label,
        scenario: t.scenario,
        baseline: t.baseline,
        ratio: r.ratio?.figure ?? Number.NaN,
        ci95: r.ratio?.kind === 'ci95' ? r.ratio.interval : null,
      })),
  );
  const c = compareWithReference(rows, ref.ratios);
  if (!c.rows.length || c.medianBias === null || c.maxBias === null) return null;
  const p = (x: number) => `${(100 * x).toFixed(1)}%`;
  const t = REFERENCE_TARGETS;
  return `reference \`${ref.runId}\` (each contender alone, steady state): bias median ${p(c.medianBias)}, max ${p(c.maxBias)} over ${c.rows.length} rows; their 95% CIs cover the reference ratio in ${c.covered} of ${c.rows.length} (targets ≤ ${p(t.medianBias)}, ≤ ${p(t.maxBias)}, ≥ ${Math.round(100 * t.covered)}%: ${c.met ? 'met' : 'not met'})`;
}

/** Fell back to autocannon for ranking: a `native` profile measured by autocannon. */
function fallbackOf(tables: TableView[], metas: RunMeta[]): string | null {
  const fell = metas.filter((m) => {
    let native = false;
    try {
      const p = getProfile(m.profile);
      native = p.driver === 'native';
    } catch {
      native = false;
    }
    // Runs before the native driver existed (no `design` record) chose autocannon on purpose.
    return native && m.design !== undefined && tables.some((t) => t.runId === m.runId && t.driver === 'autocannon');
  });
  if (!fell.length) return null;
  const chosen = fell.filter((m) => m.command.some((a) => a === '--driver' || a.startsWith('--driver=')));
  const silent = fell.filter((m) => !chosen.includes(m));
  const runs = (ms: RunMeta[]) => `run${ms.length > 1 ? 's' : ''} ${ms.map((m) => `\`${m.runId}\``).join(', ')}`;
  return [
    silent.length ? `ranking fell back to autocannon in ${runs(silent)}: ${NATIVE_FALLBACK_NOTE}.` : '',
    chosen.length
      ? `ranked with autocannon by choice (--driver) in ${runs(chosen)}: it may be the bottleneck on the fastest cells (such cells are flagged client-bound), and the run could not check its fidelity against wrk.`
      : '',
  ]
    .filter(Boolean)
    .join(' ');
}

const METHOD = [
  'A trial’s figure is requests completed ÷ window seconds; a cell’s figure is the geometric mean of its trials, measured in rounds whose order is shuffled per round, every contender of a scenario (and its baseline) in the same run.',
  'With ≥ 5 trials the interval is a 95% Student-t confidence interval on the logs (“95% CI”); with 2–4 trials it is the min–max of the trials (“range (N trials)”), never called a confidence interval; one trial has none. Printed bounds are rounded outward, so they contain the printed figure.',
  '“% of baseline” is the ratio to the scenario’s baseline contender in the same run, paired by round (host drift cancels); cells from other runs appear only as ratios to their own run’s baseline, marked with their run.',
  `Rank = 1 + the number of rows significantly faster (the ratio’s 95% CI wholly above 1 and the ratio ≥ ${(1 + NOISE_THRESHOLD).toFixed(2)}); equal ranks are ties. Only ok cells with ≥ ${MIN_CI_TRIALS} trials and no failure are ranked; tables never mix runs or machines.`,
  'Latency percentiles come from the trials’ merged HDR histograms; a closed-loop driver measures the server at saturation (coordinated omission).',
  'CPU % is of one core (100 = one core); charts end at the pinned cores × 100. Compare runs with `npx just compare A B` (change of the ratio to each run’s own baseline, threshold 5%, interval must exclude 0).',
];

/** The method line of the capacity profile, added when the snapshot has capacity cells. */
const CAPACITY_METHOD = capacityMethod();

/** The capacity method line, from the `capacity` profile's shape (profiles.ts `CapacityShape`), the one source of its numbers. */
function capacityMethod(): string {
  const p = getProfile('capacity');
  const c = isConnectionProfile(p) ? p.capacity : undefined;
  if (!c) return 'Capacity: the `capacity` profile has no capacity shape.';
  const half = (c.priorSpread ?? 0) / 2;
  const later = c.gallop
    ? `; later rounds start at the first bracketed round’s figure times a seeded factor in ${(2 ** -half).toFixed(2)}–${(2 ** half).toFixed(2)} and move by ×${c.gallop}, then its square, fourth power … (at most 4×), up or down until the capacity is bracketed`
    : '';
  return `Capacity (the \`capacity\` profile): per round a closed-loop window gives the peak, then a ${c.settleS} s settle step (open-loop at ${Math.round(100 * SETTLE_SHARE)}% of the search’s first rate, not recorded) and an open-loop search of ${c.stepS} s steps (oha, else k6; latency timed from each request’s scheduled send, so no coordinated omission). The first round starts at ${c.startShare} × the peak times a seeded factor in 0.71–1.41${later}; the search divides the rate by 4 until a rate holds and bisects (geometric midpoints) between the highest held rate and the lowest failing one — or, with no failure yet, up to ${c.capShare} × the cell’s median peak so far — until they are within ${Math.round(100 * (c.precision - 1))}%; a step holds when p99 ≤ the SLO (the scenario’s, or \`--slo-p99\`), ≤ 0.1% of requests fail and ≥ 95% of the rate is achieved, and a rate’s verdict is the majority of 3 steps (2 that agree decide), for a pass as for a fail — while the search explores, one passing step holds a rate for now, and the held rate its result rests on is then confirmed by the majority (a flipped verdict searches on). A search that bracketed its capacity gives the geometric midpoint of its bracket; the sustainable rate’s figure and interval are over those searches only (“4 of 5 bracketed”) while the others agree — when another search held a rate above that interval, the cell is “≥” the geometric mean over every search (bracketed midpoints and highest held rates) with their min–max as its range, and its ranks and Spearman’s ρ use that figure; with none, the cell is “≥” the highest held rates (the open-loop driver at its limit, or no failure up to the cap), a lower bound; “never”: not even the lowest rate held, not ranked. Share of peak at SLO = sustainable ÷ closed-loop peak (stored as \`knee\`); p99 at capacity = the median over the searches of the p99 of their highest held rate. Runs before 2026-11-26T19 decided every rate by the majority of 3 and moved ×${c.gallop} at most twice before ÷4 and the cap, at precision 8%; older runs, which stored no bracket per search, used a best-of-two rule (a failing step repeated, the better kept) and marked a cell “≥” when any search hit the driver’s limit; runs before 2026-11-26T07 idled 0.5 s in place of the settle step.`;
}

/**
 * The report's sentence on the leak rule's reach (issues.ts `leakCoverage`), or null when it judged
 * every measured cell (analysis/leak.ts LEAK_RULE: leakMinRounds rounds on one server with enough
 * requests served, or a longWindowS window). Names the cells with rounds enough but too few requests, and why (at most 5).
 */
export function leakCheckText(cov: {
  checked: number;
  total: number;
  notJudged?: readonly { cell: string; why: string }[];
}): string | null {
  if (cov.total === 0 || cov.checked === cov.total) return null;
  // Too few rounds is the default profile's lot (counted in the sentence); thin evidence otherwise is named.
  const list = (cov.notJudged ?? []).filter((x) => !/measured rounds? on one server/.test(x.why));
  const named = list
    .slice(0, 5)
    .map((x) => `${x.cell}: ${x.why}`)
    .join('; ');
  const more = list.length > 5 ? `; and ${list.length - 5} more` : '';
  const which = named ? ` Not judged: ${named}${more}.` : '';
  return `Leaks: the leak rule judged ${cov.checked} of ${cov.total} measured cells.${which} It needs ${RULES.leakMinRounds} or more rounds on one server with ${RULES.leakMinRequests.toLocaleString('en-US')} or more requests served across them, or a window of ${RULES.longWindowS} s or more; the others had fewer (the default \`quick\` profile measures 2 solo rounds per server). To check a contender, run \`npx just bench <contender> --rounds ${RULES.leakMinRounds}\` or \`--profile stress\`.`;
}

/** Every run's trial files by `trialKey` (the leak rule's input); empty when the reader loaded none. */
function trialsOf(snapshot: ReportSnapshot): Map<string, CellResult[]> {
  const m = new Map<string, CellResult[]>();
  for (const r of snapshot.runs)
    for (const t of r.trials ?? []) {
      const k = trialKey(t);
      m.set(k, [...(m.get(k) ?? []), t]);
    }
  return m;
}

/** The reference beside a one-run view: the reference run's own overview matrix against `yours`. */
function referenceViewOf(
  snapshot: ReportSnapshot,
  ref: NonNullable<ReportSnapshot['referenceRun']>,
  yours: MatrixView,
  o: ViewOptions,
): ReferenceRunView | null {
  const v = buildView({ runs: [ref], scenarios: snapshot.scenarios }, { runId: ref.meta.runId, now: o.now });
  return referenceOf({
    meta: ref.meta,
    matrix: v.matrix,
    yours: snapshot.runs[0]?.meta,
    yourMatrix: yours,
    driver: v.winners[0]?.driver ?? null,
    cells: ref.cells.length,
  });
}

/** The view of a snapshot. */
export function buildView(snapshot: ReportSnapshot, o: ViewOptions = {}): ReportView {
  const scenarios = scenarioList(snapshot);
  const runs = snapshot.runs.map((r) => ({ meta: r.meta, cells: [...r.cells] }));
  const ranked = buildTables(runs, { scenarios, profileOrder: PROFILES.map((p) => p.name), runId: o.runId });
  const titles = new Map(snapshot.scenarios.map((s) => [s.name, s.title]));
  const ids = new Set<string>();
  const whyNotes = whyRowNotes(snapshot);
  const tables = ranked.map((t) => {
    const base = `t-${anchor(`${t.key.scenario}-${t.key.profile}-${t.key.driver}-node${t.key.nodeMajor}`)}`;
    let id = base;
    for (let k = 2; ids.has(id); k++) id = `${base}-${k}`;
    ids.add(id);
    return withWhyNotes(tableView(t, ranked, id, titles.get(t.key.scenario) ?? t.key.scenario), whyNotes);
  });
  const usedIds = new Set(ranked.flatMap((t) => [t.runId, ...t.otherRuns.map((r) => r.runId)]));
  const metas = snapshot.runs.map((r) => r.meta).filter((m) => usedIds.has(m.runId) || !ranked.length);
  const tableCells = ranked.flatMap((t) => t.rows.map((r) => r.cell));
  const cellTrials = trialsOf(snapshot);
  const fidelity = metas.map(fidelityLine).filter((x): x is string => x !== null);
  const profile = overviewProfile(tables);
  const primary = primaryTables(profile ? tables.filter((t) => !t.capacity && t.profile === profile) : tables);
  const winners = winnersOf(primary);
  const machines = [...new Set(metas.map(machineLine))];
  const { claims, rule } = claimsOf(runs, scenarios);
  const capacityMatrix = capacityMatrixOf(tables, ranked);
  const warnings: string[] = [];
  if (machines.length > 1)
    warnings.push(`Results from ${machines.length} machines: each table names its machine, and tables never mix them.`);
  return {
    generatedAt: (o.now ?? new Date()).toISOString(),
    machine: machines.join(' | ') || '–',
    runs: metas.map((m) => runView(m, snapshot.runs.find((r) => r.meta.runId === m.runId)?.cells.length ?? 0)),
    driverFallback: fallbackOf(tables, metas),
    certainty: certaintyOf(
      tables,
      primary,
      fidelity,
      snapshot.selftest === undefined
        ? null
        : selftestText(snapshot.selftest, o.now ?? new Date(), hostsOf(primary.length ? primary : tables, metas)),
      referenceText(snapshot.reference ?? null, primary),
    ),
    rankRule: RANK_RULE,
    fidelity,
    winners,
    matrix: matrixOf(primary, profile),
    capacity: capacityMatrix,
    tables,
    findings: [
      ...findIssues(tableCells, { trials: cellTrials, scenarios: snapshot.scenarios }).map((f) => ({ ...f })),
      ...whyIssueFindings(snapshot),
    ],
    leakCheck: leakCheckText(leakCoverage(tableCells, cellTrials)),
    claims,
    claimsRule: rule,
    nodeMatrix: nodeMatrixOf(ranked),
    driverAgreement: driverAgreementOf(tables),
    method: capacityMatrix ? [...METHOD, CAPACITY_METHOD] : METHOD,
    ratios: ratiosOf(snapshot, scenarios),
    warnings,
    why: whyView(snapshot),
    referenceRun: snapshot.referenceRun
      ? referenceViewOf(snapshot, snapshot.referenceRun, matrixOf(primary, profile), o)
      : null,
    medianMdd: medianMddOf(tables, primary).med,
    footprint: footprintViews(runs.filter((r) => metas.some((m) => m.runId === r.meta.runId))),
  };
}

/** A table whose own rows carry their why finding (why-view.ts `whyRowNotes`), keyed by label and scenario. */
function withWhyNotes(t: TableView, notes: Map<string, { text: string; anchor: string }>): TableView {
  if (!notes.size) return t;
  return {
    ...t,
    rows: t.rows.map((r) => (r.otherRun ? r : { ...r, why: notes.get(`${r.label}|${t.scenario}`) ?? null })),
  };
}
