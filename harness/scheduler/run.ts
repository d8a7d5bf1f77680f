/**
 * Runs a plan (the scheduler's entry point): opens the run in the store, builds every contender
 * once (before any timing), starts the services the cells need (upstream mock, PostgreSQL),
 * then runs the plan group by group (scheduler/group.ts: scenario × profile × driver × Node
 * major; servers alive for the group, interleaved seeded rounds), runs the once-per-run driver
 * fidelity check, and marks the run complete or interrupted. Prints the harness's overhead per
 * cell and the wall time at the end.
 *
 * Everything the run asks of the machine comes in `o.deps` (scheduler/scheduler-types.ts `RunDeps`: CPU
 * plan, driver, lifecycle, services, prechecks, fidelity probe): the CLI passes the real ones
 * (scheduler/real-deps.ts), test/unit/scheduler.test.ts fakes; this module has no branch on which.
 * `mode: 'verify'` is the same loop without load: no run folder, logs in a temp folder. Throws
 * UserError for bad input (a fixed port with several servers alive at once).
 */
import { writableSubfolder } from '../store/links.ts';
import fs from 'node:fs';
import { ContractChecker } from '../contract/verify.ts';
import { UserError } from '../core/errors.ts';
import { loadSharedSchemas } from '../contract/scenarios.ts';
import { defaultRounds, interleaveOf, measuredSeconds } from '../core/profiles.ts';
import type { BuildResult } from '../lifecycle/build.ts';
import type { RunDatabase } from '../services/database.ts';
import type { Upstream } from '../services/upstream.ts';
import type { CellResult } from '../store/results.ts';
import { median } from '../analysis/stats.ts';
import type { RunWriter } from '../store/runs.ts';
import { BURST_REQUESTS } from '../contract/burst.ts';
import { indent } from './aggregate.ts';
import { groupPlan, partsMs, runGroup } from './group.ts';
import { needsDatabase, needsUpstream, RateResolver } from './jobs.ts';
import type { CellSpec } from './plan.ts';
import { fmtDuration } from '../core/format.ts';
import { ESTIMATE, type PhaseKind, Progress } from './progress.ts';
import { createProgressSink, lineSink } from './progress-sink.ts';
import { randomSeed } from './rounds.ts';
import { fidelityPlanMs, runFidelity } from './run-fidelity.ts';
import { runFootprint } from './footprint-probes.ts';
import { openResultSink } from './setup.ts';
import { type ProfiledServer, profiledDeps } from './profiled.ts';
import { profileDirOf } from '../store/why-store.ts';
import type { LoadDriver } from '../drivers/driver-types.ts';
import type { RunOptions, RunSummary } from './run-types.ts';
import type { GroupContext, Lifecycle, ResultSink, ServiceRefs, ToolCheck } from './scheduler-types.ts';

export { aggregateTrials, describe } from './aggregate.ts';

export type { ProfiledRun, RunOptions, RunSummary } from './run-types.ts';

/**
 * One run in progress, fixed when it opens: its settings, plan, where it writes, its lifecycle and
 * k6. `services` is what startServices started (the lifecycle reads it when a server starts).
 */
interface Run {
  o: RunOptions;
  mode: 'bench' | 'verify';
  progress: Progress;
  log: (line: string) => void;
  /** performance.now() at the start, ms. */
  t0: number;
  /** The groups, rounds, shuffle seed and the fidelity check's planned cost for the ETA, ms (0: none planned). */
  plan: { groups: CellSpec[][]; rounds: number; seed: number; fidelityMs: number };
  /** Where it writes: the run folder's writer (null in verify mode), verify mode's temp logs, the sink and the run id. */
  out: { writer: RunWriter | null; tmpLogs: string | null; sink: ResultSink; runId: string };
  /** The contract's shared JSON schemas (scenarios/). */
  sharedSchemas: object[];
  lifecycle: Lifecycle;
  /** k6 when a k6 cell is planned (else `bin` null and no reason: never asked). */
  k6: ToolCheck;
  services: { upstream?: Upstream; db?: RunDatabase };
  /** `cpuProfile`: the profiled windows' writer, sink, lifecycle, driver and servers. */
  profiled?: ProfiledSide;
}

/** The profiled side of a `cpuProfile` run (openProfiled). */
interface ProfiledSide {
  writer: RunWriter;
  sink: ResultSink;
  lifecycle: Lifecycle;
  driver: LoadDriver;
  servers: Map<string, ProfiledServer>;
}

/** The cells the groups finished so far: the ranked ones and the profiled ones (`cpuProfile`). */
interface Finished {
  results: CellResult[];
  profiled: CellResult[];
}

/** Runs every cell of `o.cells`; see the module comment. */
export async function runPlan(o: RunOptions): Promise<RunSummary> {
  const run = openPlanRun(o);
  // Ctrl-C mid-window: stop the live line at once (the CLI's "SIGINT: stopping…" message, which
  // starts with a newline, has just ended it).
  const closeProgress = () => run.progress.close(false);
  o.signal.addEventListener('abort', closeProgress, { once: true });
  const done: Finished = { results: [], profiled: [] };
  let failed = false;
  let closing: RunClosing;
  try {
    const builds = await buildAll(run);
    await startServices(run);
    await runGroups(run, builds, done);
    await recordFootprint(run);
    await recordFidelity(run, done.results);
  } catch (e) {
    failed = true;
    throw e;
  } finally {
    o.signal.removeEventListener('abort', closeProgress);
    closing = await closeRun(run, done.results, failed);
  }
  return summarize(run, done, closing);
}

/**
 * Everything before the first build: checks `--port` against the plan (UserError), asks for k6
 * when a k6 cell is planned, opens the result sink (the run folder in bench mode), builds the
 * lifecycle from `o.deps` and announces the run and its ETA plan.
 */
function openPlanRun(o: RunOptions): Run {
  const progress = new Progress(o.progress ?? (o.log ? lineSink(o.log) : createProgressSink()));
  const log = (l: string) => progress.note(l);
  const t0 = performance.now();
  const groups = groupCells(o.cells);
  const busiest = Math.max(0, ...groups.map((g) => g.length));
  if (o.port !== undefined && !o.externalUrl && busiest > 1)
    throw new UserError(
      `--port fixes the port of one server, but this run keeps ${busiest} servers alive at once per scenario (the contenders and the scenario's baseline): drop --port, or bench one contender with --no-baseline --no-variants`,
    );
  const mode = o.mode ?? 'bench';
  const p0 = o.cells[0]?.profile;
  // Without interleaved rounds (a driver that cannot pause, an external target) the profile's
  // interleaved rounds become solo rounds (profiles.ts `defaultRounds`).
  const rounds = o.rounds ?? (p0 ? defaultRounds(p0, canInterleave(o)) : 1);
  const seed = o.shuffleSeed ?? randomSeed();
  const usesK6 = o.cells.some((c) => c.profile.driver === 'k6');
  const k6 = usesK6 ? o.deps.prechecks.k6(log) : { bin: null, why: '' };
  const sharedSchemas = loadSharedSchemas(o.scenariosDir);
  const sink = openResultSink(o, mode, o.deps.cpuPlan, rounds, seed);
  const services: Run['services'] = {};
  const refs: ServiceRefs = { upstreamUrl: () => services.upstream?.url ?? null, database: () => services.db };
  const run: Run = {
    o,
    mode,
    progress,
    log,
    t0,
    plan: { groups, rounds, seed, fidelityMs: mode === 'bench' ? fidelityPlanMs(o) : 0 },
    out: { ...sink, runId: sink.writer?.runId ?? 'verify' },
    sharedSchemas,
    k6,
    services,
    lifecycle: o.deps.lifecycle(refs),
  };
  if (o.cpuProfile && mode === 'bench' && !o.externalUrl)
    run.profiled = openProfiled(run, refs, o.cpuProfile.intervalUs);
  announce(run, usesK6);
  return run;
}

/**
 * The profiled side of a `cpuProfile` run: a run folder of its own under `<resultsDir>/why/` (one
 * round), and the run's lifecycle and driver wrapped by scheduler/profiled.ts (servers under
 * --cpu-prof writing into that folder's logs/profiles/, the measured window's clock noted).
 */
function openProfiled(run: Run, refs: ServiceRefs, intervalUs: number): ProfiledSide {
  const { o } = run;
  const p = profiledDeps(o.deps, { profileDir: profileDirOf, intervalUs });
  const { writer, sink } = openResultSink(
    { ...o, resultsDir: writableSubfolder(o.resultsDir, 'why') },
    'bench',
    o.deps.cpuPlan,
    1,
    run.plan.seed,
  );
  if (!writer) throw new Error('openProfiled: bench mode opens a run folder');
  run.log(`profiled windows (--profile-cpu, V8 sampling every ${intervalUs} µs): ${writer.dir}`);
  return { writer, sink, lifecycle: p.deps.lifecycle(refs), driver: p.deps.driver.driver, servers: p.servers };
}

/** The ETA's plan (builds, PostgreSQL, then every group), the run-start event and the run's first notes. */
function announce(run: Run, usesK6: boolean): void {
  const { o, progress, mode, log } = run;
  const { groups, rounds, seed } = run.plan;
  const profile = o.cells[0]?.profile;
  const { driver, cpuPlan } = o.deps;
  const builds = run.lifecycle.kind === 'local' ? manifestsOf(o.cells).filter((m) => m.build) : [];
  progress.plan('build', builds.length * ESTIMATE.build);
  if (o.cells.some(needsDatabase)) progress.plan('database', ESTIMATE.database);
  for (const g of groups) {
    const gp = groupPlan(g, rounds, mode, canInterleave(o));
    const pp = run.profiled ? groupPlan(g, 1, mode, false) : null;
    for (const x of pp ? [gp, pp] : [gp]) {
      for (const [kind, ms] of Object.entries(partsMs(x.parts)) as [PhaseKind, number][]) progress.plan(kind, ms);
      progress.plan('window', 0, x.windows);
    }
  }
  if (mode === 'bench') progress.plan('fidelity', run.plan.fidelityMs);
  const windowS = mode === 'bench' && profile ? measuredSeconds(profile) : null;
  const { runId, writer } = run.out;
  progress.runStart(
    {
      runId,
      mode,
      cells: o.cells.length,
      groups: groups.length,
      rounds,
      windowS,
      profile: o.profileName,
      driver: driver.name,
      seed,
    },
    `${mode === 'verify' ? 'verify' : `run ${runId}`}: ${o.cells.length} cells in ${groups.length} groups, profile ${o.profileName}, driver ${driver.name}${mode === 'bench' ? `, ${rounds} rounds × ${windowS} s windows${interleaved(profile, o)}, shuffle seed ${seed}` : ''}; ${o.externalUrl ? `external target ${o.externalUrl}` : cpuPlan.note}`,
  );
  if (driver.note) log(driver.note);
  if (writer) log(`results: ${writer.dir}`);
  if (usesK6) log(run.k6.bin ? `k6: ${run.k6.bin}` : `k6 cells will be skipped: ${run.k6.why}`);
}

/** Whether the run's interleaved rounds can run: a driver that can pause, servers the harness started. */
function canInterleave(o: RunOptions): boolean {
  return o.deps.driver.driver.interleaves && !o.externalUrl;
}

/** ", then 5 interleaved rounds of 1 s per server (100 ms slices)" when the run has them, else "". */
function interleaved(p: RunOptions['cells'][number]['profile'] | undefined, o: RunOptions): string {
  const il = p ? interleaveOf(p) : null;
  if (!il || !canInterleave(o)) return '';
  return `, then ${il.rounds} interleaved rounds of ${il.activeS} s per server (${il.sliceMs} ms slices)`;
}

/** Builds every contender of the plan once (local servers only); the results by contender name. */
async function buildAll(run: Run): Promise<Map<string, BuildResult>> {
  const { o, progress } = run;
  const out = new Map<string, BuildResult>();
  for (const m of run.lifecycle.kind === 'local' ? manifestsOf(o.cells) : []) {
    if (o.signal.aborted) break;
    if (m.build) progress.build(m.name, m.build);
    const b = await progress.timed('build', m.build ? ESTIMATE.build : 0, () => run.lifecycle.build(m, o.signal));
    out.set(m.name, b);
    if (!b.ok && !o.signal.aborted) run.log(`  build FAILED for ${m.name}:\n${indent(b.output)}`);
  }
  return out;
}

/**
 * Starts the services the plan needs into `run.services`, through `deps.services`: the upstream
 * mock when a local cell's scenario fans out, the database when a cell needs one (its meta
 * recorded in meta.json).
 */
async function startServices(run: Run): Promise<void> {
  const { o, log, services } = run;
  const wantsUpstream = !o.externalUrl && o.cells.some((c) => c.scenario.needs.includes('upstream'));
  if (wantsUpstream && !o.signal.aborted) {
    const upstream = await o.deps.services.startUpstream();
    services.upstream = upstream;
    log(`upstream mock: ${upstream.url} (pid ${upstream.pid}, delay ${o.upstreamDelayMs} ms)`);
  }
  if (o.cells.some(needsDatabase) && !o.signal.aborted) {
    run.progress.step('starting PostgreSQL');
    const db = await run.progress.timed('database', ESTIMATE.database, () =>
      o.deps.services.openDatabase({ log, signal: o.signal }),
    );
    services.db = db;
    run.out.writer?.updateMeta({ database: db.meta });
  }
}

/** Runs the groups in plan order (scheduler/group.ts), collecting their cells in `done`; with `cpuProfile`, each group's profiled windows after its ranked ones. */
async function runGroups(run: Run, builds: Map<string, BuildResult>, done: Finished): Promise<void> {
  const { o } = run;
  const { deps } = o;
  const rates = new RateResolver(o.resultsDir);
  const base: Omit<GroupContext, 'groupIndex'> = {
    runId: run.out.runId,
    mode: run.mode,
    lifecycle: run.lifecycle,
    builds,
    sink: run.out.sink,
    driver: deps.driver.driver,
    driverName: deps.driver.name,
    cpuPlan: deps.cpuPlan,
    openLoop: deps.openLoop,
    nativeDriver: deps.nativeDriver,
    checker: new ContractChecker(run.sharedSchemas),
    sharedSchemas: run.sharedSchemas,
    scenariosDir: o.scenariosDir,
    db: run.services.db,
    upstream: run.services.upstream,
    externalUrl: o.externalUrl,
    rounds: run.plan.rounds,
    seed: run.plan.seed,
    precheck: (cell) => precheck(run, cell) ?? rateProblem(rates, cell),
    rate: (cell) => rates.resolve(cell).rate,
    burstRequests: o.burstRequests ?? BURST_REQUESTS,
    signal: o.signal,
    progress: run.progress,
    log: run.log,
  };
  const p = run.profiled;
  const profiled = p && { runId: p.writer.runId, sink: p.sink, lifecycle: p.lifecycle, driver: p.driver, rounds: 1 };
  for (const [groupIndex, g] of run.plan.groups.entries()) {
    if (o.signal.aborted) break;
    done.results.push(...(await runGroup(g, { ...base, groupIndex })));
    // --profile-cpu: the group's cells once more, profiled, after its ranked windows (its servers stopped).
    if (profiled && !o.signal.aborted) done.profiled.push(...(await runGroup(g, { ...base, ...profiled, groupIndex })));
  }
}

/**
 * Why `cell` cannot run here, or null: its contender's engines exclude its Node version (local
 * servers only: `unsupported`), k6 is missing for a k6 cell, the database it needs is not
 * ready, or the upstream mock it needs has exited (`skipped`, with the reason).
 */
function precheck(run: Run, cell: CellSpec): { status: 'skipped' | 'unsupported'; reason: string } | null {
  const { upstream, db } = run.services;
  if (run.lifecycle.kind === 'local') {
    const engines = run.o.deps.prechecks.engineProblem(cell);
    if (engines) return { status: 'unsupported', reason: `unsupported on Node ${cell.node.major}: ${engines}` };
  }
  if (cell.profile.driver === 'k6' && !run.k6.bin)
    return { status: 'skipped', reason: `k6 not available: ${run.k6.why}` };
  if (needsDatabase(cell) && !db?.ready)
    return { status: 'skipped', reason: `needs PostgreSQL: ${db?.error ?? 'no database'}` };
  if (needsUpstream(cell) && upstream?.gone())
    return {
      status: 'skipped',
      reason: `needs the upstream mock, whose process exited earlier in this run (pid ${upstream.pid}); re-run the cell`,
    };
  return null;
}

/** A k6-rate cell without a rate (scheduler/jobs.ts RateResolver) is skipped with the reason; else null. */
function rateProblem(rates: RateResolver, cell: CellSpec): { status: 'skipped'; reason: string } | null {
  const r = rates.resolve(cell);
  return r.why ? { status: 'skipped', reason: r.why } : null;
}

/** The `--footprint` probes (bench mode, local servers, not after an abort), recorded in meta.json's `footprint`. */
async function recordFootprint(run: Run): Promise<void> {
  const { o } = run;
  const { writer } = run.out;
  if (!o.footprint || run.mode !== 'bench' || o.externalUrl || o.signal.aborted || !writer) return;
  run.progress.step('footprint: first and repeated starts, first response and CPU at a light rate, per contender');
  const t0 = performance.now();
  const probes = await runFootprint({
    ...o.footprint,
    cells: o.cells,
    lifecycle: run.lifecycle,
    scenariosDir: o.scenariosDir,
    db: run.services.db,
    logFile: (id) => writer.logFile(id),
    signal: o.signal,
    log: run.log,
  });
  run.log(`footprint probes: ${probes.length} in ${fmtDuration(performance.now() - t0)}`);
  writer.updateMeta({ footprint: { ...writer.meta.footprint, probes } });
}

/** The once-per-run driver fidelity check on the run's `results` (bench mode, not after an abort), recorded in meta.json; its phase of the ETA. */
async function recordFidelity(run: Run, results: CellResult[]): Promise<void> {
  const { o } = run;
  const { writer } = run.out;
  if (run.mode !== 'bench' || o.signal.aborted || !writer) return;
  const patch = await runFidelity({
    o,
    probe: o.deps.fidelity,
    results,
    cpuPlan: o.deps.cpuPlan,
    lifecycle: run.lifecycle,
    writer,
    db: run.services.db,
    sharedSchemas: run.sharedSchemas,
    log: run.log,
  });
  if (patch) {
    run.progress.done('fidelity', run.plan.fidelityMs);
    writer.updateMeta(patch);
  } else run.progress.skip('fidelity', run.plan.fidelityMs);
}

/** A closed run's wall time (ms) and its harness overhead per cell (`overheadOf`), computed once by closeRun. */
type RunClosing = { wallMs: number; over: ReturnType<typeof overheadOf> };

/** Stops the services, removes verify mode's temp logs, records wall time and overhead (returned), and marks the run complete or interrupted. */
async function closeRun(run: Run, results: CellResult[], failed: boolean): Promise<RunClosing> {
  run.progress.close();
  await run.services.upstream?.stop();
  await run.services.db?.close();
  const { writer, tmpLogs } = run.out;
  if (tmpLogs) fs.rmSync(tmpLogs, { recursive: true, force: true });
  const wallMs = performance.now() - run.t0;
  const over = overheadOf(results);
  const design = writer?.meta.design; // written when the run started
  if (design) writer?.updateMeta({ design: { ...design, wallMs, ...(over ? { overheadMs: over } : {}) } });
  writer?.updateMeta({ timings: run.progress.record() });
  const state = run.o.signal.aborted || failed ? 'interrupted' : 'complete';
  writer?.finish(state);
  run.profiled?.writer.finish(state);
  return { wallMs, over };
}

/** The closing notes (overhead per cell, wall time, as closeRun recorded them) and the run's summary. */
function summarize(run: Run, done: Finished, { wallMs, over }: RunClosing): RunSummary {
  const { o, mode } = run;
  const { runId, writer } = run.out;
  if (over && mode === 'bench')
    run.log(
      `harness overhead per cell (start + verify + teardown): median ${Math.round(over.median)} ms, max ${Math.round(over.max)} ms over ${over.cells} cells (verify includes the ${o.burstRequests ?? BURST_REQUESTS}-request concurrency burst)`,
    );
  const startEta = run.progress.startEtaMs();
  const said = startEta !== null ? `; the ETA at the start said ${fmtDuration(startEta)}` : '';
  run.log(
    `${mode === 'verify' ? 'verify' : `run ${runId}`} ${o.signal.aborted ? 'INTERRUPTED' : 'finished'}: ${done.results.length} cells recorded in ${fmtDuration(wallMs)} wall time${said}`,
  );
  const p = run.profiled;
  return {
    runId,
    runDir: writer?.dir ?? '',
    cells: done.results,
    interrupted: o.signal.aborted,
    wallMs,
    overheadMs: over,
    ...(p
      ? { profiled: { runId: p.writer.runId, runDir: p.writer.dir, cells: done.profiled, servers: p.servers } }
      : {}),
  };
}

/** The plan's contenders, once each, in plan order. */
function manifestsOf(cells: CellSpec[]): CellSpec['manifest'][] {
  return [...new Map(cells.map((c) => [c.manifest.name, c.manifest])).values()];
}

/**
 * Cells grouped by scenario × profile (one driver per run), in plan order of first appearance.
 * The Node majors of a `--node` matrix share their group: their rounds are interleaved,
 * so a contender on Node 20 and on Node 24 are paired by round like two rows of one table.
 */
export function groupCells(cells: CellSpec[]): CellSpec[][] {
  const groups = new Map<string, CellSpec[]>();
  for (const c of cells) {
    const key = `${c.scenario.name}|${c.profile.name}`;
    groups.set(key, [...(groups.get(key) ?? []), c]);
  }
  return [...groups.values()];
}

/** Median and max harness overhead per cell (start + verify + teardown), ms; null when no cell has one. */
function overheadOf(cells: CellResult[]): { median: number; max: number; cells: number } | null {
  const xs = cells.map((r) => r.overheadMs?.total).filter((x): x is number => x !== undefined);
  return xs.length ? { median: median(xs), max: Math.max(...xs), cells: xs.length } : null;
}
