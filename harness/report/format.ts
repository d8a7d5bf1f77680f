/**
 * Text and number formatting shared by the Markdown leaderboard, the HTML report and the issue
 * analysis: one-line clipping, integers with thousands separators, ms and sizes.
 */

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
