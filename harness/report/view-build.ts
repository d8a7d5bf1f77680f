/**
 * Builds the report's view model (view.ts) from a snapshot: the analysis' ranked tables
 * (analysis/tables.ts `buildTables`: same-run tables, ranks without chains, ratios to the
 * scenario's baseline with their intervals, other-run rows as ratios only, machines never mixed),
 * the findings (issues.ts), the claims (claims.ts) and the runs' metadata. This module assembles
 * the sections, each built in its own module under view/: rows (row-view.ts), tables
 * (table-view.ts), overview (overview-view.ts), capacity (capacity-view.ts), claims
 * (claims-view.ts), how sure (how-sure-view.ts, with the A/A control: control-view.ts), method
 * (method-view.ts), runs (runs-view.ts) and findings (findings-view.ts); footprint, why, Node matrix, driver agreement and reference run come
 * from their report/ modules. These add order, labels and sentences; every number comes from the
 * analysis.
 */
import { PROFILES } from '../core/profiles.ts';
import { buildTables, type RankedTable } from '../analysis/tables.ts';
import { findIssues } from './issues.ts';
import { leakCoverage } from './leak-findings.ts';
import type { ReportSnapshot } from './snapshot.ts';
import type { CellResult } from '../store/results.ts';
import { selftestShort, selftestText } from './resolution-text.ts';
import { referenceOf } from './reference-run.ts';
import { driverAgreementOf } from './driver-agreement.ts';
import { nodeMatrixOf } from './node-matrix.ts';
import { whyIssueFindings, whyRowNotes, whyView } from './why-view.ts';
import { footprintViews } from './footprint-view.ts';
import type { MatrixView, ReferenceRunView, ReportView, TableView } from './view.ts';
import { accuracyShort, confidenceLine, markedAnswers, referenceLine, scenarioAnswer } from './view/answer-view.ts';
import { CAPACITY_MEASURE, HEADLINE_MEASURE, SOLO_RPS } from './measure.ts';
import { capacityMatrixOf } from './view/capacity-view.ts';
import { claimsOf } from './view/claims-view.ts';
import { leakCheckText, trialsOf } from './view/findings-view.ts';
import { certaintyOf, medianMddOf, referenceAccuracy } from './view/how-sure-view.ts';
import { controlLine } from './view/control-view.ts';
import { type ControlHistory, controlHistory } from '../analysis/control-check.ts';
import { isControl } from '../analysis/aa-control.ts';
import { CAPACITY_METHOD, METHOD, RANK_RULE } from './view/method-view.ts';
import { matrixOf, overviewProfile, primaryTables, winnersOf } from './view/overview-view.ts';
import { fallbackOf, fidelityOf, hostsOf, machineLine, ratiosOf, runView, scenarioList } from './view/runs-view.ts';
import { tableView } from './view/table-view.ts';

export { leakCheckText } from './view/findings-view.ts';
export { medianMddOf } from './view/how-sure-view.ts';
export { RANK_RULE } from './view/method-view.ts';
export { resolutionOf } from './view/table-view.ts';
export { fmtTimes } from './view/view-format.ts';

/** Options of buildView. */
export interface ViewOptions {
  /** Only this run's tables (the snapshot is usually already restricted with selectRun). */
  runId?: string;
  now?: Date;
}

const anchor = (s: string): string =>
  s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');

/** The reference beside a one-run view: the reference run's own overview matrix against `yours`. */
function referenceViewOf(
  snapshot: ReportSnapshot,
  ref: NonNullable<ReportSnapshot['referenceRun']>,
  yours: MatrixView,
  o: ViewOptions,
): ReferenceRunView | null {
  const v = buildView({ runs: [ref], scenarios: snapshot.scenarios }, { runId: ref.meta.runId, now: o.now });
  const r = referenceOf({
    meta: ref.meta,
    matrix: v.matrix,
    yours: snapshot.runs[0]?.meta,
    yourMatrix: yours,
    driver: v.winners[0]?.driver ?? null,
    cells: ref.cells.length,
  });
  return r ? { ...r, winners: Object.fromEntries(v.answer.scenarios.map((a) => [a.scenario, a.leaders])) } : null;
}

/** The ranked tables behind the table views `views` (same run, scenario, profile, driver and Node major). */
function rankedOf(ranked: RankedTable[], views: TableView[]): RankedTable[] {
  return ranked.filter((t) =>
    views.some(
      (v) =>
        v.runId === t.runId &&
        v.scenario === t.key.scenario &&
        v.profile === t.key.profile &&
        v.driver === t.key.driver &&
        v.nodeMajor === t.key.nodeMajor,
    ),
  );
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
  const fidelity = metas.map(fidelityOf).filter((x) => x !== null);
  const profile = overviewProfile(tables);
  const primary = primaryTables(profile ? tables.filter((t) => !t.capacity && t.profile === profile) : tables);
  const winners = winnersOf(primary);
  const machines = [...new Set(metas.map(machineLine))];
  const { claims, rule } = claimsOf(runs, scenarios);
  const accuracy = referenceAccuracy(snapshot.references ?? [], rankedOf(ranked, primary));
  const capacityMatrix = capacityMatrixOf(tables, ranked);
  const hosts = hostsOf(primary.length ? primary : tables, metas);
  const referenceRun = snapshot.referenceRun
    ? referenceViewOf(snapshot, snapshot.referenceRun, matrixOf(primary, profile), o)
    : null;
  const primaryRanked = rankedOf(ranked, primary);
  // A capacity-only report (no closed-loop table) answers with its capacity tables.
  const answers = markedAnswers(
    primary.map((t) =>
      scenarioAnswer(
        t,
        primaryRanked.find((r) => r.runId === t.runId && r.key.scenario === t.scenario),
        titles.get(t.scenario) ?? t.scenario,
      ),
    ),
  );
  const medianMdd = medianMddOf(tables, primary).med;
  const answer = {
    profile,
    measure: measureOf(primary),
    scenarios: answers,
    confidence: confidenceLine({
      medianMdd,
      answers,
      accuracy: accuracy ? accuracyShort(accuracy.line) : null,
      selftest:
        snapshot.selftest === undefined ? 'not read' : selftestShort(snapshot.selftest, o.now ?? new Date(), hosts),
    }),
    reference: referenceRun?.winners ? referenceLine(answers, referenceRun.winners) : null,
  };
  const warnings: string[] = [];
  if (machines.length > 1)
    warnings.push(`Results from ${machines.length} machines: each table names its machine, and tables never mix them.`);
  return {
    generatedAt: (o.now ?? new Date()).toISOString(),
    machine: machines.join(' | ') || '–',
    runs: metas.map((m) => runView(m, snapshot.runs.find((r) => r.meta.runId === m.runId)?.cells.length ?? 0)),
    driverFallback: fallbackOf(tables, metas),
    answer,
    certainty: certaintyOf(
      tables,
      primary,
      fidelity,
      snapshot.selftest === undefined ? null : selftestText(snapshot.selftest, o.now ?? new Date(), hosts),
      accuracy?.line ?? null,
      controlLine(primaryRanked, controlHistoryOf(snapshot, primaryRanked, scenarios)),
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
    method: [...METHOD, ...(capacityMatrix ? [CAPACITY_METHOD] : []), ...(accuracy ? [accuracy.details] : [])],
    ratios: ratiosOf(snapshot, scenarios),
    warnings,
    why: whyView(snapshot),
    referenceRun,
    medianMdd,
    footprint: footprintViews(withoutControls(runs.filter((r) => metas.some((m) => m.runId === r.meta.runId)))),
  };
}

/** The runs without their A/A control cells (a second process of a baseline, not a contender: no footprint row). */
function withoutControls<R extends { cells: CellResult[] }>(runs: R[]): R[] {
  return runs.map((r) => ({ ...r, cells: r.cells.filter((c) => !isControl(c)) }));
}

/**
 * The A/A controls counted over the store's runs (`controlRuns`, else the snapshot's runs) on the
 * machine (CPU, kernel, cores: core/machine.ts `sameMachine`) of the overview's first table (analysis/control-check.ts `controlHistory`); null
 * without a table.
 */
function controlHistoryOf(
  snapshot: ReportSnapshot,
  overview: RankedTable[],
  scenarios: { name: string; baseline?: string }[],
): ControlHistory | null {
  const machine = overview[0]?.key.machine;
  if (machine === undefined) return null;
  const runs = (snapshot.controlRuns ?? snapshot.runs)
    .filter((r) => r.cells.some(isControl))
    .map((r) => ({ meta: r.meta, cells: [...r.cells] }));
  return controlHistory(runs, machine, scenarios);
}

/** A table whose own rows carry their why finding (why-view.ts `whyRowNotes`), keyed by label and scenario. */
function withWhyNotes(t: TableView, notes: Map<string, { text: string; anchor: string }>): TableView {
  if (!notes.size) return t;
  return {
    ...t,
    rows: t.rows.map((r) => (r.otherRun ? r : { ...r, why: notes.get(`${r.label}|${t.scenario}`) ?? null })),
  };
}

/** The measure the overview's tables rank by: sustainable requests/s for capacity tables, solo requests/s when a ranked row has no interleaved rounds, else the headline measure. */
function measureOf(primary: TableView[]): string {
  if (primary.length && primary.every((t) => t.capacity)) return CAPACITY_MEASURE;
  return primary.some((t) => t.rows.some((r) => r.rank !== null && !r.paired)) ? SOLO_RPS : HEADLINE_MEASURE;
}
