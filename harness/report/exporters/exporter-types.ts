/**
 * The exporter signature: a read-only snapshot of runs in, text out. Every format (markdown,
 * terminal, html, json, csv) is one module with one `Exporter`; exporter-registry.ts lists them for both
 * `leaderboard` and `export` (a new format = its module plus one entry there; docs/extending.md).
 */
import type { ReportSnapshot } from '../snapshot.ts';

/** Options every exporter understands. */
export interface ExportOptions {
  /** Render one run only (`--run ID`); the caller passes the snapshot already restricted (selectRun). */
  runId?: string;
  /** The time written into the output (tests fix it). */
  now?: Date;
  /** Terminal: the per-table detail after the overview (`--details`); default: the overview only. */
  details?: boolean;
  /** Terminal: the width to fit, in columns (default 100; terminal.ts `terminalSettings`). */
  width?: number;
  /** Terminal: ANSI colour (default off; terminal.ts `terminalSettings` decides from the TTY, NO_COLOR, FORCE_COLOR). */
  color?: boolean;
  /** Markdown: only the paste-able summary table per scenario (`export --format md --summary`). */
  summary?: boolean;
}

export interface Exporter {
  /** The `--format` name; the exporter's key in exporter-registry.ts `EXPORTERS`. */
  format: string;
  /** What it writes, for `--help`. */
  description: string;
  /** The file name extension of its output. */
  extension: string;
  render(snapshot: ReportSnapshot, options?: ExportOptions): string;
}
