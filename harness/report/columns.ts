/**
 * Plain aligned columns for the terminal (hyperfine's style): no borders, no rules between rows,
 * two spaces between columns, numbers right-aligned. Widths count code points, so "–" and "×"
 * count as one column.
 */

export type Align = 'left' | 'right';

const width = (s: string): number => [...s].length;

/** Rows of cells → lines; `align[i]` aligns column i (default left). Trailing spaces are trimmed. */
export function columns(rows: string[][], align: Align[] = [], indent = ''): string[] {
  const n = Math.max(0, ...rows.map((r) => r.length));
  const w = Array.from({ length: n }, (_, i) => Math.max(0, ...rows.map((r) => width(r[i] ?? ''))));
  return rows.map((r) =>
    (
      indent +
      r
        .map((cell, i) => {
          const pad = ' '.repeat((w[i] ?? 0) - width(cell)); // w has a width for every column
          return align[i] === 'right' ? pad + cell : cell + pad;
        })
        .join('  ')
    ).trimEnd(),
  );
}
