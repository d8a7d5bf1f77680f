/**
 * Progress with elapsed time and an ETA. The plan is a list of phases of a few kinds (`PhaseKind`:
 * builds, PostgreSQL, server starts with their contract check and burst, warm-ups, solo windows,
 * interleaved rounds, restarts as a further server process, their warm-ups, the fidelity check),
 * each with an estimated cost in ms. Each phase's time is measured on the progress clock from the
 * end of the phase before it, so all wall time lands in some phase. The ETA is the plan's
 * remaining cost of each kind times that kind's measured ÷ planned time so far: the first phase of
 * a kind replaces the estimate (the prior) for the rest of that kind. A kind not yet seen takes the
 * ratio of every kind seen so far (builds and PostgreSQL apart: they only stand for themselves),
 * and the plan as is before any evidence. A phase under way counts down from its start.
 *
 * Why per kind: one global scale (elapsed ÷ done of the plan) mixed fixed-length load windows with
 * host-bound server starts, and a fresh 2-core machine ran 49 min 21 s against a start ETA of 33 min
 * 52 s. Replayed on the phase times of the committed quick bake-off, on those times × 1.6 and with
 * only its load windows × 1.6, every ETA from the end of the first group on is within ±15% of the
 * time that was left (test/unit/eta-replay.test.ts).
 *
 * `Progress` turns the scheduler's steps into events (their schema: scheduler/progress-sink.ts)
 * with a plain-text line each, and hands both to a ProgressSink, which draws them (plain lines,
 * a live line on a TTY, NDJSON, or nothing). `record()` gives the phases as they ran, for meta.json.
 */
import type { WindowTick } from '../drivers/driver-types.ts';
import type { CapacityStep, CellResult, PhaseKind, RunTimings } from '../store/results.ts';
import { fmtDuration } from '../core/format.ts';
import { lineSink, type ProgressSink, type RunStartEvent, type WindowRef } from './progress-sink.ts';

export type { PhaseKind, RunTimings } from '../store/results.ts';

/** Estimated cost of the steps the scheduler does, ms (the ETA's prior). */
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

/** Kinds whose measured time replaces only their own estimate (not evidence of the host's speed). */
const OWN_ONLY: ReadonlySet<PhaseKind> = new Set(['build', 'database']);

/** Bounds of a kind's measured ÷ planned ratio. */
const RATIO_MIN = 0.05;
const RATIO_MAX = 20;

/** Per kind: ms planned, ms of the plan closed (done or skipped), ms of the plan done and ms they took. */
interface KindLedger {
  planned: number;
  closed: number;
  done: number;
  took: number;
}

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
  private readonly kinds = new Map<PhaseKind, KindLedger>();
  /** Phases as they ran, consecutive ones of a kind merged: [kind, count, planned ms, took ms or null = skipped]. */
  private readonly phases: RunTimings['phases'] = [];
  private startEta: number | null = null;
  private mark: number;
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
    this.mark = this.t0;
  }

  private ledger(kind: PhaseKind): KindLedger {
    let l = this.kinds.get(kind);
    if (!l) {
      l = { planned: 0, closed: 0, done: 0, took: 0 };
      this.kinds.set(kind, l);
    }
    return l;
  }

  private logPhase(kind: PhaseKind, plannedMs: number, took: number | null): void {
    const last = this.phases.at(-1);
    if (last && last[0] === kind && (last[3] === null) === (took === null)) {
      last[1]++;
      last[2] += plannedMs;
      if (took !== null) last[3] = (last[3] ?? 0) + took;
    } else this.phases.push([kind, 1, plannedMs, took]);
  }

  /** Adds planned work of `kind` (ms); `windows`: measured windows it contains. */
  plan(kind: PhaseKind, ms: number, windows = 0): void {
    this.ledger(kind).planned += ms;
    this.windowsTotal += windows;
  }

  /**
   * A phase of `kind` planned at `plannedMs` ended now: it took the time since the previous phase
   * ended (or the start), and that time is evidence for the kind's remaining phases.
   */
  done(kind: PhaseKind, plannedMs: number): void {
    const t = this.now();
    const took = t - this.mark;
    this.mark = t;
    const l = this.ledger(kind);
    l.closed += plannedMs;
    l.done += plannedMs;
    l.took += took;
    this.logPhase(kind, plannedMs, took);
  }

  /** Planned work of `kind` (ms) that will not run (a cell that left early, rounds not interleaved): out of the plan, no evidence. */
  skip(kind: PhaseKind, plannedMs: number): void {
    if (!(plannedMs > 0)) return;
    this.ledger(kind).closed += plannedMs;
    this.logPhase(kind, plannedMs, null);
  }

  /** Ms of the plan closed so far per kind (a snapshot for `settle`). */
  closedMs(): Map<PhaseKind, number> {
    return new Map([...this.kinds].map(([k, l]) => [k, l.closed]));
  }

  /**
   * Skips what of `parts` (ms planned per kind for a part of the run, e.g. a group) was neither done
   * nor skipped since `since` (a `closedMs()` snapshot): the phases that did not run.
   */
  settle(parts: Partial<Record<PhaseKind, number>>, since: Map<PhaseKind, number>): void {
    for (const [k, ms] of Object.entries(parts) as [PhaseKind, number][])
      this.skip(k, ms - (this.ledger(k).closed - (since.get(k) ?? 0)));
  }

  /**
   * Runs a phase of `kind` planned at `plannedMs` (already in the plan) and marks it done when `f`
   * resolves (`done`). Errors of `f` propagate (the phase then stays planned).
   */
  async timed<T>(kind: PhaseKind, plannedMs: number, f: () => Promise<T>): Promise<T> {
    const r = await f();
    this.done(kind, plannedMs);
    return r;
  }

  /** Elapsed ms since the start. */
  elapsed(): number {
    return this.now() - this.t0;
  }

  /** Measured ÷ planned ms of `kind`, or null before its first phase (within RATIO_MIN–RATIO_MAX). */
  private ratio(l: KindLedger | undefined): number | null {
    return l && l.done > 0 ? Math.max(RATIO_MIN, Math.min(RATIO_MAX, l.took / l.done)) : null;
  }

  /**
   * Remaining ms: per kind, its remaining plan times its measured ÷ planned ratio (a kind not yet
   * seen: the ratio of all kinds seen but builds and PostgreSQL, else 1), less the time since the
   * last phase ended (the phase under way), never below 0.
   */
  eta(): number {
    let seenDone = 0;
    let seenTook = 0;
    for (const [k, l] of this.kinds)
      if (!OWN_ONLY.has(k)) {
        seenDone += l.done;
        seenTook += l.took;
      }
    const all = this.ratio({ planned: 0, closed: 0, done: seenDone, took: seenTook }) ?? 1;
    let left = 0;
    for (const [k, l] of this.kinds) {
      const rest = Math.max(0, l.planned - l.closed);
      if (rest > 0) left += rest * (this.ratio(l) ?? (OWN_ONLY.has(k) ? 1 : all));
    }
    return Math.max(0, left - (this.now() - this.mark));
  }

  /** The ETA at the run's start (`runStart`), ms, or null before it. */
  startEtaMs(): number | null {
    return this.startEta;
  }

  /** The phases as they ran (ms rounded), with the start ETA: meta.json `timings`, replayable (test/unit/eta-replay.test.ts). */
  record(): RunTimings {
    return {
      startEtaMs: Math.round(this.startEta ?? 0),
      phases: this.phases.map(([k, n, p, t]) => [k, n, Math.round(p), t === null ? null : Math.round(t)]),
    };
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
    this.startEta = this.eta();
    this.sink.emit({ event: 'run-start', ...e, windows: this.windowsTotal, etaMs: Math.round(this.startEta) }, text);
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
   * live line on a TTY); `w` is the window, or just a label (then `plannedMs` gives its seconds
   * shown). The caller marks the phase `done` when it ends.
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
