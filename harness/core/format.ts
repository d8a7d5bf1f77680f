/**
 * Text and number formatting, the one module for it (in core/ so that every layer can use it: the
 * exporters, the report's views and findings, the scheduler's progress and the CLI): percents,
 * plurals, durations, one-line clipping, integers with thousands separators, ms and sizes, and
 * intervals printed with their kind.
 *
 * Intervals are rounded OUTWARD (the low bound floored, the high bound ceiled, at the printed
 * precision) and figures to the nearest: a printed interval therefore always contains its printed
 * figure whenever the unrounded interval contains the unrounded figure: no printed
 * interval excludes its figure.
 */

/**
 * An estimate as the interval formatters read it: a figure, its [low, high] interval (null when
 * kind is 'none'), the interval's kind and the samples behind it (analysis/stats.ts `Estimate`).
 */
export interface Estimate {
  figure: number;
  interval: [number, number] | null;
  kind: 'ci95' | 'range' | 'none';
  n: number;
}

/**
 * A share or a ratio's excess as a percent: 0.074 → "7.4%" with `digits` 1. `digits`: decimals
 * (default 0), or 'adaptive': one decimal below 10%, none from 10% on (0.074 → "7.4%", 0.23 → "23%").
 */
export function fmtPct(x: number, digits: number | 'adaptive' = 0): string {
  const d = digits === 'adaptive' ? (x < 0.1 ? 1 : 0) : digits;
  return `${(100 * x).toFixed(d)}%`;
}

/** A signed change as a percent with thousands separators and a true minus sign: 0.074 → "+7.4%", −0.03 → "−3.0%". */
export function fmtSignedPct(x: number, digits = 1): string {
  return `${x >= 0 ? '+' : '−'}${fmtStep(Math.abs(x * 100), 10 ** -digits)}%`;
}

/** A count and its noun: plural(1, 'round') → "1 round", plural(3, 'round') → "3 rounds", plural(2, 'process', 'processes'). */
export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** `3m07s`: a duration in ms as whole minutes and seconds (negative durations as 0m00s). */
export function fmtDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/**
 * Degrees of freedom as printed: a whole number as is, else one decimal ("22.2"). The two-way
 * model's df are fractional when a noisy row keeps its own variance (table-model.ts `fitTwoWay`).
 */
export function fmtDf(df: number): string {
  return Number.isInteger(df) ? String(df) : df.toFixed(1);
}

/** Whitespace folded to single spaces; longer than `n` → the head (or, with `keep: 'tail'`, the tail) and an ellipsis. */
export function oneLine(s: string, n = 300, keep: 'head' | 'tail' = 'head'): string {
  const t = s.replace(/\s+/g, ' ').trim();
  if (t.length <= n) return t;
  return keep === 'head' ? `${t.slice(0, n)}…` : `…${t.slice(-n)}`;
}

/** 12,345 */
export const fmtInt = (n: number): string => Math.round(n).toLocaleString('en-US');
/** Latency in ms: 0.12, 12.3, 123. */
export const fmtMs = (n: number): string => (n >= 100 ? fmtInt(n) : n.toFixed(n >= 10 ? 1 : 2));
/** Bytes as GiB with one decimal. */
export const fmtGiB = (n: number): string => `${(n / 2 ** 30).toFixed(1)} GiB`;

/** `n` rounded to `digits` significant digits, as a number (1234.5 → 1230, 0.012345 → 0.0123). */
export function sig(n: number, digits = 3): number {
  if (!Number.isFinite(n) || n === 0) return n;
  return Number(n.toPrecision(digits));
}

/** How an interval is named in every format: "95% CI" or "range (N trials)"; never "interval" for a range. */
export function intervalName(e: Pick<Estimate, 'kind' | 'n'>): string {
  if (e.kind === 'ci95') return '95% CI';
  if (e.kind === 'range') return `range (${e.n} trials)`;
  return e.n === 1 ? 'one trial, no interval' : 'no interval';
}

/** Bounds rounded outward at `step` (1 = integers, 0.01 = two decimals). */
export function outward([lo, hi]: [number, number], step: number): [number, number] {
  const k = 1 / step;
  return [Math.floor(lo * k + 1e-9) / k, Math.ceil(hi * k - 1e-9) / k];
}

/** Decimals of a rounding step (1 → 0, 0.1 → 1, 0.01 → 2). */
const decimals = (step: number): number => Math.max(0, Math.round(-Math.log10(step)));

/** A number at a rounding step, with thousands separators. */
export function fmtStep(n: number, step: number): string {
  const d = decimals(step);
  return n.toLocaleString('en-US', { minimumFractionDigits: d, maximumFractionDigits: d });
}

/**
 * A figure and its interval as text: `12,345 (95% CI 12,001–12,600)`, `12,345 (range (3 trials)
 * 12,001–12,600)`, `12,345 (one trial, no interval)`. `scale` multiplies figure and bounds (100
 * for percent), `step` is the printed precision, `unit` is appended to figure and bounds.
 */
export function fmtEstimate(e: Estimate, o: { step?: number; scale?: number; unit?: string } = {}): string {
  const step = o.step ?? 1;
  const scale = o.scale ?? 1;
  const unit = o.unit ?? '';
  const fig = `${fmtStep(Math.round((e.figure * scale) / step) * step, step)}${unit}`;
  if (!e.interval || e.kind === 'none') return `${fig} (${intervalName(e)})`;
  const [lo, hi] = outward([e.interval[0] * scale, e.interval[1] * scale], step);
  return `${fig} (${intervalName(e)} ${fmtStep(lo, step)}–${fmtStep(hi, step)}${unit})`;
}

/** Only the bounds, rounded outward: `12,001–12,600`; '' without an interval. */
export function fmtBounds(e: Estimate, o: { step?: number; scale?: number } = {}): string {
  if (!e.interval || e.kind === 'none') return '';
  const step = o.step ?? 1;
  const scale = o.scale ?? 1;
  const [lo, hi] = outward([e.interval[0] * scale, e.interval[1] * scale], step);
  return `${fmtStep(lo, step)}–${fmtStep(hi, step)}`;
}

/** The figure alone at `step` after `scale`. */
export function fmtFigure(e: Pick<Estimate, 'figure'>, o: { step?: number; scale?: number } = {}): string {
  const step = o.step ?? 1;
  return fmtStep(Math.round((e.figure * (o.scale ?? 1)) / step) * step, step);
}

/** Rounded outward bounds as numbers (for JSON/CSV/HTML data), or null. */
export function roundedBounds(e: Estimate, step: number, scale = 1): [number, number] | null {
  if (!e.interval || e.kind === 'none') return null;
  return outward([e.interval[0] * scale, e.interval[1] * scale], step);
}

/** Markdown table cell text: pipes escaped, `<` as an entity. */
export function escapeMd(s: string): string {
  return s.replace(/\|/g, '\\|').replace(/</g, '&lt;');
}
