/**
 * The table model of the leaderboard (numbers only; report/ writes the sentences): ranks
 * without chains, and same-run tables:
 *
 * - A ranked table is ONE run × scenario × profile × driver × Node major on one machine. Its
 *   rows' figures, intervals, ranks, ratios and summary data all come from that run.
 * - Cells of the same group from older runs of the same machine appear only in `otherRuns`, as
 *   ratios to their own run's baseline, marked with their run; never ranked.
 * - Cells from another machine (CPU model, cores, Node version) get their own table.
 * - Ranks are ranges from the table's model (`tableModel`: table-model.ts `fitTwoWay` when every
 *   ranked row has interleaved rounds, else `fitTable` on the solo rounds' log-ratios to the
 *   baseline; `rankRanges`): best = 1 + rows significantly faster, worst = N − rows significantly
 *   slower. A table without a model (no ranked baseline row) ranks by stats.ts `rankRows`: 1 + the
 *   rows whose ratio's 95% interval lies wholly above 1 AND is ≥ 1 + NOISE_THRESHOLD. Only ok
 *   cells with ≥ MIN_CI_TRIALS interleaved rounds (solo trials, without them) and no failure are
 *   ranked; the others are listed as not ranked or failed.
 * - Each row carries its ratio to the scenario's baseline contender (`Scenario.baseline`; by
 *   default node-http for REST and postgraphile-express for GraphQL scenarios).
 * - A run's A/A control cell (aa-control.ts) is never a row: it is kept as its table's
 *   `controlCell` (analysis/control-check.ts judges it).
 *
 * The tables' shapes are in table-types.ts, the model fitted to a table's ranked rows in
 * table-fit.ts; both are re-exported here.
 */
import type { CellResult, RunMeta } from '../store/results.ts';
import { createHash } from 'node:crypto';
import { machineKey } from '../core/machine.ts';
import {
  type RatioEstimate,
  cellEstimate,
  cellFailure,
  cellLatency,
  cellTrialCount,
  isSignificant,
  MIN_CI_TRIALS,
  NOISE_THRESHOLD,
  ratio,
  rankRows,
} from './stats.ts';
import { reconcileCapacity } from './capacity.ts';
import { isControl } from './aa-control.ts';
import { applyModel, flagEstimatorGaps, modelEstimator, modelRow, pairedRounds, tableModel } from './table-fit.ts';
import { compare, type TableModel } from './table-model.ts';
import type {
  BuildTablesOptions,
  MachineKey,
  OtherRunRow,
  RankedTable,
  RowStatus,
  RunSnapshot,
  SummaryData,
  TableKey,
  TableRow,
} from './table-types.ts';

export { pairedRounds, pairedUnits, tableModel } from './table-fit.ts';
export type {
  BuildTablesOptions,
  MachineKey,
  OtherRunRow,
  RankedTable,
  RowFlags,
  RowStatus,
  RunSnapshot,
  SummaryData,
  TableKey,
  TableRow,
} from './table-types.ts';

/** The baseline contender of a scenario: the scenario list's `baseline`, else node-http (REST) / postgraphile-express (graphql-*). */
export function baselineOf(scenario: string, scenarios: BuildTablesOptions['scenarios'] = []): string {
  const s = scenarios.find((x) => x.name === scenario);
  if (s?.baseline) return s.baseline;
  return scenario.startsWith('graphql') ? 'postgraphile-express' : 'node-http';
}

/**
 * The machine key of a cell in a run. Its label names the CPU, cores, Node and kernel ("AMD EPYC ·
 * 2 cores · Node v24.21.0 · Linux 6.18.44-fc-v657"): two VMs with one CPU name are told apart.
 */
export function machineOf(meta: RunMeta, cell: CellResult): MachineKey {
  const cpuModel = meta.machine?.cpuModel ?? 'unknown';
  const cores = meta.machine?.cores ?? 0;
  const nodeVersion = cell.node.version;
  const facts = {
    ...(meta.machine?.os ? { os: meta.machine.os } : {}),
    ...(meta.machine?.cpu ? { cpu: meta.machine.cpu } : {}),
  };
  const kernel = meta.machine?.os ? ` · ${meta.machine.os}` : '';
  return {
    cpuModel,
    cores,
    ...facts,
    nodeVersion,
    label: `${cpuModel} · ${cores} cores · Node ${nodeVersion}${kernel}`,
  };
}

/** One table per scenario × profile × driver × Node major × machine (core/machine.ts `machineKey`: CPU name and identity, kernel, cores). */
function groupId(c: CellResult, m: MachineKey): string {
  const machine = createHash('sha256').update(machineKey(m)).digest('hex').slice(0, 8);
  return `${c.scenario}|${c.profile}|${c.driver}|node${c.node.major}|${m.label}|${machine}`;
}

/** A row of a table from a cell of the table's run. */
function makeRow(c: CellResult, baselineCell: CellResult | null, baseline: string): TableRow {
  const e = cellEstimate(c);
  const skipped = c.status === 'skipped' || c.status === 'unsupported';
  const lost = c.servicesLost ?? [];
  // A service that went away explains the failed requests of a cell that ran (not the contender's failure).
  const failed = skipped || (lost.length && c.status === 'ok') ? null : cellFailure(c);
  const trials = cellTrialCount(c);
  // With interleaved rounds the ranking rests on them (≥ 5), not on the solo windows.
  const paired = pairedRounds(c);
  const enough = paired ? paired >= MIN_CI_TRIALS : trials >= MIN_CI_TRIALS && e.kind === 'ci95';
  const notRanked: TableRow['notRanked'] = skipped
    ? { reason: 'skipped', trials, detail: c.failure?.reason ?? c.status }
    : failed
      ? { reason: 'failed', trials, detail: failed }
      : lost.length
        ? { reason: 'services-lost', trials, detail: `${lost.join(', ')} went away during the measurement` }
        : !enough
          ? { reason: 'few-trials', trials: paired || trials, detail: null }
          : null;
  const usableBase = baselineCell && !cellFailure(baselineCell) && baselineCell.load ? baselineCell : null;
  return {
    cell: c,
    label: c.label,
    runId: c.runId,
    status: failed ? 'failed' : notRanked ? 'not-ranked' : 'ranked',
    rank: null,
    rankRange: null,
    figure: e.figure,
    interval: e.interval,
    kind: e.kind,
    trials,
    vsBaseline: usableBase && !failed && !skipped && c.load ? ratio(c, usableBase) : null,
    isBaseline: c.label === baseline,
    flags: {
      clientBound: Boolean(c.resources?.clientBound),
      noisy: Boolean(c.stats?.noisy),
      failed,
      servicesLost: lost,
    },
    latencyMs: cellLatency(c),
    notRanked,
  };
}

/** The summary data of ranked rows (already ranked), with the rank test. */
export function summaryData(
  rows: TableRow[],
  threshold = NOISE_THRESHOLD,
  model: TableModel | null = null,
): SummaryData | null {
  const ranked = rows.filter((r) => r.status === 'ranked' && r.rank !== null);
  if (ranked.length < 2) return null;
  const top = [...ranked].sort((a, b) => (a.rank ?? 0) - (b.rank ?? 0) || b.figure - a.figure)[0];
  if (!top) return null;
  return {
    fastest: top.label,
    comparisons: ranked
      .filter((r) => r !== top)
      .map((r) => {
        if (model) {
          const c = compare(model, top.label, r.label);
          const q: RatioEstimate = {
            figure: c.ratio,
            interval: c.ci,
            kind: 'ci95',
            n: Math.min(modelRow(model, top.label), modelRow(model, r.label)),
            paired: true,
            df: Number.isFinite(c.df) ? c.df : null,
            estimator: modelEstimator(model),
          };
          return {
            label: r.label,
            ratio: q,
            pm: (c.ci[1] - c.ci[0]) / 2,
            tied: c.verdict !== 'faster',
            verdict: c.verdict,
            rank: r.rank ?? 1,
          };
        }
        const q = ratio(top.cell, r.cell);
        return {
          label: r.label,
          ratio: q,
          pm: q.interval ? (q.interval[1] - q.interval[0]) / 2 : null,
          tied: !isSignificant(q, threshold),
          verdict: null,
          rank: r.rank ?? 1,
        };
      }),
  };
}

const byTime = (a: RunMeta, b: RunMeta) =>
  (a.startedAt ?? '').localeCompare(b.startedAt ?? '') || a.runId.localeCompare(b.runId);

/**
 * The run a group is ranked in (a new contender joins the bake-off, it does not replace
 * it): the run with the most contenders (labels) in the group, the latest of those on a tie.
 * `ordered` is oldest first.
 */
function primaryRun<T extends { meta: RunMeta; cells: CellResult[] }>(ordered: T[]): T | undefined {
  let best: T | undefined;
  let most = -1;
  for (const run of ordered) {
    const n = new Set(run.cells.map((c) => c.label)).size;
    if (n >= most) {
      best = run;
      most = n;
    }
  }
  return best;
}

/**
 * The rows of the group's other runs (newest first) whose labels the primary run lacks: per label
 * not in `have` (which it extends), its newest cell, with its ratio to that run's own baseline
 * cell when both are ok. Highest ratio first.
 */
function otherRunRows(
  ordered: { meta: RunMeta; cells: CellResult[] }[],
  primary: { meta: RunMeta; cells: CellResult[] },
  have: Set<string>,
  baseline: string,
): OtherRunRow[] {
  const out: OtherRunRow[] = [];
  for (const run of [...ordered].reverse().filter((r) => r !== primary)) {
    const runBase = run.cells.find((c) => c.label === baseline);
    const okBase = runBase && !cellFailure(runBase) && runBase.load ? runBase : null;
    for (const c of run.cells) {
      if (have.has(c.label)) continue;
      have.add(c.label);
      const failed = cellFailure(c);
      out.push({
        cell: c,
        label: c.label,
        runId: run.meta.runId,
        runStartedAt: run.meta.startedAt,
        baseline,
        vsBaseline: okBase && !failed && c.load ? ratio(c, okBase) : null,
        trials: cellTrialCount(c),
        failed,
      });
    }
  }
  return out.sort(
    (a, b) => (b.vsBaseline?.figure ?? -1) - (a.vsBaseline?.figure ?? -1) || a.label.localeCompare(b.label),
  );
}

/**
 * Sorts `rows` in place: by status (ranked, not ranked, failed), then by figure within their
 * status (`byRatio`, with a table model: by the ratio to the baseline, the figure the ranks come
 * from; else by rank), so a row never sits above a row with a higher figure.
 */
function sortRows(rows: TableRow[], byRatio: boolean): void {
  const statusOrder: Record<RowStatus, number> = { ranked: 0, 'not-ranked': 1, failed: 2 };
  const key = (r: TableRow) => (byRatio ? (r.vsBaseline?.figure ?? r.figure) : -(r.rank ?? 0));
  rows.sort(
    (a, b) =>
      statusOrder[a.status] - statusOrder[b.status] ||
      key(b) - key(a) ||
      b.figure - a.figure ||
      a.label.localeCompare(b.label),
  );
}

/**
 * Builds every ranked table from the store's snapshot of runs. Each (machine × scenario ×
 * profile × driver × Node major) group is ranked in the run that measured the most contenders of
 * it, the latest (by startedAt) on a tie (`primaryRun`: a later run of one new contender does not
 * replace the bake-off); cells of the group's other runs of the same machine, newer or older, whose
 * contenders that run lacks are listed in `otherRuns`. With `opts.runId`, only that run's tables
 * (and no other-run rows).
 */
export function buildTables(snapshot: RunSnapshot[], opts: BuildTablesOptions = {}): RankedTable[] {
  const runs = [...snapshot]
    .filter((r) => !opts.runId || r.meta.runId === opts.runId)
    .sort((a, b) => byTime(a.meta, b.meta));
  // group id → run id → cells (the cells' own runId is trusted only via the snapshot entry)
  const groups = new Map<string, { key: TableKey; byRun: Map<string, { meta: RunMeta; cells: CellResult[] }> }>();
  // A/A control cells (aa-control.ts) by group id and run: kept out of the rows, ranks and other-run rows.
  const controls = new Map<string, CellResult>();
  for (const run of runs) {
    for (const c of run.cells) {
      const m = machineOf(run.meta, c);
      const id = groupId(c, m);
      if (isControl(c)) {
        controls.set(`${id}|${run.meta.runId}`, c);
        continue;
      }
      let g = groups.get(id);
      if (!g) {
        g = {
          key: { scenario: c.scenario, profile: c.profile, driver: c.driver, nodeMajor: c.node.major, machine: m },
          byRun: new Map(),
        };
        groups.set(id, g);
      }
      let r = g.byRun.get(run.meta.runId);
      if (!r) {
        r = { meta: run.meta, cells: [] };
        g.byRun.set(run.meta.runId, r);
      }
      r.cells.push(c);
    }
  }
  const tables: RankedTable[] = [];
  for (const [id, g] of groups) {
    const ordered = [...g.byRun.values()].sort((a, b) => byTime(a.meta, b.meta));
    const latest = primaryRun(ordered);
    if (!latest) continue; // a group holds at least one run's cells
    const baseline = baselineOf(g.key.scenario, opts.scenarios);
    // One cell per label (a run holds one per label; keep the last written if not).
    // Capacity cells whose searches disagree are lower bounds over every search (capacity.ts).
    const cells = [...new Map(latest.cells.map((c) => [c.label, reconcileCapacity(c)])).values()];
    const baseCell = cells.find((c) => c.label === baseline) ?? null;
    const rows = cells.map((c) => makeRow(c, baseCell, baseline));
    const rankable = rows.filter((r) => r.status === 'ranked');
    const model = tableModel(rankable, baseline);
    if (model) {
      applyModel(model.fit, rankable);
      flagEstimatorGaps(model.fit, rankable);
    } else {
      const ranks = rankRows(rankable.map((r) => r.cell));
      rankable.forEach((r, i) => {
        r.rank = ranks[i] ?? null;
      });
    }
    sortRows(rows, Boolean(model));
    const have = new Set(rows.map((r) => r.label));
    const otherRuns = opts.runId ? [] : otherRunRows(ordered, latest, have, baseline);
    // The machine of the table's own run: runs of one CPU name, cores and Node share a group, and
    // its first cell may come from another kernel or CPU (core/machine.ts).
    const first = latest.cells[0];
    const machine = first ? machineOf(latest.meta, first) : g.key.machine;
    tables.push({
      id,
      key: { ...g.key, machine },
      runId: latest.meta.runId,
      meta: latest.meta,
      baseline,
      baselineRow: rows.find((r) => r.isBaseline) ?? null,
      rows,
      otherRuns,
      summary: summaryData(rows, NOISE_THRESHOLD, model?.fit ?? null),
      noiseThreshold: NOISE_THRESHOLD,
      model: model?.summary ?? null,
      fit: model?.fit ?? null,
      controlCell: controls.get(`${id}|${latest.meta.runId}`) ?? null,
    });
  }
  const scenarioOrder = (opts.scenarios ?? []).map((s) => s.name);
  const idx = (list: string[], x: string) => {
    const i = list.indexOf(x);
    return i < 0 ? list.length : i;
  };
  const profiles = opts.profileOrder ?? [];
  return tables.sort(
    (a, b) =>
      idx(scenarioOrder, a.key.scenario) - idx(scenarioOrder, b.key.scenario) ||
      a.key.scenario.localeCompare(b.key.scenario) ||
      idx(profiles, a.key.profile) - idx(profiles, b.key.profile) ||
      a.key.profile.localeCompare(b.key.profile) ||
      a.key.driver.localeCompare(b.key.driver) ||
      b.key.nodeMajor - a.key.nodeMajor ||
      byTime(b.meta, a.meta),
  );
}
