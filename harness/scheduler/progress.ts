/**
 * Progress with elapsed time and an ETA. The plan is a list of phases with an estimated cost in
 * ms (builds, PostgreSQL start, server starts, verification bursts, warm-ups, windows); the ETA
 * is the remaining planned time scaled by how long the finished phases took against their plan
 * (so a slow machine gets a longer ETA after the first few steps). Phases whose cost is known
 * once done (builds, PostgreSQL: `timed`) replace their estimate by what they took, and the
 * scale starts from 1 with the weight of ETA_PRIOR_MS of plan: in a fresh clone's bake-off
 * (run 2026-11-26T13-02-33Z-4576, 31 min 58 s), builds planned at 8 s that took 1 s made the
 * plain ratio halve the ETA to 16 min 49 s right after the first build, from 33 min 46 s.
 *
 * `Progress` turns the scheduler's steps into events (their schema: scheduler/progress-sink.ts)
 * with a plain-text line each, and hands both to a ProgressSink, which draws them (plain lines,
 * a live line on a TTY, NDJSON, or nothing).
 */
import type { WindowTick } from '../drivers/driver-types.ts';
import type { CapacityStep, CellResult } from '../store/results.ts';
import { fmtDuration, lineSink, type ProgressSink, type RunStartEvent, type WindowRef } from './progress-sink.ts';

export { fmtDuration } from './progress-sink.ts';

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

/**
 * Weight of the ETA's starting scale (1: the plan is right), ms of plan: the scale is
 * (elapsed + this) ÷ (done + this), so the first minutes of a run move it little.
 */
export const ETA_PRIOR_MS = 120_000;

/** A measured window as the scheduler names it: cell id, label, its round of `rounds`, seconds of load. */
export interface WindowInfo {
  cell: string;
  label: string;
  round: number;
  rounds: number;
  durationS: number;
}

/** The run's plan, its ETA and its events; one per run (scheduler/run.ts), handed to every group. */
export class Progress {
  private planned = 0;
  private done = 0;
  private windowsTotal = 0;
  private windowsDone = 0;
  private current: WindowRef | null = null;
  private readonly t0: number;
  private readonly now: () => number;
  /** Where the events and lines go. */
  readonly sink: ProgressSink;

  /** `out`: a sink, or a function taking plain lines (no live line); `now`: clock, ms. */
  constructor(out: ProgressSink | ((l: string) => void), now: () => number = () => performance.now()) {
    this.sink = typeof out === 'function' ? lineSink(out) : out;
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

  /**
   * Runs a phase planned at `plannedMs` (already in the plan) and marks it done at what it took
   * on the progress clock, in the plan and in the done work alike, so that its estimate does not
   * move the ETA's scale. Errors of `f` propagate (the phase then stays planned).
   */
  async timed<T>(plannedMs: number, f: () => Promise<T>): Promise<T> {
    const t = this.now();
    const r = await f();
    const took = this.now() - t;
    this.planned += took - plannedMs;
    this.done = Math.min(this.planned, this.done + took);
    return r;
  }

  /** Ms of the plan marked done so far. */
  doneMs(): number {
    return this.done;
  }

  /** Elapsed ms since the start. */
  elapsed(): number {
    return this.now() - this.t0;
  }

  /**
   * Remaining ms: the remaining plan scaled by (elapsed + ETA_PRIOR_MS) ÷ (done + ETA_PRIOR_MS),
   * kept within 0.5–4.
   */
  eta(): number {
    const left = this.planned - this.done;
    const scale = (this.elapsed() + ETA_PRIOR_MS) / (this.done + ETA_PRIOR_MS);
    return left * Math.max(0.5, Math.min(4, scale));
  }

  /** `   elapsed 0m12s, ETA 1m40s`. */
  private suffix(): string {
    return `   elapsed ${fmtDuration(this.elapsed())}, ETA ${fmtDuration(this.eta())}`;
  }

  private timing(): { elapsedMs: number; etaMs: number } {
    return { elapsedMs: Math.round(this.elapsed()), etaMs: Math.round(this.eta()) };
  }

  /** The run-start event (after the plan is complete: it carries the windows and the ETA) with its header line `text`. */
  runStart(e: Omit<RunStartEvent, 'event' | 'windows' | 'etaMs'>, text: string): void {
    this.sink.emit({ event: 'run-start', ...e, windows: this.windowsTotal, etaMs: Math.round(this.eta()) }, text);
  }

  /** A build begins: `building fastify: npm run build   elapsed …, ETA …`. */
  build(contender: string, command: string): void {
    this.sink.emit(
      { event: 'build', contender, command, ...this.timing() },
      `building ${contender}: ${command}${this.suffix()}`,
    );
  }

  /**
   * A measured window about to run: `[7/60] label · round 2/5   elapsed 0m12s, ETA 1m40s` (a
   * live line on a TTY); `w` is the window, or just a label. Advances the plan by `plannedMs`.
   */
  window(w: WindowInfo | string, plannedMs: number): void {
    this.windowsDone++;
    const info =
      typeof w === 'string' ? { cell: w, label: w, round: null, rounds: null, durationS: plannedMs / 1000 } : w;
    const { durationS, ...rest } = info;
    this.current = { window: this.windowsDone, windows: this.windowsTotal, ...rest };
    const name = `${info.label}${info.round !== null ? ` · round ${info.round}/${info.rounds}` : ''}`;
    this.sink.emit(
      { event: 'window-start', ...this.current, durationS, ...this.timing() },
      `[${this.windowsDone}/${this.windowsTotal}] ${name}${this.suffix()}`,
    );
    this.advance(plannedMs);
  }

  /** True when live samples of a window are drawn (the driver is asked for them only then). */
  wantsTicks(): boolean {
    return this.sink.live;
  }

  /** A live sample of the running window (WindowOptions.onTick). */
  tick(s: WindowTick): void {
    this.sink.tick(s);
  }

  /** The window started by `window()` ended with `trial` (its result); `line`: its plain line, `  12,345 req/s, p50 …`. */
  windowEnd(trial: CellResult, line: string): void {
    const ref = this.current ?? {
      window: this.windowsDone,
      windows: this.windowsTotal,
      cell: trial.cellId,
      label: trial.label,
      round: trial.round ?? null,
      rounds: null,
    };
    this.current = null;
    const ok = trial.status === 'ok' && trial.load;
    const l = trial.load;
    this.sink.emit(
      {
        event: 'window-end',
        ...ref,
        status: trial.status,
        requestsPerSec: ok && l ? l.requestsPerSec.mean : null,
        p99Ms: ok && l ? l.latencyMs.p99 : null,
        errors: ok && l ? l.errors + l.timeouts + l.non2xx : null,
        ...this.timing(),
      },
      line,
    );
  }

  /** A cell's final result; `line`: its plain line, if any (`  label: CRASHED: …`). */
  cellDone(cell: string, label: string, final: CellResult, line?: string): void {
    const noisy = Boolean(final.stats?.noisy && !final.stats.paired);
    const figure = final.status === 'ok' ? (final.stats?.rps.figure ?? final.load?.requestsPerSec.mean ?? null) : null;
    this.sink.emit(
      {
        event: 'cell-done',
        cell,
        label,
        status: final.status,
        figure,
        interval: final.stats?.rps.kind ?? null,
        trials: final.stats?.trials ?? (final.load ? 1 : 0),
        noisy,
        reason:
          final.status === 'ok' ? null : (final.failure?.reason ?? final.verification?.reasons.join('; ') ?? null),
        ...this.timing(),
      },
      line,
    );
  }

  /** One open-loop step of a capacity search: a `capacity-step` event, shown as `line`. */
  capacityStep(cell: string, label: string, s: CapacityStep, line: string): void {
    this.sink.emit(
      {
        event: 'capacity-step',
        cell,
        label,
        search: s.search,
        rate: s.rate,
        achievedRps: s.achievedRps,
        p50Ms: s.latencyMs.p50,
        p99Ms: s.latencyMs.p99,
        pass: s.pass,
        clientBound: s.clientBound,
        reason: s.reason,
        ...this.timing(),
      },
      line,
    );
  }

  /** A step that is not a window (a group's servers start, PostgreSQL) with the same timing suffix. */
  step(text: string): void {
    this.sink.emit({ event: 'step', text, ...this.timing() }, `${text}${this.suffix()}`);
  }

  /** A plain line that is no event (notes, warnings, a build's output). */
  note(text: string): void {
    this.sink.note(text);
  }

  /** Finishes an open live line and stops its timer (end of the run, or an abort mid-window); see ProgressSink.close. */
  close(newline = true): void {
    this.current = null;
    this.sink.close(newline);
  }
}
