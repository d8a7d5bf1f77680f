/**
 * The capacity search of one round (issue 15), over an injected step function so the tests run
 * it with a model server and the scheduler with a real open-loop driver (scheduler/capacity-round.ts).
 *
 * Given the closed-loop peak P (requests/s, measured just before on the same server), the search
 * finds the highest open-loop arrival rate whose step holds the objective (p99 ≤ SLO, failed ≤
 * 0.1%, achieved ≥ 95% of the rate):
 * 1. try `startShare` × P (or, given `hint` = the previous round's capacity, 0.8 × hint); on
 *    failure divide the rate by 4 until one passes or the rate would fall below `floorRps`
 *    (then the verdict is `never`: reported as such, never as 0 requests/s);
 * 2. with a hint and no failure yet, probe 1.25 × hint (below P) so the bracket is narrow;
 * 3. bisect on a log scale between the highest passing rate and the lowest failing rate (P
 *    itself when nothing above the pass has failed: an open-loop rate above the closed-loop peak
 *    cannot be sustained) until failing ÷ passing ≤ `precision`, or `maxSteps` steps ran.
 * The hint only moves where a search starts; every search still brackets its own answer.
 * A failing step that was not client-bound is run once more at the same rate, and the rate fails
 * only when both runs fail: a single stall of this host (it varies by several times over hours)
 * does not end a search early. Both runs are kept in `steps` (the latency-versus-rate curve).
 * The capacity is the highest passing rate. When the lowest failing step was client-bound (the
 * driver at its own limit), the verdict is `at-least`: a lower bound, not the server's capacity.
 * An abort returns what ran so far with the verdict `interrupted`.
 */
import type { CapacityShape } from '../core/profiles.ts';
import type { CapacityStep, CapacityVerdict } from '../store/results.ts';

/** Share of failed requests a passing step may have (the failed-cell rule of analysis/stats.ts). */
export const STEP_FAILED_SHARE = 0.001;
/** A passing step delivers at least this share of its rate. */
export const STEP_ACHIEVED_SHARE = 0.95;

/** What a step measured, before the pass/fail rule (see `judgeStep`). Latencies in ms. */
export interface StepMeasure {
  achievedRps: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  scheduled: number;
  failed: number;
  durationS: number;
  clientBound: boolean;
}

/** Applies the objective to a measured step; `search` and `rate` identify it. */
export function judgeStep(search: number, rate: number, m: StepMeasure, sloP99Ms: number): CapacityStep {
  const reasons: string[] = [];
  if (m.latencyMs.p99 > sloP99Ms) reasons.push(`p99 ${m.latencyMs.p99.toFixed(1)} ms > ${sloP99Ms} ms`);
  if (m.failed > STEP_FAILED_SHARE * Math.max(1, m.scheduled))
    reasons.push(`${m.failed} of ${m.scheduled} requests failed or dropped`);
  if (m.achievedRps < STEP_ACHIEVED_SHARE * rate)
    reasons.push(`achieved ${Math.round(m.achievedRps)} of ${Math.round(rate)} req/s`);
  return {
    search,
    rate,
    achievedRps: m.achievedRps,
    latencyMs: m.latencyMs,
    scheduled: m.scheduled,
    failed: m.failed,
    durationS: m.durationS,
    pass: reasons.length === 0,
    clientBound: m.clientBound,
    reason: reasons.join('; '),
  };
}

/** Result of one search. Rates in requests/s. */
export interface SearchResult {
  rps: number | null;
  verdict: CapacityVerdict;
  steps: CapacityStep[];
}

/**
 * Runs one search. `step(rate)` runs one open-loop step and returns it judged (judgeStep); it may
 * throw (driver failure, server death): the error propagates after `onStep` saw the steps so far.
 * `onStep` is called after every step (progress, and keeping steps when interrupted).
 */
export async function searchCapacity(o: {
  search: number;
  peakRps: number;
  shape: CapacityShape;
  step: (rate: number) => Promise<CapacityStep>;
  signal: AbortSignal;
  onStep?: (s: CapacityStep, all: CapacityStep[]) => void;
  /** The previous round's capacity (requests/s), to start near it. */
  hint?: number | null;
}): Promise<SearchResult> {
  const { shape } = o;
  const steps: CapacityStep[] = [];
  let lo: CapacityStep | null = null; // highest passing step
  let hi: CapacityStep | null = null; // lowest failing step
  let floorFailed = false; // the floor rate failed: `never`
  const once = async (rate: number): Promise<CapacityStep | null> => {
    if (o.signal.aborted || steps.length >= shape.maxSteps) return null;
    const s = await o.step(rate);
    if (o.signal.aborted) return null; // an interrupted step is not a measurement
    steps.push(s);
    o.onStep?.(s, steps);
    return s;
  };
  const run = async (target: number): Promise<CapacityStep | null> => {
    const rate = Math.max(1, Math.round(target));
    const first = await once(rate);
    // Confirm a failure that is not the driver's own limit (a host stall must fail twice).
    const s = first && !first.pass && !first.clientBound ? ((await once(rate)) ?? first) : first;
    if (!s) return null;
    if (s.pass && (!lo || s.rate > lo.rate)) lo = s;
    if (!s.pass && (!hi || s.rate < hi.rate)) hi = s;
    return s;
  };
  const peak = Math.max(1, o.peakRps);
  const hint = o.hint && o.hint > 0 ? Math.min(o.hint, peak) : null;
  // 1. Find a passing rate, dividing by 4 from the start.
  let rate = Math.max(shape.floorRps, hint ? 0.8 * hint : shape.startShare * peak);
  for (;;) {
    const s = await run(rate);
    if (!s) return done();
    if (s.pass) break;
    if (rate <= shape.floorRps) {
      floorFailed = true;
      return done();
    }
    rate = Math.max(shape.floorRps, rate / 4);
  }
  // 2. Near a hint, probe just above it so the bracket starts narrow.
  if (hint && !hi && 1.25 * hint < peak / shape.precision) {
    if (!(await run(1.25 * hint))) return done();
  }
  // 3. Bisect (geometric midpoint) between the pass and the lowest failure (or the peak).
  for (;;) {
    const top = (hi as CapacityStep | null)?.rate ?? peak;
    const bottomStep = lo as CapacityStep | null; // set: step 1 ended on a pass
    if (!bottomStep) break;
    const bottom = bottomStep.rate;
    if (top / bottom <= shape.precision) break;
    const s = await run(Math.sqrt(top * bottom));
    if (!s) break;
  }
  return done();

  function done(): SearchResult {
    const pass = lo as CapacityStep | null;
    const fail = hi as CapacityStep | null;
    if (o.signal.aborted) return { rps: pass?.rate ?? null, verdict: 'interrupted', steps };
    // No pass: `never` only when the floor rate failed; out of steps before that is unfinished.
    if (!pass) return { rps: null, verdict: floorFailed ? 'never' : 'interrupted', steps };
    const bound = fail ? fail.clientBound : false;
    return { rps: pass.rate, verdict: bound ? 'at-least' : 'met', steps };
  }
}
