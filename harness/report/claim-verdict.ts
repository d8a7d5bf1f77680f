/**
 * The verdict rule of a claim, as functions of the evidence (the 95% band of the ratio a/b in the
 * claim's units, and its figure `ours`) against the source's decision range R, and the rule as the
 * text the report prints (`claimsRule`). One rule, so that the same evidence gets the same verdict
 * whatever the range (`bandVerdict`):
 *
 * - refuted: the band lies wholly outside R;
 * - consistent, not resolved: the band overlaps R and includes "no difference" (ratio 1): the
 *   measurement cannot tell the claim from no difference, whether or not R itself includes it;
 * - confirmed: the band excludes "no difference" and `ours` lies in R;
 * - inconclusive: the band excludes "no difference", `ours` lies outside R and the band reaches
 *   into R (it straddles R's edge); also any band that is not a 95% CI (fewer than 5 rounds).
 *
 * Then two rules can only weaken a verdict, never strengthen it: a client-bound side's figure is a
 * lower bound (`clientBoundVerdict`: "inconclusive (client-bound)" when the bound could move the
 * ratio into or out of R), and a range closer to "no difference" than the table model's minimum
 * detectable difference is below the run's resolution (`resolutionVerdict`: "inconclusive (below
 * resolution)" unless a confirmation's band excludes "no difference").
 */
import type { RatioEstimate } from '../analysis/stats.ts';
import type { CellResult } from '../store/results.ts';
import type { Claim, ClaimVerdict } from './claim-types.ts';
import { ascending, claimValue, ratioForValue } from './claim-units.ts';

/** The rule, as text the report prints under the claims table (and the README quotes). */
export function claimsRule(): string {
  return [
    "Each claim is judged in its source's own load shape (the profile column): pipelined for the Nexus/Express/Fastify report, k6-ramp for the nestjs-undici-performance report, k6-vus for the NestJS/LoopBack/Nhost comparison, stress for the PostGraphile template perf runner.",
    "The decision range is printed with each claim and says where it comes from: the source's own spread, or its one figure ± a stated tolerance on the ratio.",
    "Only cells of one run with at least 5 rounds each are used; the band is the 95% interval of the ratio a/b: for a requests/s claim whose cells ran in interleaved rounds (pipelined, stress), the table model's ratio of requests per server CPU-second (each server saturating its one core; the host's drift cancels within a round), else the solo requests/s paired by round (variation between rounds, not jitter within one window).",
    "Latency claims are judged through Little's law: at the same closed-loop concurrency, mean latency a/b equals requests/s b/a.",
    'One rule, so that the same band gets the same verdict whatever the range:',
    'refuted: the whole band lies outside the range;',
    'consistent, not resolved: the band reaches into the range and includes no difference (the measurement cannot tell the claim from no difference);',
    'confirmed: the band excludes no difference and our figure lies in the range;',
    "inconclusive: the band excludes no difference but straddles the range's edge, with our figure outside it.",
    'A client-bound side is a lower bound: when it could move the ratio into (or out of) the range, the verdict is inconclusive (client-bound), never refuted.',
    "When k6 left a side's server below 85% of its core and both cells carry wrk's figure at the same concurrency, neither client-bound, the verdict is judged on wrk's figures and k6's is shown as the source tool's.",
    'When the table model (with b as the reference row if the run has no baseline row) gives a minimum detectable difference (MDD)',
    'and the whole range lies closer to no difference than it, the verdict is inconclusive (below resolution), never refuted',
    '(a confirmation stands only if the band excludes no difference).',
    "A cell measured in a shape other than its profile's (a shortened window, other VUs) makes the verdict provisional; the row names the override.",
    'Claims judged from the same cells say so: their verdicts can differ only because their ranges differ.',
    'Not measured: no run has both cells in that profile with at least 5 trials; the command that measures it is given.',
  ].join(' ');
}

/**
 * The verdict of the band alone (the module docstring's rule): `band` is the sorted 95% band of the
 * ratio in the claim's units and `ours` its figure; `kind` of the requests/s ratio behind it (a band
 * that is not a 95% CI is inconclusive). Depends on the range only through where the band and
 * `ours` lie from it, never on whether the range includes "no difference".
 */
export function bandVerdict(
  claim: Pick<Claim, 'metric' | 'compare' | 'expected'>,
  kind: RatioEstimate['kind'],
  ours: number,
  band: [number, number],
): ClaimVerdict {
  const [lo, hi] = ascending(claim.expected[0], claim.expected[1]);
  const noEffect = claimValue(claim, 1);
  const bandHasNoEffect = band[0] <= noEffect && noEffect <= band[1];
  if (kind !== 'ci95') return 'inconclusive';
  if (band[1] < lo || band[0] > hi) return 'refuted';
  if (bandHasNoEffect) return 'consistent, not resolved';
  if (ours >= lo && ours <= hi) return 'confirmed';
  return 'inconclusive';
}

/**
 * A client-bound side's requests/s is a lower bound: a bound on a raises r, on b lowers it. `iv`:
 * the requests/s ratio's interval [low, high]. Returns `v`, or "inconclusive (client-bound)" when
 * the bound could move the ratio into the claimed range (refuted, inconclusive) or out of it
 * (confirmed, consistent).
 */
export function clientBoundVerdict(
  claim: Pick<Claim, 'metric' | 'compare' | 'expected'>,
  v: ClaimVerdict,
  a: CellResult,
  b: CellResult,
  iv: readonly number[],
): ClaimVerdict {
  const up = Boolean(a.resources?.clientBound);
  const down = Boolean(b.resources?.clientBound);
  if (!up && !down) return v;
  const [lo, hi] = ascending(claim.expected[0], claim.expected[1]);
  // The claimed range in requests/s-ratio space, and where it lies from our interval.
  const rr = ascending(ratioForValue(claim, lo), ratioForValue(claim, hi));
  const reachable = (up && rr[1] > (iv[0] ?? 0)) || (down && rr[0] < (iv[1] ?? 0));
  const canLeave = (up && Number.isFinite(rr[1])) || (down && rr[0] > 0);
  if ((v === 'refuted' || v === 'inconclusive') && reachable) return 'inconclusive (client-bound)';
  if ((v === 'confirmed' || v === 'consistent, not resolved') && canLeave) return 'inconclusive (client-bound)';
  return v;
}

/** True when the whole claimed range lies closer to "no difference" than the MDD (requests/s ratio inside (1/(1+mdd), 1+mdd)). */
export function belowResolution(claim: Pick<Claim, 'metric' | 'compare' | 'expected'>, mdd: number): boolean {
  const rr = ascending(ratioForValue(claim, claim.expected[0]), ratioForValue(claim, claim.expected[1]));
  return rr[0] > 1 / (1 + mdd) && rr[1] < 1 + mdd;
}

/**
 * `v` below the run's resolution: "inconclusive (below resolution)" when the table model's MDD
 * (`mdd`, ratio excess; null without a model) exceeds the whole claimed range (`belowResolution`)
 * and `v` is refuted, inconclusive or consistent, or confirmed with a band that includes "no
 * difference"; else `v`.
 */
export function resolutionVerdict(
  claim: Pick<Claim, 'metric' | 'compare' | 'expected'>,
  v: ClaimVerdict,
  band: [number, number],
  mdd: number | null,
): ClaimVerdict {
  if (mdd === null || !belowResolution(claim, mdd)) return v;
  const noEffect = claimValue(claim, 1);
  const resolved = band[0] > noEffect || band[1] < noEffect;
  const weak = v === 'refuted' || v === 'inconclusive' || v === 'consistent, not resolved';
  return weak || (v === 'confirmed' && !resolved) ? 'inconclusive (below resolution)' : v;
}
