/**
 * Flat export rows (JSON and CSV share them), schema `bakeoff-export` version 2.
 *
 * One row per cell of the rendered tables (cells measured in the table's own run; with `--run`,
 * that run's cells), each carrying its machine and run metadata, so rows from two machines can
 * never be mistaken for one another. Fields (units in the names: _rps requests/s, _ms
 * milliseconds, _mib MiB, _pct percent; rounded: requests/s to integers, ms and MiB to 3
 * significant digits, percentages to 0.1; intervals rounded outward so they contain the figure):
 *
 * - run: `run_id`, `commit` (git commit, `+dirty` when the tree had changes), `cpu_model`, `cores`,
 *   `memory_gib`, `os`, `arch`, `node_version` (the contender's Node);
 * - cell: `cell_id`, `contender`, `variant`, `label`, `scenario`, `driver`, `profile`,
 *   `status` (the cell's own: ok, crashed, verify-failed…), `target` (local | external), `trials`
 *   (the solo windows behind `rps`, its interval and the latency), `rounds` and `processes` (the
 *   interleaved rounds behind `pct_of_baseline` and `rank`, and the server processes they ran in;
 *   null for a cell without interleaved rounds, whose ratio and rank rest on its `trials`);
 * - figures: `rank` (null = not ranked), `rank_measure` (what `rank` and `pct_of_baseline` rank by:
 *   "requests per CPU-second" from the interleaved rounds, the figure to quote; "solo requests/s"
 *   for a cell without them; the sustainable rate for a capacity cell), `rps` (solo requests/s), `rps_low`, `rps_high`, `rps_interval` ('95% CI',
 *   'range (N trials)' or 'none'), `baseline`, `pct_of_baseline`, `pct_low`, `pct_high`;
 * - latency: `p50_ms`, `p90_ms`, `p95_ms`, `p99_ms`, `p999_ms`, `max_ms`;
 * - errors: `errors` (errors + timeouts + non-2xx + wrong bodies), `timeouts`, `non2xx`, `body_mismatches`;
 * - resources: `server_cpu_pct` (average, 100 = one core), `server_cpu_max_pct` (pinned cores × 100),
 *   `server_rss_peak_mib`, `rps_per_cpu_second`;
 * - capacity (null on other rows): `slo_p99_ms` (the objective), `sustainable_rps`,
 *   `sustainable_rps_low`, `sustainable_rps_high` (the highest open-loop rate with p99 ≤ the SLO:
 *   the row's `rps` and interval; a lower bound when `verdict` is at-least), `peak_rps` (closed-loop
 *   peak of the same rounds), `knee` (the share of peak at SLO: sustainable ÷ peak, a fraction to
 *   0.001; an earlier name of the measure), `p99_at_capacity_ms`, `verdict` (met | at-least | never |
 *   interrupted), `steps` (open-loop steps of all searches), `searches`, `searches_bracketed` (the
 *   searches the figure comes from; null in runs that did not record it); a capacity row's p50…max are null (its latency is the curve of its steps);
 * - flags: `client_bound`, `noisy`, `failed`, `flags` (the report's flags, `; `-separated);
 * - context: `startup_ms`, `failure`, `framework`, `adapter`, `http_client`, `finished_at`;
 * - footprint (the contender's row of the run's Footprint table, report/footprint-view.ts
 *   `footprintColumns`): `cold_start_ms`, `cold_start_ms_low`, `cold_start_ms_high`, `idle_rss_mib`,
 *   `rss_after_load_mib`, `cpu_us_per_request`, `install_mb`, `packages`.
 */
import type { CellResult, RunMeta } from '../../store/results.ts';
import { intervalName, roundedBounds, sig } from '../../core/format.ts';
import type { ReportSnapshot } from '../snapshot.ts';
import type { ReportView, RowView, TableView } from '../view.ts';
import { type FootprintColumns, footprintColumns } from '../footprint-view.ts';
import { rankMeasure } from '../measure.ts';

export const EXPORT_SCHEMA = { schema: 'bakeoff-export', version: 2 } as const;

export interface ExportRow {
  run_id: string;
  commit: string;
  cpu_model: string;
  cores: number;
  memory_gib: number;
  os: string;
  arch: string;
  node_version: string;
  cell_id: string;
  contender: string;
  variant: string;
  label: string;
  scenario: string;
  driver: string;
  profile: string;
  status: string;
  target: string;
  trials: number;
  rounds: number | null;
  processes: number | null;
  rank: number | null;
  /** The measure `rank` and `pct_of_baseline` come from (measure.ts `rankMeasure`). */
  rank_measure: string;
  rps: number | null;
  rps_low: number | null;
  rps_high: number | null;
  rps_interval: string;
  baseline: string;
  pct_of_baseline: number | null;
  pct_low: number | null;
  pct_high: number | null;
  p50_ms: number | null;
  p90_ms: number | null;
  p95_ms: number | null;
  p99_ms: number | null;
  p999_ms: number | null;
  max_ms: number | null;
  errors: number | null;
  timeouts: number | null;
  non2xx: number | null;
  body_mismatches: number | null;
  server_cpu_pct: number | null;
  server_cpu_max_pct: number | null;
  server_rss_peak_mib: number | null;
  rps_per_cpu_second: number | null;
  slo_p99_ms: number | null;
  sustainable_rps: number | null;
  sustainable_rps_low: number | null;
  sustainable_rps_high: number | null;
  peak_rps: number | null;
  knee: number | null;
  p99_at_capacity_ms: number | null;
  verdict: string | null;
  steps: number | null;
  searches: number | null;
  searches_bracketed: number | null;
  client_bound: boolean;
  noisy: boolean;
  failed: boolean;
  flags: string;
  startup_ms: number | null;
  failure: string;
  framework: string;
  adapter: string;
  http_client: string;
  finished_at: string;
}

/** An export row with its footprint columns (report/footprint-view.ts). */
export type ExportRowWithFootprint = ExportRow & FootprintColumns;

const ms = (n: number | null | undefined): number | null =>
  typeof n === 'number' && Number.isFinite(n) ? sig(n, 3) : null;

function commitOf(m: RunMeta | undefined): string {
  if (!m) return '';
  return `${m.git.commit ?? 'unknown'}${m.git.dirty ? '+dirty' : ''}`;
}

function row(t: TableView, r: RowView, cell: CellResult | undefined, meta: RunMeta | undefined): ExportRow {
  const l = cell?.load ?? null;
  const lat = r.latencyMs;
  const rb = r.rps ? roundedBounds(r.rps, 1) : null;
  const pb = r.ratio ? roundedBounds(r.ratio, 0.1, 100) : null;
  const k = r.capacity;
  return {
    run_id: r.runId,
    commit: commitOf(meta),
    cpu_model: meta?.machine.cpuModel ?? '',
    cores: meta?.machine.cores ?? 0,
    memory_gib: meta ? sig(meta.machine.memoryBytes / 2 ** 30, 3) : 0,
    os: meta?.machine.os ?? '',
    arch: meta?.machine.arch ?? '',
    node_version: cell?.node.version ?? meta?.node.version ?? '',
    cell_id: r.cellId,
    contender: r.contender,
    variant: cell?.variant ?? '',
    label: r.label,
    scenario: t.scenario,
    driver: t.driver,
    profile: t.profile,
    status: cell?.status ?? r.status,
    target: cell?.target?.kind ?? 'local',
    trials: r.trials,
    rounds: r.paired > 0 ? r.paired : null,
    processes: r.paired > 0 && cell?.stats?.paired ? new Set(cell.stats.paired.instances ?? [1]).size : null,
    rank: r.rank,
    rps: r.rps ? Math.round(r.rps.figure) : null,
    rps_low: rb ? rb[0] : null,
    rps_high: rb ? rb[1] : null,
    rps_interval: r.rps ? (r.rps.interval ? intervalName(r.rps) : 'none') : 'none',
    baseline: t.baseline,
    rank_measure: rankMeasure(r),
    pct_of_baseline: r.ratio ? Math.round(r.ratio.figure * 1000) / 10 : null,
    pct_low: pb ? pb[0] : null,
    pct_high: pb ? pb[1] : null,
    p50_ms: ms(lat?.p50),
    p90_ms: ms(lat?.p90),
    p95_ms: ms(lat?.p95),
    p99_ms: ms(lat?.p99),
    p999_ms: ms(lat?.p999),
    max_ms: ms(lat?.max),
    errors: r.errors,
    timeouts: l ? l.timeouts : null,
    non2xx: l ? l.non2xx : null,
    body_mismatches: l ? l.bodyChecks.mismatched : null,
    server_cpu_pct: r.resources ? sig(r.resources.cpuAvgPct, 3) : null,
    server_cpu_max_pct: r.resources ? r.resources.cpuCapPct : null,
    server_rss_peak_mib: r.resources ? sig(r.resources.rssPeakMiB, 3) : null,
    rps_per_cpu_second: r.resources ? Math.round(r.resources.rpsPerCpuSecond) : null,
    slo_p99_ms: k ? ms(k.sloP99Ms) : null,
    sustainable_rps: k && r.rps ? Math.round(r.rps.figure) : null,
    sustainable_rps_low: k && rb ? rb[0] : null,
    sustainable_rps_high: k && rb ? rb[1] : null,
    peak_rps: k ? Math.round(k.peakRps.figure) : null,
    knee: k && k.knee !== null ? Math.round(k.knee * 1000) / 1000 : null,
    p99_at_capacity_ms: k ? ms(k.p99AtCapacityMs) : null,
    verdict: k ? k.verdict : null,
    steps: k ? k.steps : null,
    searches: k ? k.searches : null,
    searches_bracketed: k ? k.bracketed : null,
    client_bound: r.clientBound,
    noisy: r.noisy,
    failed: r.failed,
    flags: r.flags.join('; '),
    startup_ms: r.startupMs === null ? null : sig(r.startupMs, 3),
    failure: cell?.failure?.reason ?? '',
    framework: cell?.tags.framework ?? '',
    adapter: cell?.tags.adapter ?? '',
    http_client: cell?.tags.httpClient ?? '',
    finished_at: cell?.finishedAt ?? '',
  };
}

/** The export rows of a view: every own-run row of every table, in table order. */
export function exportRows(snapshot: ReportSnapshot, v: ReportView): ExportRowWithFootprint[] {
  const metas = new Map(snapshot.runs.map((r) => [r.meta.runId, r.meta]));
  const cells = new Map<string, CellResult>();
  for (const run of snapshot.runs) for (const c of run.cells) cells.set(`${c.runId}|${c.cellId}`, c);
  return v.tables.flatMap((t) =>
    t.rows
      .filter((r) => !r.otherRun)
      .map((r) => {
        const cell = cells.get(`${r.runId}|${r.cellId}`);
        return {
          ...row(t, r, cell, metas.get(r.runId)),
          ...footprintColumns(v.footprint, r.runId, cell?.label ?? r.label, cell?.node.major ?? null),
        };
      }),
  );
}
