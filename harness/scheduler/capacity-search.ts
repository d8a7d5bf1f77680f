/**
 * The capacity search of one round, over an injected step function so the
 * tests run it with a model server and the scheduler with a real open-loop driver
 * (scheduler/capacity-round.ts).
 *
 * Given the closed-loop peak P (requests/s, measured just before on the same server) and a cap C
 * (≥ P: capacity-round.ts gives `capShare` × the cell's median peak so far), the search finds the
 * highest open-loop arrival rate whose steps hold the objective (p99 ≤ SLO, failed ≤ 0.1%,
 * achieved ≥ 95% of the rate):
 * 1. try `start` (default `startShare` × P); on failure divide the rate by 4 until one holds or
 *    the rate would fall below `floorRps` (then the verdict is `never`: never reported as 0); a
 *    search with a `prior` (a later round started near the first bracketed search) moves by
 *    `gallop`, then gallop², gallop⁴ … (at most 4×), down until a rate holds or up until one
 *    fails or the next move would reach C;
 * 2. bisect on a log scale between the highest held rate and the lowest failing rate (C when
 *    nothing has failed: the round's 1 s peak is too noisy to be a ceiling) until failing ÷ held
 *    ≤ `precision`, or `maxSteps` steps ran;
 * 3. confirm the held rate of that bracket by the majority (below; a failing rate took it
 *    already); when it flips, the bracket changes and the search goes on from step 2 (from
 *    step 1's downward moves when no held rate is left).
 * A rate's final verdict is the majority of 3 steps (docs/decisions/0005-capacity-search-majority-of-three.md; `decideRate`, a second step and a
 * third only when they disagree), for a pass as for a fail. While exploring (steps 1 and 2) one
 * passing step holds a rate for now (`exploreRate`), and a failing one takes the majority; step
 * 3 then confirms the held rate the result rests on, so its verdict, like every failing rate's,
 * is exactly the majority of 3: a rate that holds in a share p of steps ends held with
 * p·p(2 − p) + (1 − p)·p² = p²(3 − 2p), ½ exactly at p = ½. (The earlier rule repeated only
 * failures and kept the better of the two, 1 − (1 − p)²: the search converged where p ≈ 29%,
 * above the rate that holds half the time. One step for every rate is unbiased but derailed by
 * every stall: real stacks failed 18% of their steps below their search's result in one
 * run (docs/measurements.md, "The history of the search rules"). The majority for every rate cost 12.5–13.6 steps a search there,
 * mostly a second step that only agreed at a held rate far below the capacity.) A failing step
 * at the driver's own limit (client-bound) decides the rate at once: more steps would measure
 * the driver. Every step is kept in `steps` (the latency-versus-rate curve) with the rate's
 * verdict in `ratePass`.
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

/** Steps at one rate for a verdict: 2 that agree decide, else a third (the majority of 3). */
export const RATE_VOTES = 3;

/**
 * Decides one rate from its steps so far: a client-bound failing step decides "fail"
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
  /**
   * The rule that decides a rate from its steps, for every rate (tests pass others to compare).
   * Default: `exploreRate` while exploring, then the majority (`decideRate`) to confirm the held
   * rate the result rests on (a failing rate has already taken the majority while exploring).
   */
  rule?: Rule;
}): Promise<SearchResult> {
  const { shape } = o;
  const s = new RateBook(o, o.rule ?? exploreRate, o.rule ?? decideRate);
  const cap = Math.max(1, o.peakRps, o.capRps ?? 0);
  const start = Math.max(shape.floorRps, Math.min(cap, o.start ?? shape.startShare * o.peakRps));
  const move = o.prior && shape.gallop && shape.gallop > 1 ? shape.gallop : WIDEST_MOVE;
  const stopped = () => (o.signal.aborted ? 'interrupted' : 'unfinished');
  const first = await s.explore(start);
  if (!first) return result(s.steps, s.lo(), s.hi(), cap, stopped());
  // 1. Move from the start until the capacity is bracketed (or the cap reached).
  let how: FirstPhase = first.pass
    ? move < WIDEST_MOVE
      ? await gallopUp(start, move, cap, s)
      : 'held'
    : await downFrom(start, move, shape, s);
  while (how === 'held') {
    // 2. Bisect (geometric midpoint) between the held rate and the lowest failure (or the cap).
    if (!(await bisect(s, cap, shape.precision))) break;
    // 3. Confirm the held rate by the majority (a failing rate already took it); a flipped verdict searches on.
    const lo = s.lo();
    if (!lo || s.confirmed(lo.rate) || !(await s.confirm(lo.rate))) break;
    // The held rate failed its confirmation and nothing below it held: move down again.
    const top = s.hi();
    if (!s.lo() && top) how = await downFrom(top.rate, move, shape, s);
  }
  if (how !== 'held') return result(s.steps, s.lo(), s.hi(), cap, how === 'stopped' ? stopped() : how);
  return result(s.steps, s.lo(), s.hi(), cap, o.signal.aborted ? 'interrupted' : 'done');
}

/**
 * The exploring rule (see `RateBook`): one passing step holds a rate for now; a failing step is
 * not enough — the majority of 3 (`decideRate`) decides it, and a client-bound failure fails it
 * at once. On real stacks a step fails below the capacity often (18% of steps at rates under
 * their search's result in one run, docs/measurements.md: GC pauses, the host's stalls), and one
 * failing step would send the search far down; a lucky pass above the capacity is rarer, and the
 * confirmation of the held rate catches it. A held rate's final verdict is then exactly the
 * majority of 3, as is every failing one's.
 */
export function exploreRate(steps: readonly Pick<CapacityStep, 'pass' | 'clientBound'>[]): boolean | null {
  if (steps[0]?.pass) return true;
  return decideRate(steps);
}

/** A rule that decides a rate from its steps: pass, fail, or null (more steps needed). */
type Rule = (steps: readonly CapacityStep[]) => boolean | null;

/** What a RateBook needs of searchCapacity's options. */
interface RateBookOptions {
  shape: CapacityShape;
  step: (rate: number) => Promise<CapacityStep>;
  signal: AbortSignal;
  onStep?: (s: CapacityStep, all: CapacityStep[]) => void;
}

/** How the first phase of a search ended: a rate held (go on to bisect), or why it stops. */
type FirstPhase = 'held' | 'stopped' | 'floor-failed';

/** The largest move of the first phase: the ÷4 of a search without a prior. */
const WIDEST_MOVE = 4;

/**
 * The steps of one search by rate, and each rate's verdict so far. Exploring rates
 * (the moves and the bisection) are decided by `exploreRule` (default `exploreRate`: one pass
 * holds for now, a failure takes the majority); the held rate the result rests on is then
 * confirmed by `confirmRule` (default the majority of 3, `decideRate`), which adds steps at that
 * rate and may flip it (the failing rate needs none: it took the majority). The held rate is the highest held
 * one below the lowest failing one. `step` throws through; the budget (`maxSteps`) and an abort
 * make a decision return null.
 */
class RateBook {
  readonly steps: CapacityStep[] = [];
  private readonly byRate = new Map<number, { steps: CapacityStep[]; pass: boolean }>();
  private readonly o: RateBookOptions;
  private readonly exploreRule: Rule;
  private readonly confirmRule: Rule;
  constructor(o: RateBookOptions, exploreRule: Rule, confirmRule: Rule) {
    this.o = o;
    this.exploreRule = exploreRule;
    this.confirmRule = confirmRule;
  }

  /** The lowest failing rate, or null. */
  hi(): RateVerdict | null {
    let best: number | null = null;
    for (const [rate, r] of this.byRate) if (!r.pass && (best === null || rate < best)) best = rate;
    return best === null ? null : this.verdict(best);
  }

  /** The highest held rate below the lowest failing one, or null. */
  lo(): RateVerdict | null {
    const top = this.hi()?.rate ?? Number.POSITIVE_INFINITY;
    let best: number | null = null;
    for (const [rate, r] of this.byRate) if (r.pass && rate < top && (best === null || rate > best)) best = rate;
    return best === null ? null : this.verdict(best);
  }

  /** True when `rate`'s steps already decide it under the confirming rule. */
  confirmed(rate: number): boolean {
    return this.confirmRule(this.byRate.get(rate)?.steps ?? []) !== null;
  }

  /** Decides a new rate by the exploring rule (a rate decided before keeps its verdict). */
  explore(target: number): Promise<RateVerdict | null> {
    return this.run(Math.max(1, Math.round(target)), this.exploreRule);
  }

  /** Adds steps at `rate` until the confirming rule decides it. */
  confirm(rate: number): Promise<RateVerdict | null> {
    return this.run(rate, this.confirmRule);
  }

  private verdict(rate: number): RateVerdict {
    const r = this.byRate.get(rate);
    return { rate, pass: r?.pass ?? false, clientBound: !!r?.steps.some((x) => !x.pass && x.clientBound) };
  }

  private async run(rate: number, rule: Rule): Promise<RateVerdict | null> {
    const mine = this.byRate.get(rate)?.steps ?? [];
    let pass = rule(mine);
    while (pass === null) {
      if (this.o.signal.aborted || this.steps.length >= this.o.shape.maxSteps) return null;
      const s = await this.o.step(rate);
      if (this.o.signal.aborted) return null; // an interrupted step is not a measurement
      mine.push(s);
      this.steps.push(s);
      pass = rule(mine);
      if (pass !== null) for (const m of mine) m.ratePass = pass;
      this.o.onStep?.(s, this.steps);
    }
    this.byRate.set(rate, { steps: mine, pass });
    return this.verdict(rate);
  }
}

/**
 * Bisects (geometric midpoint) between the held rate and the lowest failing one (or `cap`) until
 * their ratio is ≤ `precision` or whole requests/s cannot split it. False: the search must stop.
 */
async function bisect(s: RateBook, cap: number, precision: number): Promise<boolean> {
  for (;;) {
    const bottom = s.lo()?.rate ?? cap;
    const top = s.hi()?.rate ?? cap;
    const mid = Math.round(Math.sqrt(top * bottom));
    if (top / bottom <= precision || mid <= bottom || mid >= top) return true;
    if (!(await s.explore(mid))) return false;
  }
}

/**
 * Down from the failing rate `from` until a rate holds: by `factor`, then factor², factor⁴ … (at
 * most ÷4 a move: an exponential search on the log scale; a search without a prior moves by ÷4
 * throughout), to the floor rate at the lowest; a failing floor is confirmed before it counts.
 */
async function downFrom(from: number, factor: number, shape: CapacityShape, s: RateBook): Promise<FirstPhase> {
  let rate = from;
  let f = factor;
  for (;;) {
    if (rate <= shape.floorRps) {
      const v = await s.confirm(rate);
      if (!v) return 'stopped';
      return v.pass ? 'held' : 'floor-failed';
    }
    rate = Math.max(shape.floorRps, rate / f);
    const v = await s.explore(rate);
    if (!v) return 'stopped';
    if (v.pass) return 'held';
    f = Math.min(WIDEST_MOVE, f * f);
  }
}

/**
 * With a prior, up from the held rate `from`: by `g`, then g², g⁴ … (at most ×4 a move) until a
 * rate fails or the next would reach `cap` (the bisection then goes up to the cap). A later
 * round's capacity here differs from the first round's by up to 2×
 * (docs/measurements.md, "The history of the search rules"), so fixed moves of `g` often ran out and fell back to ÷4 and the cap,
 * a bracket of 4× that costs five bisections; growing moves bracket a 2× miss in three rates.
 */
async function gallopUp(from: number, g: number, cap: number, s: RateBook): Promise<FirstPhase> {
  let rate = from;
  let f = g;
  for (;;) {
    const up = Math.round(rate * f);
    if (up >= cap) return 'held';
    const v = await s.explore(up);
    if (!v) return 'stopped';
    if (!v.pass) return 'held';
    rate = up;
    f = Math.min(WIDEST_MOVE, f * f);
  }
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
