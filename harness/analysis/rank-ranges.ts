/**
 * A table's ranks as ranges, never inversions, from the table model's pairwise verdicts
 * (table-model.ts `compare`): best = 1 + rows significantly faster, worst = N − rows
 * significantly slower. "Significantly faster" implies a higher figure, so no row is ever shown
 * ahead of a row with a higher figure, and a row with a higher figure always has best < the
 * worst of any lower row.
 */
import { compare, type ModelOptions, type TableModel } from './table-model.ts';

/** A row's rank as a range (1 = fastest). best ≤ worst always. */
export interface RankRange {
  name: string;
  ratio: number;
  /** 1 + rows significantly faster than this one. */
  best: number;
  /** N − rows significantly slower than this one. */
  worst: number;
}

/**
 * Rank ranges of every row, in table order (figure, highest first). Guarantees (tested):
 * best ≤ worst (rows faster and rows slower are disjoint); 'faster' implies a higher figure; and
 * for rows A above C (figure A > figure C) best(A) < worst(C): a row faster than A would be
 * faster than C's slower rows too, so |faster(A)| + |slower(C)| ≤ N − 2. Best ranks are NOT
 * always monotone down the table: the baseline's log-ratio has no error, so a row may be
 * significantly faster than the baseline and not than a row just below it.
 */
export function rankRanges(m: TableModel, opts: ModelOptions = {}): RankRange[] {
  const n = m.rows.length;
  return m.rows.map((r) => {
    let faster = 0;
    let slower = 0;
    for (const o of m.rows) {
      if (o === r) continue;
      const v = compare(m, o.name, r.name, opts).verdict;
      if (v === 'faster') faster++;
      else if (v === 'slower') slower++;
    }
    return { name: r.name, ratio: r.ratio, best: 1 + faster, worst: n - slower };
  });
}
