/**
 * The exporter signature: a read-only snapshot of runs in, text out. Every format (markdown,
 * terminal, html, json, csv) is one module with one `Exporter`; registry.ts lists them for both
 * `leaderboard` and `export` (a new format = its module plus one entry there; docs/extending.md).
 */
import type { ReportSnapshot } from '../snapshot.ts';

/** Options every exporter understands. */
export interface ExportOptions {
  /** Render one run only (`--run ID`); the caller passes the snapshot already restricted (selectRun). */
  runId?: string;
  /** The time written into the output (tests fix it). */
  now?: Date;
}

export interface Exporter {
  /** The `--format` name; the exporter's key in registry.ts EXPORTERS. */
  format: string;
  /** What it writes, for `--help`. */
  description: string;
  /** The file name extension of its output. */
  extension: string;
  render(snapshot: ReportSnapshot, options?: ExportOptions): string;
}
