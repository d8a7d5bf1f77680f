/**
 * The shapes of the leaderboard's tables (analysis/tables.ts `buildTables` builds them): the runs
 * it reads, a table's key (run × scenario × profile × driver × Node major on one machine), its rows
 * with their status, rank range, figure, ratio to the baseline and flags, the rows of other runs,
 * the summary data the report's sentence is written from, and the table model's summary.
 */
import type { CpuIdentity } from '../core/machine.ts';
import type { CellResult, RunMeta } from '../store/results.ts';
import type { EstimatorGap } from './estimator-agreement.ts';
import type { IntervalKind, RatioEstimate } from './stats.ts';
import type { TableModel, Verdict } from './table-model.ts';

/** One run as the store reads it: its meta.json and its cell files. */
export interface RunSnapshot {
  meta: RunMeta;
  cells: CellResult[];
}

/** The machine a table's cells ran on; cells of different machines never share a table. */
export interface MachineKey {
  cpuModel: string;
  cores: number;
  /** The run's kernel ("Linux 6.18.44-fc-v657") and CPU identity (core/machine.ts; absent in older runs): what `sameMachine` matches. */
  os?: string;
  cpu?: CpuIdentity;
  /** Full Node version of the cells, e.g. "v24.21.0". */
  nodeVersion: string;
  /** "AMD EPYC · 2 cores · Node v24.21.0 · Linux 6.18.44-fc-v657" (the kernel when known). */
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
   * faster, worst = N − rows significantly slower (rank-ranges.ts `rankRanges`); null otherwise.
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
  /** Stable id, `<scenario>|<profile>|<driver>|node<major>|<machine label>|<8 hex of the machine key>`. */
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
