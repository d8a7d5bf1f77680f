/**
 * The report's one headline measure and the names of the others, so every table header, legend,
 * chart and export says the same words.
 *
 * - `HEADLINE_MEASURE`: requests per server CPU-second from the interleaved rounds (each cell
 *   beside the table's other servers, round by round). It ranks, gives "% of baseline", and is the
 *   figure to quote; its interval is the table model's.
 * - `SOLO_RPS`: requests/s of the solo windows (one server alone); shown apart, never ranked when
 *   interleaved rounds exist.
 * - `LATENCY_AT_SATURATION`: p50/p99 ms of the solo windows at the profile's closed-loop load.
 */

/** The ranking measure's name, as every header, legend, chart and export prints it. */
export const HEADLINE_MEASURE = 'requests per CPU-second';
/** The solo windows' throughput, labelled as what it is. */
export const SOLO_RPS = 'solo requests/s';
/** The solo windows' latency at the closed-loop load. */
export const LATENCY_AT_SATURATION = 'latency at saturation';
/** A capacity table's ranked figure (open loop). */
export const CAPACITY_MEASURE = 'sustainable requests/s at p99 ≤ the SLO';

/**
 * The measure a row's rank and "% of baseline" come from: the capacity measure for a capacity row,
 * the headline measure for a row with interleaved rounds (`paired` > 0), else solo requests/s.
 */
export function rankMeasure(r: { paired: number; capacity: unknown }): string {
  if (r.capacity) return CAPACITY_MEASURE;
  return r.paired > 0 ? HEADLINE_MEASURE : SOLO_RPS;
}

/** The figure column of a table: "solo requests/s" when its ranks come from interleaved rounds, else "requests/s". */
export function figureHeader(rows: readonly { paired: number }[]): string {
  return rows.some((r) => r.paired > 0) ? SOLO_RPS : 'requests/s';
}
