/**
 * The scheduler's injected interfaces (hyperfine's Executor / MockExecutor idea): the real ones
 * start processes (scheduler/lifecycle.ts, drivers/), the fakes in test/scheduler.test.ts do not.
 *
 * - `Lifecycle`: build a contender once, start a server for a cell, and (through the handle)
 *   stop it. An external target (`--url`) is a Lifecycle whose start returns the given URL.
 * - `LoadDriver` (drivers/types.ts): runs one window of load.
 * Times in ms unless the name says otherwise.
 */
import type { ContractChecker, Verdict } from '../contract/verify.ts';
import type { Manifest } from '../core/manifest.ts';
import type { LoadDriver } from '../drivers/types.ts';
import type { OpenLoopDriver } from '../drivers/open-loop.ts';
import type { CpuPlan } from '../lifecycle/cpu-plan.ts';
import type { RunDatabase } from '../services/database.ts';
import type { CellResult } from '../store/results.ts';
import type { BuildResult } from '../lifecycle/build.ts';
import type { Progress } from './progress.ts';
import type { CellSpec } from './plan.ts';

/** A started server (or an external target). */
export interface ServerHandleLike {
  baseUrl: string;
  /** Process group to sample (null: external target, nothing to sample or stop). */
  pid: number | null;
  /** From spawn to the first 200 on GET /ping, ms; null for an external target. */
  startupMs: number | null;
  /** "exited with code 1" / "killed by SIGSEGV" once the server has died, else null. */
  exitInfo(): string | null;
  /** Aborts when the server dies (a running load window is stopped at once). */
  died: AbortSignal;
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

export interface Lifecycle {
  /** 'local' starts processes; 'external' benches a running server (no build, start or stop). */
  kind: 'local' | 'external';
  /** Builds a contender (its manifest's `build`), once per run. */
  build(m: Manifest, signal: AbortSignal): Promise<BuildResult>;
  /** Starts the cell's server and waits until ready. Throws StartFailure, or UserError for bad input. */
  start(cell: CellSpec, logFile: string): Promise<ServerHandleLike>;
  /** The last lines of a server log ('' when none). */
  logTail(logFile: string): string;
  /** Called after a server stopped (caps its log: lifecycle/logs.ts). */
  afterStop(logFile: string): void;
}

/** Where a group writes: trials and cells, and where server logs go. */
export interface GroupSink {
  writeTrial(cell: CellResult, trialNo: number): void;
  writeCell(cell: CellResult): void;
  logFile(cellId: string): string;
  /** The log path as a CellResult records it (relative to the results folder), or null. */
  logRef(file: string): string | null;
}

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
  externalUrl?: string;
  sink: GroupSink;
  builds: Map<string, BuildResult>;
  /** Why a cell cannot run here (unsupported engines, k6 or PostgreSQL missing, no k6-rate rate), or null; and its rate. */
  precheck(cell: CellSpec): { status: 'skipped' | 'unsupported'; reason: string } | null;
  rate(cell: CellSpec): number | null;
  trials: number;
  seed: number;
  groupIndex: number;
  burstRequests: number;
  signal: AbortSignal;
  progress: Progress;
  /** The open-loop driver of capacity cells (tests inject one; default: scheduler/capacity.ts `openLoopFor`). */
  openLoop?: OpenLoopDriver | null;
  log: (line: string) => void;
}

/** One cell of a running group: its server, verdict, timings, trials and final result. */
export interface Entry {
  cell: CellSpec;
  id: string;
  label: string;
  base: CellResult;
  logFile: string;
  server: ServerHandleLike | null;
  verification: Verdict | null;
  ms: { start: number; verify: number; teardown: number };
  trials: CellResult[];
  final: CellResult | null;
}
