/**
 * The planned cost of a group for the ETA (scheduler/progress.ts `plan`): its phases per kind and
 * measured windows (`groupPlan`), the cost of one window (`windowMs`), and the shape of its
 * restarted server processes (`roundsPerInstance`, `restartWarmupS`). scheduler/group.ts runs what
 * is planned here and marks each phase done as it ends. Times in ms unless the name says otherwise.
 */
import { interleaveOf, type InterleaveShape, measuredSeconds, type Profile } from '../core/profiles.ts';
import { interleavedRoundMs } from './interleave.ts';
import type { CellSpec } from './plan.ts';
import { ESTIMATE, type PhaseKind } from './progress.ts';

/** A group's planned phases of one kind for the ETA: `n` phases of `ms` each. */
export interface PlannedPhases {
  n: number;
  ms: number;
}

/**
 * The planned cost of a group for the ETA, ms, and its measured windows (`interleaves` false: a
 * driver without interleaved rounds); `parts`: its phases per kind (progress.ts `PhaseKind`): a
 * start with contract check and burst per server, a warm-up each, the solo windows (or capacity
 * rounds), the interleaved rounds, and per later server process a restart and a warm-up of each
 * server. runGroup and its helpers mark each phase done as it ends (progress.ts `done`), and skip
 * at the group's end what did not run (`settle`).
 */
export function groupPlan(
  cells: CellSpec[],
  rounds: number,
  mode: 'bench' | 'verify',
  interleaves = true,
): { ms: number; windows: number; parts: Partial<Record<PhaseKind, PlannedPhases>> } {
  const [firstCell] = cells;
  if (!firstCell) return { ms: 0, windows: 0, parts: {} };
  const p = firstCell.profile;
  const n = cells.length;
  const server = { n, ms: ESTIMATE.server };
  if (mode === 'verify') return { ms: n * ESTIMATE.server, windows: 0, parts: { server } };
  const il = interleaves ? interleaveOf(p) : null;
  const paired = il && n > 1 ? il.rounds : 0;
  // Each later server process (each one with `restartFirst`): every server started and checked again, then warmed alone.
  const restarts = il && paired ? Math.ceil(il.rounds / roundsPerInstance(il)) - (il.restartFirst ? 0 : 1) : 0;
  const parts: Partial<Record<PhaseKind, PlannedPhases>> = {
    server,
    ...(p.warmupS > 0 ? { warmup: { n, ms: p.warmupS * 1000 + ESTIMATE.windowOverhead } } : {}),
    window: { n: n * rounds, ms: windowMs(p) },
    ...(il && paired ? { round: { n: paired, ms: interleavedRoundMs(n, il) } } : {}),
    ...(restarts > 0
      ? {
          restart: { n: restarts * n, ms: ESTIMATE.server },
          rewarm: { n: restarts * n, ms: restartWarmupS(p, rounds) * 1000 + ESTIMATE.windowOverhead },
        }
      : {}),
  };
  const ms = Object.values(parts).reduce((s, x) => s + x.n * x.ms, 0);
  return { ms, windows: n * rounds + paired, parts };
}

/** The ms per kind of `parts` (groupPlan), for progress.ts `plan` and `settle`. */
export function partsMs(parts: Partial<Record<PhaseKind, PlannedPhases>>): Partial<Record<PhaseKind, number>> {
  return Object.fromEntries(Object.entries(parts).map(([k, x]) => [k, x.n * x.ms]));
}

/** The planned ms of one measured window (or capacity round) of profile `p`. */
export function windowMs(p: Profile): number {
  // A capacity round: the peak window, the settle and a search of about 10 steps (10.1–10.3 per
  // search in test/unit/capacity-truth.test.ts's noise model with the capacity moving 2× between rounds;
  // scheduler/capacity-search.ts).
  if (p.driver !== 'k6' && p.capacity)
    return (measuredSeconds(p) + p.capacity.settleS + 10 * (p.capacity.stepS + 0.3)) * 1000 + ESTIMATE.windowOverhead;
  return measuredSeconds(p) * 1000 + ESTIMATE.windowOverhead;
}

/**
 * Seconds of solo load per server in the warm-up of a restarted process: the load the first
 * process had before its first interleaved round (the warm-up and the `soloRounds` solo windows;
 * 3 s in `quick`), so no process starts its rounds colder than another. With only the 1 s warm-up,
 * one run found the first round of restarted processes 10–15% below their
 * second, by amounts that differed between contenders (docs/noise.md, "Process instances").
 */
export function restartWarmupS(p: Profile, soloRounds: number): number {
  return p.warmupS + soloRounds * measuredSeconds(p);
}

/** Interleaved rounds per server process (profiles.ts `InterleaveShape.instances`; the last block may be shorter). */
export function roundsPerInstance(il: InterleaveShape): number {
  const k = Math.max(1, Math.min(il.instances ?? 1, il.rounds));
  return Math.ceil(il.rounds / k);
}
