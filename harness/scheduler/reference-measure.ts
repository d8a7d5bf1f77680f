/**
 * How `just reference` measures (scheduler/steady-reference.ts runs it; analysis/reference-stats.ts sums it up).
 * Two designs, both with wrk, the server pinned to the server core of the CPU plan:
 *
 * - `rotation` (the default): per block, one fresh server process of EVERY contender of the
 *   scenario is started; each is warmed alone (`warmupS`, the others idle); then the measured
 *   windows rotate through the servers, one server loaded at a time and the others idle, in
 *   cycles whose order alternates forward and reversed (the ABBA order over the contenders),
 *   until every process has `windows` windows of `windowS` seconds. All contenders of a block
 *   sample the same minutes of the host, so the host's drift (a log SD of 0.10 between 10 s
 *   windows of one process on this VM) is shared within a block and cancels in the ratios, which
 *   are fitted two-way over (contender, block). Blocks start with a rotated contender order.
 * - `solo`: one process at a time, in ABBA order over the contenders (`processes` rounds): start,
 *   warm, measure its windows, stop. Each contender then sees other minutes of the host.
 *
 * Everything asked of the machine comes in `ReferenceDeps` (the scheduler's `RunDeps` pieces: the
 * CPU plan, the wrk driver, the server `Lifecycle`, the services; and the CPU of other work):
 * scheduler/real-deps.ts `referenceDeps` builds the real ones, test/unit/reference-measure.test.ts
 * fakes them. A window's figures: requests/s (requests completed ÷ window seconds) and requests
 * per server CPU-second (the server's `TargetHandle.cpuUs`: its cgroup or process tree), with the
 * CPU of processes outside the harness in the same window (lifecycle/foreign-cpu.ts). Every
 * server started here is stopped in a `finally` block, also on Ctrl-C.
 */
import {
  type ReferenceDesign,
  type ReferenceProcess,
  type ReferenceWindow,
  processFigures,
} from '../analysis/reference-stats.ts';
import path from 'node:path';
import type { Scenario } from '../contract/scenarios.ts';
import type { Manifest } from '../core/manifest.ts';
import type { Profile } from '../core/profiles.ts';
import type { LoadJob } from '../drivers/driver-types.ts';
import type { NodeRuntime } from '../lifecycle/node-runtime.ts';
import type { RunDatabase } from '../services/database.ts';
import { loadJob } from './jobs.ts';
import type { CellSpec } from './plan.ts';
import type { Lifecycle, RunDeps, TargetHandle } from './scheduler-types.ts';

/**
 * What a reference run asks of the machine: `RunDeps`' CPU plan, driver (wrk), lifecycle and
 * services, and `foreignCpu`: starts a reading of the CPU that processes outside the harness use;
 * the function it returns ends it with their CPU-seconds since (null when it cannot be read).
 */
export interface ReferenceDeps extends Pick<RunDeps, 'cpuPlan' | 'driver' | 'lifecycle' | 'services'> {
  foreignCpu(): () => number | null;
}

/** What a reference run shares between its measurements. */
export interface RunCtx {
  deps: ReferenceDeps;
  /** The run's lifecycle (`deps.lifecycle` with the run's services). */
  lifecycle: Lifecycle;
  scenariosDir: string;
  design: ReferenceDesign;
  profile: Profile;
  /** The Node runtime the servers run on. */
  node: NodeRuntime;
  db: RunDatabase | null;
  sharedSchemas: object[];
  logsDir: string;
  signal: AbortSignal;
  log: (l: string) => void;
}

/** The ABBA order of `items` over `rounds` rounds: round 1 in order, round 2 reversed, … ([A,B] × 3 → A B B A A B). */
export function abbaOrder<T>(items: readonly T[], rounds: number): T[] {
  const out: T[] = [];
  for (let r = 0; r < rounds; r++) out.push(...(r % 2 ? [...items].reverse() : items));
  return out;
}

/** `items` rotated left by `k` (block k of the rotation design starts with its (k+1)-th contender). */
export function rotated<T>(items: readonly T[], k: number): T[] {
  const n = items.length;
  if (!n) return [];
  const s = ((k % n) + n) % n;
  return [...items.slice(s), ...items.slice(0, s)];
}

/** A started server of a reference run and the load job that drives it. */
interface Live {
  m: Manifest;
  server: TargetHandle;
  job: LoadJob;
  order: number;
  windows: ReferenceWindow[];
}

/** Starts a fresh server process of `m` on `scenario` (log `<name>__<scenario>__<tag>.log`) with its load job. */
async function startOne(m: Manifest, scenario: Scenario, order: number, tag: string, x: RunCtx): Promise<Live> {
  const cell: CellSpec = { manifest: m, variant: null, scenario, profile: x.profile, node: x.node };
  const server = await x.lifecycle.start(cell, path.join(x.logsDir, `${m.name}__${scenario.name}__${tag}.log`));
  return { m, server, job: loadJob(cell, x.scenariosDir, x.db ?? undefined, server.baseUrl), order, windows: [] };
}

const windowOptions = (x: RunCtx, scenario: Scenario) => ({
  cpus: x.deps.cpuPlan.client,
  threads: x.deps.cpuPlan.clientThreads,
  signal: x.signal,
  scenario,
  sharedSchemas: x.sharedSchemas,
});

/** The warm-up of one server: `design.warmupS` seconds of wrk, not recorded (none at 0 s). */
async function warm(l: Live, scenario: Scenario, x: RunCtx): Promise<void> {
  if (x.design.warmupS > 0)
    await x.deps.driver.driver.window(x.profile, l.job, {
      ...windowOptions(x, scenario),
      durationS: x.design.warmupS,
      warmup: true,
      latency: false,
    });
}

/** One measured window of `design.windowS` seconds on a live server: its requests/s, efficiency and the other work beside it. */
async function measureWindow(l: Live, scenario: Scenario, x: RunCtx): Promise<ReferenceWindow> {
  const c0 = l.server.cpuUs();
  const foreignSince = x.deps.foreignCpu();
  const out = await x.deps.driver.driver.window(x.profile, l.job, {
    ...windowOptions(x, scenario),
    durationS: x.design.windowS,
    warmup: false,
  });
  const c1 = l.server.cpuUs();
  const foreign = foreignSince();
  const cpuS = c0 !== null && c1 !== null ? (c1 - c0) / 1e6 : null;
  const requests = out.requests.total;
  return {
    rps: out.durationS > 0 ? requests / out.durationS : 0,
    efficiency: cpuS && cpuS > 0 ? requests / cpuS : null,
    requests,
    durationS: out.durationS,
    serverCpuS: cpuS,
    errors: out.errors + out.timeouts + out.non2xx,
    foreignCpuS: foreign,
  };
}

const processOf = (l: Live, scenario: Scenario, block?: number): ReferenceProcess => ({
  contender: l.m.name,
  scenario: scenario.name,
  order: l.order,
  ...(block === undefined ? {} : { block }),
  windows: l.windows,
  ...processFigures(l.windows),
});

/** The solo design: one fresh process of `m` on `scenario`, warmed, then its windows; the server is always stopped. */
export async function measureSoloProcess(
  m: Manifest,
  scenario: Scenario,
  order: number,
  x: RunCtx,
): Promise<ReferenceProcess> {
  let l: Live | null = null;
  try {
    l = await startOne(m, scenario, order, `p${order}`, x);
    await warm(l, scenario, x);
    for (let w = 0; w < x.design.windows; w++) l.windows.push(await measureWindow(l, scenario, x));
    return processOf(l, scenario);
  } finally {
    await l?.server.stop();
  }
}

/**
 * The rotation design, block `block` (1-based) of scenario `scenario` over contenders `ms` (see
 * the module docstring): returns one process per contender, each with `design.windows` windows,
 * or [] when the run was interrupted before the block ended (a block is kept whole or not at
 * all). `firstOrder` numbers the block's processes in start order. Every server is stopped.
 */
export async function measureRotationBlock(
  ms: Manifest[],
  scenario: Scenario,
  block: number,
  firstOrder: number,
  x: RunCtx,
): Promise<ReferenceProcess[]> {
  const live: Live[] = [];
  try {
    for (const [i, m] of rotated(ms, block - 1).entries()) {
      if (x.signal.aborted) return [];
      live.push(await startOne(m, scenario, firstOrder + i, `b${block}`, x));
    }
    for (const l of live) {
      if (x.signal.aborted) return [];
      await warm(l, scenario, x);
    }
    for (const l of abbaOrder(live, x.design.windows)) {
      if (x.signal.aborted) return [];
      l.windows.push(await measureWindow(l, scenario, x));
    }
    return live.map((l) => processOf(l, scenario, block));
  } finally {
    await Promise.all(live.map((l) => l.server.stop()));
  }
}
