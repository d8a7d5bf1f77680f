/**
 * Was the machine quiet while a figure was measured? Each measured window (a reference window, a
 * solo window, an interleaved round) carries the CPU that processes outside the harness used in
 * it, as a share of one core (lifecycle/foreign-cpu.ts). A window above FOREIGN_CPU_LIMIT was
 * measured beside other work: on this project's 2-core VM, a test suite at the lowest priority on
 * the client core moved node-http's json figure by about 30% while leaving loopback4's unchanged
 * (docs/measurements.md, "The steady-state reference"), so such a figure can be biased, not only
 * noisy.
 */

/** The share of one core that other processes may use in a window before it counts as disturbed: 5%. */
export const FOREIGN_CPU_LIMIT = 0.05;

/** How quiet the machine was over some windows. Shares are of one core (1 = a full core). */
export interface QuietCheck {
  limit: number;
  windows: number;
  /** Windows with a reading. */
  read: number;
  /** Windows read above `limit`. */
  disturbed: number;
  /** Highest share over the windows read; null when none was read. */
  maxShare: number | null;
}

/** The quiet check of windows' foreign-CPU shares (null or undefined: not read). */
export function quietOf(shares: readonly (number | null | undefined)[]): QuietCheck {
  const read = shares.filter((x): x is number => typeof x === 'number' && Number.isFinite(x));
  return {
    limit: FOREIGN_CPU_LIMIT,
    windows: shares.length,
    read: read.length,
    disturbed: read.filter((x) => x > FOREIGN_CPU_LIMIT).length,
    maxShare: read.length ? Math.max(...read) : null,
  };
}

/**
 * A stored quiet check with its impossible readings taken out: a share above the machine's
 * `cores` cannot be CPU used in the window (cells measured before foreign-cpu.ts compared process
 * start times could count an orphan's whole life, once at 129 cores). Each such window leaves
 * `read` and `disturbed`; as the stored check keeps only the highest share, the remaining
 * highest is unknown (null) when a disturbed window is left.
 */
export function plausibleQuiet(q: QuietCheck, cores: number): QuietCheck {
  if (q.maxShare === null || q.maxShare <= cores) return q;
  const disturbed = Math.max(0, q.disturbed - 1);
  return { ...q, read: Math.max(0, q.read - 1), disturbed, maxShare: null };
}
