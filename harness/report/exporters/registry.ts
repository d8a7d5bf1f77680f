/**
 * The exporters by format, used by both `leaderboard` (md + html files, terminal output) and
 * `export --format <format>`.
 */
import { UserError } from '../../core/errors.ts';
import { csvExporter } from './csv.ts';
import { htmlExporter } from './html.ts';
import { jsonExporter } from './json.ts';
import { markdownExporter } from './markdown.ts';
import { terminalExporter } from './terminal.ts';
import type { Exporter, ExportFormat } from './types.ts';

export const EXPORTERS: Record<ExportFormat, Exporter> = {
  md: markdownExporter,
  terminal: terminalExporter,
  html: htmlExporter,
  json: jsonExporter,
  csv: csvExporter,
};

/** The exporter of `format` (also accepts `markdown`); UserError listing the formats otherwise. */
export function getExporter(format: string): Exporter {
  const f = format === 'markdown' ? 'md' : format;
  if (f in EXPORTERS) return EXPORTERS[f as ExportFormat];
  throw new UserError(`--format must be one of ${Object.keys(EXPORTERS).join(', ')}; got '${format}'`);
}

export type { Exporter, ExportFormat, ExportOptions } from './types.ts';
