/**
 * The report's view model: what every exporter renders, built once from a snapshot by
 * `buildView` (view-build.ts) out of the analysis' tables (analysis/tables.ts `buildTables`), the
 * findings (issues.ts), the claims (claims.ts) and the runs' metadata. Numbers only come from
 * the analysis; this layer adds the order, the sentences and the labels.
 *
 * Units: requests/s for `rps`, ratios as fractions of the baseline (1 = 100%), ms for latency,
 * MiB for memory, CPU % of ONE core (100 = one core; a cell pinned to N cores can reach N×100).
 */
import type { CapacityVerdict } from '../store/results.ts';
import type { Estimate } from '../analysis/stats.ts';
import type { FlameNode } from '../analysis/flame.ts';
import type { FootprintView } from './footprint-view.ts';
import type { AnswerView } from './view/answer-types.ts';

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

/** One step of a capacity search as the latency-versus-rate chart draws it. Rates in requests/s, ms. */
export interface CurvePoint {
  /** Offered open-loop rate, requests/s. */
  rate: number;
  p99: number;
  pass: boolean;
  /** The load driver used ≥ 75% of its core in this step (scheduler/capacity-round.ts OPEN_LOOP_BUSY_PCT). */
  clientBound: boolean;
  /** 1-based search (round) of the step. */
  search: number;
}

/**
 * What a capacity row adds (the cell's `capacity` summary). The sustainable requests/s
 * at p99 ≤ `sloP99Ms` is the row's `rps` (the ranked figure). Rates in requests/s, ms.
 */
export interface CapacityRowView {
  sloP99Ms: number;
  /** The open-loop driver (oha, k6). */
  driver: string;
  /**
   * met (some search bracketed its capacity); at-least (none did: `rps` is a lower bound, the
   * driver at its limit or no failure up to the cap; in older runs, any search at the driver's
   * limit); never; interrupted.
   */
  verdict: CapacityVerdict;
  /** Closed-loop peak requests/s of the same rounds, with its interval (n = searches). */
  peakRps: Estimate;
  /**
   * Share of the closed-loop peak sustained at the SLO: sustainable ÷ peak (0.35 = 35%), or null
   * without a sustainable rate. Named `knee` in stored cells and exports (its earlier name).
   */
  knee: number | null;
  /** Median p99 of the highest passing step of each search (analysis/capacity.ts `p99AtCapacity`), ms. */
  p99AtCapacityMs: number | null;
  /** Steps of all searches. */
  steps: number;
  searches: number;
  /** Searches that bracketed their capacity (the figure's searches), null in runs that did not record it. */
  bracketed: number | null;
  /** Searches that never held the SLO. */
  never: number;
  /** Every step of every search, sorted by rate (then search). */
  curve: CurvePoint[];
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
  /** 1 + the number of rows significantly faster (its best possible rank); null when not ranked. */
  rank: number | null;
  /** The rank as printed: "2", or a range "1–3" (best–worst possible, table-model.ts); "–" when not ranked. */
  rankText: string;
  /** ok, failed (errors above the threshold), verify-failed, crashed, skipped, … */
  status: string;
  /** The cell's own status as recorded (ok, verify-failed, crashed, skipped, unsupported, …). */
  cellStatus: string;
  /** Why a row is not ranked (failed, skipped, other run…); null when ranked. */
  notRanked: string | null;
  isBaseline: boolean;
  rps: Estimate | null;
  /** A footnote mark beside `rps` (rps-order.ts `RPS_ORDER_MARK`: its requests/s orders it against its rank; the table's notes explain); absent otherwise. */
  rpsMark?: string;
  /** Ratio to the table's baseline (to its own run's baseline for other-run rows). */
  ratio: Estimate | null;
  latencyMs: LatencyView | null;
  /** errors + timeouts + non-2xx + wrong bodies under load. */
  errors: number | null;
  clientBound: boolean;
  noisy: boolean;
  failed: boolean;
  trials: number;
  /** Interleaved rounds behind the row's ranks and ratio (0 without them: the solo trials rank). */
  paired: number;
  resources: ResourcesView | null;
  /**
   * Requests per server CPU-second, the median over the row's interleaved rounds
   * (CellResult stats.paired.efficiency); null without interleaved rounds.
   */
  efficiency: number | null;
  startupMs: number | null;
  /** Short flags for the reader: 'client-bound (lower bound)', 'noisy', 'failed', 'verify warn'… */
  flags: string[];
  /** A capacity cell's search results (then `rps` is the sustainable rate and `latencyMs` null); null otherwise. */
  capacity: CapacityRowView | null;
  /** The row's why finding in short, with the anchor of its Why block (why-view.ts `whyRowNotes`); null without one. */
  why?: { text: string; anchor: string } | null;
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
  /**
   * The table's resolution, one line: its minimum detectable difference (90% power) between two
   * rows and against the baseline, at its measured noise; null without a model.
   */
  resolution: string | null;
  /** The minimum detectable difference between two rows (0.1 = 10%); null without a model. */
  mddPair: number | null;
  /** "Measurement notes": client-bound, noisy, few trials (from the analysis' measurementNotes). */
  notes: string[];
  /** Variant overheads against the same contender without the variant, with their interval. */
  variants: string[];
  rows: RowView[];
  /**
   * A capacity table (its cells have `capacity`): the objective (ms, of its first capacity row),
   * the open-loop driver, and whether any row is a lower bound (verdict at-least). Null otherwise:
   * the exporters choose the capacity column set by this.
   */
  capacity: { sloP99Ms: number; driver: string; atLeast: boolean } | null;
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
  /** The decision range and where it comes from (the source's spread, or its figure ± a tolerance). */
  range: string;
  a: string;
  b: string;
  scenario: string;
  /** The load shape the claim is judged in (profile and driver). */
  loadShape: string;
  ours: string;
  /** For a client-bound verdict: the same comparison under a driver with headroom (claims.ts `headroomText`), labelled as ours; else null. */
  headroom: string | null;
  /** The verdict, with "(provisional: <override>)" when a cell's shape was overridden. */
  verdict: string;
  /** True when the verdict comes from a shape other than the profile's (claims.ts `shapeOverride`). */
  provisional: boolean;
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

/**
 * One baseline family of the overview matrix: the scenarios measured against one baseline
 * (REST vs `node-http`; database and GraphQL vs `postgraphile-express`), and the contenders with a
 * cell in them, ordered by their mean log ratio over these scenarios only (best first).
 */
export interface MatrixFamily {
  baseline: string;
  scenarios: string[];
  contenders: string[];
}

/** The overview matrix: scenarios × contenders, ratio to each scenario's baseline. */
export interface MatrixView {
  scenarios: string[];
  contenders: string[];
  /** The same cells split by baseline, in the order the baselines first appear among the scenarios. */
  families: MatrixFamily[];
  /**
   * [scenario][contender] → the cell, or null when not measured. A contender measured only in
   * another (later, smaller) run than its scenario's table has `runId` set, status 'other run',
   * the ratio to that run's own baseline, flag '‡' and no rank.
   */
  cells: Record<
    string,
    Record<
      string,
      {
        ratio: Estimate | null;
        rank: number | null;
        status: string;
        flags: string[];
        isBaseline: boolean;
        runId?: string;
      } | null
    >
  >;
  /**
   * Per scenario, the rows of its table that are noisy (measurement-notes.ts note 'noisy'): said
   * once per table, as a mark on the scenario's column, not on each cell.
   */
  noisy: Record<string, string[]>;
  /** The contenders shown from other runs (flag '‡'), with their run and scenarios, for the note on how to rank them. */
  joined: { label: string; runId: string; scenarios: string[] }[];
  /** The one profile of the overview's closed-loop tables (the default profile when it has tables). */
  profile: string | null;
  /** One Markdown sentence on the '‡' rows (which run, not ranked, how to rank them); null without any. */
  joinedNote: string | null;
}

/** One cell of the capacity matrix: a contender's sustainable requests/s in a scenario's capacity table. */
export interface CapacityMatrixCell {
  /** Sustainable requests/s at p99 ≤ the SLO with its interval; null for never / interrupted / failed. */
  rps: Estimate | null;
  /** The search's verdict; null for a cell without a capacity summary (skipped, failed before the search). */
  verdict: CapacityVerdict | null;
  /** Ratio to the scenario's baseline (same run, paired by round). */
  ratio: Estimate | null;
  rank: number | null;
  /** ok, not ranked, failed, or the cell's own status when it has no figure (skipped…). */
  status: string;
  /** Why it has no figure ('never held p99 ≤ 10 ms (…)'), or null. */
  reason: string | null;
  isBaseline: boolean;
  /** '≥' lower bound (the driver at its limit), '†' not ranked. */
  flags: string[];
}

/** How one scenario's capacity ranking differs from the closed-loop peak ranking of the same cells. */
export interface CapacityRankingView {
  scenario: string;
  /** Spearman's ρ, or null (fewer than 2 cells, or one ranking all ties). */
  rho: number | null;
  /** Cells compared. */
  n: number;
  /** One Markdown sentence (contender labels in backticks). */
  text: string;
}

/**
 * The overview's capacity matrix: scenarios × contenders, sustainable requests/s at
 * p99 ≤ each scenario's SLO, from each scenario's primary capacity table; then per scenario how
 * far the capacity ranking differs from the closed-loop one.
 */
export interface CapacityMatrixView {
  scenarios: string[];
  /** The table each scenario's column comes from (anchor id). */
  tableIds: Record<string, string>;
  /** The objective of each scenario's table, ms. */
  sloP99Ms: Record<string, number>;
  baselines: Record<string, string>;
  contenders: string[];
  /** [scenario][contender] → the cell, or null when not measured. */
  cells: Record<string, Record<string, CapacityMatrixCell | null>>;
  rankings: CapacityRankingView[];
  /**
   * Per run of the matrix and open-loop driver, one Markdown sentence on the driver's ceiling as
   * measured in that run (analysis/capacity.ts `driverCeilings`), with the run id.
   */
  driverLines: string[];
}

/**
 * One run's Node.js version matrix (report/node-matrix.ts): per contender × scenario, each major
 * as a % of the same contender on the reference major, with its 95% CI and verdict ("100% ·
 * requests/s" on the reference), or the cell's status and why; null = not measured.
 */
export interface NodeMatrixView {
  runId: string;
  profile: string;
  driver: string;
  majors: number[];
  /** The major every column is a % of (the pinned 24 when measured, else the highest). */
  reference: number;
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

/** One profiled cell of the Why section (the latest `just why` window of a contender in a scenario). */
export interface WhyCellView {
  /** Anchor id of its block in the HTML report. */
  anchor: string;
  label: string;
  scenario: string;
  isBaseline: boolean;
  runId: string;
  /** The load profile of the window and V8's sampling interval, µs. */
  profile: string;
  samplingIntervalUs: number;
  /** CPU per request, ns (/proc shared out by the profile, or the profile's busy time). */
  totalNs: number;
  requestsPerSec: number | null;
  /** The largest buckets: ns of CPU per request and share of the busy samples. */
  top: { bucket: string; ns: number; share: number | null }[];
  /** Its flame graph (analysis/flame.ts tree, µs of busy self time in the window), or why there is none. */
  flame: { ok: true; totalUs: number; minShare: number; tree: FlameNode } | { ok: false; reason: string };
}

/** A difference from the reference of a why run, ns per request by bucket (the largest 8 and the rest). */
export interface WhyDiffView {
  label: string;
  reference: string;
  scenario: string;
  runId: string;
  anchor: string;
  aTotalNs: number;
  bTotalNs: number;
  diffNs: number;
  parts: { bucket: string; aNs: number; bNs: number; diffNs: number }[];
  /** diffNs − Σ parts: the other buckets and the rounding. */
  restNs: number;
}

/** The report's Why section: the profiled cells of `just why` (report/why-view.ts). */
export interface WhyView {
  cells: WhyCellView[];
  diffs: WhyDiffView[];
}

/** Whether the load drivers agree on one scenario's order (report/driver-agreement.ts). */
export interface DriverAgreementView {
  scenario: string;
  nodeMajor: number;
  /** Every pair of drivers: Spearman's ρ (null: undefined) over n common contenders. */
  pairs: { a: string; b: string; rho: number | null; n: number }[];
  /** One Markdown sentence (contender labels and run ids in backticks). */
  text: string;
}

/**
 * A one-run report's reference (report/reference-run.ts): the same scenarios' "% of baseline" in an
 * older run (usually the committed bake-off of another machine) beside this run's own. Shown as a
 * reference only, never ranked with the run.
 */
export interface ReferenceRunView {
  runId: string;
  /** ISO date-time the reference run started. */
  startedAt: string;
  /** Its CPU model, and whether it is this run's. */
  host: string;
  sameHost: boolean;
  /** The load driver of its overview tables (null when it has none). */
  driver: string | null;
  cells: number;
  /** One Markdown sentence: what the reference is and how to read it. */
  note: string;
  /** Per scenario, the reference run's winners as its answer names them (view/answer-view.ts `leaders`). */
  winners?: Record<string, string[]>;
  /** Per baseline family (as the run's matrix): its scenarios and contenders, baselines left out. */
  families: { baseline: string; scenarios: string[]; contenders: string[] }[];
  /** [scenario][contender] → % of baseline there and here (ratios, 1 = the baseline); null where not measured. */
  pairs: Record<string, Record<string, { reference: Estimate | null; yours: Estimate | null }>>;
}

/** A run's driver fidelity check: its run and its one-sentence summary (RunMeta.fidelity, or driverCrossCheck in older runs; no backticks, no final period). */
export interface FidelityView {
  runId: string;
  summary: string;
}

export interface ReportView {
  generatedAt: string;
  /** One line per header fact. */
  machine: string;
  runs: RunView[];
  /** Set once when ranking fell back to autocannon (no native driver), with the install command. */
  driverFallback: string | null;
  /** The answer first: one plain line per scenario, one confidence line, the reference line (view/answer-view.ts). */
  answer: AnswerView;
  /** One line on how sure the numbers are, with its arithmetic (the report's Method and `--details`). */
  certainty: string;
  /** The rank rule in one sentence (from the analysis' noise threshold). */
  rankRule: string;
  /** Each run's driver fidelity check, as data (runs-view.ts `fidelityLine` and `fidelityClause` write its sentences). */
  fidelity: FidelityView[];
  winners: WinnerView[];
  matrix: MatrixView;
  /** The capacity matrix, when the snapshot has capacity cells; else null. */
  capacity: CapacityMatrixView | null;
  tables: TableView[];
  findings: FindingView[];
  /**
   * When the leak rule could not judge every measured cell (leak-findings.ts `leakCoverage`): one
   * sentence with the counts and how to check; null when it judged them all (or there were none).
   */
  leakCheck: string | null;
  claims: ClaimView[];
  claimsRule: string;
  nodeMatrix: NodeMatrixView[];
  /** Per scenario measured by two or more drivers, whether they agree on the order. */
  driverAgreement: DriverAgreementView[];
  method: string[];
  ratios: RunRatioView[];
  /** Warnings of the snapshot (mixed machines dropped, unreadable files…). */
  warnings: string[];
  /** The Why section from `just why` records (why-view.ts); null without any covering the report's contenders. */
  why?: WhyView | null;
  /** A one-run report's reference run beside it (report/reference-run.ts); absent or null without one. */
  referenceRun?: ReferenceRunView | null;
  /** The overview's median minimum detectable difference between two rows (a ratio − 1, e.g. 0.074), null without models. */
  medianMdd?: number | null;
  /** The Footprint table of each run the report shows (footprint-view.ts); empty when no run started a server. */
  footprint?: FootprintView[];
}
