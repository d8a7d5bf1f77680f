/**
 * Compatibility entry for callers that hold only cells (the summary printed after `bench`):
 * the terminal report of those cells through the terminal exporter. The leaderboard itself is
 * rendered by the exporters (report/exporters/) from the store's snapshot: see cli/report.ts.
 */
import type { CellResult, RunMeta } from '../store/results.ts';
import { terminalExporter } from './exporters/terminal.ts';
import type { ExportOptions } from './exporters/exporter-types.ts';
import { snapshotOfCells } from './snapshot.ts';

/**
 * The terminal report of `cells` (grouped into runs by runId; machine unknown). Orders as given.
 * `o`: the width and colour of the stream it goes to (terminal.ts `terminalSettings`), `details`.
 */
export function renderTerminal(
  cells: CellResult[],
  scenarioOrder: string[],
  metas: RunMeta[] = [],
  o: Pick<ExportOptions, 'width' | 'color' | 'details'> = {},
): string {
  return terminalExporter.render(
    snapshotOfCells(
      cells,
      scenarioOrder.map((name) => ({ name, title: name })),
      metas,
    ),
    o,
  );
}
