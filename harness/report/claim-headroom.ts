/**
 * A claim's second line, printed under its verdict and never changing it:
 * - `headroomLine`: for an "inconclusive (client-bound)" verdict, the same comparison from the
 *   newest run that has both cells on the scenario in another closed-loop profile, neither side
 *   client-bound, in the claim's own unit (solo requests/s paired by round); labelled as ours,
 *   not the source's shape;
 * - `toolLine`: for a client-bound k6 pair judged on wrk's figures at the same concurrency
 *   (native-figure.ts `nativePair`), k6's own ratio as the source tool's.
 * Also the band of a pair in the claim's units (`claimBand`), which the verdict is judged on.
 */
import { buildTables, type RunSnapshot } from '../analysis/tables.ts';
import { ratio, type RatioEstimate } from '../analysis/stats.ts';
import { fmtDf } from '../core/format.ts';
import { serverBelowBusy } from '../lifecycle/sampler.ts';
import type { CellResult } from '../store/results.ts';
import type { Claim, EvaluateOptions, HeadroomLine } from './claim-types.ts';
import { ascending, formatComparison, formatRange, inClaimUnits } from './claim-units.ts';
import { nativeShape, type SourceToolLine } from './native-figure.ts';

/** True when cell `c` is the claim's `label` (or that label's external target). */
export const matches = (label: string, c: CellResult) => c.label === label || c.label === `${label} (external)`;

/**
 * The ratio a/b in the claim's units: its figure, and a sorted 95% band that contains it. `model`:
 * the table model's ratio when the caller has one (claims.ts `modelRatio`, interleaved rounds),
 * else the solo requests/s ratio paired by round (analysis/stats.ts `ratio`).
 */
export function claimBand(
  claim: Pick<Claim, 'metric' | 'compare'>,
  a: CellResult,
  b: CellResult,
  model: RatioEstimate | null = null,
) {
  const r = model ?? ratio(a, b);
  const iv = r.interval ?? [r.figure, r.figure];
  return { r, iv, ...inClaimUnits(claim, r.figure, iv) };
}

/** Closed-loop profiles a second line may come from (capacity and k6-rate are open-loop: their figures are not comparable). */
const OPEN_LOOP_PROFILES = new Set(['capacity', 'k6-rate']);

/**
 * The second line of a client-bound claim (module docstring): the newest run with a table of the
 * claim's scenario and Node major (`nodeMajor`, the claim's cells') in a closed-loop profile
 * other than `profile` whose ranked rows hold both a and b, neither client-bound. Its figure and
 * interval are in the claim's own unit: the solo requests/s ratio a/b paired by round
 * (analysis/stats.ts `ratio`: a 95% CI with ≥ 5 rounds, else the range of the rounds), as the
 * claim's first line, never the table model's requests per CPU-second. Null when there is none.
 */
export function headroomLine(
  claim: Claim,
  profile: string,
  nodeMajor: number,
  runs: RunSnapshot[],
  opts: EvaluateOptions = {},
): HeadroomLine | null {
  for (const run of runs) {
    for (const t of buildTables([run], { runId: run.meta.runId, scenarios: opts.scenarios })) {
      const { key } = t;
      if (key.scenario !== claim.scenario || key.nodeMajor !== nodeMajor) continue;
      if (key.profile === profile || OPEN_LOOP_PROFILES.has(key.profile)) continue;
      const ranked = t.rows.filter((r) => r.status === 'ranked');
      const ra = ranked.find((r) => matches(claim.a, r.cell));
      const rb = ranked.find((r) => matches(claim.b, r.cell));
      if (!ra || !rb || ra.cell.resources?.clientBound || rb.cell.resources?.clientBound) continue;
      const r = ratio(ra.cell, rb.cell);
      if (!(r.figure > 0) || !Number.isFinite(r.figure)) continue;
      const { ours, band } = inClaimUnits(claim, r.figure, r.interval ?? [r.figure, r.figure]);
      const [lo, hi] = ascending(claim.expected[0], claim.expected[1]);
      const where = band[1] < lo || band[0] > hi ? 'outside' : band[0] >= lo && band[1] <= hi ? 'inside' : 'straddles';
      const head = { runId: run.meta.runId, profile: t.key.profile, driver: t.key.driver, ours, band };
      return { ...head, df: r.kind === 'ci95' ? r.df : null, kind: r.kind, n: r.n, where };
    }
  }
  return null;
}

/** "ours, not the source's shape: 3.10× (2.90× … 3.30×) under wrk (quick, run X, 6 paired rounds), inside the claimed range". */
export function headroomText(claim: Pick<Claim, 'compare'>, h: HeadroomLine): string {
  const where = {
    inside: 'inside the claimed range',
    outside: 'outside the claimed range',
    straddles: "across the claimed range's edge",
  }[h.where];
  const how =
    h.kind === 'ci95'
      ? `solo requests/s paired by round, 95% CI${h.df !== null ? `, ${fmtDf(h.df)} df` : ''}`
      : `solo requests/s paired by round, the range of ${h.n} rounds (not a confidence interval)`;
  const name = h.kind === 'ci95' ? '95% CI' : `range (${h.n} rounds)`;
  return `ours, not the source's shape: ${formatComparison(claim.compare, h.ours)} (${name} ${formatRange(claim.compare, h.band)}) under ${h.driver}, where neither side is client-bound (${h.profile}, run ${h.runId}, ${how}), ${where}`;
}

/** k6's own figure of a pair judged on wrk's (`SourceToolLine`). */
export function toolLine(claim: Claim, a: CellResult, b: CellResult): SourceToolLine {
  const { ours, band } = claimBand(claim, a, b);
  const clientBound = [a, b]
    .filter((c) => c.resources?.clientBound || serverBelowBusy(c.resources))
    .map((c) => c.label);
  return { driver: a.driver, ours, band, clientBound, shape: nativeShape(a, b) };
}

/** "judged on wrk at 1000 connections (…); k6, the source's tool: 1.61× (1.50× … 1.70×), client-bound: a". */
export function sourceToolText(compare: Claim['compare'], t: SourceToolLine): string {
  const fmt = (v: number) => formatComparison(compare, v);
  return `judged on ${t.shape || 'wrk at the same concurrency'}; ${t.driver}, the source's tool: ${fmt(t.ours)} (${fmt(t.band[0])} … ${fmt(t.band[1])})${t.clientBound.length ? `, client-bound (lower bound): ${t.clientBound.join(', ')}` : ''}`;
}
