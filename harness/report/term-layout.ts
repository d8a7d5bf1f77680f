/**
 * Layout for a terminal of a given width (the terminal exporter): prose wrapped at word
 * boundaries with a hanging indent, names truncated with "…", tables that never wrap (columns
 * shrink to a minimum, then optional columns are left out, then the lines are cut), and wide
 * matrices split into blocks of columns that each repeat the first column (like R's print).
 * Widths count code points (as columns.ts does), so "–", "×" and "…" count as one column.
 * Colour is applied after the layout, through a `Paint` callback, so escape codes never count.
 */
import type { Align } from './columns.ts';

/** Width of a plain string, in terminal columns (code points). */
export const textWidth = (s: string): number => [...s].length;

/**
 * `s` cut to `w` columns with "…" when it was longer: at the end, or with `at: 'middle'` in the
 * middle, so that names that differ in their tail ("a-b-c +interceptor") stay apart.
 */
export function truncate(s: string, w: number, at: 'end' | 'middle' = 'end'): string {
  const cps = [...s];
  if (cps.length <= w) return s;
  if (w <= 0) return '';
  if (at === 'end' || w < 5) return `${cps.slice(0, w - 1).join('')}…`;
  // A third for the tail: contender labels differ in their middle ("…-undici" vs "…-axios") and their suffix.
  const tail = Math.floor((w - 1) / 3);
  return `${cps.slice(0, w - 1 - tail).join('')}…${cps.slice(cps.length - tail).join('')}`;
}

/**
 * `text` word-wrapped to `width` columns: the first line starts with `first`, the next ones with
 * `rest` (default: as many spaces as `first` is wide). A word longer than a line is split.
 */
export function wrap(text: string, width: number, first = '', rest = ' '.repeat(textWidth(first))): string[] {
  const words = text.split(/\s+/).filter(Boolean);
  const lines: string[] = [];
  let line = first;
  let empty = true;
  const room = (prefix: string) => Math.max(8, width - textWidth(prefix));
  for (let word of words) {
    const sep = empty ? '' : ' ';
    if (textWidth(line) + sep.length + textWidth(word) <= width) {
      line += sep + word;
      empty = false;
      continue;
    }
    if (!empty) {
      lines.push(line);
      line = rest;
    }
    while (textWidth(word) > room(rest)) {
      const cps = [...word];
      const r = room(line === first ? first : rest);
      lines.push(line + cps.slice(0, r).join(''));
      line = rest;
      word = cps.slice(r).join('');
    }
    line += word;
    empty = false;
  }
  if (!empty || !lines.length) lines.push(line);
  return lines.map((l) => l.trimEnd());
}

/** Colours a laid-out cell: row index (0 = header), column index (of the full table), the padded text. */
export type Paint = (row: number, col: number, text: string) => string;

/** How one column of a fitted table may give way when the table is too wide. */
export interface ColumnSpec {
  align: Align;
  /** Cells may be cut with "…" down to this width (default: never cut). */
  min?: number;
  /** Where a cell is cut: at its end (default) or in its middle (names). */
  cut?: 'end' | 'middle';
  /** Left out when the table is still too wide after cutting; higher = left out first (default: never). */
  drop?: number;
}

/** Lines of `rows` (row 0 = header) padded into columns two spaces apart after `indent`. */
function layout(rows: string[][], cols: number[], w: number[], specs: ColumnSpec[], indent: string, paint?: Paint) {
  return rows.map((r, ri) =>
    (
      indent +
      cols
        .map((c, k) => {
          const cell = truncate(r[c] ?? '', w[k] ?? 0, specs[c]?.cut);
          const pad = ' '.repeat(Math.max(0, (w[k] ?? 0) - textWidth(cell)));
          const text = specs[c]?.align === 'right' ? pad + cell : cell + pad;
          return paint ? paint(ri, c, text) : text;
        })
        .join('  ')
    ).trimEnd(),
  );
}

/**
 * A table fitted into `width` columns, never wrapped: cuttable columns (spec.min) are cut with
 * "…" as far as needed, then droppable columns (spec.drop) are left out, highest first; a table
 * still too wide has its lines cut. Returns the lines and the header names of the left-out columns.
 */
export function fitTable(
  rows: string[][],
  specs: ColumnSpec[],
  width: number,
  o: { indent?: string; paint?: Paint } = {},
): { lines: string[]; dropped: string[] } {
  const indent = o.indent ?? '';
  let cols = specs.map((_, i) => i);
  const natural = specs.map((_, i) => Math.max(0, ...rows.map((r) => textWidth(r[i] ?? ''))));
  const total = (cs: number[], w: number[]) =>
    textWidth(indent) + cs.reduce((a, c) => a + (w[c] ?? 0), 0) + 2 * Math.max(0, cs.length - 1);
  const w = [...natural];
  const cut = () => {
    for (const c of [...cols].reverse()) {
      const min = specs[c]?.min;
      if (min === undefined) continue;
      const over = total(cols, w) - width;
      if (over > 0) w[c] = Math.max(Math.min(min, natural[c] ?? 0), (w[c] ?? 0) - over);
    }
  };
  cut();
  const dropped: string[] = [];
  while (total(cols, w) > width) {
    const candidates = cols.filter((c) => specs[c]?.drop !== undefined);
    if (!candidates.length) break;
    const worst = candidates.reduce((a, b) => ((specs[b]?.drop ?? 0) > (specs[a]?.drop ?? 0) ? b : a));
    dropped.push(rows[0]?.[worst] ?? `column ${worst + 1}`);
    cols = cols.filter((c) => c !== worst);
    for (const c of cols) w[c] = natural[c] ?? 0;
    cut();
  }
  const ws = cols.map((c) => w[c] ?? 0);
  const lines = layout(rows, cols, ws, specs, indent, o.paint).map((l) =>
    textWidth(stripAnsi(l)) > width ? cutAnsi(l, width) : l,
  );
  return { lines, dropped };
}

/**
 * A wide matrix (row 0 = header; column 0 = the row names; "–" = no value) in blocks of columns
 * that each fit in `width` and repeat column 0 (cut to at most `nameMax` columns), separated by a
 * blank line; a row with no value in a block's columns is left out of that block.
 */
export function matrixBlocks(
  rows: string[][],
  width: number,
  o: { indent?: string; nameMax?: number; paint?: Paint } = {},
): string[] {
  const indent = o.indent ?? '';
  const ncol = Math.max(0, ...rows.map((r) => r.length));
  const natural = Array.from({ length: ncol }, (_, i) => Math.max(0, ...rows.map((r) => textWidth(r[i] ?? ''))));
  const widest = Math.max(0, ...natural.slice(1));
  // The name column gets what two data columns leave (at least 16, or what one leaves), at most nameMax.
  const room = (k: number) => width - textWidth(indent) - k * (widest + 2);
  const nameW = Math.max(8, Math.min(natural[0] ?? 0, o.nameMax ?? 40, Math.max(Math.min(16, room(1)), room(2))));
  const out: string[] = [];
  let c = 1;
  while (c < ncol) {
    const cols = [0];
    let used = textWidth(indent) + nameW;
    while (c < ncol && (cols.length === 1 || used + 2 + (natural[c] ?? 0) <= width)) {
      cols.push(c);
      used += 2 + (natural[c] ?? 0);
      c++;
    }
    if (out.length) out.push('');
    // A row with nothing in this block's columns is left out of the block.
    const some = rows.filter((r, i) => i === 0 || cols.slice(1).some((k) => (r[k] ?? '–') !== '–'));
    const w = cols.map((k) => (k === 0 ? nameW : (natural[k] ?? 0)));
    const specs: ColumnSpec[] = Array.from({ length: ncol }, (_, k) => ({ align: k === 0 ? 'left' : 'right' }));
    const paint = o.paint;
    const map = some.map((r) => rows.indexOf(r));
    out.push(
      ...layout(some, cols, w, specs, indent, paint && ((ri, ci, t) => paint(map[ri] ?? ri, ci, t))).map((l) =>
        textWidth(stripAnsi(l)) > width ? cutAnsi(l, width) : l,
      ),
    );
  }
  return out;
}

// biome-ignore lint/suspicious/noControlCharactersInRegex: matches ANSI escape sequences
const ANSI = /\u001b\[[0-9;]*m/g;

// biome-ignore lint/suspicious/noControlCharactersInRegex: splits around ANSI escape sequences
const ANSI_PART = /(\u001b\[[0-9;]*m)/;

/** `s` without ANSI colour codes. */
export const stripAnsi = (s: string): string => s.replace(ANSI, '');

/** A (possibly coloured) line cut to `width` visible columns, ending in "…" and a colour reset. */
function cutAnsi(s: string, width: number): string {
  if (s === stripAnsi(s)) return truncate(s, width);
  let out = '';
  let seen = 0;
  for (const part of s.split(ANSI_PART)) {
    if (part.startsWith('\u001b[')) {
      out += part;
      continue;
    }
    for (const cp of part) {
      if (seen === width - 1) return `${out}…\u001b[0m`;
      out += cp;
      seen++;
    }
  }
  return out;
}
