/**
 * Runs a plan: for each cell, start the contender pinned to the server cores, verify the
 * scenario, warm up, measure with autocannon pinned to the client cores, tear down, and write
 * the cell's result file. A build failure, start failure, verification failure or crash becomes
 * a recorded cell (with the log's tail) and the run goes on. Aborting (`signal`: Ctrl-C)
 * stops the current cell; finished cells stay saved and meta.json says `interrupted`.
 */
import path from 'node:path';
import { ContractChecker, verifyScenario } from './contract/verify.ts';
import { buildRequest, loadParams, loadSharedSchemas } from './contract/scenarios.ts';
import { runAutocannon } from './drivers/autocannon.ts';
import { buildContender, type BuildResult } from './lifecycle/build.ts';
import { makeCpuPlan, type CpuPlan } from './lifecycle/cpu-plan.ts';
import { freePort } from './lifecycle/ports.ts';
import { startServer, StartError, logTail, type ServerHandle } from './lifecycle/server.ts';
import { startUpstream, type Upstream } from './services/upstream.ts';
import { cellId, cellLabel, type CellSpec } from './plan.ts';
import {
  createRunDir, gitState, machineInfo, newRunId, resolvedPackages, SCHEMA_VERSION, writeJsonAtomic,
  type CellResult, type RunMeta,
} from './store/results.ts';
import { ROOT } from './paths.ts';
import { UserError } from './errors.ts';

export interface RunOptions {
  cells: CellSpec[];
  profileName: string;
  resultsDir: string;
  scenariosDir: string;
  host: string;
  /** Fixed server port (default: a free one per cell). */
  port?: number;
  upstreamDelayMs: number;
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
  const log = o.log ?? ((l: string) => process.stderr.write(l + '\n'));
  const t0 = performance.now();
  const runId = newRunId();
  const runDir = createRunDir(o.resultsDir, runId);
  const cpuPlan = makeCpuPlan();
  const manifests = [...new Map(o.cells.map((c) => [c.manifest.name, c.manifest])).values()];
  const meta: RunMeta = {
    schemaVersion: SCHEMA_VERSION, runId, startedAt: new Date().toISOString(), finishedAt: null, state: 'running',
    command: o.command, profile: o.profileName, machine: machineInfo(),
    node: { version: process.version, execPath: process.execPath }, git: gitState(ROOT), cpuPlan,
    upstreamDelayMs: o.upstreamDelayMs, packages: resolvedPackages(ROOT, manifests.map((m) => m.dir)),
  };
  writeJsonAtomic(path.join(runDir, 'meta.json'), meta);
  log(`run ${runId}: ${o.cells.length} cells, profile ${o.profileName}; ${cpuPlan.note}`);
  log(`results: ${runDir}`);

  const checker = new ContractChecker(loadSharedSchemas(o.scenariosDir));
  const results: CellResult[] = [];
  const builds = new Map<string, BuildResult>();
  let upstream: Upstream | undefined;
  try {
    if (o.cells.some((c) => c.scenario.needs.includes('upstream'))) {
      upstream = await startUpstream({ host: o.host, cpus: cpuPlan.services, delayMs: o.upstreamDelayMs });
      log(`upstream mock: ${upstream.url} (pid ${upstream.pid}, delay ${o.upstreamDelayMs} ms)`);
    }
    for (const [i, cell] of o.cells.entries()) {
      if (o.signal.aborted) break;
      const elapsed = performance.now() - t0;
      const eta = i === 0
        ? o.cells.length * (cell.profile.warmupS + cell.profile.durationS + 1) * 1000
        : (elapsed / i) * (o.cells.length - i);
      log(`[${i + 1}/${o.cells.length}] ${cellLabel(cell.manifest.name, cell.variant)} · ${cell.scenario.name} · ${cell.profile.name}   elapsed ${fmtDuration(elapsed)}, ETA ${fmtDuration(eta)}`);
      let build = builds.get(cell.manifest.name);
      if (!build) {
        if (cell.manifest.build) log(`  building ${cell.manifest.name}: ${cell.manifest.build}`);
        build = await buildContender(cell.manifest, o.signal);
        builds.set(cell.manifest.name, build);
        if (!build.ok && !o.signal.aborted) log(`  build FAILED for ${cell.manifest.name}:\n${indent(build.output)}`);
      }
      if (o.signal.aborted) break;
      const result = await runCell(cell, { ...o, runId, runDir, cpuPlan, checker, upstreamUrl: upstream?.url ?? 'http://127.0.0.1:9', build });
      if (!result) break; // aborted mid-cell: nothing to record
      writeJsonAtomic(path.join(runDir, 'cells', `${result.cellId}.json`), result);
      results.push(result);
      log(`  ${describe(result)}`);
    }
  } finally {
    await upstream?.stop();
    meta.finishedAt = new Date().toISOString();
    meta.state = o.signal.aborted ? 'interrupted' : 'complete';
    writeJsonAtomic(path.join(runDir, 'meta.json'), meta);
  }
  const wallMs = performance.now() - t0;
  const over = results.map((r) => r.overheadMs?.total).filter((x): x is number => x !== undefined).sort((a, b) => a - b);
  if (over.length) {
    log(`harness overhead per cell (start + verify + teardown): median ${Math.round(over[Math.floor(over.length / 2)])} ms, max ${Math.round(over[over.length - 1])} ms over ${over.length} cells`);
  }
  log(`run ${runId} ${o.signal.aborted ? 'INTERRUPTED' : 'finished'}: ${results.length} cells recorded in ${fmtDuration(wallMs)} wall time`);
  return { runId, runDir, cells: results, interrupted: o.signal.aborted, wallMs };
}

function indent(s: string): string {
  return s.split('\n').map((l) => `    | ${l}`).join('\n');
}

/** One line about a recorded cell, for the progress log. */
export function describe(r: CellResult): string {
  if (r.status !== 'ok') return `${r.status.toUpperCase()}: ${r.failure?.reason ?? r.verification?.reasons.join('; ') ?? ''}`;
  const l = r.load!;
  const errs = l.errors + l.timeouts + l.non2xx;
  return `${Math.round(l.requestsPerSec.mean).toLocaleString('en-US')} req/s, p50 ${l.latencyMs.p50} ms, p99 ${l.latencyMs.p99} ms` +
    `${errs ? `, ${errs} errors/timeouts/non-2xx` : ''}${l.bodyChecks.mismatched ? `, ${l.bodyChecks.mismatched} body mismatches` : ''}` +
    `${r.verification?.level === 'warn' ? ' (verify: warn)' : ''}; startup ${Math.round(r.startupMs ?? 0)} ms, overhead ${Math.round(r.overheadMs?.total ?? 0)} ms`;
}

interface CellContext extends RunOptions {
  runId: string;
  runDir: string;
  cpuPlan: CpuPlan;
  checker: ContractChecker;
  upstreamUrl: string;
  build: BuildResult;
}

/** Runs one cell; returns null when aborted before it finished. */
async function runCell(cell: CellSpec, c: CellContext): Promise<CellResult | null> {
  const { manifest: m, variant, scenario: s, profile: p } = cell;
  const nodeMajor = Number(process.versions.node.split('.')[0]);
  const id = cellId(m.name, variant, s.name, p.driver, p.name, nodeMajor);
  const startedAt = new Date().toISOString();
  const logFile = path.join(c.runDir, 'logs', `${id}.log`);
  const base: CellResult = {
    schemaVersion: SCHEMA_VERSION, runId: c.runId, cellId: id, contender: m.name, variant, label: cellLabel(m.name, variant),
    displayName: m.displayName, tags: { ...m.tags }, scenario: s.name, driver: p.driver, profile: p.name,
    node: { version: process.version, major: nodeMajor }, status: 'error', verification: null, startupMs: null,
    overheadMs: null, load: null, failure: null, cpuPlan: c.cpuPlan, logFile: path.relative(c.resultsDir, logFile),
    startedAt, finishedAt: startedAt,
  };
  const done = (patch: Partial<CellResult>): CellResult => ({ ...base, ...patch, finishedAt: new Date().toISOString() });

  if (!c.build.ok) return done({ status: 'build-failed', logFile: null, failure: { reason: `build failed: ${m.build}`, logTail: c.build.output } });

  const variantEnv = variant ? m.variants[variant].env : {};
  let server: ServerHandle;
  const tStart = performance.now();
  try {
    server = await startServer(m, {
      host: c.host, port: c.port ?? (await freePort(c.host)), upstreamUrl: c.upstreamUrl, env: variantEnv,
      cpus: c.cpuPlan.server, logFile, nodePath: process.execPath,
    });
  } catch (e) {
    if (e instanceof UserError) throw e;
    if (c.signal.aborted) return null;
    const tail = e instanceof StartError ? e.logTail : '';
    return done({ status: 'start-failed', failure: { reason: (e as Error).message, logTail: tail } });
  }
  const startMs = performance.now() - tStart;
  const crash = new AbortController();
  const onExit = () => crash.abort();
  server.child.once('exit', onExit);
  const both = AbortSignal.any([crash.signal, c.signal]);
  let teardown = 0;
  try {
    const tVerify = performance.now();
    const verification = await verifyScenario(c.checker, server.baseUrl, s);
    const verifyMs = performance.now() - tVerify;
    const overhead = () => ({ start: startMs, verify: verifyMs, teardown, total: startMs + verifyMs + teardown });
    if (verification.level === 'fail') {
      teardown = await stopServer(server, onExit);
      return done({ status: 'verify-failed', verification, startupMs: server.startupMs, overheadMs: overhead(), failure: { reason: 'verification failed: ' + verification.reasons.join('; '), logTail: '' } });
    }
    const job = {
      url: server.baseUrl, scenario: s.name, scenariosDir: c.scenariosDir, params: loadParams(s), request: buildRequest(s, loadParams(s)),
      connections: p.connections, pipelining: p.pipelining, timeoutS: p.timeoutS, sampleEvery: SAMPLE_EVERY,
    };
    let load: CellResult['load'] = null;
    let loadError: string | undefined;
    try {
      if (p.warmupS > 0) await runAutocannon({ ...job, durationS: p.warmupS }, c.cpuPlan.client, both);
      const out = await runAutocannon({ ...job, durationS: p.durationS }, c.cpuPlan.client, both);
      load = { ...out, connections: p.connections, pipelining: p.pipelining, warmupS: p.warmupS, configuredDurationS: p.durationS };
    } catch (e) {
      loadError = (e as Error).message;
    }
    if (c.signal.aborted) return null;
    const died = server.exitInfo();
    teardown = await stopServer(server, onExit);
    if (died) {
      return done({ status: 'crashed', verification, startupMs: server.startupMs, overheadMs: overhead(), load, failure: { reason: `server ${died} during the load run`, logTail: logTail(logFile) } });
    }
    if (!load) return done({ status: 'error', verification, startupMs: server.startupMs, overheadMs: overhead(), failure: { reason: `load driver failed: ${loadError}`, logTail: logTail(logFile) } });
    return done({ status: 'ok', verification, startupMs: server.startupMs, overheadMs: overhead(), load });
  } finally {
    await stopServer(server, onExit);
  }
}

async function stopServer(server: ServerHandle, onExit: () => void): Promise<number> {
  server.child.off('exit', onExit);
  return server.stop();
}
