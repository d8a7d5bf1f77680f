/**
 * Runs a plan: for each cell, start the contender pinned to the server cores (on the cell's
 * Node runtime), verify the scenario, warm up, measure with the profile's driver (autocannon or
 * k6) pinned to the client cores, tear down, and write the cell's result file.
 *
 * A build failure, start failure, verification failure or crash becomes a recorded cell (with
 * the log's tail) and the run goes on; so do `skipped` (k6 or PostgreSQL missing) and
 * `unsupported` (engines exclude the Node version) cells. Aborting (`signal`: Ctrl-C) stops the
 * current cell; finished cells stay saved and meta.json says `interrupted`. With `externalUrl`
 * the lifecycle is skipped: no build, start, stop or server pinning; verification and
 * measurement still run and the result says `target: external`. After the cells, once per run,
 * the driver cross-check against wrk (drivers/cross-check.ts) is recorded in meta.json.
 */
import fs from 'node:fs';
import path from 'node:path';
import { ContractChecker, verifyScenario, type Verdict } from '../contract/verify.ts';
import { buildRequest, loadParams, loadSharedSchemas, type RuntimeValues } from '../contract/scenarios.ts';
import { runLoad } from '../drivers/load.ts';
import { findK6 } from '../drivers/k6.ts';
import type { LoadJob, LoadOutput } from '../drivers/types.ts';
import { buildContender, type BuildResult } from '../lifecycle/build.ts';
import { makeCpuPlan, type CpuPlan } from '../lifecycle/cpu-plan.ts';
import { freePort } from '../lifecycle/ports.ts';
import { engineProblem } from '../lifecycle/node-runtime.ts';
import { startServer, StartError, logTail, type ServerHandle, type StartOptions } from '../lifecycle/server.ts';
import { crossCheckDriver, fastestCell } from './cross-check.ts';
import { Sampler } from '../lifecycle/sampler.ts';
import { prng, trialStats } from '../analysis/stats.ts';
import { startUpstream, type Upstream } from '../services/upstream.ts';
import { openDatabase, type RunDatabase } from '../services/database.ts';
import { cellId, cellLabel, type CellSpec } from './plan.ts';
import { measuredSeconds, type Profile } from '../core/profiles.ts';
import {
  createRunDir,
  gitState,
  machineInfo,
  newRunId,
  readAllResults,
  resolvedPackages,
  SCHEMA_VERSION,
  writeJsonAtomic,
  type CellResult,
  type RunMeta,
} from '../store/results.ts';
import { ROOT } from '../core/paths.ts';
import { UserError } from '../core/errors.ts';

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
  /** Trials per cell (default 1); rounds run every cell once, in an order shuffled per round. */
  trials?: number;
  /** Seed of the per-round shuffle (recorded in meta.json); random when unset. */
  shuffleSeed?: number;
  /** Seconds per run of the wrk driver cross-check (0 = off); default: the profile's `crossCheckS`. */
  crossCheckS?: number;
  command: string[];
  signal: AbortSignal;
  /** Progress and log lines go here (default: stderr). */
  log?: (line: string) => void;
}

export interface RunSummary {
  runId: string;
  runDir: string;
  cells: CellResult[];
  interrupted: boolean;
  wallMs: number;
}

/** Responses checked against the contract under load: one in this many. */
const SAMPLE_EVERY = 50;

function fmtDuration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
}

/** Runs every cell of `o.cells` and returns what was recorded. Throws UserError for a busy fixed port. */
export async function runPlan(o: RunOptions): Promise<RunSummary> {
  const log = o.log ?? ((l: string) => process.stderr.write(`${l}\n`));
  const t0 = performance.now();
  const runId = newRunId();
  const runDir = createRunDir(o.resultsDir, runId);
  const cpuPlan = makeCpuPlan();
  const manifests = [...new Map(o.cells.map((c) => [c.manifest.name, c.manifest])).values()];
  const meta: RunMeta = {
    schemaVersion: SCHEMA_VERSION,
    runId,
    startedAt: new Date().toISOString(),
    finishedAt: null,
    state: 'running',
    command: o.command,
    profile: o.profileName,
    machine: machineInfo(),
    node: { version: process.version, execPath: process.execPath },
    git: gitState(ROOT),
    cpuPlan,
    upstreamDelayMs: o.upstreamDelayMs,
    packages: resolvedPackages(
      ROOT,
      manifests.map((m) => m.dir),
    ),
    database: null,
    nodes: [...new Map(o.cells.map((c) => [c.node.major, { major: c.node.major, version: c.node.version }])).values()],
    trials: { count: o.trials ?? 1, shuffleSeed: o.shuffleSeed ?? Math.floor(Math.random() * 2 ** 31) },
  };
  const trials = meta.trials.count;
  // Trials are interleaved across cells (A B C A B C), each round in its own shuffled order, so
  // drift (thermal, other tenants) hits every contender alike. One trial keeps the plan's order.
  const queue =
    trials === 1
      ? o.cells.map((cell) => ({ cell, trial: 1 }))
      : Array.from({ length: trials }, (_, r) =>
          shuffle(o.cells, prng(meta.trials.shuffleSeed + r)).map((cell) => ({ cell, trial: r + 1 })),
        ).flat();
  const trialResults = new Map<string, CellResult[]>();
  writeJsonAtomic(path.join(runDir, 'meta.json'), meta);
  log(
    `run ${runId}: ${o.cells.length} cells, profile ${o.profileName}; ${o.externalUrl ? `external target ${o.externalUrl}` : cpuPlan.note}`,
  );
  log(`results: ${runDir}`);

  const sharedSchemas = loadSharedSchemas(o.scenariosDir);
  const checker = new ContractChecker(sharedSchemas);
  const results: CellResult[] = [];
  const builds = new Map<string, BuildResult>();
  let upstream: Upstream | undefined;
  let db: RunDatabase | undefined;
  const k6 = o.cells.some((c) => c.profile.driver === 'k6') ? findK6({ build: true, log }) : { bin: null, why: '' };
  if (o.cells.some((c) => c.profile.driver === 'k6'))
    log(k6.bin ? `k6: ${k6.bin}` : `k6 cells will be skipped: ${k6.why}`);
  try {
    if (!o.externalUrl && o.cells.some((c) => c.scenario.needs.includes('upstream'))) {
      upstream = await startUpstream({ host: o.host, cpus: cpuPlan.services, delayMs: o.upstreamDelayMs });
      log(`upstream mock: ${upstream.url} (pid ${upstream.pid}, delay ${o.upstreamDelayMs} ms)`);
    }
    if (o.cells.some((c) => c.manifest.requires.includes('database') || c.scenario.needs.includes('database'))) {
      db = await openDatabase({ cpus: cpuPlan.services, log, external: Boolean(o.externalUrl), signal: o.signal });
      meta.database = db.meta;
      writeJsonAtomic(path.join(runDir, 'meta.json'), meta);
    }
    const ctx: Omit<CellContext, 'build'> = {
      ...o,
      runId,
      runDir,
      cpuPlan,
      checker,
      sharedSchemas,
      upstreamUrl: upstream?.url ?? 'http://127.0.0.1:9',
      k6Bin: k6.bin,
      k6Why: k6.why,
      db,
    };
    const planned = queue.map(({ cell: c }) => (c.profile.warmupS + measuredSeconds(c.profile) + 1) * 1000);
    for (const [i, { cell, trial }] of queue.entries()) {
      if (o.signal.aborted) break;
      const elapsed = performance.now() - t0;
      // Remaining planned time, scaled by how the finished cells compared with their plan.
      const plannedDone = planned.slice(0, i).reduce((a, b) => a + b, 0);
      const left = planned.slice(i).reduce((a, b) => a + b, 0);
      const eta = plannedDone > 0 ? left * (elapsed / plannedDone) : left;
      log(
        `[${i + 1}/${queue.length}] ${cellLabel(cell.manifest.name, cell.variant)} · ${cell.scenario.name} · ${cell.profile.name} · Node ${cell.node.major}${trials > 1 ? ` · trial ${trial}/${trials}` : ''}   elapsed ${fmtDuration(elapsed)}, ETA ${fmtDuration(eta)}`,
      );
      let build = builds.get(cell.manifest.name);
      if (!build && !o.externalUrl) {
        if (cell.manifest.build) log(`  building ${cell.manifest.name}: ${cell.manifest.build}`);
        build = await buildContender(cell.manifest, o.signal);
        builds.set(cell.manifest.name, build);
        if (!build.ok && !o.signal.aborted) log(`  build FAILED for ${cell.manifest.name}:\n${indent(build.output)}`);
      }
      if (o.signal.aborted) break;
      const result = await runCell(cell, { ...ctx, build: build ?? { ok: true, ms: 0, output: '' } });
      if (!result) break; // aborted mid-cell: nothing to record
      log(`  ${describe(result)}`);
      if (trials === 1) {
        const final = aggregateTrials([result], 1);
        writeJsonAtomic(path.join(runDir, 'cells', `${final.cellId}.json`), final);
        results.push(final);
      } else {
        fs.mkdirSync(path.join(runDir, 'trials'), { recursive: true });
        writeJsonAtomic(path.join(runDir, 'trials', `${result.cellId}__t${trial}.json`), result);
        trialResults.set(result.cellId, [...(trialResults.get(result.cellId) ?? []), result]);
      }
    }
    // Each cell's file summarises its trials (also after Ctrl-C, from the trials that finished).
    for (const list of trialResults.values()) {
      const final = aggregateTrials(list, trials);
      writeJsonAtomic(path.join(runDir, 'cells', `${final.cellId}.json`), final);
      results.push(final);
      if (final.stats?.noisy)
        log(
          `  ${final.label} · ${final.scenario}: trials disagree by ${(final.stats.spread * 100).toFixed(0)}% — noisy, re-run`,
        );
    }
    const first = o.cells[0]?.profile;
    const crossS = o.crossCheckS ?? (first?.driver === 'autocannon' ? (first.crossCheckS ?? 0) : 0);
    const fastest = crossS > 0 && !o.signal.aborted ? fastestCell(results) : null;
    const spec = fastest && o.cells.find((cell) => cellIdOf(cell, o.externalUrl) === fastest.cellId);
    if (fastest && spec) {
      try {
        meta.driverCrossCheck = await crossCheckDriver({
          cell: fastest,
          runS: crossS,
          cpus: cpuPlan.client,
          signal: o.signal,
          log,
          start: async () =>
            o.externalUrl
              ? { baseUrl: o.externalUrl, stop: async () => 0 }
              : startServer(
                  spec.manifest,
                  await serverOptions(spec, ctx, path.join(runDir, 'logs', `${fastest.cellId}__cross-check.log`)),
                ),
          job: (baseUrl) => loadJob(spec, ctx, baseUrl),
        });
      } catch (e) {
        if (!o.signal.aborted) throw e;
      }
    }
  } finally {
    await upstream?.stop();
    await db?.close();
    meta.finishedAt = new Date().toISOString();
    meta.state = o.signal.aborted ? 'interrupted' : 'complete';
    writeJsonAtomic(path.join(runDir, 'meta.json'), meta);
  }
  const wallMs = performance.now() - t0;
  const over = results
    .map((r) => r.overheadMs?.total)
    .filter((x): x is number => x !== undefined)
    .sort((a, b) => a - b);
  if (over.length) {
    log(
      `harness overhead per cell (start + verify + teardown): median ${Math.round(over[Math.floor(over.length / 2)])} ms, max ${Math.round(over[over.length - 1])} ms over ${over.length} cells`,
    );
  }
  log(
    `run ${runId} ${o.signal.aborted ? 'INTERRUPTED' : 'finished'}: ${results.length} cells recorded in ${fmtDuration(wallMs)} wall time`,
  );
  return { runId, runDir, cells: results, interrupted: o.signal.aborted, wallMs };
}

/** A copy of `xs` in an order drawn from `rnd` (Fisher–Yates). */
function shuffle<T>(xs: T[], rnd: () => number): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = Math.floor(rnd() * (i + 1));
    [a[i], a[j]] = [a[j], a[i]];
  }
  return a;
}

/**
 * One cell's file from its trials: when every trial is `ok`, the last trial's measurement plus
 * `stats` over all of them (median, 95% interval, merged latency histogram, noise flag); else
 * the first failed trial, whose reason names the trial.
 */
export function aggregateTrials(list: CellResult[], planned: number): CellResult {
  const failed = list.find((r) => r.status !== 'ok');
  if (failed) {
    if (planned === 1) return failed;
    const k = list.indexOf(failed) + 1;
    return {
      ...failed,
      failure: failed.failure
        ? { ...failed.failure, reason: `trial ${k}/${planned}: ${failed.failure.reason}` }
        : failed.failure,
    };
  }
  return { ...list[list.length - 1], stats: trialStats(list) };
}

function indent(s: string): string {
  return s
    .split('\n')
    .map((l) => `    | ${l}`)
    .join('\n');
}

/** One line about a recorded cell, for the progress log. */
export function describe(r: CellResult): string {
  if (r.status !== 'ok')
    return `${r.status.toUpperCase()}: ${r.failure?.reason ?? r.verification?.reasons.join('; ') ?? ''}`;
  const l = r.load!;
  const errs = l.errors + l.timeouts + l.non2xx;
  return (
    `${Math.round(l.requestsPerSec.mean).toLocaleString('en-US')} req/s, p50 ${l.latencyMs.p50.toFixed(3)} ms, p99 ${l.latencyMs.p99.toFixed(3)} ms` +
    `${errs ? `, ${errs} errors/timeouts/non-2xx` : ''}${l.bodyChecks.mismatched ? `, ${l.bodyChecks.mismatched} body mismatches` : ''}` +
    `${r.verification?.level === 'warn' ? ' (verify: warn)' : ''}${r.startupMs !== null ? `; startup ${Math.round(r.startupMs)} ms` : ''}${r.overheadMs ? `, overhead ${Math.round(r.overheadMs.total)} ms` : ''}`
  );
}

interface CellContext extends RunOptions {
  runId: string;
  runDir: string;
  cpuPlan: CpuPlan;
  checker: ContractChecker;
  sharedSchemas: object[];
  upstreamUrl: string;
  build: BuildResult;
  k6Bin: string | null;
  k6Why: string;
  db: RunDatabase | undefined;
}

/** k6-rate's rate: `--rate`, else half the latest autocannon `quick` requests/s of the same cell. */
function resolveRate(cell: CellSpec, c: CellContext): { rate: number | null; why: string } {
  const p = cell.profile;
  if (p.driver !== 'k6' || p.executor !== 'constant-arrival-rate') return { rate: null, why: '' };
  if (typeof p.rate === 'number') return { rate: p.rate, why: '' };
  const label = cellLabel(cell.manifest.name, cell.variant);
  const prior = readAllResults(c.resultsDir)
    .cells.filter(
      (r) =>
        r.label === label &&
        r.scenario === cell.scenario.name &&
        r.profile === 'quick' &&
        r.driver === 'autocannon' &&
        r.node.major === cell.node.major &&
        r.status === 'ok',
    )
    .sort((a, b) => b.finishedAt.localeCompare(a.finishedAt))[0];
  if (!prior)
    return {
      rate: null,
      why: `k6-rate needs a rate: no autocannon quick result for ${label} · ${cell.scenario.name} on Node ${cell.node.major}; run \`npx just bench ${cell.manifest.name} --scenario ${cell.scenario.name}\` first, or pass --rate`,
    };
  return { rate: Math.max(1, Math.round(prior.load!.requestsPerSec.mean / 2)), why: '' };
}

/** A cell's result id (`__external` for an external target). */
function cellIdOf(cell: CellSpec, externalUrl: string | undefined): string {
  return (
    cellId(
      cell.manifest.name,
      cell.variant,
      cell.scenario.name,
      cell.profile.driver,
      cell.profile.name,
      cell.node.major,
    ) + (externalUrl ? '__external' : '')
  );
}

function needsDatabase(cell: CellSpec): boolean {
  return cell.manifest.requires.includes('database') || cell.scenario.needs.includes('database');
}

/** How a cell's server is started: pinned to the server cores, variant env, DATABASE_URL when it needs one. */
async function serverOptions(cell: CellSpec, c: Omit<CellContext, 'build'>, logFile: string): Promise<StartOptions> {
  const m = cell.manifest;
  return {
    host: c.host,
    port: c.port ?? (await freePort(c.host)),
    upstreamUrl: c.upstreamUrl,
    env: {
      ...(cell.variant ? m.variants[cell.variant].env : {}),
      ...(needsDatabase(cell) && c.db?.url ? { DATABASE_URL: c.db.url } : {}),
    },
    cpus: c.cpuPlan.server,
    logFile,
    nodePath: cell.node.path,
  };
}

/** What the contract needs from the contender and the run: its GraphQL query, the seeded first users, its path map. */
function runtimeValues(cell: CellSpec, c: Omit<CellContext, 'build'>): RuntimeValues {
  return { graphql: cell.manifest.graphql, firstUsers: c.db?.firstUsers, paths: cell.manifest.paths };
}

/** The cell's load job against `baseUrl`: the scenario's load parameters and the concrete request. */
function loadJob(cell: CellSpec, c: Omit<CellContext, 'build'>, baseUrl: string): LoadJob {
  const { manifest: m, scenario: s } = cell;
  const params = loadParams(s, runtimeValues(cell, c));
  return {
    url: baseUrl,
    scenario: s.name,
    scenariosDir: c.scenariosDir,
    params,
    request: buildRequest(s, params, m.paths),
    sampleEvery: SAMPLE_EVERY,
  };
}

/** Runs one cell; returns null when aborted before it finished. */
async function runCell(cell: CellSpec, c: CellContext): Promise<CellResult | null> {
  const { manifest: m, variant, scenario: s, profile: p, node } = cell;
  const id = cellIdOf(cell, c.externalUrl);
  const startedAt = new Date().toISOString();
  const logFile = path.join(c.runDir, 'logs', `${id}.log`);
  const base: CellResult = {
    schemaVersion: SCHEMA_VERSION,
    runId: c.runId,
    cellId: id,
    contender: m.name,
    variant,
    label: cellLabel(m.name, variant) + (c.externalUrl ? ' (external)' : ''),
    displayName: m.displayName,
    tags: { ...m.tags },
    scenario: s.name,
    driver: p.driver,
    profile: p.name,
    node: { version: node.version, major: node.major },
    status: 'error',
    verification: null,
    startupMs: null,
    overheadMs: null,
    load: null,
    failure: null,
    cpuPlan: c.cpuPlan,
    logFile: c.externalUrl ? null : path.relative(c.resultsDir, logFile),
    target: { kind: c.externalUrl ? 'external' : 'local', url: c.externalUrl ?? null },
    startedAt,
    finishedAt: startedAt,
  };
  const done = (patch: Partial<CellResult>): CellResult => ({
    ...base,
    ...patch,
    finishedAt: new Date().toISOString(),
  });
  const skip = (status: 'skipped' | 'unsupported', reason: string) =>
    done({ status, logFile: null, failure: { reason, logTail: '' } });

  if (!c.build.ok)
    return done({
      status: 'build-failed',
      logFile: null,
      failure: { reason: `build failed: ${m.build}`, logTail: c.build.output },
    });
  if (!c.externalUrl) {
    const engines = engineProblem(m.dir, node.version);
    if (engines) return skip('unsupported', `unsupported on Node ${node.major}: ${engines}`);
  }
  if (p.driver === 'k6' && !c.k6Bin) return skip('skipped', `k6 not available: ${c.k6Why}`);
  if (needsDatabase(cell) && !c.db?.ready) return skip('skipped', `needs PostgreSQL: ${c.db?.error ?? 'no database'}`);
  const { rate, why } = resolveRate(cell, c);
  if (why) return skip('skipped', why);
  const effective: Profile = rate !== null && p.driver === 'k6' ? { ...p, rate } : p;

  const rt = runtimeValues(cell, c);
  let server: ServerHandle | null = null;
  const tStart = performance.now();
  if (!c.externalUrl) {
    try {
      server = await startServer(m, await serverOptions(cell, c, logFile));
    } catch (e) {
      if (e instanceof UserError) throw e;
      if (c.signal.aborted) return null;
      const tail = e instanceof StartError ? e.logTail : '';
      return done({ status: 'start-failed', failure: { reason: (e as Error).message, logTail: tail } });
    }
  }
  const baseUrl = server?.baseUrl ?? c.externalUrl!;
  const startMs = server ? performance.now() - tStart : 0;
  const crash = new AbortController();
  const onExit = () => crash.abort();
  server?.child.once('exit', onExit);
  const both = AbortSignal.any([crash.signal, c.signal]);
  let teardown = 0;
  const stop = async () => {
    if (!server) return 0;
    server.child.off('exit', onExit);
    return server.stop();
  };
  try {
    const tVerify = performance.now();
    let verification: Verdict;
    try {
      verification = await verifyScenario(c.checker, baseUrl, s, rt);
    } catch (e) {
      verification = { level: 'fail' as const, reasons: [(e as Error).message] };
    }
    const verifyMs = performance.now() - tVerify;
    const overhead = () => ({ start: startMs, verify: verifyMs, teardown, total: startMs + verifyMs + teardown });
    const startupMs = server?.startupMs ?? null;
    if (verification.level === 'fail') {
      teardown = await stop();
      return done({
        status: 'verify-failed',
        verification,
        startupMs,
        overheadMs: overhead(),
        failure: {
          reason: `verification failed: ${verification.reasons.join('; ')}`,
          logTail: server ? logTail(logFile) : '',
        },
      });
    }
    const job = loadJob(cell, c, baseUrl);
    let out: LoadOutput | null = null;
    let loadError: string | undefined;
    const sampler = new Sampler(server?.pid ?? null);
    try {
      out = await runLoad(effective, job, {
        cpus: c.cpuPlan.client,
        signal: both,
        scenario: s,
        sharedSchemas: c.sharedSchemas,
        k6Bin: c.k6Bin ?? undefined,
        rate,
        onMeasure: (pid) => sampler.start(pid),
      });
    } catch (e) {
      loadError = (e as Error).message;
    }
    const cores = (list: string | null) => (list ? list.split(',').length : c.cpuPlan.allowedCores.length);
    const resources =
      sampler.stop(out?.requests.total ?? 0, out?.durationS ?? 1, cores(c.cpuPlan.server), cores(c.cpuPlan.client)) ??
      undefined;
    if (c.signal.aborted) return null;
    const died = server?.exitInfo() ?? null;
    teardown = await stop();
    const load = out ? { ...out, profile: effective } : null;
    if (died) {
      return done({
        status: 'crashed',
        verification,
        startupMs,
        overheadMs: overhead(),
        load,
        failure: { reason: `server ${died} during the load run`, logTail: logTail(logFile) },
      });
    }
    if (!load)
      return done({
        status: 'error',
        verification,
        startupMs,
        overheadMs: overhead(),
        failure: { reason: `load driver failed: ${loadError}`, logTail: server ? logTail(logFile) : '' },
      });
    return done({ status: 'ok', verification, startupMs, overheadMs: server ? overhead() : null, load, resources });
  } finally {
    await stop();
  }
}
