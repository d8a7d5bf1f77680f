/**
 * The Footprint section of the report (view model and its text), from analysis/footprint.ts
 * `footprintTables`: one table per run, its columns as text for the terminal, Markdown and HTML,
 * and as numbers for JSON and CSV (`footprintExportRows`). Units: ms, MiB (RSS), MB (install,
 * 10^6 bytes), µs of server CPU per request.
 */
import { footprintTables, type FootprintRow, type FootprintRunIn, NODE_FLOOR_LABEL } from '../analysis/footprint.ts';
import type { Estimate } from '../analysis/stats.ts';
import { fmtBounds, fmtFigure, sig } from '../core/format.ts';

/** One run's Footprint table as the exporters show it. */
export interface FootprintView {
  runId: string;
  /** The scenario of the requests/s column and chart. */
  scenario: string | null;
  probed: boolean;
  /** What the figures are and how they were taken (page cache, Node, the light rate). */
  note: string;
  rows: FootprintRow[];
}

/** The text columns, in order: header and the cell text of a row. */
export const FOOTPRINT_COLUMNS: { header: string; text: (r: FootprintRow) => string }[] = [
  { header: 'contender', text: (r) => r.label },
  { header: 'cold start ms (95% CI)', text: (r) => est(r.coldStartMs) },
  { header: '× node-http', text: (r) => (r.coldStartX === null ? '–' : `${r.coldStartX.toFixed(1)}×`) },
  { header: 'first start ms', text: (r) => num(r.firstStartMs) },
  { header: 'repeated start ms', text: (r) => est(r.repeatStartMs) },
  { header: 'first response ms', text: (r) => est(r.firstResponseMs, 0.1) },
  { header: 'idle RSS MiB', text: (r) => est(r.idleRssMiB) },
  { header: 'RSS after load MiB', text: (r) => est(r.afterLoadRssMiB) },
  { header: 'CPU µs/request', text: (r) => num(r.cpuUsPerRequest) },
  { header: 'install MB', text: (r) => (r.installMB === null ? '–' : r.installMB.toFixed(1)) },
  { header: 'packages', text: (r) => num(r.packages) },
];

function est(e: Estimate | null, step = 1): string {
  if (!e) return '–';
  const b = fmtBounds(e, { step });
  return b ? `${fmtFigure(e, { step })} (${b})` : fmtFigure(e, { step });
}

const num = (x: number | null): string => (x === null ? '–' : Math.round(x).toLocaleString('en-US'));

/** The sentence under a table: sources, page cache, the light rate. */
function noteOf(rows: FootprintRow[], probed: boolean): string {
  const n = rows.find((r) => !r.floor)?.coldStartMs?.n ?? 0;
  const cache = rows.find((r) => r.pageCache)?.pageCache;
  const rate = rows.find((r) => r.lightRate !== null)?.lightRate;
  const evicted =
    cache === 'evicted'
      ? 'posix_fadvise DONTNEED; the Node binary stays cached, the harness runs on it'
      : 'not evicted: python3 missing, page cache warm';
  return [
    'Cold start: ms from spawn to the first 200 on GET /ping, the median of every server process the run started for the contender',
    `(all its scenarios and restarts; ${n} for the first row) with a distribution-free 95% interval (min–max under 6);`,
    'the same pinned Node and cores as the load runs, page cache warm (the files were read by earlier starts).',
    'Idle RSS: at readiness; RSS after load: before each process stopped.',
    probed
      ? [
          `--footprint probes: a first start after evicting the contender's files from the page cache (${evicted}),`,
          '3 repeated starts with the first request of a real scenario after readiness,',
          `and server CPU per request at ${rate ?? 200} requests/s for 5 s (open loop).`,
          `"${NODE_FLOOR_LABEL}": node -e answering GET /ping, the floor.`,
        ].join(' ')
      : 'First start, repeated starts, first response and CPU per request need `bench --footprint` (about 10–20 s per contender).',
    'Install: packages the dependencies pull in (package-lock.json, shared workspace packages counted for each contender using them) and their apparent size in node_modules.',
  ].join(' ');
}

/** The Footprint view of each run (analysis/footprint.ts `footprintTables`). */
export function footprintViews(runs: readonly FootprintRunIn[]): FootprintView[] {
  return footprintTables(runs).map((t) => ({ ...t, note: noteOf(t.rows, t.probed) }));
}

/** Plain text lines of one table (terminal): a header line and one aligned line per row. */
export function footprintTextLines(v: FootprintView): string[] {
  const cells = [FOOTPRINT_COLUMNS.map((c) => c.header), ...v.rows.map((r) => FOOTPRINT_COLUMNS.map((c) => c.text(r)))];
  const widths = FOOTPRINT_COLUMNS.map((_, i) => Math.max(...cells.map((row) => (row[i] ?? '').length)));
  return cells.map((row) => row.map((x, i) => (i ? x.padStart(widths[i] ?? 0) : x.padEnd(widths[i] ?? 0))).join('  '));
}

/** Markdown of every table, '' without any. */
export function footprintMarkdown(views: readonly FootprintView[]): string {
  if (!views.length) return '';
  const md = (s: string) => s.replace(/\|/g, '\\|');
  return [
    '## Footprint',
    '',
    ...views.flatMap((v) => [
      `Run \`${v.runId}\`${v.scenario ? ` (requests/s: ${v.scenario})` : ''}. ${v.note}`,
      '',
      `| ${FOOTPRINT_COLUMNS.map((c) => c.header).join(' | ')} |`,
      `|${FOOTPRINT_COLUMNS.map((_, i) => (i ? ' ---: ' : ' --- ')).join('|')}|`,
      ...v.rows.map((r) => `| ${FOOTPRINT_COLUMNS.map((c) => md(c.text(r))).join(' | ')} |`),
      '',
    ]),
  ].join('\n');
}

const lo = (e: Estimate | null, k = 1) => (e?.interval ? sig(e.interval[0] * k, 4) : null);
const hi = (e: Estimate | null, k = 1) => (e?.interval ? sig(e.interval[1] * k, 4) : null);
const fig = (e: Estimate | null, k = 1) => (e ? sig(e.figure * k, 4) : null);

/** Flat rows for JSON and CSV (snake_case columns; null where not measured). */
export function footprintExportRows(
  views: readonly FootprintView[],
): Record<string, string | number | boolean | null>[] {
  return views.flatMap((v) =>
    v.rows.map((r) => ({
      run_id: v.runId,
      contender: r.label,
      node_floor: r.floor,
      cold_start_ms: fig(r.coldStartMs),
      cold_start_ms_lo: lo(r.coldStartMs),
      cold_start_ms_hi: hi(r.coldStartMs),
      cold_start_starts: r.coldStartMs?.n ?? null,
      cold_start_x_node_http: r.coldStartX === null ? null : sig(r.coldStartX, 3),
      first_start_ms: r.firstStartMs === null ? null : sig(r.firstStartMs, 4),
      page_cache: r.pageCache,
      repeated_start_ms: fig(r.repeatStartMs),
      first_response_ms: fig(r.firstResponseMs),
      first_response_scenario: r.firstResponseScenario,
      idle_rss_mib: fig(r.idleRssMiB),
      idle_rss_mib_lo: lo(r.idleRssMiB),
      idle_rss_mib_hi: hi(r.idleRssMiB),
      idle_rss_x_node_http: r.idleRssX === null ? null : sig(r.idleRssX, 3),
      rss_after_load_mib: fig(r.afterLoadRssMiB),
      cpu_us_per_request: r.cpuUsPerRequest === null ? null : sig(r.cpuUsPerRequest, 4),
      light_rate_rps: r.lightRate,
      install_mb: r.installMB === null ? null : sig(r.installMB, 4),
      packages: r.packages,
      rps_scenario: r.rps ? v.scenario : null,
      rps: fig(r.rps),
      rps_lo: lo(r.rps),
      rps_hi: hi(r.rps),
    })),
  );
}

/**
 * The footprint columns of the export rows (rows.ts), of the contender's Footprint row in its
 * run: its cold start (median and 95% interval over the run's server processes), idle RSS and RSS
 * after load, CPU per request at the light rate, install size and packages; null where not measured.
 */
export interface FootprintColumns {
  cold_start_ms: number | null;
  cold_start_ms_low: number | null;
  cold_start_ms_high: number | null;
  idle_rss_mib: number | null;
  rss_after_load_mib: number | null;
  cpu_us_per_request: number | null;
  install_mb: number | null;
  packages: number | null;
}

/** The FootprintColumns of `label` on Node `nodeMajor` in run `runId` (all null when the views lack it). */
export function footprintColumns(
  views: readonly FootprintView[] | undefined,
  runId: string,
  label: string,
  nodeMajor: number | null,
): FootprintColumns {
  const r = views
    ?.find((v) => v.runId === runId)
    ?.rows.find(
      (x) => !x.floor && x.label.split(' · Node ')[0] === label && (nodeMajor === null || x.nodeMajor === nodeMajor),
    );
  return {
    cold_start_ms: fig(r?.coldStartMs ?? null),
    cold_start_ms_low: lo(r?.coldStartMs ?? null),
    cold_start_ms_high: hi(r?.coldStartMs ?? null),
    idle_rss_mib: fig(r?.idleRssMiB ?? null),
    rss_after_load_mib: fig(r?.afterLoadRssMiB ?? null),
    cpu_us_per_request: r?.cpuUsPerRequest == null ? null : sig(r.cpuUsPerRequest, 4),
    install_mb: r?.installMB == null ? null : sig(r.installMB, 4),
    packages: r?.packages ?? null,
  };
}
