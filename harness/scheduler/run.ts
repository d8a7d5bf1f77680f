/**
 * Runs a plan (the scheduler's entry point): opens the run in the store, builds every contender
 * once (before any timing), starts the services the cells need (upstream mock, PostgreSQL),
 * then runs the plan group by group (scheduler/group.ts: scenario × profile × driver × Node
 * major; servers alive for the group, interleaved seeded rounds), runs the once-per-run driver
 * fidelity check, and marks the run complete or interrupted. Prints the harness's overhead per
 * cell and the wall time at the end.
 *
 * Interfaces are injected (`lifecycle`, `driver`) so test/scheduler.test.ts runs it with fakes;
 * the CLI passes none and gets the real ones. `mode: 'verify'` is the same loop without load:
 * no run folder, logs in a temp folder. Throws UserError for bad input (busy fixed port).
 */
import fs from 'node:fs';
import { ContractChecker } from '../contract/verify.ts';
import { UserError } from '../core/errors.ts';
import { loadSharedSchemas } from '../contract/scenarios.ts';
import { getProfile, measuredSeconds } from '../core/profiles.ts';
import { findK6 } from '../drivers/k6.ts';
import { resolveDriver } from '../drivers/registry.ts';
import type { DriverName, LoadDriver } from '../drivers/types.ts';
import type { OpenLoopDriver } from '../drivers/open-loop.ts';
import { makeCpuPlan, type CpuPlan } from '../lifecycle/cpu-plan.ts';
import { capLog } from '../lifecycle/logs.ts';
import { engineProblem } from '../lifecycle/node-runtime.ts';
import { openDatabase, type RunDatabase } from '../services/database.ts';
import { startUpstream, type Upstream } from '../services/upstream.ts';
import type { CellResult } from '../store/results.ts';
import { BURST_REQUESTS } from '../contract/burst.ts';
import { indent } from './aggregate.ts';
import { groupPlan, runGroup } from './group.ts';
import { needsDatabase, RateResolver } from './jobs.ts';
import { externalLifecycle, localLifecycle } from './lifecycle.ts';
import type { CellSpec } from './plan.ts';
import { ESTIMATE, fmtDuration, Progress } from './progress.ts';
import { createProgressSink, lineSink, type ProgressSink } from './progress-sink.ts';
import { randomSeed } from './rounds.ts';
import { runFidelity } from './run-fidelity.ts';
import { openSink } from './setup.ts';
import type { Lifecycle } from './types.ts';

export { aggregateTrials, describe } from './aggregate.ts';

export interface RunOptions {
  cells: CellSpec[];
  profileName: string;
  resultsDir: string;
  scenariosDir: string;
  host: string;
  /** Fixed server port (default: a free one per cell). */
  port?: number;
  /** Bench a server that is already running here instead of starting one. */
  externalUrl?: string;
  upstreamDelayMs: number;
  /** Rounds (trials per cell); default: the profile's. */
  trials?: number;
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
  /** Injected interfaces (tests); default: real processes. */
  lifecycle?: Lifecycle;
  driver?: { driver: LoadDriver; name: DriverName; note: string | null };
  /** The open-loop driver of capacity cells (tests; null = none); default: oha, else k6 (drivers/open-loop.ts). */
  openLoop?: OpenLoopDriver | null;
  cpuPlan?: CpuPlan;
  /** Progress and log lines go here as plain lines; ignored with `progress`. Neither: stderr, a live line per window on a TTY. */
  log?: (line: string) => void;
  /** Where progress events and notes go (scheduler/progress-sink.ts); default: plain lines through `log`. */
  progress?: ProgressSink;
}

export interface RunSummary {
  runId: string;
  runDir: string;
  cells: CellResult[];
  interrupted: boolean;
  wallMs: number;
  /** Harness overhead per cell (start + verify + burst + teardown), ms. */
  overheadMs: { median: number; max: number; cells: number } | null;
}

/** Runs every cell of `o.cells`; see the module comment. */
export async function runPlan(o: RunOptions): Promise<RunSummary> {
  const progress = new Progress(o.progress ?? (o.log ? lineSink(o.log) : createProgressSink()));
  const log = (l: string) => progress.note(l);
  const mode = o.mode ?? 'bench';
  const t0 = performance.now();
  const cpuPlan = o.cpuPlan ?? makeCpuPlan();
  const profile = o.cells[0]?.profile;
  const trials = o.trials ?? profile?.trials ?? 1;
  const seed = o.shuffleSeed ?? randomSeed();
  const manifests = [...new Map(o.cells.map((c) => [c.manifest.name, c.manifest])).values()];
  const usesK6 = o.cells.some((c) => c.profile.driver === 'k6');
  const k6 = usesK6 && !o.driver ? findK6({ build: true, log }) : { bin: null, why: '' };
  const resolved = o.driver ?? resolveDriver(profile ?? getProfile('smoke'));
  const wantsDb = o.cells.some(needsDatabase);
  const wantsUpstream = !o.externalUrl && o.cells.some((c) => c.scenario.needs.includes('upstream'));

  const busiest = Math.max(0, ...groupCells(o.cells).map((g) => g.length));
  if (o.port !== undefined && !o.externalUrl && busiest > 1)
    throw new UserError(
      `--port fixes the port of one server, but this run keeps ${busiest} servers alive at once per scenario (the contenders and the scenario's baseline): drop --port, or bench one contender with --no-baseline --no-variants`,
    );
  let failed = false;
  const { writer, tmpLogs, sink } = openSink(o, mode, cpuPlan, trials, seed);
  const runId = writer?.runId ?? 'verify';

  let upstream: Upstream | undefined;
  let db: RunDatabase | undefined;
  const lifecycle =
    o.lifecycle ??
    (o.externalUrl
      ? externalLifecycle(o.externalUrl)
      : localLifecycle({
          host: o.host,
          port: o.port,
          cpuPlan,
          upstreamUrl: () => upstream?.url ?? 'http://127.0.0.1:9',
          db: () => db,
          capLog: (f) => capLog(f),
        }));

  // The ETA's plan: builds, PostgreSQL, then every group.
  const groups = groupCells(o.cells);
  const builds = lifecycle.kind === 'local' ? manifests.filter((m) => m.build) : [];
  progress.plan(builds.length * ESTIMATE.build + (wantsDb ? ESTIMATE.database : 0));
  for (const g of groups) {
    const gp = groupPlan(g, trials, mode);
    progress.plan(gp.ms, gp.windows);
  }
  progress.runStart(
    {
      runId,
      mode,
      cells: o.cells.length,
      groups: groups.length,
      rounds: trials,
      windowS: mode === 'bench' && profile ? measuredSeconds(profile) : null,
      profile: o.profileName,
      driver: resolved.name,
      seed,
    },
    `${mode === 'verify' ? 'verify' : `run ${runId}`}: ${o.cells.length} cells in ${groups.length} groups, profile ${o.profileName}, driver ${resolved.name}${mode === 'bench' ? `, ${trials} rounds × ${measuredSeconds(profile!)} s windows, shuffle seed ${seed}` : ''}; ${o.externalUrl ? `external target ${o.externalUrl}` : cpuPlan.note}`,
  );
  if (resolved.note) log(resolved.note);
  if (writer) log(`results: ${writer.dir}`);
  if (usesK6 && !o.driver) log(k6.bin ? `k6: ${k6.bin}` : `k6 cells will be skipped: ${k6.why}`);

  const sharedSchemas = loadSharedSchemas(o.scenariosDir);
  const checker = new ContractChecker(sharedSchemas);
  const results: CellResult[] = [];
  const rates = new RateResolver(o.resultsDir);
  const buildResults = new Map<string, Awaited<ReturnType<Lifecycle['build']>>>();
  // Ctrl-C mid-window: stop the live line at once (the CLI's "SIGINT: stopping…" message, which
  // starts with a newline, has just ended it).
  const closeProgress = () => progress.close(false);
  o.signal.addEventListener('abort', closeProgress, { once: true });
  try {
    for (const m of lifecycle.kind === 'local' ? manifests : []) {
      if (o.signal.aborted) break;
      if (m.build) progress.build(m.name, m.build);
      const b = await lifecycle.build(m, o.signal);
      buildResults.set(m.name, b);
      if (m.build) progress.advance(ESTIMATE.build);
      if (!b.ok && !o.signal.aborted) log(`  build FAILED for ${m.name}:\n${indent(b.output)}`);
    }
    if (wantsUpstream && !o.signal.aborted && !o.lifecycle) {
      upstream = await startUpstream({ host: o.host, cpus: cpuPlan.services, delayMs: o.upstreamDelayMs });
      log(`upstream mock: ${upstream.url} (pid ${upstream.pid}, delay ${o.upstreamDelayMs} ms)`);
    }
    if (wantsDb && !o.signal.aborted) {
      progress.step('starting PostgreSQL');
      db = await openDatabase({ cpus: cpuPlan.services, log, external: Boolean(o.externalUrl), signal: o.signal });
      progress.advance(ESTIMATE.database);
      writer?.updateMeta({ database: db.meta });
    }
    for (const [groupIndex, g] of groups.entries()) {
      if (o.signal.aborted) break;
      const cells = await runGroup(g, {
        runId,
        mode,
        lifecycle,
        driver: resolved.driver,
        driverName: resolved.name,
        cpuPlan,
        checker,
        sharedSchemas,
        scenariosDir: o.scenariosDir,
        db,
        externalUrl: o.externalUrl,
        sink,
        builds: buildResults,
        precheck: (cell) => {
          if (lifecycle.kind === 'local' && !o.lifecycle) {
            const engines = engineProblem(cell.manifest.dir, cell.node.version);
            if (engines) return { status: 'unsupported', reason: `unsupported on Node ${cell.node.major}: ${engines}` };
          }
          if (cell.profile.driver === 'k6' && !o.driver && !k6.bin)
            return { status: 'skipped', reason: `k6 not available: ${k6.why}` };
          if (needsDatabase(cell) && !db?.ready)
            return { status: 'skipped', reason: `needs PostgreSQL: ${db?.error ?? 'no database'}` };
          const r = rates.resolve(cell);
          return r.why ? { status: 'skipped', reason: r.why } : null;
        },
        rate: (cell) => rates.resolve(cell).rate,
        trials,
        seed,
        groupIndex,
        burstRequests: o.burstRequests ?? BURST_REQUESTS,
        signal: o.signal,
        progress,
        log,
        ...(o.openLoop !== undefined ? { openLoop: o.openLoop } : {}),
      });
      results.push(...cells);
    }
    if (mode === 'bench' && !o.signal.aborted && writer) {
      const patch = await runFidelity({ o, results, cpuPlan, lifecycle, writer, db, sharedSchemas, log });
      if (patch) writer.updateMeta(patch);
    }
  } catch (e) {
    failed = true;
    throw e;
  } finally {
    o.signal.removeEventListener('abort', closeProgress);
    progress.close();
    await upstream?.stop();
    await db?.close();
    if (tmpLogs) fs.rmSync(tmpLogs, { recursive: true, force: true });
    const wallMs = performance.now() - t0;
    const over = overheadOf(results);
    writer?.updateMeta({ design: { ...writer.meta.design!, wallMs, ...(over ? { overheadMs: over } : {}) } });
    writer?.finish(o.signal.aborted || failed ? 'interrupted' : 'complete');
  }
  const wallMs = performance.now() - t0;
  const over = overheadOf(results);
  if (over && mode === 'bench')
    log(
      `harness overhead per cell (start + verify + teardown): median ${Math.round(over.median)} ms, max ${Math.round(over.max)} ms over ${over.cells} cells (verify includes the ${o.burstRequests ?? BURST_REQUESTS}-request concurrency burst)`,
    );
  log(
    `${mode === 'verify' ? 'verify' : `run ${runId}`} ${o.signal.aborted ? 'INTERRUPTED' : 'finished'}: ${results.length} cells recorded in ${fmtDuration(wallMs)} wall time`,
  );
  return { runId, runDir: writer?.dir ?? '', cells: results, interrupted: o.signal.aborted, wallMs, overheadMs: over };
}

/** Cells grouped by scenario × profile × Node major (one driver per run), in plan order of first appearance. */
export function groupCells(cells: CellSpec[]): CellSpec[][] {
  const groups = new Map<string, CellSpec[]>();
  for (const c of cells) {
    const key = `${c.scenario.name}|${c.profile.name}|${c.node.major}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  return [...groups.values()];
}

function overheadOf(cells: CellResult[]): { median: number; max: number; cells: number } | null {
  const xs = cells
    .map((r) => r.overheadMs?.total)
    .filter((x): x is number => x !== undefined)
    .sort((a, b) => a - b);
  return xs.length ? { median: xs[Math.floor(xs.length / 2)], max: xs[xs.length - 1], cells: xs.length } : null;
}
