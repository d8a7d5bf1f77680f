/**
 * The exporters by format, used by both `leaderboard` (md + html files, terminal output) and
 * `export --format <format>`. A new format is one module in this folder exporting an `Exporter`
 * (exporter-types.ts) and one entry in EXPORTERS, keyed by its `format` (docs/extending.md).
 */
import { UserError } from '../../core/errors.ts';
import { csvExporter } from './csv.ts';
import { htmlExporter } from './html.ts';
import { jsonExporter } from './json.ts';
import { markdownExporter } from './markdown.ts';
import { terminalExporter } from './terminal.ts';
import type { Exporter } from './exporter-types.ts';

/** Every exporter by its `--format` name, in the order `--format` errors list them. */
export const EXPORTERS = {
  md: markdownExporter,
  terminal: terminalExporter,
  html: htmlExporter,
  json: jsonExporter,
  csv: csvExporter,
} satisfies Record<string, Exporter>;

/** A `--format` name of the registry. */
export type ExportFormat = keyof typeof EXPORTERS;

/** The exporter of `format` (also accepts `markdown`); UserError listing the formats otherwise. */
export function getExporter(format: string): Exporter {
  const f = format === 'markdown' ? 'md' : format;
  if (Object.hasOwn(EXPORTERS, f)) return EXPORTERS[f as ExportFormat];
  throw new UserError(`--format must be one of ${Object.keys(EXPORTERS).join(', ')}; got '${format}'`);
}

export type { Exporter, ExportOptions } from './exporter-types.ts';
