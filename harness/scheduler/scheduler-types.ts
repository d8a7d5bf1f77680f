/**
 * The scheduler's injected interfaces (hyperfine's Executor / MockExecutor idea): the real ones
 * start processes and look at the machine (scheduler/real-deps.ts builds them for the CLI), the
 * fakes in test/unit/scheduler.test.ts do not. The scheduler has no branch on which one it was given.
 *
 * - `RunDeps`: everything a run asks of the machine, in one object: the CPU plan, the load
 *   driver, the server `Lifecycle`, the run's services (upstream mock, database), the prechecks
 *   (Node engines, k6) and the driver fidelity probe.
 * - `Lifecycle`: build a contender once, start a server for a cell, and (through its
 *   `TargetHandle`) stop it. An external target (`--url`) is a Lifecycle whose start returns
 *   the given URL.
 * - `LoadDriver` (drivers/driver-types.ts): runs one window of load.
 * - `ResultSink`: where a group writes trials, cells and server logs.
 * Times in ms unless the name says otherwise.
 */
import type { ContractChecker, Verdict } from '../contract/verify.ts';
import type { Manifest } from '../core/manifest.ts';
import type { DriverName, LoadDriver } from '../drivers/driver-types.ts';
import type { OpenLoopDriver } from '../drivers/open-loop.ts';
import type { CpuPlan } from '../lifecycle/cpu-plan.ts';
import type { RunDatabase } from '../services/database.ts';
import type { Upstream } from '../services/upstream.ts';
import type { CellResult, DriverFidelity, NativeCheck, ServerStart } from '../store/results.ts';
import type { BuildResult } from '../lifecycle/build.ts';
import type { measureFidelity } from './fidelity.ts';
import type { Progress } from './progress.ts';
import type { CellSpec } from './plan.ts';

/** The load target of a cell: a started server, or the external target (`--url`). */
export interface TargetHandle {
  baseUrl: string;
  /** Process group to sample (null: external target, nothing to sample or stop). */
  pid: number | null;
  /** From spawn to the first 200 on GET /ping, ms; null for an external target. */
  startupMs: number | null;
  /** "exited with code 1" / "killed by SIGSEGV" once the server has died, else null. */
  exitInfo(): string | null;
  /** Aborts when the server dies (a running load window is stopped at once). */
  died: AbortSignal;
  /**
   * CPU time used so far by all of the server's processes, µs (lifecycle/processes.ts
   * `cpuUsageUs`: the cgroup's cpu.stat); null when it cannot be read (an external target).
   * Interleaved rounds (scheduler/interleave.ts) divide requests by its difference.
   */
  cpuUs(): number | null;
  /**
   * Pauses (`true`) or resumes the whole server for the interleaved rounds (lifecycle/processes.ts
   * `pauseTracked`: its cgroup's freezer, else SIGSTOP/SIGCONT to its process group); absent for an
   * external target, which is never paused.
   */
  pause?(on: boolean): void;
  /**
   * What containment could not stop, as failure clauses (lifecycle/processes.ts
   * `containmentBreaches`: processes outside its cgroup or pause, threads allowed on `clientCpus`);
   * absent or [] when contained.
   */
  escapes?(clientCpus: readonly number[]): string[];
  /** RSS of all of the server's processes now, bytes (lifecycle/memory.ts); absent or null when it cannot be read. */
  rssBytes?(): number | null;
  /** Stops the server and waits until its port is free; resolves with the time it took, ms. */
  stop(): Promise<number>;
}

/** Why a start failed: the message and the log's tail. A UserError (busy fixed port) is thrown as is. */
export class StartFailure extends Error {
  logTail: string;
  constructor(message: string, logTail: string) {
    super(message);
    this.name = 'StartFailure';
    this.logTail = logTail;
  }
}

/** Builds contenders and starts their servers (scheduler/server-lifecycle.ts: local processes or the external target). */
export interface Lifecycle {
  /** 'local' starts processes; 'external' benches a running server (no build, start or stop). */
  kind: 'local' | 'external';
  /** Builds a contender (its manifest's `build`), once per run. */
  build(m: Manifest, signal: AbortSignal): Promise<BuildResult>;
  /** Starts the cell's server and waits until ready. Throws StartFailure, or UserError for bad input. */
  start(cell: CellSpec, logFile: string): Promise<TargetHandle>;
  /** The last lines of a server log ('' when none). */
  logTail(logFile: string): string;
  /** Called after a server stopped (caps its log: lifecycle/logs.ts). */
  afterStop(logFile: string): void;
}

/** Where a group writes its results: trials and cells (the run folder; nothing in verify mode), and where server logs go. */
export interface ResultSink {
  writeTrial(cell: CellResult, trialNo: number): void;
  writeCell(cell: CellResult): void;
  logFile(cellId: string): string;
  /** The log path as a CellResult records it (relative to the results folder), or null. */
  logRef(file: string): string | null;
}

/**
 * What a server may be handed from the run's services when it starts (read at start time: the
 * services start after the builds): the upstream mock's URL (fan-out scenarios) and the database.
 */
export interface ServiceRefs {
  /** The upstream mock's base URL, or null when the run started none. */
  upstreamUrl(): string | null;
  /** The run's database, or undefined when the run opened none. */
  database(): RunDatabase | undefined;
}

/** The services a run starts once, before its groups, and stops at its end. */
export interface RunServices {
  /** Starts the upstream mock of the fan-out scenarios (services/upstream.ts). Throws when it does not start. */
  startUpstream(): Promise<Upstream>;
  /** Opens the run's database (services/database.ts). Never throws: `ready` false and `error` say why. */
  openDatabase(o: { log: (line: string) => void; signal: AbortSignal }): Promise<RunDatabase>;
}

/** A tool found on this machine (`bin`), else null and `why` says why, with the install instructions. */
export interface ToolCheck {
  bin: string | null;
  why: string;
}

/** What must hold on this machine before a cell can run; asked before its server starts. */
export interface Prechecks {
  /** Why the cell's contender does not support its Node runtime (package.json `engines`), or null. Local servers only. */
  engineProblem(cell: CellSpec): string | null;
  /** The k6 binary (drivers/k6.ts `findK6`, which may build it); asked once per run when a k6 cell is planned. */
  k6(log: (line: string) => void): ToolCheck;
}

/** The run's connection driver (drivers/driver-registry.ts `resolveDriver`) and the note when it fell back. */
export interface ResolvedDriver {
  driver: LoadDriver;
  name: DriverName;
  note: string | null;
}

/** The once-per-run driver fidelity check (scheduler/fidelity.ts `measureFidelity`). Rejects only on abort. */
export type FidelityProbe = (o: Parameters<typeof measureFidelity>[0]) => Promise<DriverFidelity>;

/** An open-loop driver, or none with the reason and the install commands. */
export interface OpenLoopChoice {
  driver: OpenLoopDriver | null;
  note: string;
}

/** Everything a run asks of the machine; see the module comment. Real: scheduler/real-deps.ts `realDeps`. */
export interface RunDeps {
  /** Which cores the servers, the drivers and the services get. */
  cpuPlan: CpuPlan;
  driver: ResolvedDriver;
  /**
   * The open-loop driver of capacity cells, asked once per capacity group (real: oha, else k6,
   * drivers/open-loop.ts `resolveOpenLoop`); `driver` null with the install commands in `note`.
   */
  openLoop(): OpenLoopChoice;
  /** The driver of the native check of k6 cells (real: wrk when installed, else null; absent: no check): scheduler/native-check.ts. */
  nativeDriver?(): LoadDriver | null;
  /** The run's Lifecycle, built once per run with the services its servers may need. */
  lifecycle(services: ServiceRefs): Lifecycle;
  services: RunServices;
  prechecks: Prechecks;
  fidelity: FidelityProbe;
}

/** What one group needs from its run (scheduler/group.ts `runGroup`). */
export interface GroupContext {
  runId: string;
  mode: 'bench' | 'verify';
  lifecycle: Lifecycle;
  driver: LoadDriver;
  driverName: string;
  cpuPlan: CpuPlan;
  checker: ContractChecker;
  sharedSchemas: object[];
  scenariosDir: string;
  db?: RunDatabase;
  /** The run's upstream mock (fan-out scenarios), when it started one. */
  upstream?: Upstream;
  externalUrl?: string;
  sink: ResultSink;
  builds: Map<string, BuildResult>;
  /** Why a cell cannot run here (unsupported engines, k6 or PostgreSQL missing, no k6-rate rate), or null; and its rate. */
  precheck(cell: CellSpec): { status: 'skipped' | 'unsupported'; reason: string } | null;
  rate(cell: CellSpec): number | null;
  /** Rounds: measured windows per cell (one trial each). */
  rounds: number;
  seed: number;
  groupIndex: number;
  burstRequests: number;
  signal: AbortSignal;
  progress: Progress;
  /** The open-loop driver of capacity cells (`RunDeps.openLoop`). */
  openLoop(): OpenLoopChoice;
  /** The native check's driver (`RunDeps.nativeDriver`). */
  nativeDriver?(): LoadDriver | null;
  log: (line: string) => void;
}

/** The running server of `e`. Throws Error when it has none (only started entries are measured). */
export function liveServer(e: Entry): TargetHandle {
  if (!e.server) throw new Error(`${e.label}: no running server`);
  return e.server;
}

/** One cell of a running group: its server, verdict, timings, trials and final result. */
export interface Entry {
  cell: CellSpec;
  id: string;
  label: string;
  base: CellResult;
  logFile: string;
  server: TargetHandle | null;
  verification: Verdict | null;
  ms: { start: number; verify: number; teardown: number };
  trials: CellResult[];
  final: CellResult | null;
  /** Every server process started for the cell so far, with the trial count when it started (scheduler/group.ts). */
  starts?: (ServerStart & { trialsBefore: number })[];
  /** A k6 cell's server-bound figure from wrk (scheduler/native-check.ts), written into its cell file. */
  native?: NativeCheck;
}

/** The shared per-group operations on entries (their server, final result and overhead). */
export interface GroupOps {
  /** Entries with a running server and no final result yet. */
  alive: () => Entry[];
  /** Start/verify/teardown overhead of an entry, ms (null for an external target). */
  overhead: (e: Entry) => CellResult['overheadMs'];
  /** Sets the entry's final result: its base result with `patch`, stamped now. */
  finish: (e: Entry, patch: Partial<CellResult>) => void;
  /** Stops the entry's server (if running), recording its teardown ms, then caps its log. */
  stop: (e: Entry) => Promise<void>;
  /** The tail of the entry's server log ('' for an external target). */
  tail: (e: Entry) => string;
}
