/**
 * The report's view model: what every exporter renders, built once from a snapshot by
 * `buildView` (view-build.ts) out of the analysis' tables (analysis/tables.ts `buildTables`), the
 * findings (issues.ts), the claims (claims.ts) and the runs' metadata. Numbers only come from
 * the analysis; this layer adds the order, the sentences and the labels.
 *
 * Units: requests/s for `rps`, ratios as fractions of the baseline (1 = 100%), ms for latency,
 * MiB for memory, CPU % of ONE core (100 = one core; a cell pinned to N cores can reach N×100).
 */
import type { Estimate } from './format.ts';

/** Latency percentiles of a cell, ms (from the merged histograms of its trials). */
export interface LatencyView {
  p50: number;
  p90: number;
  p95: number | null;
  p99: number;
  p999: number | null;
  max: number;
}

/** Server resource use over the measured windows. */
export interface ResourcesView {
  cpuAvgPct: number;
  cpuPeakPct: number;
  /** The axis maximum of an honest CPU scale: pinned cores × 100. */
  cpuCapPct: number;
  rssAvgMiB: number;
  rssPeakMiB: number;
  rpsPerCpuSecond: number;
}

/** One row of a ranked table. */
export interface RowView {
  /** The cell file's id (joins a row with its cell in exports). */
  cellId: string;
  label: string;
  contender: string;
  displayName: string;
  /** The run the row was measured in. */
  runId: string;
  /** Measured in another run than the table's: shown only as a ratio to that run's own baseline, never ranked. */
  otherRun: boolean;
  /** 1 + the number of rows significantly faster; null when not ranked. */
  rank: number | null;
  /** ok, failed (errors above the threshold), verify-failed, crashed, skipped, … */
  status: string;
  /** The cell's own status as recorded (ok, verify-failed, crashed, skipped, unsupported, …). */
  cellStatus: string;
  /** Why a row is not ranked (failed, skipped, other run…); null when ranked. */
  notRanked: string | null;
  isBaseline: boolean;
  rps: Estimate | null;
  /** Ratio to the table's baseline (to its own run's baseline for other-run rows). */
  ratio: Estimate | null;
  latencyMs: LatencyView | null;
  /** errors + timeouts + non-2xx + wrong bodies under load. */
  errors: number | null;
  clientBound: boolean;
  noisy: boolean;
  failed: boolean;
  trials: number;
  resources: ResourcesView | null;
  startupMs: number | null;
  /** Short flags for the reader: 'client-bound (lower bound)', 'noisy', 'failed', 'verify warn'… */
  flags: string[];
}

/** One same-run table: scenario × profile × driver × Node major on one machine. */
export interface TableView {
  /** Anchor id, unique in the page. */
  id: string;
  scenario: string;
  scenarioTitle: string;
  profile: string;
  driver: string;
  nodeMajor: number;
  runId: string;
  machine: string;
  baseline: string;
  /** hyperfine-style sentence on the top row against the others (same significance test as the ranks). */
  summary: string | null;
  /** The single fastest row's lead over the next significantly slower row, with its interval; null otherwise. */
  margin: string | null;
  /** "Measurement notes": client-bound, noisy, few trials (from the analysis' measurementNotes). */
  notes: string[];
  /** Variant overheads against the same contender without the variant, with their interval. */
  variants: string[];
  rows: RowView[];
}

export interface FindingView {
  severity: string;
  label: string;
  scenario: string;
  profile: string;
  title: string;
  evidence: string;
}

export interface ClaimView {
  id: string;
  claim: string;
  /** The source report, as docs/sources.md names it. */
  source: string;
  sourceFigure: string;
  a: string;
  b: string;
  scenario: string;
  /** The load shape the claim is judged in (profile and driver). */
  loadShape: string;
  ours: string;
  verdict: string;
  /** The verdict rule, in words. */
  rule: string;
  note: string;
}

export interface RunView {
  runId: string;
  startedAt: string;
  state: string;
  profile: string;
  node: string;
  commit: string;
  machine: string;
  cpuPlan: string;
  cells: number;
}

/** Per scenario of the overview: the winners (rank 1; more than one = tied). */
export interface WinnerView {
  scenario: string;
  tableId: string;
  profile: string;
  driver: string;
  nodeMajor: number;
  baseline: string;
  winners: string[];
  /** A single winner's lead, "1.06× (95% CI 1.05–1.07) the next (`b`)"; or why nobody is ranked; null for ties. */
  margin: string | null;
}

/** The overview matrix: scenarios × contenders, ratio to each scenario's baseline. */
export interface MatrixView {
  scenarios: string[];
  contenders: string[];
  /** [scenario][contender] → the cell, or null when not measured. */
  cells: Record<
    string,
    Record<
      string,
      { ratio: Estimate | null; rank: number | null; status: string; flags: string[]; isBaseline: boolean } | null
    >
  >;
}

export interface NodeMatrixView {
  profile: string;
  driver: string;
  majors: number[];
  rows: { label: string; scenario: string; cols: (string | null)[] }[];
}

/** A ratio of one cell in one run, for the HTML compare view (change of ratio between two runs). */
export interface RunRatioView {
  runId: string;
  key: string;
  label: string;
  scenario: string;
  profile: string;
  driver: string;
  nodeMajor: number;
  ratio: Estimate;
}

export interface ReportView {
  generatedAt: string;
  /** One line per header fact. */
  machine: string;
  runs: RunView[];
  /** Set once when ranking fell back to autocannon (no native driver), with the install command. */
  driverFallback: string | null;
  /** One line on how sure the numbers are. */
  certainty: string;
  /** The rank rule in one sentence (from the analysis' noise threshold). */
  rankRule: string;
  fidelity: string[];
  winners: WinnerView[];
  matrix: MatrixView;
  tables: TableView[];
  findings: FindingView[];
  claims: ClaimView[];
  claimsRule: string;
  nodeMatrix: NodeMatrixView[];
  method: string[];
  ratios: RunRatioView[];
  /** Warnings of the snapshot (mixed machines dropped, unreadable files…). */
  warnings: string[];
}
