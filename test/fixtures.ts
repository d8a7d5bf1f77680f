/**
 * Test fixtures built from the real result types (harness/store/results.ts), shared by every
 * helper's tests: `makeTrial` (one measured window of a cell), `makeCell` (a cell file: its last
 * trial plus `stats` over all trials, computed by the real `trialStats`) and `makeMeta` (a run's
 * meta.json). Every builder takes a patch; nested `load`, `resources` and `stats` patches are
 * merged into the defaults rather than replacing them.
 *
 * Defaults: contender `a`, scenario `ping`, profile `quick`, driver autocannon, Node 24, run `r`,
 * status `ok`, 10,000 requests/s over a 1 s window (requests.total = rps × durationS, unrounded,
 * so a trial's figure, requests completed ÷ window seconds, is exactly `rps`).
 */
import type { CpuPlan } from '../harness/lifecycle/cpu-plan.ts';
import type { ResourceUse } from '../harness/lifecycle/sampler.ts';
import type { LoadOutput } from '../harness/drivers/driver-types.ts';
import type { Profile } from '../harness/core/profiles.ts';
import type { CellResult, CellStats, RunMeta } from '../harness/store/results.ts';
import { trialStats } from '../harness/analysis/stats.ts';

/** A patch of a cell: any CellResult field, with `load`/`resources`/`stats` merged field by field. */
export type CellPatch = Omit<Partial<CellResult>, 'load' | 'resources' | 'stats'> & {
  /** requests/s of the window (default 10,000); sets requests.total = rps × durationS. */
  rps?: number;
  /** Merged into the default load output (e.g. `{ errors: 5 }`, `{ durationS: 5 }`). `null` = no load. */
  load?: (Partial<LoadOutput> & { profile?: Partial<Profile> }) | null;
  /** Merged into a default resource use (server 95% CPU, 100 MiB, flat RSS; client 50%). */
  resources?: DeepPartialResources | undefined;
  /** When given, merged over the stats computed from the trials. */
  stats?: Partial<CellStats>;
};

type DeepPartialResources = Omit<Partial<ResourceUse>, 'server' | 'client'> & {
  server?: Partial<ResourceUse['server']>;
  client?: Partial<ResourceUse['client']>;
};

/** A pinned 2-core CPU plan as the harness records it. */
export const CPU_PLAN: CpuPlan = {
  pinned: true,
  server: '1',
  client: '0',
  services: '0',
  allowedCores: [0, 1],
  note: 'server on CPU 1, client and services on CPU 0',
} as CpuPlan;

/** A resource-use record with defaults (server 95% CPU, 100 MiB flat RSS; client 50% of 1 core). */
export function makeResources(p: DeepPartialResources = {}): ResourceUse {
  return {
    rpsPerCpuSecond: 1000,
    clientBound: false,
    ...p,
    server: {
      cpuPctAvg: 95,
      cpuPctPeak: 100,
      rssBytesAvg: 100 * 2 ** 20,
      rssBytesPeak: 110 * 2 ** 20,
      rssSlopeBytesPerS: 0,
      samples: 25,
      pinnedCores: 1,
      ...p.server,
    },
    client: { cpuPctAvg: 50, cores: 1, ...p.client },
  };
}

function splitLabel(label: string): { contender: string; variant: string | null } {
  const [contender = label, variant] = label.split(' +');
  return { contender, variant: variant ?? null };
}

/**
 * One measured window (a trial) of a cell, as the scheduler writes it before aggregation.
 * `makeTrial(12_000)` or `makeTrial(12_000, { label: 'express', scenario: 'json' })`.
 */
export function makeTrial(rps = 10_000, patch: CellPatch = {}): CellResult {
  const { rps: _r, load: loadPatch, resources, stats: _s, ...rest } = patch;
  const label = rest.label ?? (rest.contender ? `${rest.contender}${rest.variant ? ` +${rest.variant}` : ''}` : 'a');
  const { contender, variant } = splitLabel(label);
  const scenario = rest.scenario ?? 'ping';
  const profile = rest.profile ?? 'quick';
  const driver = rest.driver ?? 'autocannon';
  const durationS = loadPatch?.durationS ?? 1;
  const { profile: profilePatch, ...loadRest } = loadPatch ?? {};
  const load: CellResult['load'] =
    loadPatch === null
      ? null
      : {
          driver,
          requestsPerSec: { mean: rps, stddev: 0, samples: Array.from({ length: Math.max(1, durationS) }, () => rps) },
          latencyMs: { mean: 1, p50: 1, p90: 2, p95: 2.5, p99: 3, p999: 4, max: 5 },
          latencyHistogramUs: null,
          requests: { total: rps * durationS, sent: rps * durationS },
          errors: 0,
          timeouts: 0,
          non2xx: 0,
          bytes: rps * durationS * 100,
          durationS,
          bodyChecks: { sampled: 100, mismatched: 0 },
          driverCpuMs: null,
          client: { cores: 1, threads: 1 },
          ...loadRest,
          profile: {
            name: profile,
            driver: 'native',
            connections: 100,
            pipelining: 1,
            warmupS: 1,
            durationS,
            rounds: 5,
            ...profilePatch,
          } as unknown as Profile,
        };
  const nodeMajor = rest.node?.major ?? 24;
  const base: CellResult = {
    schemaVersion: 1,
    runId: 'r',
    cellId: `${label.replace(' +', '+')}__${scenario}__${driver}__${profile}__node${nodeMajor}`,
    contender,
    variant,
    label,
    displayName: label,
    tags: { framework: contender, httpClient: 'undici Pool', language: 'javascript' },
    scenario,
    driver,
    profile,
    node: { version: `v${nodeMajor}.0.0`, major: nodeMajor },
    status: 'ok',
    verification: { level: 'pass', reasons: [] } as unknown as CellResult['verification'],
    startupMs: 100,
    overheadMs: { start: 100, verify: 20, teardown: 30, total: 150 },
    load,
    target: { kind: 'local', url: null },
    failure: null,
    resources: resources ? makeResources(resources) : undefined,
    cpuPlan: CPU_PLAN,
    logFile: null,
    startedAt: '2026-11-22T00:00:00.000Z',
    finishedAt: '2026-11-22T00:00:01.000Z',
  } as CellResult;
  return {
    ...base,
    ...rest,
    contender: rest.contender ?? contender,
    variant: rest.variant !== undefined ? rest.variant : variant,
    label,
  };
}

/**
 * A cell file: `trials` (requests/s of each trial, default `[rps]`) → the last trial plus `stats`
 * from the real `trialStats` (rounds 1..n unless `rounds` is given). `makeCell({ label: 'hono',
 * scenario: 'post', trials: [55_000, 56_000, 55_500, 56_200, 55_900] })`. Any CellResult field
 * can be patched; `stats` is merged over the computed statistics. With `load: null` (a cell that
 * was never measured: build/start/verify failure, skipped) the cell has no `stats`.
 */
export function makeCell(patch: CellPatch & { trials?: number[]; rounds?: number[] } = {}): CellResult {
  const { trials: trialRps, rounds, stats, ...rest } = patch;
  const rpsList = trialRps ?? [rest.rps ?? 10_000];
  const trials = rpsList.map((r) => makeTrial(r, { ...rest, rps: r }));
  const last = trials.at(-1);
  if (!last) throw new Error('makeCell: `trials` must not be empty');
  if (rest.load === null && !stats) return last; // not measured (failed before load, skipped): no stats
  const computed = trialStats(trials, rounds);
  return { ...last, stats: { ...computed, ...stats } };
}

/** A run's meta.json with defaults (run `r`, complete, profile quick, AMD EPYC 2 cores, Node 24.21.0). */
export function makeMeta(patch: Partial<RunMeta> = {}): RunMeta {
  return {
    schemaVersion: 1,
    runId: 'r',
    startedAt: '2026-11-22T00:00:00.000Z',
    finishedAt: '2026-11-22T00:10:00.000Z',
    state: 'complete',
    command: ['bench', 'a'],
    profile: 'quick',
    machine: { cpuModel: 'AMD EPYC', cores: 2, memoryBytes: 24 * 2 ** 30, os: 'Linux 6.18', arch: 'x64' },
    node: { version: 'v24.21.0', execPath: '/usr/bin/node' },
    git: { commit: '0000000', dirty: false },
    cpuPlan: CPU_PLAN,
    upstreamDelayMs: 0,
    database: null,
    trials: { count: 5, shuffleSeed: 1 },
    nodes: [{ major: 24, version: 'v24.21.0' }],
    packages: {},
    ...patch,
  } as RunMeta;
}

/** `n` ok cells of one run (`runId`), each with the given trials, for a table: `[['node-http', [..]], ['express', [..]]]`. */
export function makeRunCells(
  rows: [label: string, trials: number[], patch?: CellPatch][],
  common: CellPatch = {},
): CellResult[] {
  return rows.map(([label, trials, p]) => makeCell({ ...common, ...p, label, trials }));
}
