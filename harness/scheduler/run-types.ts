/**
 * The options and the summary of a run (scheduler/run.ts `runPlan`): what the CLI (cli/bench.ts)
 * or a test asks of a run, and what it gets back. Times in ms unless the name says otherwise.
 */
import type { CellResult } from '../store/results.ts';
import type { CellSpec } from './plan.ts';
import type { ProfiledServer } from './profiled.ts';
import type { ProgressSink } from './progress-sink.ts';
import type { RunDeps } from './scheduler-types.ts';

/** What `runPlan` runs, where it writes and with which dependencies. */
export interface RunOptions {
  cells: CellSpec[];
  profileName: string;
  resultsDir: string;
  scenariosDir: string;
  /** The fixed server port asked for (`--port`), checked against the plan by `runPlan`; `deps.lifecycle` applies it. */
  port?: number;
  /** Bench a server that is already running here (`--url`; `deps.lifecycle` is the external one). */
  externalUrl?: string;
  /** The upstream mock's delay per response, ms (recorded in meta.json; `deps.services` applies it). */
  upstreamDelayMs: number;
  /**
   * Rounds: solo measured windows per cell, one trial each; default: core/profiles.ts
   * `defaultRounds` (the profile's `rounds`, plus its interleaved rounds when this run cannot
   * interleave them: a driver that cannot pause, an external target).
   */
  rounds?: number;
  /** Seed of the per-round shuffle (recorded in meta.json); random when unset. */
  shuffleSeed?: number;
  /** Seconds of the driver fidelity check (0 = off); default: the profile's `fidelityS`. */
  fidelityS?: number;
  /** Baseline contender of each scenario (recorded in meta.design). */
  baselines?: Record<string, string>;
  /** Concurrency burst requests per cell (default 2,000; 0 = off). */
  burstRequests?: number;
  command: string[];
  signal: AbortSignal;
  /** 'bench' (default) or 'verify' (start + contract check only; nothing written to results/). */
  mode?: 'bench' | 'verify';
  /** What the run asks of the machine: scheduler/real-deps.ts `realDeps` (CLI), fakes (tests). */
  deps: RunDeps;
  /** Progress and log lines go here as plain lines; ignored with `progress`. Neither: stderr, a live line per window on a TTY. */
  log?: (line: string) => void;
  /** Where progress events and notes go (scheduler/progress-sink.ts); default: plain lines through `log`. */
  progress?: ProgressSink;
  /**
   * `--profile-cpu` (`just why`): after each group's ranked windows, the same cells once more, one
   * window each, under V8's CPU profiler (scheduler/profiled.ts), written to a run of its own under
   * `<resultsDir>/why/` (store/why-store.ts); `intervalUs` is V8's sampling interval. Bench mode only.
   */
  cpuProfile?: { intervalUs: number };
  /** `--footprint`: after the groups, the footprint probes (scheduler/footprint-probes.ts), recorded in meta.json. Bench mode, local servers only. */
  footprint?: { repeats?: number; rate?: number; durationS?: number };
}

/** The profiled windows of a `cpuProfile` run: their own run folder, cells and servers (profiled.ts). */
export interface ProfiledRun {
  runId: string;
  runDir: string;
  cells: CellResult[];
  servers: Map<string, ProfiledServer>;
}

/** What a run gave: its id, folder, final cells, whether it was interrupted, its wall time and overhead. */
export interface RunSummary {
  runId: string;
  runDir: string;
  cells: CellResult[];
  interrupted: boolean;
  wallMs: number;
  /** Harness overhead per cell (start + verify + burst + teardown), ms. */
  overheadMs: { median: number; max: number; cells: number } | null;
  /** With `cpuProfile`: the profiled windows' run (never part of `cells`). */
  profiled?: ProfiledRun;
}
