/**
 * The stored result types, the schema of every result file: a run's `meta.json` (RunMeta), its
 * cell and trial files (CellResult with its statistics, resources and capacity searches), the
 * footprint probes; and what a run records about itself when it starts (its id `newRunId`, the
 * machine, the git commit, the contenders' resolved packages). The files' writes and validated
 * reads are in store/result-files.ts, the capacity records in store/capacity-record.ts.
 */
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { type CpuIdentity, cpuIdentity } from '../core/machine.ts';
import { pidAlive } from '../core/pid.ts';
import type { CpuPlan } from '../lifecycle/cpu-plan.ts';
import type { ResourceUse } from '../lifecycle/sampler.ts';
import type { LoadOutput } from '../drivers/driver-types.ts';
import type { DriverName, Profile } from '../core/profiles.ts';
import type { Verdict } from '../contract/verify.ts';
import type { CapacitySearch, CapacitySummary } from './capacity-record.ts';

export type {
  CapacityBound,
  CapacitySearch,
  CapacityStep,
  CapacitySummary,
  CapacityVerdict,
} from './capacity-record.ts';

export const SCHEMA_VERSION = 1 as const;

/** The driver cross-check as older runs' meta.json recorded it (newer runs record `fidelity`, scheduler/fidelity.ts). Rates in requests/s. */
export interface DriverCrossCheck {
  status: 'ok' | 'skipped' | 'error';
  /** Why it was skipped or failed. */
  reason: string | null;
  tool: 'wrk';
  toolVersion: string | null;
  /** The cell whose load was repeated: the run's fastest ok autocannon cell. */
  cell: { cellId: string; label: string; scenario: string; profile: string; nodeMajor: number; rps: number };
  connections: number;
  runS: number;
  /** Each measured run in the order it ran, requests/s. */
  runs: { driver: Exclude<DriverName, 'k6'>; rps: number; errors: number }[];
  /** median(autocannon) / median(wrk); null unless ok. */
  ratio: number | null;
  /** ratio < DRIVER_BOUND_RATIO. */
  driverBound: boolean | null;
  /** One sentence for the leaderboard. */
  summary: string;
}

/**
 * The driver fidelity check of a run as meta.json records it (`RunMeta.fidelity`, written by
 * scheduler/fidelity.ts). On the run's fastest ok connection-profile cell, a fresh server got
 * the same request over the same connections, at the profile's pipelining, from each driver of
 * the run, autocannon and the native driver (wrk), in ABBA order (A B … B A), `runS` seconds
 * each, every driver pinned to the client cores with `threads` threads. A driver's `fidelity` =
 * the median of its requests/s ÷ the best native driver's median (1 = as fast as the native
 * driver; below 0.95 the driver is the bottleneck at that load). Rates in requests/s.
 */
export interface DriverFidelity {
  /** `skipped`: no native driver installed (`reason` gives the install command); `error`: a run failed. */
  status: 'ok' | 'skipped' | 'error';
  reason: string | null;
  /** The cell whose load was repeated. */
  cell: { cellId: string; label: string; scenario: string; profile: string; nodeMajor: number; rps: number };
  connections: number;
  /** Requests in flight per connection (the profile's pipelining); absent in runs before it was recorded (= 1). */
  pipelining?: number;
  /** Seconds per measured run. */
  runS: number;
  /** Client threads each driver used (k6 schedules its own). */
  threads: number;
  /** The native driver every fidelity is divided by (null when none ran). */
  reference: 'wrk' | null;
  /** Per driver: its version, its runs' requests/s in the order they ran, and its fidelity (null unless ok). */
  drivers: { driver: DriverName; version: string | null; rps: number[]; fidelity: number | null }[];
  /** Every run in the order it ran (errors = errors + timeouts + non-2xx). */
  runs: { driver: DriverName; rps: number; errors: number }[];
  /** One sentence for the report header. */
  summary: string;
}

/**
 * Outcome of one cell. Only `ok` cells are ranked. `skipped`: a tool or service it needs is
 * missing (k6, PostgreSQL); `unsupported`: the contender's engines exclude the Node version;
 * `load-failed`: it passed verification but failed under load (over 0.1% failed requests, or a
 * wrong body, summed over its trials: scheduler/aggregate.ts); `uncontained`: its server escaped
 * its core, its pause or its CPU accounting (scheduler/containment.ts).
 */
export type CellStatus =
  | 'ok'
  | 'verify-failed'
  | 'load-failed'
  | 'build-failed'
  | 'start-failed'
  | 'crashed'
  | 'uncontained'
  | 'error'
  | 'skipped'
  | 'unsupported';

/** One cell: contender(+variant) × scenario × driver × profile × Node version. Times in ms. */
export interface CellResult {
  schemaVersion: typeof SCHEMA_VERSION;
  runId: string;
  cellId: string;
  contender: string;
  variant: string | null;
  /** `express` or `nestjs-fastify-undici +interceptor`. */
  label: string;
  displayName: string;
  tags: Record<string, string>;
  scenario: string;
  driver: DriverName;
  profile: string;
  node: { version: string; major: number };
  status: CellStatus;
  verification: Verdict | null;
  startupMs: number | null;
  /** The harness's own time for this cell outside the load runs, ms. */
  overheadMs: { start: number; verify: number; teardown: number; total: number } | null;
  /** The measurement; `profile` is the effective load shape (after --duration/--vus/--rate; k6-rate's resolved rate). */
  load: (LoadOutput & { profile: Profile }) | null;
  /** `local`: started by the harness; `external`: benched at `--url` (no lifecycle, no server pinning). */
  target: { kind: 'local' | 'external'; url: string | null };
  failure: { reason: string; logTail: string } | null;
  /** Over the cell's trials (one per round, `--rounds N`): its figure and interval (analysis/stats.ts `trialStats`). */
  stats?: CellStats;
  /** Resource use over the measured window (sampled from /proc at ≥ 4 Hz). */
  resources?: CellResources;
  /** A trial file: its round (1-based) in the run's interleaved rounds; absent in cell files. */
  round?: number;
  /** Services that stopped answering during a measured window of this trial or cell (e.g. the database). */
  servicesLost?: string[];
  /**
   * A cell file: the requests that failed (errors, timeouts, non-2xx) in its interleaved rounds,
   * where its server was paused for the other servers' slices, out of those rounds' requests.
   * They never fail the cell (scheduler/aggregate.ts `loadFailure`); absent when there were none.
   */
  pausedFailures?: { failed: number; requests: number };
  /**
   * How quiet the machine was over the cell's measured windows (analysis/quiet.ts `quietOf`): CPU
   * used by processes outside the harness, as a share of one core per window (lifecycle/foreign-cpu.ts);
   * `disturbed` windows were above `limit`. Absent in cells measured before it was read.
   */
  quiet?: { limit: number; windows: number; read: number; disturbed: number; maxShare: number | null };
  /** A trial of the `capacity` profile: its closed-loop peak and its open-loop search (scheduler/capacity-round.ts). */
  capacitySearch?: CapacitySearch;
  /**
   * A trial of an interleaved round (scheduler/interleave.ts): the server's efficiency beside the
   * group's other servers. Its `load` keeps the requests, errors and body checks; its latency is
   * not the server's (a paused driver's requests wait) and is never read.
   */
  paired?: PairedWindow;
  /** A cell of the `capacity` profile: its searches summarised (scheduler/capacity-round.ts `summarizeCapacity`). */
  capacity?: CapacitySummary;
  /** The concurrency burst before measuring (contract/burst.ts): requests sent, failures, ms. */
  burst?: { requests: number; failed: number; ms: number };
  /** A client-bound k6 cell: the same server measured by wrk at the same concurrency (`NativeCheck`); absent unless measured. */
  nativeCheck?: NativeCheck;
  /** Every server process the cell started, in order (the first, then each restart): its start-up and memory. */
  starts?: ServerStart[];
  cpuPlan: CpuPlan;
  logFile: string | null;
  startedAt: string;
  finishedAt: string;
}

/**
 * A server-bound figure beside a client-bound k6 cell (report/native-figure.ts reads it for the
 * claims): the cell's server driven by wrk at the k6 shape's concurrency (constant VUs with no
 * think time = that many closed-loop connections), one window per round. Requests/s per window.
 */
export interface NativeCheck {
  driver: 'wrk';
  connections: number;
  /** Each window's requests/s, in the order they ran, and its round (1-based; paired with the other cells' checks). */
  trialRps: number[];
  rounds: number[];
  /** Whether wrk's own windows were client-bound (lifecycle/sampler.ts `clientBoundRule`). */
  clientBound: boolean;
  /** How wrk stood in for the k6 shape, e.g. "wrk at 1000 connections (1000 constant VUs, no think time)". */
  shape: string;
}

/**
 * One server process of a cell (scheduler/group.ts): `startupMs` from spawn to the first 200 on
 * GET /ping; RSS of all its processes (lifecycle/memory.ts) right after that answer
 * (`idleRssBytes`) and just before it was stopped, after its last load window
 * (`afterLoadRssBytes`; null when it served no measured window or could not be read).
 */
export interface ServerStart {
  /** 1-based server process of the cell (interleaved rounds restart servers: profiles.ts `instances`). */
  process: number;
  startupMs: number;
  idleRssBytes: number | null;
  afterLoadRssBytes: number | null;
}

/**
 * Statistics over a cell's trials (analysis/stats.ts computes them). Rates in requests/s,
 * latencies in ms. One estimator per figure: `rps.figure` and `rps.interval` come from the same
 * statistic over the same trials (the geometric mean; a t-interval on the logs with ≥ 5 trials,
 * the range of the trials with 2–4, none with 1).
 */
export interface CellStats {
  /** How many trials the cell has (a trial = one measured window of one round; ≤ the run's rounds). */
  trials: number;
  /** Each trial's requests/s (requests completed ÷ window seconds), in the order they ran. */
  trialRps: number[];
  /** The round (1-based) of each trial, same order: trials of one run with the same round were measured back to back. */
  rounds: number[];
  rps: {
    figure: number;
    /** [low, high]; null when `kind` is 'none'. */
    interval: [number, number] | null;
    /** 'ci95': a 95% confidence interval; 'range': min–max of 2–4 trials (never called an interval); 'none': one trial. */
    kind: 'ci95' | 'range' | 'none';
    /** How figure and interval are computed, for the reader. */
    estimator: string;
  };
  /** Latency percentiles from the trials' merged HDR histograms, ms (null when the driver gives none). */
  latencyMs: { p50: number; p75: number; p90: number; p95: number; p99: number; p999: number; max: number } | null;
  /** (max − min) / figure of the trials' requests/s. */
  spread: number;
  /** Trials disagree by more than the noise threshold: a measurement note, not a contender issue. */
  noisy: boolean;
  /**
   * The interleaved rounds (scheduler/interleave.ts), when the profile has them: each round's
   * efficiency (requests per server CPU-second) and its round number. The table model ranks on
   * these; `trialRps`/`rps` stay the solo windows' requests/s. `instances[i]`: the server
   * process (1-based) of round `rounds[i]`, when the profile restarts servers between blocks of
   * rounds (profiles.ts `InterleaveShape.instances`); absent = one process for all rounds.
   */
  paired?: { rounds: number[]; efficiency: number[]; instances?: number[] };
}

/**
 * One server's share of an interleaved round (profiles.ts `InterleaveShape`). Efficiency in
 * requests per server CPU-second; times in seconds.
 */
export interface PairedWindow {
  /** (requests + connections) ÷ serverCpuS: the requests in flight when the driver stopped were served too. */
  efficiency: number;
  /** Requests the driver completed in the window. */
  requests: number;
  /** CPU-seconds the server's processes used from the round's start until its drivers ended and it drained. */
  serverCpuS: number;
  /** Seconds the server's driver ran unpaused. */
  activeS: number;
  /** Servers interleaved in the round (this one included). */
  servers: number;
  sliceMs: number;
  /** The server process (1-based) of the cell that ran this round (profiles.ts `InterleaveShape.instances`); absent = 1. */
  instance?: number;
  /** CPU used by processes outside the harness over the round, share of one core (lifecycle/foreign-cpu.ts); null: not read. */
  foreignShare?: number | null;
}

/** Resource use of one cell's measured window (lifecycle/sampler.ts). */
export type CellResources = ResourceUse;

/**
 * A kind of phase of a run, for the ETA (scheduler/progress.ts): a build, PostgreSQL's start, a
 * server's start with its contract check and burst, its warm-up, a solo window, an interleaved
 * round, a restart as a further server process, that process's warm-up, the fidelity check.
 */
export type PhaseKind =
  | 'build'
  | 'database'
  | 'server'
  | 'warmup'
  | 'window'
  | 'round'
  | 'restart'
  | 'rewarm'
  | 'fidelity';

/**
 * The phases of a run as they ran (scheduler/progress.ts `record`), in order, consecutive phases of
 * a kind merged: [kind, phases, planned ms, ms they took, or null: planned but skipped]; with the
 * ETA printed at the start, ms.
 */
export interface RunTimings {
  startEtaMs: number;
  phases: [PhaseKind, number, number, number | null][];
}

/** Run metadata (meta.json). Memory in bytes. */
export interface RunMeta {
  schemaVersion: typeof SCHEMA_VERSION;
  runId: string;
  startedAt: string;
  finishedAt: string | null;
  /** `complete`, `interrupted` (Ctrl-C / SIGTERM), `running`, or `abandoned` (left running by a harness that died; store/runs.ts). */
  state: 'running' | 'complete' | 'interrupted' | 'abandoned';
  /** PID of the harness process that writes the run (a `running` run whose pid is dead is abandoned). */
  harnessPid?: number;
  /** Start time of that pid (core/pid.ts `pidStartTime`): a `running` run whose pid now has another start time is abandoned. */
  harnessPidStart?: string;
  /** The measurement design of the run (scheduler/): groups, rounds, windows; absent in older runs. */
  design?: {
    /** Baseline contender of each scenario, measured in the same run. */
    baselines: Record<string, string>;
    /** Concurrency burst requests per cell before measuring (contract/burst.ts). */
    burstRequests: number;
    /** The driver the run's profile asked for when it started (`native`: wrk, else autocannon as a fallback); absent in older runs. */
    driverAsked?: string;
    /** Wall time of the run, ms, and the harness's own overhead per cell (median, max), ms. */
    wallMs?: number;
    overheadMs?: { median: number; max: number; cells: number };
  };
  command: string[];
  profile: string;
  /** `cpu`: the CPU identity that matches results to a machine (core/machine.ts); absent in older runs and off Linux. */
  machine: { cpuModel: string; cores: number; memoryBytes: number; os: string; arch: string; cpu?: CpuIdentity };
  node: { version: string; execPath: string };
  git: { commit: string | null; dirty: boolean | null };
  cpuPlan: CpuPlan;
  upstreamDelayMs: number;
  /** PostgreSQL used by the run (null when no cell needed one). */
  database: {
    external: boolean;
    version: string;
    settings: Record<string, string>;
    seed: { rows: number; checksum: string } | null;
    error: string | null;
  } | null;
  /** `count`: the rounds of the run (one trial per cell and round; stored under `trials` in every run so far), and the seed of the per-round shuffle. */
  trials: { count: number; shuffleSeed: number };
  /** Node runtimes the contenders ran on. */
  nodes: { major: number; version: string }[];
  /** Per contender: resolved versions of its direct dependencies, read from package-lock.json. */
  packages: Record<string, Record<string, string>>;
  /** autocannon vs wrk on the run's fastest cell (absent when the profile has no cross-check, or in runs before it existed). */
  driverCrossCheck?: DriverCrossCheck /** Each driver's requests/s relative to the native driver on the run's fastest cell (scheduler/fidelity.ts); absent when off. */;
  fidelity?: DriverFidelity;
  /** The run's phases and their times, for replaying its ETA (absent in older runs). */
  timings?: RunTimings;
  /** Install sizes per contender and, with `--footprint`, the footprint probes (scheduler/footprint-probes.ts). */
  footprint?: FootprintMeta;
}

/**
 * A run's footprint record. `install`: per contender folder name, the packages its dependencies
 * pull in and their bytes on disk (store/install-size.ts). `probes`: the opt-in measurements of
 * `bench --footprint` (scheduler/footprint-probes.ts), keyed by label (`express`, `loopback4 +x`,
 * `node (floor)`). Times in ms, memory in bytes, CPU in µs per request.
 */
export interface FootprintMeta {
  install?: Record<string, { packages: number; bytes: number; unresolved: string[] }>;
  probes?: FootprintProbe[];
}

/** The `--footprint` measurements of one contender (scheduler/footprint-probes.ts). */
export interface FootprintProbe {
  label: string;
  contender: string;
  variant: string | null;
  /** Whether the page cache held the contender's files at its first start: evicted before it, or warm. */
  pageCache: 'evicted' | 'warm';
  /** Start-up of the first start (after the eviction, when `pageCache` is evicted), ms. */
  firstStartMs: number | null;
  /** Start-up of each repeated start (page cache warm), ms. */
  repeatStartsMs: number[];
  /** Idle RSS after each repeated start's readiness, bytes. */
  idleRssBytes: number[];
  /** Per repeated start: the first request of `scenario` after readiness, ms (null when it failed). */
  firstResponseMs: number[];
  scenario: string | null;
  /** The light open-loop rate: requests/s offered, seconds, requests answered 2xx, server CPU µs per request. */
  lightRate: { rate: number; durationS: number; ok: number; failed: number; cpuUsPerRequest: number | null } | null;
  /** Why the probe failed (start failure, no scenario), or null. */
  error: string | null;
}

/**
 * The state a reader should show: a `running` run whose harness is gone (no pid recorded, the pid
 * dead or a zombie, or the pid now another process: core/pid.ts `pidAlive`) is `abandoned`.
 */
export function effectiveState(meta: Pick<RunMeta, 'state' | 'harnessPid' | 'harnessPidStart'>): RunMeta['state'] {
  if (meta.state !== 'running') return meta.state;
  return meta.harnessPid !== undefined && pidAlive(meta.harnessPid, meta.harnessPidStart) ? 'running' : 'abandoned';
}

/** A fresh, unique run id: UTC time plus a random suffix, safe as a folder name. */
export function newRunId(now = new Date()): string {
  return `${now
    .toISOString()
    .replace(/[:.]/g, '-')
    .replace(/-\d{3}Z$/, 'Z')}-${randomBytes(2).toString('hex')}`;
}

/** Resolved versions of each contender's direct dependencies, from the lockfile (npm workspaces layout). */
export function resolvedPackages(rootDir: string, contenderDirs: string[]): Record<string, Record<string, string>> {
  let lock: { packages?: Record<string, { version?: string; dependencies?: Record<string, string> }> } = {};
  try {
    lock = JSON.parse(fs.readFileSync(path.join(rootDir, 'package-lock.json'), 'utf8'));
  } catch {
    /* no lockfile */
  }
  const pkgs = lock.packages ?? {};
  const out: Record<string, Record<string, string>> = {};
  for (const dir of contenderDirs) {
    const rel = path.relative(rootDir, dir).split(path.sep).join('/');
    let deps: Record<string, string> = pkgs[rel]?.dependencies ?? {};
    if (!pkgs[rel]) {
      try {
        deps = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')).dependencies ?? {};
      } catch {
        deps = {};
      }
    }
    out[path.basename(dir)] = Object.fromEntries(
      Object.keys(deps).map((d) => [
        d,
        pkgs[`${rel}/node_modules/${d}`]?.version ?? pkgs[`node_modules/${d}`]?.version ?? `unresolved (${deps[d]})`,
      ]),
    );
  }
  return out;
}

/** The git commit of `rootDir` and whether the tree has uncommitted changes (null when not a git checkout). */
export function gitState(rootDir: string): { commit: string | null; dirty: boolean | null } {
  try {
    const commit = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: rootDir, stdio: ['ignore', 'pipe', 'ignore'] })
      .toString()
      .trim();
    const dirty =
      execFileSync('git', ['status', '--porcelain', '--', '.', ':!results'], {
        cwd: rootDir,
        stdio: ['ignore', 'pipe', 'ignore'],
      })
        .toString()
        .trim() !== '';
    return { commit, dirty };
  } catch {
    return { commit: null, dirty: null };
  }
}

/** Machine facts for the run metadata and reference records, with the CPU identity (core/machine.ts `cpuIdentity`) when Linux reports one. */
export function machineInfo(): RunMeta['machine'] {
  const cpus = os.cpus();
  const cpu = cpuIdentity();
  return {
    cpuModel: cpus[0]?.model?.trim() ?? 'unknown',
    cores: os.availableParallelism(),
    memoryBytes: os.totalmem(),
    os: `${os.type()} ${os.release()}`,
    arch: os.arch(),
    ...(cpu ? { cpu } : {}),
  };
}
