/**
 * The CSV exporter (`export --format csv`, csv-stringify): a header row, then one row per cell
 * with the same columns as the JSON rows (schema bakeoff-export v2, documented in rows.ts);
 * booleans as `true`/`false`, missing values empty. A text cell that begins with `=`, `+`, `-`,
 * `@`, a tab or a carriage return (a manifest tag such as `=cmd|' /C calc'!A0`) is neutralised with
 * a leading `'`, as OWASP's "CSV Injection" page recommends, so a spreadsheet never runs it as a
 * formula; numbers are numbers and stay as they are.
 */
import { stringify } from 'csv-stringify/sync';
import type { ReportSnapshot } from '../snapshot.ts';
import { buildView } from '../view-build.ts';
import { exportRows, type ExportRowWithFootprint } from './rows.ts';
import type { Exporter, ExportOptions } from './exporter-types.ts';

/** Column order of the CSV: the ExportRow fields in declaration order. */
const EMPTY: Record<keyof ExportRowWithFootprint, true> = {
  run_id: true,
  commit: true,
  cpu_model: true,
  cores: true,
  memory_gib: true,
  os: true,
  arch: true,
  node_version: true,
  cell_id: true,
  contender: true,
  variant: true,
  label: true,
  scenario: true,
  driver: true,
  profile: true,
  status: true,
  target: true,
  trials: true,
  rounds: true,
  processes: true,
  rank: true,
  rank_measure: true,
  rps: true,
  rps_low: true,
  rps_high: true,
  rps_interval: true,
  baseline: true,
  pct_of_baseline: true,
  pct_low: true,
  pct_high: true,
  p50_ms: true,
  p90_ms: true,
  p95_ms: true,
  p99_ms: true,
  p999_ms: true,
  max_ms: true,
  errors: true,
  timeouts: true,
  non2xx: true,
  body_mismatches: true,
  server_cpu_pct: true,
  server_cpu_max_pct: true,
  server_rss_peak_mib: true,
  rps_per_cpu_second: true,
  slo_p99_ms: true,
  sustainable_rps: true,
  sustainable_rps_low: true,
  sustainable_rps_high: true,
  peak_rps: true,
  knee: true,
  p99_at_capacity_ms: true,
  verdict: true,
  steps: true,
  searches: true,
  searches_bracketed: true,
  client_bound: true,
  noisy: true,
  failed: true,
  flags: true,
  startup_ms: true,
  failure: true,
  framework: true,
  adapter: true,
  http_client: true,
  finished_at: true,
  cold_start_ms: true,
  cold_start_ms_low: true,
  cold_start_ms_high: true,
  idle_rss_mib: true,
  rss_after_load_mib: true,
  cpu_us_per_request: true,
  install_mb: true,
  packages: true,
};
export const CSV_COLUMNS = Object.keys(EMPTY) as (keyof ExportRowWithFootprint)[];

/** A text cell made safe for spreadsheets (OWASP CSV injection): formula triggers get a leading `'`. */
export function neutraliseFormula(text: string): string {
  return /^[=+\-@\t\r]/.test(text) ? `'${text}` : text;
}

export const csvExporter: Exporter = {
  format: 'csv',
  description: 'CSV, one row per cell (the JSON rows)',
  extension: 'csv',
  render(snapshot: ReportSnapshot, options: ExportOptions = {}): string {
    const rows = exportRows(snapshot, buildView(snapshot, options));
    return stringify(rows, {
      header: true,
      columns: CSV_COLUMNS,
      cast: { boolean: (b) => String(b), string: neutraliseFormula },
    });
  },
};
