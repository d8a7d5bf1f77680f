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
 */
import type { CellResult, RunMeta } from '../store/results.ts';
import {
  type IntervalKind,
  type RatioEstimate,
  cellEstimate,
  cellFailure,
  cellSamples,
  cellLatency,
  cellTrialCount,
  isSignificant,
  MIN_CI_TRIALS,
  NOISE_THRESHOLD,
  ratio,
  rankRows,
} from './stats.ts';
import { type EstimatorGap, estimatorGaps } from './estimator-agreement.ts';
import { reconcileCapacity } from './capacity.ts';
import { compare, fitTable, fitTwoWay, rankRanges, tableMdd, type TableModel, type Verdict } from './table-model.ts';
import { isControl } from './aa-control.ts';

/** One run as the store reads it: its meta.json and its cell files. */
export interface RunSnapshot {
  meta: RunMeta;
  cells: CellResult[];
}

/** The machine a table's cells ran on; cells of different machines never share a table. */
export interface MachineKey {
  cpuModel: string;
  cores: number;
  /** Full Node version of the cells, e.g. "v24.21.0". */
  nodeVersion: string;
  /** "AMD EPYC · 2 cores · Node v24.21.0". */
  label: string;
}

/** What a ranked table is about. */
export interface TableKey {
  scenario: string;
  profile: string;
  driver: CellResult['driver'];
  nodeMajor: number;
  machine: MachineKey;
}

/** How a row takes part in the ranking. */
export type RowStatus = 'ranked' | 'not-ranked' | 'failed';

/** Flags of a row (measurement conditions and failures). */
export interface RowFlags {
  /** The load driver saturated its core: the figure is a lower bound. */
  clientBound: boolean;
  /** Trials disagree by more than NOISY_THRESHOLD. */
  noisy: boolean;
  /** Why the cell failed (non-ok status, > 0.1% failed requests, a wrong body), or null. */
  failed: string | null;
  /** Services that went away during the cell (e.g. ['database']); the figure is not the contender's. */
  servicesLost: string[];
  /**
   * The row's solo requests/s ratio to the baseline and its interleaved ratio (the table's model)
   * disagree beyond their 95% intervals (estimator-agreement.ts `estimatorGaps`); absent or null otherwise.
   */
  estimatorGap?: EstimatorGap | null;
}

/** One row of a ranked table (one cell of the table's run). Rates in requests/s, latencies in ms. */
export interface TableRow {
  cell: CellResult;
  label: string;
  runId: string;
  status: RowStatus;
  /** 1 + rows significantly faster (the best rank it can have); null unless status is 'ranked'. */
  rank: number | null;
  /**
   * Its rank as a range (ranked rows of a table with a model): best = 1 + rows significantly
   * faster, worst = N − rows significantly slower (table-model.ts `rankRanges`); null otherwise.
   */
  rankRange: { best: number; worst: number } | null;
  /** Geometric mean of the trials (requests completed ÷ window seconds). */
  figure: number;
  /** [low, high] containing `figure`; null when kind is 'none'. */
  interval: [number, number] | null;
  /** 'ci95' (≥ 5 trials), 'range' (min–max of 2–4 trials, never called an interval), 'none' (1 trial). */
  kind: IntervalKind;
  trials: number;
  /** This row / the table's baseline (same run, paired by round); null when the baseline is missing or failed. */
  vsBaseline: RatioEstimate | null;
  isBaseline: boolean;
  flags: RowFlags;
  /** Latency percentiles of the merged trials, ms (null when none were recorded). */
  latencyMs: { p50: number; p90: number; p99: number; max: number } | null;
  /**
   * Why the row is not ranked, as data: the report writes "not ranked: 3 trials (range 50,100–55,300)",
   * "failed: …" or "database lost". null for ranked rows.
   */
  notRanked: {
    /** few-trials: < 5 trials; failed: see flags.failed; services-lost: a service went away; skipped: skipped/unsupported cell (a tool or runtime missing, not the contender's fault). */
    reason: 'few-trials' | 'failed' | 'services-lost' | 'skipped';
    trials: number;
    detail: string | null;
  } | null;
}

/** A cell of the same group from another run of the same machine: only its ratio to its own run's baseline. */
export interface OtherRunRow {
  cell: CellResult;
  label: string;
  /** The run it comes from ("from run X"). */
  runId: string;
  runStartedAt: string;
  /** The baseline contender of its run (the table's baseline). */
  baseline: string;
  /** cell / its own run's baseline cell; null when that run has no usable baseline cell. */
  vsBaseline: RatioEstimate | null;
  trials: number;
  failed: string | null;
}

/** The data of the hyperfine-style summary under a table, from the SAME test as the ranks. */
export interface SummaryData {
  /** The fastest ranked row (rank 1, highest figure). */
  fastest: string;
  /** fastest / each other ranked row, fastest first. */
  comparisons: {
    label: string;
    /** fastest / this row. */
    ratio: RatioEstimate;
    /** Half-width of the ratio's interval (hyperfine's "±"); null without an interval. */
    pm: number | null;
    /** true when the fastest row is NOT significantly faster (the rank test). */
    tied: boolean;
    /** The model's verdict of fastest vs this row; null without a model (the older per-pair rule). */
    verdict: Verdict | null;
    rank: number;
  }[];
}

/** One ranked table: one run × scenario × profile × driver × Node major on one machine. */
export interface RankedTable {
  /** Stable id, `<scenario>|<profile>|<driver>|node<major>|<machine label>`. */
  id: string;
  key: TableKey;
  runId: string;
  meta: RunMeta;
  /** The scenario's baseline contender (label). */
  baseline: string;
  /** The baseline's row, or null when the run has no baseline cell for this group. */
  baselineRow: TableRow | null;
  /** Ranked rows by rank then figure, then not-ranked rows by figure, then failed rows. */
  rows: TableRow[];
  /** Cells of older runs (same machine and group), latest per label, not in `rows`. */
  otherRuns: OtherRunRow[];
  /** null when fewer than 2 rows are ranked. */
  summary: SummaryData | null;
  /** NOISE_THRESHOLD used for the ranks (only without a model). */
  noiseThreshold: number;
  /**
   * The table's model (analysis/table-model.ts), when ≥ 2 ranked rows and the baseline have
   * common rounds: σ of the per-round log-ratios to the baseline (pooled), its df, rounds per
   * row, and the minimum detectable difference (90% power, two-sided 5%) between two rows
   * (`pair`) and against the baseline; null otherwise (ranks then use the per-pair rule).
   */
  model: {
    sigma: number;
    df: number;
    rounds: number;
    /** What σ and `rounds` count: interleaved or solo rounds, or server processes (the mean of each one's rounds). */
    unit: 'round' | 'process';
    mdd: { pair: number; baseline: number };
  } | null;
  /** The fitted table model behind `model` (its rows, σ̂, df: for derived figures such as variant overheads); null without one. */
  fit?: TableModel | null;
  /** The run's A/A control cell of this group (aa-control.ts), never one of `rows`; null or absent without one. */
  controlCell?: CellResult | null;
}

/** Options of buildTables. */
export interface BuildTablesOptions {
  /** Scenario list with baselines (Scenario.baseline); also gives the table order. */
  scenarios?: { name: string; baseline?: string }[];
  /** Profile order of the tables (others follow by name). */
  profileOrder?: string[];
  /** Render only this run (`leaderboard --run ID`): no other-run rows. */
  runId?: string;
}

/** The baseline contender of a scenario: the scenario list's `baseline`, else node-http (REST) / postgraphile-express (graphql-*). */
export function baselineOf(scenario: string, scenarios: BuildTablesOptions['scenarios'] = []): string {
  const s = scenarios.find((x) => x.name === scenario);
  if (s?.baseline) return s.baseline;
  return scenario.startsWith('graphql') ? 'postgraphile-express' : 'node-http';
}

/** The machine key of a cell in a run. */
export function machineOf(meta: RunMeta, cell: CellResult): MachineKey {
  const cpuModel = meta.machine?.cpuModel ?? 'unknown';
  const cores = meta.machine?.cores ?? 0;
  const nodeVersion = cell.node.version;
  return { cpuModel, cores, nodeVersion, label: `${cpuModel} · ${cores} cores · Node ${nodeVersion}` };
}

function groupId(c: CellResult, m: MachineKey): string {
  return `${c.scenario}|${c.profile}|${c.driver}|node${c.node.major}|${m.label}`;
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

/** How a model-based ratio was computed, for the reader (the one-way ratio model, or the two-way model of interleaved rounds). */
const modelEstimator = (m: TableModel) =>
  m.kind === 'two-way'
    ? "table model: two-way model of each cell's log requests per CPU-second per round (or server process), cell and round effects, residual variance pooled over the table (analysis/table-model.ts fitTwoWay)"
    : 'table model: per-round log-ratio to the baseline of the same round, residual variance pooled over the table (analysis/table-model.ts)';

/** Rounds behind a row of the model (0 for the baseline). */
function modelRow(m: TableModel, name: string): number {
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

/** A fitted table model as RankedTable's `model`: σ, df, units per row (`unit`) and the MDDs (table-model.ts `tableMdd`). */
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
function applyModel(fit: TableModel, rankable: TableRow[]): void {
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
function flagEstimatorGaps(fit: TableModel, rankable: TableRow[]): void {
  const solo = rankable.map((r) => ({ label: r.label, ...cellSamples(r.cell) }));
  const gaps = new Map(estimatorGaps(fit, solo).map((g) => [g.label, g]));
  for (const r of rankable) {
    const g = gaps.get(r.label);
    if (g?.disagree) r.flags.estimatorGap = g;
  }
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
    const statusOrder: Record<RowStatus, number> = { ranked: 0, 'not-ranked': 1, failed: 2 };
    // Rows by figure within their status (with a model: by the ratio to the baseline, the
    // figure the ranks come from), so a row never sits above a row with a higher figure.
    const key = (r: TableRow) => (model ? (r.vsBaseline?.figure ?? r.figure) : -(r.rank ?? 0));
    rows.sort(
      (a, b) =>
        statusOrder[a.status] - statusOrder[b.status] ||
        key(b) - key(a) ||
        b.figure - a.figure ||
        a.label.localeCompare(b.label),
    );
    const have = new Set(rows.map((r) => r.label));
    const otherRuns = opts.runId ? [] : otherRunRows(ordered, latest, have, baseline);
    tables.push({
      id,
      key: g.key,
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
