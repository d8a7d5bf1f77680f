/**
 * Exports of the latest cells: JSON (a versioned, documented schema), CSV (csv-stringify) and
 * Markdown (the leaderboard itself). One flat row per cell.
 *
 * Export schema `bakeoff-export` version 1 (JSON): `{ schema: "bakeoff-export", version: 1,
 * generatedAt: ISO date, rows: ExportRow[] }`; ExportRow's fields are listed in ExportRow below
 * (units in the names: _rps requests/s, _ms milliseconds, _mib MiB, _pct percent of one core).
 */
import { stringify } from 'csv-stringify/sync';
import type { CellResult } from '../store/results.ts';
import { cellCI, cellRps } from '../analysis/stats.ts';

export const EXPORT_SCHEMA = { schema: 'bakeoff-export', version: 1 } as const;

export interface ExportRow {
  run_id: string;
  cell_id: string;
  contender: string;
  variant: string;
  label: string;
  scenario: string;
  driver: string;
  profile: string;
  node_version: string;
  status: string;
  target: string;
  trials: number;
  rps: number | null;
  rps_ci95_low: number | null;
  rps_ci95_high: number | null;
  p50_ms: number | null;
  p90_ms: number | null;
  p99_ms: number | null;
  max_ms: number | null;
  errors: number | null;
  timeouts: number | null;
  non2xx: number | null;
  body_mismatches: number | null;
  server_cpu_pct: number | null;
  server_rss_peak_mib: number | null;
  rps_per_cpu_second: number | null;
  client_bound: boolean | null;
  startup_ms: number | null;
  noisy: boolean | null;
  failure: string;
  framework: string;
  adapter: string;
  http_client: string;
  finished_at: string;
}

/** One flat row per cell. */
export function exportRows(cells: CellResult[]): ExportRow[] {
  return cells.map((c) => {
    const l = c.load;
    const ok = c.status === 'ok' && l;
    const lat = c.stats?.latencyMs ?? l?.latencyMs;
    const ci = ok ? cellCI(c) : null;
    return {
      run_id: c.runId,
      cell_id: c.cellId,
      contender: c.contender,
      variant: c.variant ?? '',
      label: c.label,
      scenario: c.scenario,
      driver: c.driver,
      profile: c.profile,
      node_version: c.node.version,
      status: c.status,
      target: c.target?.kind ?? 'local',
      trials: c.stats?.trials ?? 1,
      rps: ok ? cellRps(c) : null,
      rps_ci95_low: ci ? ci[0] : null,
      rps_ci95_high: ci ? ci[1] : null,
      p50_ms: ok && lat ? lat.p50 : null,
      p90_ms: ok && lat ? lat.p90 : null,
      p99_ms: ok && lat ? lat.p99 : null,
      max_ms: ok && lat ? lat.max : null,
      errors: l ? l.errors : null,
      timeouts: l ? l.timeouts : null,
      non2xx: l ? l.non2xx : null,
      body_mismatches: l ? l.bodyChecks.mismatched : null,
      server_cpu_pct: c.resources ? c.resources.server.cpuPctAvg : null,
      server_rss_peak_mib: c.resources ? c.resources.server.rssBytesPeak / 2 ** 20 : null,
      rps_per_cpu_second: c.resources ? c.resources.rpsPerCpuSecond : null,
      client_bound: c.resources ? c.resources.clientBound : null,
      startup_ms: c.startupMs,
      noisy: c.stats ? c.stats.noisy : null,
      failure: c.failure?.reason ?? '',
      framework: c.tags.framework ?? '',
      adapter: c.tags.adapter ?? '',
      http_client: c.tags.httpClient ?? '',
      finished_at: c.finishedAt,
    };
  });
}

/** The JSON export (schema bakeoff-export v1). */
export function exportJson(cells: CellResult[]): string {
  return `${JSON.stringify({ ...EXPORT_SCHEMA, generatedAt: new Date().toISOString(), rows: exportRows(cells) }, null, 2)}\n`;
}

/** The CSV export: a header row, then one row per cell (same columns as the JSON rows). */
export function exportCsv(cells: CellResult[]): string {
  const rows = exportRows(cells);
  return stringify(rows, {
    header: true,
    columns: rows.length ? Object.keys(rows[0]) : [],
    cast: { boolean: (v) => String(v) },
  });
}
