/**
 * From trials to a cell: a cell's file aggregates the trials (measured windows) it finished,
 * with `trialStats` (analysis/stats.ts: the one estimator) over its ok trials. Also the one-line
 * description of a trial or cell for the progress log. Rates in requests/s, times in ms.
 */
import { trialStats } from '../analysis/stats.ts';
import type { CellResult } from '../store/results.ts';
import { capacityTrials, summarizeCapacity } from './capacity.ts';

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
  const extra = lost.length ? { servicesLost: lost } : {};
  const { round: _round, capacitySearch: _search, ...last } = list[list.length - 1];
  const capacity = summarizeCapacity(list);
  if (capacity) {
    // A capacity cell: the figure is over the searches that found a rate; the latency of the
    // closed-loop windows is not the cell's (its curve is in capacity.steps).
    const found = capacityTrials(list);
    const stats = found.length ? { ...trialStats(found), latencyMs: null } : undefined;
    if (!failed) return { ...last, ...extra, capacity, ...(stats ? { stats } : {}) };
  }
  if (!failed) return { ...last, ...extra, stats: trialStats(list) };
  const { round: _r, capacitySearch: _s, ...f } = failed;
  const k = list.indexOf(failed) + 1;
  return {
    ...f,
    ...extra,
    ...(capacity ? { capacity } : {}),
    ...(capacity
      ? capacityTrials(ok).length
        ? { stats: { ...trialStats(capacityTrials(ok)), latencyMs: null } }
        : {}
      : ok.length
        ? { stats: trialStats(ok) }
        : {}),
    failure:
      f.failure && planned > 1 ? { ...f.failure, reason: `trial ${k}/${planned}: ${f.failure.reason}` } : f.failure,
  };
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
      ? `${cap.verdict === 'at-least' ? '≥ ' : ''}${n(cap.rps.figure)} req/s sustainable at p99 ≤ ${cap.sloP99Ms} ms (${cap.searches} searches${cap.rps.interval ? `, ${cap.rps.kind === 'ci95' ? '95% CI' : 'range'} ${n(cap.rps.interval[0])}–${n(cap.rps.interval[1])}` : ''})`
      : `never held p99 ≤ ${cap.sloP99Ms} ms`;
    return `${fig}, closed-loop peak ${n(cap.peakRps.figure)} req/s${cap.knee !== null ? `, knee at ${Math.round(cap.knee * 100)}% of the peak` : ''}, ${cap.steps.length} steps`;
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
