/**
 * Building what a cell needs: its id (with the resolved driver name), its result skeleton, its
 * run-time contract values, its load job (with per-request variants), and k6-rate's rate.
 * Rates in requests/s.
 */
import { CONTROL_VARIANT } from '../analysis/aa-control.ts';
import { buildRequest, loadParams, loadVariants, type RuntimeValues } from '../contract/scenarios.ts';
import type { LoadJob } from '../drivers/driver-types.ts';
import type { CpuPlan } from '../lifecycle/cpu-plan.ts';
import type { RunDatabase } from '../services/database.ts';
import type { Upstream } from '../services/upstream.ts';
import { SCHEMA_VERSION, type CellResult } from '../store/results.ts';
import { readAllResults } from '../store/result-files.ts';
import { cellId, cellLabel, type CellSpec } from './plan.ts';

/** Responses checked against the contract under load: one in this many. */
export const SAMPLE_EVERY = 50;

/** A cell's result id with the resolved driver name (`__external` for an external target). */
export function cellIdOf(cell: CellSpec, driver: string, external: boolean): string {
  return (
    cellId(cell.manifest.name, cell.variant, cell.scenario.name, driver, cell.profile.name, cell.node.major) +
    (external ? '__external' : '')
  );
}

export function needsDatabase(cell: CellSpec): boolean {
  return cell.manifest.requires.includes('database') || cell.scenario.needs.includes('database');
}

export function needsUpstream(cell: CellSpec): boolean {
  return cell.scenario.needs.includes('upstream');
}

/**
 * The run's services that went away, for a cell's trial: `{ servicesLost: ['database'] }` when the
 * cell needs the database and it no longer answers `SELECT 1`, `'upstream'` when its scenario fans
 * out to the upstream mock and the mock no longer answers `GET /data`; `{}` when both are fine.
 * Their failed requests are then the service's, not the contender's (scheduler/aggregate.ts).
 */
export async function lostServices(
  cell: CellSpec,
  s: { db?: RunDatabase; upstream?: Upstream },
): Promise<{ servicesLost?: string[] }> {
  const lost: string[] = [];
  if (needsDatabase(cell) && s.db && !(await s.db.alive())) lost.push('database');
  if (needsUpstream(cell) && s.upstream && !(await s.upstream.alive())) lost.push('upstream');
  return lost.length ? { servicesLost: lost } : {};
}

/** What the contract needs from the contender and the run: its GraphQL dialect, the seeded rows, its path map. */
export function runtimeValues(cell: CellSpec, db: RunDatabase | undefined): RuntimeValues {
  return {
    graphql: cell.manifest.graphql,
    firstUsers: db?.firstUsers,
    sampleUsers: db?.sampleUsers,
    paths: cell.manifest.paths,
  };
}

/** The cell's load job against `baseUrl`: load parameters, the concrete request, per-request variants. */
export function loadJob(cell: CellSpec, scenariosDir: string, db: RunDatabase | undefined, baseUrl: string): LoadJob {
  const { manifest: m, scenario: s } = cell;
  const rt = runtimeValues(cell, db);
  const params = loadParams(s, rt);
  const variants = loadVariants(s, rt);
  return {
    url: baseUrl,
    scenario: s.name,
    scenariosDir,
    params,
    request: buildRequest(s, params, m.paths),
    ...(variants?.length ? { variants } : {}),
    sampleEvery: SAMPLE_EVERY,
  };
}

/** The result skeleton of a cell (status `error` until set). */
export function baseResult(
  cell: CellSpec,
  o: { runId: string; id: string; driver: string; cpuPlan: CpuPlan; externalUrl?: string; logFile: string | null },
): CellResult {
  const { manifest: m, variant, scenario: s, profile: p, node } = cell;
  const now = new Date().toISOString();
  return {
    schemaVersion: SCHEMA_VERSION,
    runId: o.runId,
    cellId: o.id,
    contender: m.name,
    variant,
    label: cellLabel(m.name, variant) + (o.externalUrl ? ' (external)' : ''),
    displayName: m.displayName,
    tags: { ...m.tags },
    scenario: s.name,
    driver: o.driver as CellResult['driver'],
    profile: p.name,
    node: { version: node.version, major: node.major },
    status: 'error',
    verification: null,
    startupMs: null,
    overheadMs: null,
    load: null,
    failure: null,
    cpuPlan: o.cpuPlan,
    logFile: o.logFile,
    target: { kind: o.externalUrl ? 'external' : 'local', url: o.externalUrl ?? null },
    startedAt: now,
    finishedAt: now,
  };
}

/**
 * k6-rate's rate: the profile's number (`--rate`), else half the latest ok `quick` requests/s of
 * the same contender (for the A/A control, its baseline's), scenario and Node major in the store.
 * The store is read once per run.
 */
export class RateResolver {
  private prior: CellResult[] | null = null;
  private readonly resultsDir: string;
  constructor(resultsDir: string) {
    this.resultsDir = resultsDir;
  }

  resolve(cell: CellSpec): { rate: number | null; why: string } {
    const p = cell.profile;
    if (p.driver !== 'k6' || p.executor !== 'constant-arrival-rate') return { rate: null, why: '' };
    if (typeof p.rate === 'number') return { rate: p.rate, why: '' };
    this.prior ??= readAllResults(this.resultsDir).cells.filter((r) => r.profile === 'quick' && r.status === 'ok');
    // The A/A control runs at its baseline's rate (the same server).
    const label = cellLabel(cell.manifest.name, cell.variant === CONTROL_VARIANT ? null : cell.variant);
    const found = this.prior
      .filter((r) => r.label === label && r.scenario === cell.scenario.name && r.node.major === cell.node.major)
      .sort((a, b) => b.finishedAt.localeCompare(a.finishedAt))[0];
    if (!found?.load)
      return {
        rate: null,
        why: `k6-rate needs a rate: no quick result for ${label} · ${cell.scenario.name} on Node ${cell.node.major}; run \`npx just bench ${cell.manifest.name} --scenario ${cell.scenario.name}\` first, or pass --rate`,
      };
    const rps = found.stats?.rps.figure ?? found.load.requestsPerSec.mean;
    return { rate: Math.max(1, Math.round(rps / 2)), why: '' };
  }
}
