/**
 * A report snapshot with capacity cells (issue 15) for the capacity report tests
 * (report-capacity.test.ts, html.test.ts), built with the shared fixtures (real types, real
 * trialStats) and a `capacity` summary per cell made here the way scheduler/capacity-round.ts
 * `summarizeCapacity` makes it (the one estimator of analysis/stats.ts over the searches).
 *
 * Run `rc` on one machine:
 * - ping · capacity · wrk (SLO 10 ms, 5 searches per cell, so ranks exist; cells as written since
 *   issue 23, with `bracketed`: 0, 5, 5, 4 of 5):
 *   `hono` ≥ 15,000 of a 31,000 peak (at-least: no search bracketed, the open-loop driver at its
 *   limit; share of peak 48%, not a finding), `node-http` (baseline) 12,000 of 20,000, `express` 8,500 of 9,000, `fastify`
 *   6,000 of 21,000 (a low share of peak at SLO: 29%; one unbracketed search held more), `slowpoke` never (not even 20 req/s held the SLO).
 *   By closed-loop peak: hono, fastify, node-http, express; by capacity: hono, node-http,
 *   express, fastify (Spearman's ρ = 0.4).
 * - json · capacity · wrk (SLO 10 ms, 3 searches: nobody ranked; cells as written before issue 23,
 *   without `bracketed`): node-http, express.
 * - ping · quick · wrk (closed loop): node-http, fastify, express (the % of baseline matrix).
 */
import { loadScenarios } from '../harness/contract/scenarios.ts';
import { SCENARIOS_DIR } from '../harness/core/paths.ts';
import { geometricEstimate } from '../harness/analysis/stats.ts';
import type { ReportSnapshot } from '../harness/report/snapshot.ts';
import type { CapacityStep, CapacitySummary, CapacityVerdict, CellResult } from '../harness/store/results.ts';
import { makeCell, makeMeta } from './fixtures.ts';
import { five } from './report-fixture.ts';

/** One judged open-loop step (the rule of scheduler/capacity-search.ts `judgeStep`, latency only). */
export function step(search: number, rate: number, p99: number, slo = 10, clientBound = false): CapacityStep {
  const pass = p99 <= slo;
  return {
    search,
    rate,
    achievedRps: rate,
    latencyMs: { p50: p99 / 4, p90: p99 / 2, p99, max: p99 * 2 },
    scheduled: rate * 2,
    failed: 0,
    durationS: 2,
    pass,
    clientBound,
    reason: pass ? '' : `p99 ${p99.toFixed(1)} ms > ${slo} ms`,
  };
}

/**
 * A capacity cell: `caps` the sustainable rate each search found (null: none), `peaks` each
 * round's closed-loop peak. Each search with a rate passes at half of it (p99 2 ms) and at it
 * (p99 4 ms), and fails 5% above it (p99 25 ms; client-bound for `at-least`). A search without a
 * rate halves from half the peak down to 20 req/s, failing at p99 40 ms.
 */
export function capacityCell(
  label: string,
  scenario: string,
  o: {
    caps: (number | null)[];
    peaks: number[];
    verdict: CapacityVerdict;
    slo?: number;
    runId?: string;
    /** Searches that bracketed their capacity (issue 23); absent = a cell of an older run. */
    bracketed?: number;
    /** Unbracketed searches that held more than the figure (issue 23). */
    boundsAbove?: number;
  },
): CellResult {
  const slo = o.slo ?? 10;
  const steps: CapacityStep[] = [];
  o.caps.forEach((cap, i) => {
    const search = i + 1;
    if (cap === null) {
      for (let r = o.peaks[i]! / 2; r > 20; r /= 2) steps.push(step(search, Math.round(r), 40, slo));
      steps.push(step(search, 20, 40, slo));
      return;
    }
    steps.push(step(search, Math.round(cap / 2), 2, slo));
    steps.push(step(search, cap, 4, slo));
    steps.push(step(search, Math.round(cap * 1.05), 25, slo, o.verdict === 'at-least'));
  });
  const found = o.caps.filter((x): x is number => x !== null);
  const rounds = o.caps.map((x, i) => (x === null ? null : i + 1)).filter((x): x is number => x !== null);
  const est = found.length ? geometricEstimate(found) : null;
  const peak = geometricEstimate(o.peaks);
  const capacity: CapacitySummary = {
    sloP99Ms: slo,
    driver: 'oha',
    verdict: o.verdict,
    rps: est ? { figure: est.figure, interval: est.interval, kind: est.kind } : null,
    peakRps: { figure: peak.figure, interval: peak.interval, kind: peak.kind },
    knee: est ? est.figure / peak.figure : null,
    searches: o.caps.length,
    never: o.caps.filter((x) => x === null).length,
    ...(o.bracketed !== undefined ? { bracketed: o.bracketed } : {}),
    ...(o.boundsAbove !== undefined ? { boundsAbove: o.boundsAbove } : {}),
    steps,
  };
  const common = { runId: o.runId ?? 'rc', label, scenario, profile: 'capacity', driver: 'wrk' as const };
  if (!found.length) {
    // Like scheduler/aggregate.ts: a cell without a sustainable rate has no stats at all.
    const { stats: _s, ...cell } = makeCell({ ...common, trials: [o.peaks[o.peaks.length - 1]!] });
    return { ...cell, capacity };
  }
  const cell = makeCell({ ...common, trials: found, rounds });
  return { ...cell, stats: { ...cell.stats!, latencyMs: null }, capacity };
}

/** The snapshot described above. */
export function capacitySnapshot(): ReportSnapshot {
  const cells: CellResult[] = [
    capacityCell('hono', 'ping', { caps: five(15_000), peaks: five(31_000), verdict: 'at-least', bracketed: 0 }),
    capacityCell('node-http', 'ping', { caps: five(12_000), peaks: five(20_000), verdict: 'met', bracketed: 5 }),
    capacityCell('express', 'ping', { caps: five(8_500), peaks: five(9_000), verdict: 'met', bracketed: 5 }),
    capacityCell('fastify', 'ping', {
      caps: five(6_000),
      peaks: five(21_000),
      verdict: 'met',
      bracketed: 4,
      boundsAbove: 1,
    }),
    capacityCell('slowpoke', 'ping', { caps: [null, null, null, null, null], peaks: five(5_000), verdict: 'never' }),
    capacityCell('node-http', 'json', {
      caps: [11_000, 11_500, 11_200],
      peaks: [18_000, 18_500, 18_200],
      verdict: 'met',
    }),
    capacityCell('express', 'json', { caps: [7_000, 7_300, 7_100], peaks: [8_000, 8_200, 8_100], verdict: 'met' }),
    makeCell({
      runId: 'rc',
      label: 'node-http',
      scenario: 'ping',
      profile: 'quick',
      driver: 'wrk',
      trials: five(20_000),
    }),
    makeCell({
      runId: 'rc',
      label: 'fastify',
      scenario: 'ping',
      profile: 'quick',
      driver: 'wrk',
      trials: five(21_000),
    }),
    makeCell({ runId: 'rc', label: 'express', scenario: 'ping', profile: 'quick', driver: 'wrk', trials: five(9_000) }),
  ];
  return {
    runs: [{ meta: makeMeta({ runId: 'rc', profile: 'capacity' }), cells }],
    scenarios: loadScenarios(SCENARIOS_DIR),
  };
}
