/**
 * From trials to a cell: a cell's file aggregates the trials (measured windows) it finished,
 * with `trialStats` (analysis/stats.ts: the one estimator) over its ok trials. Also the one-line
 * description of a trial or cell for the progress log. Rates in requests/s, times in ms.
 */
import { FAILED_REQUEST_SHARE, trialStats } from '../analysis/stats.ts';
import { reconcileCapacity } from '../analysis/capacity.ts';
import { quietOf } from '../analysis/quiet.ts';
import type { CellResult, CellStats, PairedWindow } from '../store/results.ts';
import { capacityTrials, summarizeCapacity } from './capacity-round.ts';
import { fmtPct } from '../core/format.ts';

/**
 * One cell's file from its trials (same cell, run order). All ok → the last trial's measurement
 * plus `stats` over all of them. A failed trial (crash, driver error) makes the cell that
 * failure, its reason naming the trial, with `stats` over the trials that were ok before it.
 * `planned`: the trials the cell was to get (for the reason text).
 */
export function aggregateTrials(list: CellResult[], planned: number): CellResult {
  const ok = list.filter((r) => r.status === 'ok');
  const failed = list.find((r) => r.status !== 'ok');
  const lost = [...new Set(list.flatMap((r) => r.servicesLost ?? []))];
  const quiet = quietOfTrials(list);
  const extra = { ...(lost.length ? { servicesLost: lost } : {}), ...(quiet ? { quiet } : {}) };
  // Interleaved rounds (scheduler/interleave.ts) give the paired figures; the solo windows give
  // requests/s and latency and stay the cell's `load`.
  const solo = list.filter((r) => !r.paired);
  const stats = (trials: CellResult[]): CellStats => withPaired(trialStats(trials.filter((r) => !r.paired)), trials);
  const lastTrial = solo.at(-1) ?? list.at(-1);
  if (!lastTrial) throw new Error('aggregateTrials: no trials to aggregate');
  const { round: _round, capacitySearch: _search, paired: _paired, ...last } = lastTrial;
  const capacity = summarizeCapacity(list);
  if (capacity) {
    // A capacity cell: the figure is over the searches that found a rate (a lower bound over every
    // search when they disagree: reconcileCapacity); the latency of the closed-loop windows is not
    // the cell's (its curve is in capacity.steps).
    const found = capacityTrials(list);
    const stats = found.length ? { ...trialStats(found), latencyMs: null } : undefined;
    if (!failed) return reconcileCapacity({ ...last, ...extra, capacity, ...(stats ? { stats } : {}) });
  }
  if (!failed) {
    // A service that went away (the database) explains the errors: not the contender's failure.
    const underLoad = lost.length ? null : loadFailure(list);
    const paused = pausedFailures(list);
    const cell: CellResult = { ...last, ...extra, stats: stats(list), ...(paused ? { pausedFailures: paused } : {}) };
    return underLoad ? { ...cell, status: 'load-failed', failure: { reason: underLoad, logTail: '' } } : cell;
  }
  const { round: _r, capacitySearch: _s, paired: _p, ...f } = failed;
  const k = list.indexOf(failed) + 1;
  return {
    ...f,
    ...extra,
    ...(capacity ? { capacity } : {}),
    ...(capacity
      ? capacityTrials(ok).length
        ? { stats: { ...trialStats(capacityTrials(ok)), latencyMs: null } }
        : {}
      : ok.some((r) => !r.paired)
        ? { stats: stats(ok) }
        : {}),
    failure:
      f.failure && planned > 1 ? { ...f.failure, reason: `trial ${k}/${planned}: ${f.failure.reason}` } : f.failure,
  };
}

/**
 * How quiet the machine was over the trials' measured windows (analysis/quiet.ts): each solo
 * window's and interleaved round's foreign-CPU share; null when no trial read it.
 */
export function quietOfTrials(trials: CellResult[]): CellResult['quiet'] | null {
  const shares = trials.map((t) => (t.paired ? t.paired.foreignShare : t.resources?.foreignShare));
  const q = quietOf(shares);
  return q.read ? q : null;
}

/** `s` with the paired figures of the interleaved trials among `trials` (ok ones, in round order), if any. */
function withPaired(s: CellStats, trials: CellResult[]): CellStats {
  const p = trials.filter((t) => t.status === 'ok' && t.paired);
  if (!p.length) return s;
  return {
    ...s,
    paired: {
      rounds: p.map((t, i) => t.round ?? i + 1),
      efficiency: p.map((t) => t.paired?.efficiency ?? 0),
      ...(p.some((t) => (t.paired?.instance ?? 1) > 1) ? { instances: p.map((t) => t.paired?.instance ?? 1) } : {}),
    },
  };
}

/** One line about a server's paired figure in an interleaved round, for the progress log. */
export function describePaired(p: PairedWindow): string {
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  return `${n(p.efficiency)} requests per CPU-second (${n(p.requests)} requests, ${p.serverCpuS.toFixed(2)} CPU-s, ${p.activeS.toFixed(2)} s unpaused)`;
}

/**
 * Why a cell whose trials all ran failed under load, summed over its trials (the cell file, the
 * report, the export and the exit code then agree), or null: more than FAILED_REQUEST_SHARE (0.1%)
 * of requests failed (errors, timeouts, non-2xx), or any sampled 2xx body broke the contract.
 * One trial's load alone (the cell's `load`) would miss a contender that answers wrongly in
 * another round.
 *
 * Only windows in which no server was paused judge failed requests: the solo rounds (and, before
 * them, the verification burst). In an interleaved round the scheduler pauses the server
 * (SIGSTOP) for the other servers' slices, so its requests wait seconds, the driver times them
 * out or drops the connection, and the contender's own timers (an HTTP client's time-out to the
 * upstream) fire late and answer 5xx: errors, timeouts and non-2xx there are the pause's, not the
 * contender's. A wrong body with a 2xx status is the contender's wherever it is seen.
 */
export function loadFailure(trials: readonly CellResult[]): string | null {
  const loads = trials.flatMap((t) =>
    t.load && t.status === 'ok' ? [{ l: t.paired ? pausedLoad(t.load) : t.load, round: t.round }] : [],
  );
  if (!loads.length) return null;
  const sum = (f: (l: (typeof loads)[number]['l']) => number) => loads.reduce((a, x) => a + f(x.l), 0);
  const errors = sum((l) => l.errors);
  const timeouts = sum((l) => l.timeouts);
  const non2xx = sum((l) => l.non2xx);
  const bad = errors + timeouts + non2xx;
  const all = Math.max(
    1,
    sum((l) => l.requests.total + l.errors + l.timeouts),
  );
  const over = loads.length > 1 ? ` over ${loads.length} trials` : '';
  if (bad / all > FAILED_REQUEST_SHARE)
    return `failed under load: ${((100 * bad) / all).toFixed(bad / all >= 0.1 ? 0 : 2)}% of ${all} requests failed${over} (${errors} errors, ${timeouts} timeouts, ${non2xx} non-2xx; the limit is ${FAILED_REQUEST_SHARE * 100}%)`;
  const mismatched = sum((l) => l.bodyChecks.mismatched);
  if (mismatched > 0) {
    const sampled = sum((l) => l.bodyChecks.sampled);
    const first = loads.find((x) => x.l.bodyChecks.mismatched > 0);
    const where = first?.round !== undefined ? ` (first in round ${first.round})` : '';
    return `failed under load: ${mismatched} of ${sampled} checked bodies broke the contract${over}${where}${first?.l.bodyChecks.firstMismatch ? `; first: ${first.l.bodyChecks.firstMismatch}` : ''}`;
  }
  return null;
}

/** A paired trial's load as failure judging sees it: its failed requests and non-2xx answers are the pause's. */
function pausedLoad(l: NonNullable<CellResult['load']>): NonNullable<CellResult['load']> {
  const wrongBodies = l.bodyChecks.mismatched - (l.bodyChecks.mismatchedNon2xx ?? 0);
  return {
    ...l,
    errors: 0,
    timeouts: 0,
    non2xx: 0,
    bodyChecks: { ...l.bodyChecks, mismatched: Math.max(0, wrongBodies), mismatchedNon2xx: 0 },
  };
}

/**
 * The failed requests of a cell's interleaved rounds (errors, timeouts, non-2xx), which the pause
 * causes and failure judging leaves out (`loadFailure`), and the requests of those rounds; null
 * when there were none. For the progress log and the report's measurement notes.
 */
export function pausedFailures(trials: readonly CellResult[]): { failed: number; requests: number } | null {
  const paired = trials.filter((t) => t.paired && t.load && t.status === 'ok');
  const failed = paired.reduce((a, t) => a + (t.load ? t.load.errors + t.load.timeouts + t.load.non2xx : 0), 0);
  if (!failed) return null;
  const requests = paired.reduce(
    (a, t) => a + (t.load ? t.load.requests.total + t.load.errors + t.load.timeouts : 0),
    0,
  );
  return { failed, requests };
}

function indent(s: string): string {
  return s
    .split('\n')
    .map((l) => `    | ${l}`)
    .join('\n');
}

/** Indented log tail, for build failures. */
export { indent };

/** One line about a recorded trial or cell, for the progress log. */
export function describe(r: CellResult): string {
  if (r.status !== 'ok')
    return `${r.status.toUpperCase()}: ${r.failure?.reason ?? r.verification?.reasons.join('; ') ?? ''}`;
  const cap = r.capacity;
  if (cap) {
    const n = (x: number) => Math.round(x).toLocaleString('en-US');
    const fig = cap.rps
      ? `${cap.verdict === 'at-least' ? '≥ ' : ''}${n(cap.rps.figure)} req/s sustainable at p99 ≤ ${cap.sloP99Ms} ms (${cap.bracketed !== undefined ? `${cap.bracketed} of ${cap.searches} searches bracketed` : `${cap.searches} searches`}${cap.rps.interval ? `, ${cap.rps.kind === 'ci95' ? '95% CI' : 'range'} ${n(cap.rps.interval[0])}–${n(cap.rps.interval[1])}` : ''})`
      : `never held p99 ≤ ${cap.sloP99Ms} ms`;
    return `${fig}, closed-loop peak ${n(cap.peakRps.figure)} req/s${cap.knee !== null ? `, ${fmtPct(cap.knee)} of the peak at the SLO` : ''}, ${cap.steps.length} steps`;
  }
  const l = r.load;
  if (!l) return 'ok';
  const errs = l.errors + l.timeouts + l.non2xx;
  const rps = r.stats?.rps.figure ?? l.requestsPerSec.mean;
  return (
    `${Math.round(rps).toLocaleString('en-US')} req/s${r.stats ? ` (${r.stats.trials} trials, ${r.stats.rps.kind})` : ''}, p50 ${l.latencyMs.p50.toFixed(3)} ms, p99 ${l.latencyMs.p99.toFixed(3)} ms` +
    `${errs ? `, ${errs} errors/timeouts/non-2xx` : ''}${l.bodyChecks.mismatched ? `, ${l.bodyChecks.mismatched} body mismatches` : ''}` +
    `${r.servicesLost?.length ? `, lost: ${r.servicesLost.join(', ')}` : ''}`
  );
}
