/**
 * Progress lines with elapsed time and an ETA. The plan is a list of phases with an estimated
 * cost in ms (builds, PostgreSQL start, server starts, verification bursts, warm-ups, windows);
 * the ETA is the remaining planned time scaled by how long the finished phases took against
 * their plan (so a slow machine gets a longer ETA after the first few steps).
 */

/** `3m07s`. */
export function fmtDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/** Estimated cost of the steps the scheduler does, ms (for the ETA only). */
export const ESTIMATE = {
  /** A contender with a build command. */
  build: 8000,
  /** Starting, seeding and checking PostgreSQL. */
  database: 6000,
  /** Start + verify + burst + stop of one server. */
  server: 1500,
  /** Driver start-up and teardown around one window. */
  windowOverhead: 300,
};

export class Progress {
  private planned = 0;
  private done = 0;
  private windowsTotal = 0;
  private windowsDone = 0;
  private readonly t0: number;
  private readonly now: () => number;
  private readonly log: (l: string) => void;

  constructor(log: (l: string) => void, now: () => number = () => performance.now()) {
    this.log = log;
    this.now = now;
    this.t0 = now();
  }

  /** Adds planned work (ms); `windows`: measured windows it contains. */
  plan(ms: number, windows = 0): void {
    this.planned += ms;
    this.windowsTotal += windows;
  }

  /** Marks planned work done (ms of the plan, not of the clock). */
  advance(ms: number): void {
    this.done = Math.min(this.planned, this.done + ms);
  }

  /** Elapsed ms since the start. */
  elapsed(): number {
    return this.now() - this.t0;
  }

  /** Remaining ms: the remaining plan scaled by actual/planned of what is done. */
  eta(): number {
    const left = this.planned - this.done;
    const e = this.elapsed();
    return this.done > 0 ? left * Math.max(0.5, Math.min(4, e / this.done)) : left;
  }

  /** Logs a line for a measured window about to run: `[7/60] label · round 2/5   elapsed 0m12s, ETA 1m40s`. */
  window(label: string, plannedMs: number): void {
    this.windowsDone++;
    this.log(
      `[${this.windowsDone}/${this.windowsTotal}] ${label}   elapsed ${fmtDuration(this.elapsed())}, ETA ${fmtDuration(this.eta())}`,
    );
    this.advance(plannedMs);
  }

  /** Logs a step that is not a window (build, start, verify) with the same timing suffix. */
  step(text: string): void {
    this.log(`${text}   elapsed ${fmtDuration(this.elapsed())}, ETA ${fmtDuration(this.eta())}`);
  }
}
