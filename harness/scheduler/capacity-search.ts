/**
 * The capacity search of one round (issues 15 and 23), over an injected step function so the
 * tests run it with a model server and the scheduler with a real open-loop driver
 * (scheduler/capacity-round.ts).
 *
 * Given the closed-loop peak P (requests/s, measured just before on the same server) and a cap C
 * (≥ P: capacity-round.ts gives `capShare` × the cell's median peak so far), the search finds the
 * highest open-loop arrival rate whose steps hold the objective (p99 ≤ SLO, failed ≤ 0.1%,
 * achieved ≥ 95% of the rate):
 * 1. try `start` (default `startShare` × P); on failure divide the rate by 4 until one holds or
 *    the rate would fall below `floorRps` (then the verdict is `never`: never reported as 0); a
 *    search with a `prior` (a later round started near the first bracketed search) first moves
 *    by `gallop`, down until a rate holds and then up until one fails, GALLOP_MOVES times each,
 *    before these wide moves;
 * 2. bisect on a log scale between the highest held rate and the lowest failing rate (C when
 *    nothing has failed: the round's 1 s peak is too noisy to be a ceiling) until failing ÷ held
 *    ≤ `precision`, or `maxSteps` steps ran.
 * A rate's verdict is symmetric (issue 23): two steps at the rate, a third only when they
 * disagree, and the majority decides — for a pass as for a fail. (The earlier rule repeated only
 * failures and kept the better of the two, which makes a rate that holds in a fraction p of steps
 * pass with 1 − (1 − p)², so the search converged where p ≈ 29%, above the rate that holds half
 * the time; the majority of 3 passes with p²(3 − 2p), which is ½ exactly at p = ½. One step per
 * rate is as unbiased but noisier: in the simulated noise of test/capacity-truth.test.ts, 79% of
 * its searches land within ±10% against 94% with the majority, at 5.6 vs 12.3 steps.) A failing
 * step at the driver's own limit (client-bound) decides the rate at once: more steps would
 * measure the driver. Every step is kept in `steps` (the latency-versus-rate curve) with the
 * rate's verdict in `ratePass`.
 * The result: `bound` = `bracketed` (a higher rate failed, not at the driver's limit: verdict
 * `met`, and `rps` = the geometric midpoint of the held and the failing rate, within ±½ the
 * precision of where the verdict flips — the highest held rate alone would sit ~½ the precision
 * below it on average), `driver-limit` (the lowest failing rate was client-bound) or
 * `no-failure` (nothing failed up to C), both verdict `at-least` with `rps` = the highest held
 * rate (a lower bound); `heldRps`/`failRps` are the bracket. An abort returns
 * what ran so far with the verdict `interrupted`.
 */
import type { CapacityShape } from '../core/profiles.ts';
import type { CapacityBound, CapacityStep, CapacityVerdict } from '../store/results.ts';

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
  /** What the search learned (CapacityBound); null when no rate held. */
  bound: CapacityBound | null;
  /** The highest held rate and the lowest failing rate (when one failed). */
  heldRps?: number;
  failRps?: number;
  steps: CapacityStep[];
}

/** The decided verdict of one rate: the majority of its steps (see `decideRate`). */
interface RateVerdict {
  rate: number;
  pass: boolean;
  /** A failing step at this rate was client-bound: the failure is the driver's limit. */
  clientBound: boolean;
}

/** Moves by `gallop` before a search with a prior falls back to ÷4 and the cap. */
export const GALLOP_MOVES = 2;

/** Steps at one rate for a verdict: 2 that agree decide, else a third (the majority of 3). */
export const RATE_VOTES = 3;

/**
 * Decides one rate from its steps so far (issue 23): a client-bound failing step decides "fail"
 * at once; otherwise the majority of RATE_VOTES steps, decided as soon as it cannot change (2 of 3
 * agree). Null: more steps are needed.
 */
export function decideRate(steps: readonly Pick<CapacityStep, 'pass' | 'clientBound'>[]): boolean | null {
  if (steps.some((s) => !s.pass && s.clientBound)) return false;
  const need = Math.floor(RATE_VOTES / 2) + 1;
  const passes = steps.filter((s) => s.pass).length;
  if (passes >= need) return true;
  if (steps.length - passes >= need) return false;
  return null;
}

/**
 * Runs one search. `step(rate)` runs one open-loop step and returns it judged (judgeStep); it may
 * throw (driver failure, server death): the error propagates after `onStep` saw the steps so far.
 * `onStep` is called after every step (progress, and keeping steps when interrupted). `capRps`
 * (default: the peak) is the highest rate the search offers; `start` its first rate (default
 * `startShare` × peak), both requests/s.
 */
export async function searchCapacity(o: {
  search: number;
  peakRps: number;
  capRps?: number;
  start?: number;
  shape: CapacityShape;
  step: (rate: number) => Promise<CapacityStep>;
  signal: AbortSignal;
  onStep?: (s: CapacityStep, all: CapacityStep[]) => void;
  /** A later round's prior figure, requests/s (the first round's bracket midpoint): enables the `gallop` moves. */
  prior?: number;
  /** The rule that decides a rate from its steps (default `decideRate`; tests pass others to compare). */
  rule?: (steps: readonly CapacityStep[]) => boolean | null;
}): Promise<SearchResult> {
  const { shape } = o;
  const steps: CapacityStep[] = [];
  let lo: RateVerdict | null = null; // highest held rate
  let hi: RateVerdict | null = null; // lowest failing rate
  const decide = async (target: number): Promise<RateVerdict | null> => {
    const rate = Math.max(1, Math.round(target));
    const mine: CapacityStep[] = [];
    const rule = o.rule ?? decideRate;
    let pass = rule(mine);
    while (pass === null) {
      if (o.signal.aborted || steps.length >= shape.maxSteps) return null;
      const s = await o.step(rate);
      if (o.signal.aborted) return null; // an interrupted step is not a measurement
      mine.push(s);
      steps.push(s);
      pass = rule(mine);
      for (const m of mine) if (pass !== null) m.ratePass = pass;
      o.onStep?.(s, steps);
    }
    const v = { rate, pass, clientBound: mine.some((s) => !s.pass && s.clientBound) };
    if (v.pass && (!lo || v.rate > lo.rate)) lo = v;
    if (!v.pass && (!hi || v.rate < hi.rate)) hi = v;
    return v;
  };
  const cap = Math.max(1, o.peakRps, o.capRps ?? 0);
  // With a prior (a later round, started near the first round's figure), the first GALLOP_MOVES
  // moves away from the start are by `gallop` (up and down) instead of ÷4 and the cap, so a start
  // near the capacity brackets it in a few rates; after them the search falls back to the wide moves.
  const g = o.prior ? (shape.gallop ?? 1) : 1;
  let moves = 0;
  // 1. Find a held rate, dividing by 4 (or `gallop`) from the start.
  let rate = Math.max(shape.floorRps, Math.min(cap, o.start ?? shape.startShare * o.peakRps));
  for (;;) {
    const v = await decide(rate);
    if (!v) return result(steps, lo, hi, cap, o.signal.aborted ? 'interrupted' : 'unfinished');
    if (v.pass) break;
    if (rate <= shape.floorRps) return result(steps, lo, hi, cap, 'floor-failed');
    rate = Math.max(shape.floorRps, rate / (g > 1 && moves++ < GALLOP_MOVES ? g : 4));
  }
  // 1b. With a prior and no failure yet: up by `gallop` until a rate fails (at most GALLOP_MOVES).
  for (let k = 0; g > 1 && !hi && k < GALLOP_MOVES; k++) {
    const up = Math.round(((lo as RateVerdict | null)?.rate ?? rate) * g);
    if (up >= cap) break;
    if (!(await decide(up))) return result(steps, lo, hi, cap, o.signal.aborted ? 'interrupted' : 'unfinished');
  }
  // 2. Bisect (geometric midpoint) between the held rate and the lowest failure (or the cap).
  for (;;) {
    const bottom = (lo as RateVerdict | null)?.rate ?? cap; // set: step 1 ended on a pass
    const top = (hi as RateVerdict | null)?.rate ?? cap;
    const mid = Math.round(Math.sqrt(top * bottom));
    // Stop when bracketed within the precision, or when whole requests/s cannot split it further.
    if (top / bottom <= shape.precision || mid <= bottom || mid >= top) break;
    if (!(await decide(mid))) break;
  }
  return result(steps, lo, hi, cap, o.signal.aborted ? 'interrupted' : 'done');
}

/** The search's result from its held and failing rates and how it stopped. */
function result(
  steps: CapacityStep[],
  lo: RateVerdict | null,
  hi: RateVerdict | null,
  cap: number,
  how: 'done' | 'interrupted' | 'unfinished' | 'floor-failed',
): SearchResult & { capRps: number } {
  const base = { steps, capRps: cap };
  if (how === 'interrupted') return { ...base, rps: lo?.rate ?? null, verdict: 'interrupted', bound: null };
  // No held rate: `never` only when the floor rate failed; out of steps before that is unfinished.
  if (!lo) return { ...base, rps: null, verdict: how === 'floor-failed' ? 'never' : 'interrupted', bound: null };
  const bound: CapacityBound = !hi ? 'no-failure' : hi.clientBound ? 'driver-limit' : 'bracketed';
  const rates = { heldRps: lo.rate, ...(hi ? { failRps: hi.rate } : {}) };
  if (bound !== 'bracketed') return { ...base, ...rates, rps: lo.rate, verdict: 'at-least', bound };
  // The capacity lies between the held and the failing rate: their geometric midpoint.
  return { ...base, ...rates, rps: Math.round(Math.sqrt(lo.rate * (hi?.rate ?? lo.rate))), verdict: 'met', bound };
}
