/**
 * Whether a server stayed in its box over a window or round: its one core, its pause and its CPU
 * accounting (lifecycle/cgroups.ts and lifecycle/processes.ts confine it; this judges what they
 * could not stop). A breach makes the trial `uncontained`: the cell is not ranked and the
 * findings name it (report/issues.ts). Times in seconds.
 */
import { parseCpuList } from '../lifecycle/cpu-plan.ts';
import type { GroupContext, TargetHandle } from './scheduler-types.ts';

/**
 * CPU-seconds a server may use per second it runs, per server core: its core, plus 5% for the
 * counters' and timers' slack. A server that reads above it used a core it was not given.
 */
export const ONE_CORE = 1.05;
/**
 * Extra seconds an interleaved round allows a server beyond its unpaused time: a freeze takes
 * effect within a millisecond or so per slice, more on a loaded host; an escape reads far above it
 * (a server running outside its pause used about 1.5 CPU-s in a round that allowed it 0.5).
 */
export const FREEZE_SLACK_S = 0.25;
/** Intervals shorter than this (s) are not judged by their CPU: a counter's and a timer's granularity dominate them. */
export const MIN_JUDGED_S = 0.25;

/** CPU-seconds per wall second of a server over an interval: what `cpuMeter` read. */
export interface CpuUse {
  cpuS: number;
  wallS: number;
}

/**
 * Starts reading server `s`'s CPU (its cgroup's counter, TargetHandle `cpuUs`); the returned
 * function ends the interval: CPU-seconds and wall seconds since, or null when the CPU cannot be
 * read (an external target).
 */
export function cpuMeter(s: TargetHandle): () => CpuUse | null {
  const c0 = s.cpuUs();
  const t0 = performance.now();
  return () => {
    const c1 = s.cpuUs();
    const wallS = (performance.now() - t0) / 1000;
    return c0 === null || c1 === null || wallS <= 0 ? null : { cpuS: (c1 - c0) / 1e6, wallS };
  };
}

/** The load driver's cores of the run's CPU plan ([] when unpinned: nothing to stay off). */
export function clientCores(ctx: GroupContext): number[] {
  return ctx.cpuPlan.pinned && ctx.cpuPlan.client ? parseCpuList(ctx.cpuPlan.client) : [];
}

/** The server cores of the run's CPU plan (1 on a pinned plan; every allowed core unpinned). */
function serverCores(ctx: GroupContext): number {
  return ctx.cpuPlan.pinned && ctx.cpuPlan.server
    ? parseCpuList(ctx.cpuPlan.server).length
    : ctx.cpuPlan.allowedCores.length;
}

/**
 * Why server `s` was not contained `when` ("in round 2"), or null: more CPU than its cores over
 * `use` (`allowedS`: the seconds it was allowed to run, default the wall time; an interleaved
 * round passes its unpaused time plus FREEZE_SLACK_S), processes outside its cgroup or its pause,
 * threads allowed on the driver's cores (TargetHandle `escapes`). Only servers the harness
 * contains are judged (a handle with `escapes`); an interval under MIN_JUDGED_S is not judged by CPU.
 */
export function containmentBreach(
  s: TargetHandle,
  ctx: GroupContext,
  when: string,
  use: CpuUse | null,
  allowedS?: number,
): string | null {
  if (!s.escapes) return null; // not a server the harness contains (an external target)
  const clauses = [...s.escapes(clientCores(ctx))];
  const cores = serverCores(ctx);
  const allowedWall = allowedS ?? use?.wallS ?? 0;
  const allowed = allowedWall * cores * ONE_CORE;
  if (use && use.wallS >= MIN_JUDGED_S && use.cpuS > allowed)
    clauses.unshift(
      `used ${use.cpuS.toFixed(2)} CPU-s in ${allowedWall.toFixed(2)} s it was allowed to run, more than its ${cores === 1 ? 'one core' : `${cores} cores`}`,
    );
  return clauses.length ? `escaped its containment ${when}: ${clauses.join('; ')}` : null;
}
