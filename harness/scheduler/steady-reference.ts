/**
 * The steady-state reference run (`just reference`; cli/reference.ts parses its options, calls
 * `runReference` and prints the record's summary). Each chosen contender is measured ALONE on the
 * server core of the CPU plan with wrk on the client cores: per fresh server process a warm-up,
 * then windows, each window's requests/s and requests per server CPU-second; ≥ 3 processes per
 * contender, in rotation blocks or solo in ABBA order (scheduler/reference-measure.ts). The
 * figures and the ratios to each scenario's baseline are analysis/reference-stats.ts's; the
 * record (design, machine, every process and window, the figures and ratios) is written through
 * store/reference-store.ts as `<results>/reference/<run-id>.json`.
 *
 * Everything asked of the machine comes in `o.deps` (scheduler/reference-measure.ts
 * `ReferenceDeps`: the real ones from scheduler/real-deps.ts `referenceDeps`, fakes in
 * test/unit/reference-measure.test.ts); this module has no branch on which. Nothing is left
 * running: every server, the upstream mock and the database are stopped in `finally` blocks, also
 * on Ctrl-C. Throws UserError when wrk is missing, no contender serves a chosen scenario, a build
 * fails or the database the cells need is not ready.
 */
import path from 'node:path';
import { FOREIGN_CPU_LIMIT } from '../analysis/quiet.ts';
import {
  meetsMinimums,
  quietCheck,
  type ReferenceDesign,
  type ReferenceProcess,
  referenceFigure,
  referenceRatios,
} from '../analysis/reference-stats.ts';
import { loadSharedSchemas, type Scenario } from '../contract/scenarios.ts';
import { UserError } from '../core/errors.ts';
import type { Manifest } from '../core/manifest.ts';
import { getProfile, type Profile } from '../core/profiles.ts';
import { type NodeRuntime, resolveNode } from '../lifecycle/node-runtime.ts';
import type { RunDatabase } from '../services/database.ts';
import type { Upstream } from '../services/upstream.ts';
import { writableSubfolder } from '../store/links.ts';
import { writeReference } from '../store/reference-store.ts';
import { machineInfo, newRunId } from '../store/results.ts';
import { needsDatabase } from './jobs.ts';
import type { CellSpec } from './plan.ts';
import {
  abbaOrder,
  measureRotationBlock,
  measureSoloProcess,
  type ReferenceDeps,
  type RunCtx,
} from './reference-measure.ts';

/** What `runReference` measures and with what. */
export interface ReferenceRunOptions {
  /** The chosen contenders (scheduler/plan.ts `selectContenders`). */
  contenders: Manifest[];
  /** The chosen scenarios (scheduler/plan.ts `selectScenarios`). */
  scenarios: Scenario[];
  /** The baseline contender of a scenario (its ratios are to it). */
  baselineOf: (scenario: string) => string;
  design: ReferenceDesign;
  resultsDir: string;
  scenariosDir: string;
  deps: ReferenceDeps;
  signal: AbortSignal;
  /** Progress lines (one per measured process, and the run's plan). */
  log: (line: string) => void;
  /** The servers' Node runtime; default: the harness's own major (lifecycle/node-runtime.ts `resolveNode`). */
  node?: NodeRuntime;
}

/** A written reference run: its record and the file it went to. */
export interface ReferenceOutcome {
  record: ReferenceRunRecord;
  file: string;
}

/** The reference record as written (`<results>/reference/<run-id>.json`; read back by store/reference-store.ts). */
export type ReferenceRunRecord = ReturnType<typeof referenceRecord>;

/**
 * Runs the reference (see the module docstring) and writes its record; returns it with its file,
 * or null when Ctrl-C came before any process was measured. After a Ctrl-C the processes measured
 * so far are kept in a record marked `interrupted` (never a reference).
 */
export async function runReference(o: ReferenceRunOptions): Promise<ReferenceOutcome | null> {
  const { design, deps, signal, log } = o;
  const wrk = deps.driver.driver.probe();
  if (!wrk.available)
    throw new UserError(
      'the reference measures with wrk, which is not installed: run `npx just tools` (as root) or `apt-get install -y wrk`',
    );
  const plan = deps.cpuPlan;
  const runId = newRunId();
  const profile = { ...getProfile('quick'), driver: 'wrk', connections: design.connections } as Profile;
  const node = o.node ?? resolveNode(Number(process.versions.node.split('.')[0]));
  const cells: CellSpec[] = o.scenarios.flatMap((scenario) =>
    o.contenders
      .filter((m) => m.scenarios.includes(scenario.name))
      .map((manifest) => ({ manifest, variant: null, scenario, profile, node })),
  );
  if (!cells.length)
    throw new UserError(
      `none of ${o.contenders.map((m) => m.name).join(', ')} serves ${o.scenarios.map((s) => s.name).join(', ')}`,
    );
  const services: { upstream: Upstream | null; db: RunDatabase | null } = { upstream: null, db: null };
  const x: RunCtx = {
    deps,
    lifecycle: deps.lifecycle({
      upstreamUrl: () => services.upstream?.url ?? null,
      database: () => services.db ?? undefined,
    }),
    scenariosDir: o.scenariosDir,
    design,
    profile,
    node,
    db: null,
    sharedSchemas: loadSharedSchemas(o.scenariosDir),
    logsDir: path.join(writableSubfolder(o.resultsDir, 'reference'), 'logs', runId),
    signal,
    log,
  };
  const t0 = performance.now();
  const processes: ReferenceProcess[] = [];
  try {
    await startServices(cells, deps, services, x);
    x.db = services.db;
    for (const m of o.contenders) {
      const b = await x.lifecycle.build(m, signal);
      if (!b.ok) throw new UserError(`${m.name} did not build: ${b.output.slice(-400)}`);
    }
    log(
      `${cells.length} cells, ${design.processes} processes each (${design.order === 'rotation' ? 'rotation blocks' : 'solo, ABBA'}), warm-up ${design.warmupS} s, ${design.windows} × ${design.windowS} s windows; ${plan.note}`,
    );
    for (const s of o.scenarios) await measureScenario(o.contenders, s, x, processes);
  } finally {
    await services.upstream?.stop();
    await services.db?.close();
  }
  if (signal.aborted && !processes.length) return null;
  const record = referenceRecord(o, {
    runId,
    wrkVersion: wrk.version ?? 'unknown',
    processes,
    wallMs: performance.now() - t0,
  });
  return { record, file: writeReference(o.resultsDir, runId, record) };
}

/**
 * The shared services of the cells, through `deps.services`, into `into` (stopped by the caller):
 * the upstream mock (fan-out scenarios) and the database, when needed. Throws UserError when the
 * database is not ready.
 */
async function startServices(
  cells: CellSpec[],
  deps: ReferenceDeps,
  into: { upstream: Upstream | null; db: RunDatabase | null },
  x: RunCtx,
): Promise<void> {
  if (cells.some((c) => c.scenario.needs.includes('upstream'))) into.upstream = await deps.services.startUpstream();
  if (cells.some(needsDatabase)) into.db = await deps.services.openDatabase({ log: x.log, signal: x.signal });
  if (into.db && !into.db.ready)
    throw new UserError(`the reference needs PostgreSQL for these cells: ${into.db.error}`);
}

/** The record of a finished (or interrupted) run: its design, machine, processes, figures and ratios. */
function referenceRecord(
  o: ReferenceRunOptions,
  r: { runId: string; wrkVersion: string; processes: ReferenceProcess[]; wallMs: number },
) {
  const { processes } = r;
  const interrupted = o.signal.aborted;
  const figures = [...new Set(processes.map((p) => `${p.scenario}|${p.contender}`))].map((k) => {
    const [scenario = '', contender = ''] = k.split('|');
    const ps = processes.filter((p) => p.scenario === scenario && p.contender === contender);
    const eff = ps.map((p) => p.efficiency).filter((e): e is number => e !== null);
    return {
      contender,
      scenario,
      rps: referenceFigure(ps.map((p) => p.rps)),
      efficiency: eff.length === ps.length ? referenceFigure(eff) : null,
    };
  });
  return {
    kind: 'bakeoff-reference',
    version: 1,
    runId: r.runId,
    at: new Date().toISOString(),
    design: o.design,
    meetsMinimums: !interrupted && meetsMinimums(o.design),
    interrupted,
    quiet: quietCheck(processes),
    driver: { name: 'wrk', version: r.wrkVersion },
    machine: machineInfo(),
    cpuPlan: o.deps.cpuPlan,
    node: process.version,
    contenders: o.contenders.map((m) => m.name),
    scenarios: o.scenarios.map((s) => s.name),
    processes,
    figures,
    ratios: referenceRatios(processes, o.baselineOf),
    wallMs: r.wallMs,
  };
}

/**
 * Every process of one scenario into `out`, each logged, in the design's order (scheduler/reference-measure.ts):
 * rotation blocks, or solo processes in ABBA order. Stops early, keeping what it finished, on Ctrl-C.
 */
async function measureScenario(chosen: Manifest[], s: Scenario, x: RunCtx, out: ReferenceProcess[]): Promise<void> {
  const ms = chosen.filter((m) => m.scenarios.includes(s.name));
  const keepGoing = (e: unknown) => {
    if (x.signal.aborted) return null;
    throw e;
  };
  if (x.design.order === 'rotation') {
    for (let b = 1; b <= x.design.processes; b++) {
      if (x.signal.aborted) return;
      const ps = await measureRotationBlock(ms, s, b, out.length + 1, x).catch(keepGoing);
      if (!ps?.length) return;
      out.push(...ps);
      for (const p of ps) x.log(processLine(p));
    }
    return;
  }
  for (const [i, m] of abbaOrder(ms, x.design.processes).entries()) {
    if (x.signal.aborted) return;
    const p = await measureSoloProcess(m, s, i + 1, x).catch(keepGoing);
    if (!p) return;
    out.push(p);
    x.log(processLine(p));
  }
}

/** The progress line of one measured process: its figures, and the other work beside it when above the limit. */
function processLine(p: ReferenceProcess): string {
  const q = quietCheck([p]);
  const busy =
    q.disturbed && q.maxShare !== null
      ? `; other work used up to ${Math.round(100 * q.maxShare)}% of a core (limit ${Math.round(100 * FOREIGN_CPU_LIMIT)}%): not quiet`
      : '';
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  const where = p.block === undefined ? `process ${p.order}` : `block ${p.block}, process ${p.order}`;
  return `${p.scenario} · ${p.contender} · ${where}: ${n(p.rps)} requests/s, ${p.efficiency ? n(p.efficiency) : '–'} requests per CPU-second${busy}`;
}
