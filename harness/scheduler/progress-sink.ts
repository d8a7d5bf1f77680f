/**
 * Where the progress of `bench` / `bench-all` goes, in the spirit of hyperfine and k6. The
 * scheduler (scheduler/progress.ts) emits *events*; a sink renders them:
 *
 * - human, not a TTY (CI, pipes): one plain line per step and per measured window on stderr, no `\r`.
 * - human on a TTY (stderr): the same, but a measured window is one *live* line, redrawn with
 *   `\r` + clear-line at most 4×/s: the window's elapsed and remaining seconds and the current
 *   requests/s where the driver reports it live (autocannon; its first sample, sent when the load
 *   starts, resets the window's clock), else the cell's previous window's requests/s labelled
 *   "last window", else none. It is finished with a newline when the window ends.
 * - `--json`: one JSON object per line (NDJSON) on stdout per event; notes stay plain text on stderr.
 * - `--quiet`: nothing (notes included); errors still reach stderr through the CLI.
 *
 * The events (times in ms, rates in requests/s; `elapsedMs`/`etaMs` are the run's elapsed time and
 * its ETA when the event happened; `cell` is the cell id, `label` its human name):
 *
 *   {"event":"run-start","runId","mode":"bench","cells","groups","windows","rounds","windowS","profile","driver","seed","etaMs"}
 *   {"event":"build","contender","command","elapsedMs","etaMs"}                 a build begins
 *   {"event":"step","text","elapsedMs","etaMs"}                                  e.g. a group's servers start
 *   {"event":"window-start","window","windows","cell","label","round","rounds","durationS","elapsedMs","etaMs"}
 *   {"event":"window-end","window","windows","cell","label","round","rounds","status","requestsPerSec","p99Ms","errors","elapsedMs","etaMs"}
 *   {"event":"cell-done","cell","label","status","figure","interval","trials","noisy","reason","elapsedMs","etaMs"}
 *   {"event":"capacity-step","cell","label","search","rate","achievedRps","p50Ms","p99Ms","pass","clientBound","reason","elapsedMs","etaMs"}
 *                                                                                one open-loop step of a capacity search
 *   {"event":"run-end","runId","exitCode","interrupted","cells","wallMs","error"?}
 *
 * `window` counts measured windows 1…`windows`; `round`/`rounds` are the cell's trial; `status` of a
 * window is ok, error or crashed (`requestsPerSec`, `p99Ms`, `errors` are null unless ok); `figure`
 * of a cell is its requests/s (the geometric mean of its trials; for a capacity cell its sustainable rate) or null, `interval` its kind (ci95, range,
 * none) or null; `reason` why a cell is not ok, else null. run-end comes from the CLI with its exit code.
 */
import { terminalSafe } from '../core/terminal-text.ts';
import { fmtDuration, fmtInt } from '../core/format.ts';
import type { WindowTick } from '../drivers/driver-types.ts';

/** Run time and ETA of the run when an event happened, ms. */
interface Timing {
  elapsedMs: number;
  etaMs: number;
}

/** The plan is complete and the run begins (its folder exists). */
export interface RunStartEvent {
  event: 'run-start';
  runId: string;
  mode: 'bench' | 'verify';
  cells: number;
  groups: number;
  /** Measured windows planned (cells × rounds). */
  windows: number;
  rounds: number;
  /** Seconds of one measured window (null in verify mode). */
  windowS: number | null;
  profile: string;
  driver: string;
  seed: number;
  etaMs: number;
}

/** A contender's build begins. */
export interface BuildEvent extends Timing {
  event: 'build';
  contender: string;
  command: string;
}

/** A step that is not a window: a group's servers start, verify and warm; PostgreSQL starts. */
export interface StepEvent extends Timing {
  event: 'step';
  text: string;
}

/** Which measured window: `round`/`rounds` null when the caller gave only a label. */
export interface WindowRef {
  window: number;
  windows: number;
  cell: string;
  label: string;
  round: number | null;
  rounds: number | null;
}

/** A measured window begins. */
export interface WindowStartEvent extends WindowRef, Timing {
  event: 'window-start';
  /** Planned seconds of load. */
  durationS: number;
}

/** A measured window ended: its figures when ok. */
export interface WindowEndEvent extends WindowRef, Timing {
  event: 'window-end';
  status: string;
  requestsPerSec: number | null;
  p99Ms: number | null;
  /** Errors + timeouts + non-2xx of the window. */
  errors: number | null;
}

/** A cell's final result (its trials aggregated), also for cells that never ran (build-failed, skipped). */
export interface CellDoneEvent extends Timing {
  event: 'cell-done';
  cell: string;
  label: string;
  status: string;
  figure: number | null;
  interval: 'ci95' | 'range' | 'none' | null;
  trials: number;
  noisy: boolean;
  reason: string | null;
}

/** One open-loop step of a capacity search (scheduler/capacity-round.ts): the offered rate and what it gave. */
export interface CapacityStepEvent extends Timing {
  event: 'capacity-step';
  cell: string;
  label: string;
  /** The search (= round), 1-based. */
  search: number;
  rate: number;
  achievedRps: number;
  p50Ms: number;
  p99Ms: number;
  /** The step held the SLO (p99, failures, delivered rate). */
  pass: boolean;
  clientBound: boolean;
  /** Why it failed ('' when it held). */
  reason: string;
}

/** The command is done: its exit code (emitted by the CLI, cli/bench.ts). */
export interface RunEndEvent {
  event: 'run-end';
  runId: string | null;
  exitCode: number;
  interrupted: boolean;
  cells: number;
  wallMs: number;
  /** The error that ended the command, when one did. */
  error?: string;
}

export type ProgressEvent =
  | RunStartEvent
  | BuildEvent
  | StepEvent
  | WindowStartEvent
  | WindowEndEvent
  | CellDoneEvent
  | CapacityStepEvent
  | RunEndEvent;

/** What a sink receives: events (with their plain-text rendering), notes and live samples. */
export interface ProgressSink {
  /** True when live samples are drawn (a TTY): drivers are asked for them only then. */
  readonly live: boolean;
  /** An event; `text` is its plain line for the human sinks (none: nothing shown). */
  emit(e: ProgressEvent, text?: string): void;
  /** A line that is no event (a note, a warning, a build's output): stderr unless quiet. */
  note(text: string): void;
  /** A live sample of the running measured window (ignored unless `live`). */
  tick(s: WindowTick): void;
  /**
   * Finishes an open live line (a newline; none with `newline` false, when other output already
   * ended it) and stops its timer; the sink stays usable. Idempotent.
   */
  close(newline?: boolean): void;
}

/** The part of a stream a sink writes to (process.stderr/stdout, or a fake in tests). */
export interface TextStream {
  write(chunk: string): unknown;
  isTTY?: boolean;
  /** Terminal width: the live line is cut to fit it. */
  columns?: number;
}

/** Options of createProgressSink. */
export interface SinkOptions {
  /** NDJSON events on `out` instead of the human lines. */
  json?: boolean;
  /** No progress and no notes (with `json`: the events only). */
  quiet?: boolean;
  /** Human lines, notes and the live line (default process.stderr). */
  err?: TextStream;
  /** The NDJSON events (default process.stdout). */
  out?: TextStream;
  /** Draw the live line (default: `err` is a TTY and TERM is not dumb). */
  live?: boolean;
  /** Clock, ms (default performance.now). */
  now?: () => number;
  /** Calls `fn` every `ms` until the returned stop function is called (default: an unref'd setInterval). */
  every?: (fn: () => void, ms: number) => () => void;
}

/** At most this often the live line is redrawn, ms (4×/s). */
export const REDRAW_MS = 250;
const CLEAR_LINE = '\r\x1b[2K';

/** The sink the options ask for; see the module comment. */
export function createProgressSink(o: SinkOptions = {}): ProgressSink {
  const err = o.err ?? process.stderr;
  const toErr = (l: string) => {
    err.write(`${terminalSafe(l)}\n`); // labels and reasons carry contender text
  };
  if (o.json) {
    const out = o.out ?? process.stdout;
    return {
      live: false,
      emit: (e) => {
        out.write(`${JSON.stringify(e)}\n`);
      },
      note: o.quiet ? () => {} : toErr,
      tick: () => {},
      close: () => {},
    };
  }
  if (o.quiet) return { live: false, emit: () => {}, note: () => {}, tick: () => {}, close: () => {} };
  const live = o.live ?? (Boolean(err.isTTY) && process.env.TERM !== 'dumb');
  return new TextSink(toErr, live ? { stream: err, now: o.now, every: o.every } : null);
}

/** Plain lines (no live line) through `log`: the scheduler's default with `RunOptions.log`, and tests. */
export function lineSink(log: (line: string) => void): ProgressSink {
  return new TextSink(log, null);
}

interface LiveWindow {
  ev: WindowStartEvent;
  /** When the window-start event came (the run's elapsed time and ETA count from here), ms. */
  t0: number;
  /** When the load started: t0 until the driver's first sample says otherwise, ms. */
  load0: number;
  /** True once a live sample came. */
  sampled: boolean;
  /** Latest live requests/s, or null before the first sample. */
  rps: number | null;
  lastDraw: number;
  stop: () => void;
}

/** The human sink: plain lines, plus the live window line on a TTY. */
class TextSink implements ProgressSink {
  readonly live: boolean;
  private readonly put: (line: string) => void;
  private readonly tty: { stream: TextStream; now: () => number; every: NonNullable<SinkOptions['every']> } | null;
  private current: LiveWindow | null = null;
  /** Requests/s of each cell's last measured window (the "last window" figure). */
  private readonly lastRps = new Map<string, number>();

  constructor(
    put: (line: string) => void,
    tty: { stream: TextStream; now?: () => number; every?: SinkOptions['every'] } | null,
  ) {
    this.put = put;
    this.live = tty !== null;
    this.tty = tty
      ? {
          stream: tty.stream,
          now: tty.now ?? (() => performance.now()),
          every:
            tty.every ??
            ((fn, ms) => {
              const t = setInterval(fn, ms);
              t.unref();
              return () => clearInterval(t);
            }),
        }
      : null;
  }

  emit(e: ProgressEvent, text?: string): void {
    if (e.event === 'window-start' && this.tty) {
      this.close();
      const t0 = this.tty.now();
      this.current = { ev: e, t0, load0: t0, sampled: false, rps: null, lastDraw: t0, stop: () => {} };
      this.draw(true);
      this.current.stop = this.tty.every(() => this.draw(false), REDRAW_MS);
      return;
    }
    if (e.event === 'window-end') {
      if (this.current && this.current.ev.cell === e.cell) {
        this.draw(true);
        this.close();
      }
      if (e.requestsPerSec !== null) this.lastRps.set(e.cell, e.requestsPerSec);
    }
    if (text !== undefined) this.line(text);
  }

  note(text: string): void {
    this.line(text);
  }

  tick(s: WindowTick): void {
    const w = this.current;
    if (!w || !this.tty) return;
    // The first sample fixes when the load started (the driver's own start-up is not the window).
    if (!w.sampled) w.load0 = this.tty.now() - s.elapsedS * 1000;
    w.sampled = true;
    if (s.requestsPerSec !== null) w.rps = s.requestsPerSec;
    this.draw(false);
  }

  close(newline = true): void {
    if (!this.current || !this.tty) return;
    this.current.stop();
    this.current = null;
    if (newline) this.tty.stream.write('\n');
  }

  private line(text: string): void {
    this.close();
    this.put(text);
  }

  /** Redraws the live line (unless drawn less than REDRAW_MS ago and not `force`d). */
  private draw(force: boolean): void {
    const w = this.current;
    if (!w || !this.tty) return;
    const t = this.tty.now();
    if (!force && t - w.lastDraw < REDRAW_MS) return;
    w.lastDraw = t;
    const ms = t - w.t0;
    const e = w.ev;
    const done = Math.max(0, Math.min((t - w.load0) / 1000, e.durationS));
    const last = this.lastRps.get(e.cell);
    const rate =
      w.rps !== null ? ` · ${fmtInt(w.rps)} req/s` : last !== undefined ? ` · last window ${fmtInt(last)} req/s` : '';
    const head = `[${e.window}/${e.windows}] ${e.label}${e.round !== null ? ` · round ${e.round}/${e.rounds}` : ''}`;
    const tail = ` · ${done.toFixed(1)}/${e.durationS} s, ${(e.durationS - done).toFixed(1)} s left${rate}   elapsed ${fmtDuration(e.elapsedMs + ms)}, ETA ${fmtDuration(Math.max(0, e.etaMs - ms))}`;
    this.tty.stream.write(`${CLEAR_LINE}${fit(terminalSafe(head), tail, this.tty.stream.columns)}`);
  }
}

/** `head + tail`, with `head` cut (…) so that the whole fits `columns - 1` (a wrapped line cannot be redrawn). */
function fit(head: string, tail: string, columns: number | undefined): string {
  const max = columns && columns > 0 ? columns - 1 : Number.POSITIVE_INFINITY;
  const len = (s: string) => [...s].length;
  if (len(head) + len(tail) <= max) return head + tail;
  const room = max - len(tail) - 1;
  if (room >= 8) return `${[...head].slice(0, room).join('')}…${tail}`;
  return [...(head + tail)].slice(0, Math.max(0, max)).join('');
}
