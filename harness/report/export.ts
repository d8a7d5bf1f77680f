/**
 * Compatibility entry for callers that hold only cells: the JSON and CSV exports (schema
 * bakeoff-export v2, documented in exporters/rows.ts) of those cells, grouped into runs by
 * runId with an unknown machine. `export` itself goes through the exporter registry over the
 * store's snapshot (cli/report.ts), which carries each run's machine metadata.
 */
import type { CellResult } from '../store/results.ts';
import { csvExporter } from './exporters/csv.ts';
import { jsonExporter } from './exporters/json.ts';
import { snapshotOfCells } from './snapshot.ts';

export { EXPORT_SCHEMA, type ExportRow } from './exporters/rows.ts';

const scenariosOf = (cells: CellResult[]) =>
  [...new Set(cells.map((c) => c.scenario))].map((name) => ({ name, title: name }));

/** The JSON export of `cells` (schema bakeoff-export v2). */
export function exportJson(cells: CellResult[]): string {
  return jsonExporter.render(snapshotOfCells(cells, scenariosOf(cells)));
}

/** The CSV export of `cells` (the JSON rows' columns). */
export function exportCsv(cells: CellResult[]): string {
  return csvExporter.render(snapshotOfCells(cells, scenariosOf(cells)));
}
