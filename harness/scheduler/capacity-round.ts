/**
 * One round of a `capacity` cell and the summary of a capacity cell's rounds.
 *
 * A round = one closed-loop window of the profile's shape (the native driver, e.g. 1 s at 100
 * connections: the peak P of this server in this round) and then one open-loop search
 * (scheduler/capacity-search.ts) with the open-loop driver (drivers/open-loop.ts: oha, else k6),
 * after a `settleS` settle step (unrecorded, at SETTLE_SHARE of the first rate), from a seeded start near P/2 (`searchStart`; later rounds near the cell's
 * first bracketed search, `searchPrior`) up to a cap above P (`searchCap`). Each step is sampled like a window (lifecycle/sampler.ts), so a step
 * whose driver used ≥ OPEN_LOOP_BUSY_PCT of its core is marked client-bound. Steps are logged as they finish
 * and returned even when the search stops early (Ctrl-C, a crash), so the trial file keeps them.
 *
 * The SLO of a cell: the profile's `--slo-p99` override, else the scenario's `sloP99Ms`.
 * Rates in requests/s, latencies in ms.
 */
import { geometricEstimate, median } from '../analysis/stats.ts';
import { mulberry32 } from '../core/prng.ts';
import type { CapacityShape } from '../core/profiles.ts';
import type { OpenLoopDriver } from '../drivers/open-loop.ts';
import { Sampler } from '../lifecycle/sampler.ts';
import type { CapacitySearch, CapacityStep, CapacitySummary, CellResult } from '../store/results.ts';
import { judgeStep, searchCapacity } from './capacity-search.ts';
import { loadJob } from './jobs.ts';
import { type Entry, type GroupContext, liveServer, type OpenLoopChoice } from './scheduler-types.ts';
import { runWindow, stopSampler, type WindowOutcome } from './window.ts';
import type { CellSpec } from './plan.ts';

/**
 * The settle step's rate as a share of the search's first rate: well below it, so that the settle
 * itself cannot overload the server. Why a step and not idle time
 * (docs/decisions/0007-capacity-settle-step.md): with 0.5 s idle, a search's first step failed at every rate below the
 * search's result more often than a later step's first try at the same share of it (30% vs 17%
 * below ½ of it, 30% vs 22% at 0.8–0.95); Node does no garbage collection while idle, so the
 * saturating peak window's debt was paid in the first step (scripts/studies/capacity-audit.ts).
 */
export const SETTLE_SHARE = 0.5;

/**
 * An open-loop step whose driver averaged at least this % of each of its cores is client-bound:
 * an open-loop driver adds its own queueing delay well before 100% (oha, about 21 µs of CPU per
 * response here, is at ~75% of a core at 35k requests/s), so the bar is lower than the 90% of
 * closed-loop windows (lifecycle/sampler.ts).
 */
export const OPEN_LOOP_BUSY_PCT = 75;

/**
 * Requests not yet sent or answered when a step stops count as failed only beyond this many
 * seconds of arrivals: a driver's stop is not instantaneous (oha left 1–2 ms of a 1 s step's
 * arrivals unsent here, 28–41 requests at 20–28k requests/s, which alone broke the 0.1% rule).
 */
export const STOP_ALLOWANCE_S = 0.01;

/** The objective of a capacity cell, ms: `--slo-p99`, else the scenario's default. */
export function sloOf(cell: CellSpec): number {
  const p = cell.profile;
  const shape = p.driver !== 'k6' ? p.capacity : undefined;
  return shape?.sloP99Ms ?? cell.scenario.sloP99Ms;
}

/**
 * Connections (oha workers, k6 VUs) of a step at `rate` requests/s: Little's law, requests in
 * flight = rate × latency, with the SLO as the latency and 4× headroom, at least 16 and at most
 * `max`. Fewer connections than a fixed 200 keep a slow step from opening 200 fresh connections
 * for a few hundred requests; a step that needs more simply queues inside the driver, where the
 * latency correction still counts the wait.
 */
export function stepConnections(rate: number, sloP99Ms: number, max: number): number {
  return Math.max(16, Math.min(max, Math.ceil(rate * (sloP99Ms / 1000) * 4)));
}

/**
 * The first rate of a round's search, requests/s: `startShare` × this round's peak times a
 * factor 2^(u − ½), u uniform in [0, 1) from mulberry32 seeded by `key` (run seed, cell, round).
 * It depends on no earlier round's result: the start of the first round, and of every round
 * when the profile does not gallop; the spread dithers the bisection's grid of rates.
 */
export function searchStart(peakRps: number, shape: CapacityShape, key: string): number {
  return shape.startShare * peakRps * 2 ** (seededUnit(key) - 0.5);
}

/** A uniform number in [0, 1) from mulberry32 seeded by the FNV-1a hash of `key`. */
function seededUnit(key: string): number {
  let h = 2166136261;
  for (const ch of key) h = Math.imul(h ^ (ch.codePointAt(0) ?? 0), 16777619);
  return mulberry32(h >>> 0)();
}

/**
 * The prior of a later round's search, requests/s (the first round's bracket): the
 * figure of the cell's first search that bracketed its capacity, when the profile gallops
 * (`gallop` > 1); null for that search's own round and before it. Every later round depends on
 * that one search only, never on each other, and a seeded factor dithers each start.
 */
export function searchPrior(searches: readonly (CapacitySearch | undefined)[], shape: CapacityShape): number | null {
  if (!shape.gallop || shape.gallop <= 1) return null;
  const first = searches.find((x) => x?.verdict === 'met' && x.bound === 'bracketed' && x.rps !== null);
  return first?.rps ?? null;
}

/**
 * The first rate of a search with a prior, requests/s: `prior` × 2^((u − ½)·`priorSpread`), u
 * seeded by `key` as in `searchStart`, at most `cap`.
 */
export function priorStart(prior: number, cap: number, shape: CapacityShape, key: string): number {
  return Math.min(cap, prior * 2 ** ((seededUnit(key) - 0.5) * (shape.priorSpread ?? 0)));
}

/**
 * The highest rate a round's search may offer, requests/s: `capShare` × the median of
 * the cell's closed-loop peaks so far (`peaks`, this round's included), and at least this round's
 * peak. A 1 s closed-loop peak varied 2× between one cell's rounds (median;
 * docs/measurements.md, "Capacity at a latency SLO"), so the round's own peak would cap searches on a low reading.
 */
export function searchCap(peakRps: number, peaks: number[], shape: CapacityShape): number {
  return Math.max(peakRps, shape.capShare * median(peaks.length ? peaks : [peakRps]));
}

/** `12,400` */
const n0 = (x: number) => Math.round(x).toLocaleString('en-US');

/** One line per step for the progress log. */
export function describeStep(s: CapacityStep): string {
  return `    step ${n0(s.rate)} req/s → ${n0(s.achievedRps)} req/s, p50 ${s.latencyMs.p50.toFixed(2)} ms, p99 ${s.latencyMs.p99.toFixed(2)} ms: ${s.pass ? 'holds' : `fails (${s.reason})`}${s.clientBound ? ' [driver at its limit]' : ''}`;
}

/**
 * The settle: an unrecorded open-loop step at SETTLE_SHARE of the first rate `start` (req/s), so
 * the first recorded step follows an open-loop step, as every later step does. A failure here (a
 * dead server) shows in the first step; an abort in the search. Nothing when `shape.settleS` is 0.
 */
async function settle(
  openLoop: OpenLoopDriver,
  job: ReturnType<typeof loadJob>,
  start: number,
  slo: number,
  shape: CapacityShape,
  timeoutS: number,
  cpus: string | null,
  signal: AbortSignal,
): Promise<void> {
  if (shape.settleS <= 0) return;
  const rate = Math.max(1, Math.round(start * SETTLE_SHARE));
  const connections = stepConnections(rate, slo, shape.openLoopConnections);
  await openLoop
    .step(job, { rate, durationS: shape.settleS, connections, timeoutS, cpus, signal })
    .catch(() => undefined);
}

/**
 * Runs round `round` (1-based) of capacity cell `e`: the closed-loop peak window, then the
 * search. `out`: the peak window's outcome (runWindow's: measured fields, an escape, an error text);
 * `search`: the search (null when the peak window failed), its verdict `interrupted` when it
 * stopped early; `error`: why a step failed (driver error, server death), else null.
 */
export async function runCapacityRound(
  e: Entry,
  ctx: GroupContext,
  round: number,
  shape: CapacityShape,
  openLoop: OpenLoopDriver,
): Promise<{ out: WindowOutcome; search: CapacitySearch | null; error: string | null }> {
  const p = e.cell.profile;
  const out = await runWindow(e, ctx, p.durationS ?? 1, false);
  const peak = typeof out === 'object' && !('escaped' in out) ? out.load : undefined;
  if (!peak || ctx.signal.aborted) return { out, search: null, error: null };
  const s = liveServer(e);
  const peakRps = peak.durationS > 0 ? peak.requests.total / peak.durationS : peak.requestsPerSec.mean;
  const slo = sloOf(e.cell);
  const job = loadJob(e.cell, ctx.scenariosDir, ctx.db, s.baseUrl);
  const signal = AbortSignal.any([ctx.signal, s.died]);
  let steps: readonly CapacityStep[] = []; // the search's steps so far (kept when it throws)
  // Independent of earlier rounds' results: the start depends on this round's peak and
  // a seeded factor only; the cap on the peaks measured so far (the median, not any result).
  const capRps = searchCap(peakRps, [...e.trials.flatMap((t) => t.capacitySearch?.peakRps ?? []), peakRps], shape);
  // Rounds after the first bracketed search start near its figure and gallop (fewer steps).
  const prior = searchPrior(
    e.trials.map((t) => t.capacitySearch),
    shape,
  );
  const key = `${ctx.seed}/${e.id}/${round}`;
  const start = prior ? priorStart(prior, capRps, shape, key) : searchStart(peakRps, shape, key);
  ctx.log(
    `    closed-loop peak ${n0(peakRps)} req/s; searching for p99 ≤ ${slo} ms with ${openLoop.name} (${shape.stepS} s steps, up to ${n0(capRps)} req/s${prior ? `, from ${n0(start)} near the first search's ${n0(prior)}` : ''})`,
  );
  const step = async (rate: number): Promise<CapacityStep> => {
    const sampler = new Sampler(s.pid);
    let measured: Awaited<ReturnType<OpenLoopDriver['step']>>;
    try {
      measured = await openLoop.step(job, {
        rate,
        durationS: shape.stepS,
        connections: stepConnections(rate, slo, shape.openLoopConnections),
        timeoutS: p.timeoutS,
        cpus: ctx.cpuPlan.client,
        signal,
        onSpawn: (pid) => sampler.start(pid),
      });
    } catch (err) {
      sampler.stop(0, 1, 1, 1);
      throw err;
    }
    const res = stopSampler(sampler, ctx, measured.responses, measured.durationS);
    return judgeStep(
      round,
      rate,
      {
        achievedRps: measured.achievedRps,
        latencyMs: measured.latencyMs,
        scheduled: measured.scheduled,
        failed: measured.errors + measured.non2xx + Math.max(0, measured.dropped - Math.ceil(rate * STOP_ALLOWANCE_S)),
        durationS: measured.durationS,
        clientBound: res ? res.client.cpuPctAvg >= OPEN_LOOP_BUSY_PCT * res.client.cores : false,
      },
      slo,
    );
  };
  const base = { sloP99Ms: slo, driver: openLoop.name, peakRps, capRps };
  await settle(openLoop, job, start, slo, shape, p.timeoutS, ctx.cpuPlan.client, signal);
  try {
    const r = await searchCapacity({
      search: round,
      start,
      capRps,
      peakRps,
      ...(prior ? { prior } : {}),
      shape,
      step,
      signal,
      onStep: (st, all) => {
        steps = all;
        ctx.progress.capacityStep(e.id, e.label, st, describeStep(st));
      },
    });
    const { bound, heldRps, failRps } = r;
    const extra = { ...(bound ? { bound } : {}), ...(heldRps ? { heldRps } : {}), ...(failRps ? { failRps } : {}) };
    return { out, search: { ...base, rps: r.rps, verdict: r.verdict, steps: r.steps, ...extra }, error: null };
  } catch (err) {
    const pass = steps.filter((x) => x.pass && x.ratePass !== false).sort((a, b) => b.rate - a.rate)[0];
    return {
      out,
      search: { ...base, rps: pass?.rate ?? null, verdict: 'interrupted', steps: [...steps] },
      // Ctrl-C is not a driver failure: the steps so far are kept as an interrupted search.
      error: ctx.signal.aborted ? null : (err as Error).message,
    };
  }
}

/**
 * A capacity cell's searches summarised: the figure over the searches that bracketed
 * their capacity (the one estimator of analysis/stats.ts; verdict `met`); when none did, over the
 * lower bounds (verdict `at-least`: driver-limit or no failure up to the cap); `never` when no
 * search held a rate. Also the closed-loop peak over the same rounds, the share of the peak at the
 * SLO (`knee` = figure ÷ peak), how many searches bracketed, and every step. Searches stored
 * without `bound` count as bracketed when `met`. Null when no trial has a search.
 * "met" holds only while the other searches agree: the cell's file goes through
 * analysis/capacity.ts `reconcileCapacity` (scheduler/aggregate.ts), which makes a cell whose
 * other searches held more than the figure's interval a lower bound over every search.
 */
export function summarizeCapacity(trials: CellResult[]): CapacitySummary | null {
  const searches = trials.map((t) => t.capacitySearch).filter((x): x is CapacitySearch => Boolean(x));
  const [firstSearch] = searches;
  if (!firstSearch) return null;
  const used = figureSearches(searches);
  const bracketed = searches.filter(isBracketed).length;
  const never = searches.filter((x) => x.verdict === 'never').length;
  const est = used.length ? geometricEstimate(used.map((x) => x.rps as number)) : null;
  const peak = geometricEstimate(searches.map((x) => x.peakRps));
  const verdict = bracketed ? 'met' : used.length ? 'at-least' : never ? 'never' : 'interrupted';
  return {
    sloP99Ms: firstSearch.sloP99Ms,
    driver: firstSearch.driver,
    verdict,
    rps: est ? { figure: est.figure, interval: est.interval, kind: est.kind } : null,
    peakRps: { figure: peak.figure, interval: peak.interval, kind: peak.kind },
    knee: est ? est.figure / peak.figure : null,
    searches: searches.length,
    bracketed,
    boundsAbove:
      bracketed && est ? searches.filter((x) => x.verdict === 'at-least' && (x.rps ?? 0) > est.figure).length : 0,
    never,
    steps: searches.flatMap((x) => x.steps),
  };
}

/** A search that bracketed its capacity: verdict `met` and, where recorded, `bound` = bracketed. */
function isBracketed(x: CapacitySearch): boolean {
  return x.rps !== null && x.verdict === 'met';
}

/** The searches a cell's figure comes from: the bracketed ones, else the lower bounds (at-least). */
function figureSearches(searches: CapacitySearch[]): CapacitySearch[] {
  const bracketed = searches.filter(isBracketed);
  return bracketed.length ? bracketed : searches.filter((x) => x.rps !== null && x.verdict === 'at-least');
}

/** The trials whose searches the cell's figure (stats) is computed from (`summarizeCapacity`). */
export function capacityTrials(trials: CellResult[]): CellResult[] {
  const used = new Set(figureSearches(trials.flatMap((t) => (t.capacitySearch ? [t.capacitySearch] : []))));
  return trials.filter((t) => t.capacitySearch && used.has(t.capacitySearch));
}

/** The open-loop driver of a group (`RunDeps.openLoop`): `driver` null with the install commands in `note`. */
export function openLoopFor(ctx: GroupContext): OpenLoopChoice {
  return ctx.openLoop();
}
