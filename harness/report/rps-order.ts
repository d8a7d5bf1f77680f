/**
 * Rows whose requests/s column orders them against their ranks. A table's ranks (and its row
 * order) come from interleaved rounds, requests per server CPU-second beside the table's other
 * servers (analysis/tables.ts), while its requests/s column comes from each server's solo windows;
 * the two can disagree. When a ranked row sits above another ranked row and its requests/s range
 * (95% CI, or the min–max of 2–4 windows) lies wholly below the other's, the pair is an inversion:
 * the report marks both rows' requests/s with `RPS_ORDER_MARK` and explains it in one line of the
 * table's notes (`rpsOrderNote`). Overlapping ranges, rows without an interval and capacity tables
 * (whose requests/s is the ranked figure) are never marked.
 */
import { fmtInt } from '../core/format.ts';
import { pairedRounds, type TableRow } from '../analysis/tables.ts';

/** The footnote mark beside a requests/s figure that orders its row against its rank. */
export const RPS_ORDER_MARK = '§';

/** One inversion: `above` ranks above `below`, yet its requests/s range lies wholly below `below`'s. */
export interface RpsInversion {
  above: string;
  below: string;
  /** The two rows' requests/s figures (geometric mean of their solo windows). */
  aboveRps: number;
  belowRps: number;
}

/**
 * The inversions among `rows` (a table's rows in its order: ranked rows first, best first): every
 * pair of ranked rows, neither a capacity cell, both with a requests/s interval, where the upper
 * row's interval ends below the lower row's start. Upper row first, in table order.
 */
export function rpsOrderInversions(rows: readonly TableRow[]): RpsInversion[] {
  const ranked = rows.filter((r) => r.status === 'ranked' && r.interval && !r.cell.capacity);
  const out: RpsInversion[] = [];
  ranked.forEach((hi, i) => {
    for (const lo of ranked.slice(i + 1)) {
      if (hi.interval && lo.interval && hi.interval[1] < lo.interval[0])
        out.push({ above: hi.label, below: lo.label, aboveRps: hi.figure, belowRps: lo.figure });
    }
  });
  return out;
}

/** The labels to mark: every row in an inversion. */
export function rpsMarked(inversions: readonly RpsInversion[]): Set<string> {
  return new Set(inversions.flatMap((x) => [x.above, x.below]));
}

/**
 * The table note of its inversions, one line, e.g. "§ requests/s against rank: `a` (13,363
 * requests/s) ranks above `b` (15,262): their requests/s ranges do not overlap; ranks come from
 * interleaved requests per CPU-second, requests/s from solo windows." Null without one.
 */
export function rpsOrderNote(inversions: readonly RpsInversion[], rows: readonly TableRow[]): string | null {
  if (!inversions.length) return null;
  const pairs = inversions
    .map((x) => `\`${x.above}\` (${fmtInt(x.aboveRps)} requests/s) ranks above \`${x.below}\` (${fmtInt(x.belowRps)})`)
    .join('; ');
  const interleaved = rows.some((r) => r.status === 'ranked' && pairedRounds(r.cell) > 0);
  const why = interleaved
    ? 'ranks come from interleaved requests per CPU-second beside the other servers, requests/s from solo windows'
    : "ranks come from each round's ratio to the baseline, requests/s from the windows' geometric mean";
  return `${RPS_ORDER_MARK} requests/s against rank: ${pairs}: their requests/s ranges do not overlap; ${why}.`;
}
