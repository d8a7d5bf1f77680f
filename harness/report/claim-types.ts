/**
 * The shapes of the sources' claims (claims.json, loaded by claims.ts `loadClaims`) and of their
 * verdicts (claims.ts `evaluateClaims`): a claim, where its decision range comes from, the verdict
 * words, a claim judged in one profile, and its second line under a driver with headroom. Types
 * only; the rule that fills them is in claims.ts and claim-verdict.ts.
 */
import type { RatioEstimate } from '../analysis/stats.ts';
import type { SourceToolLine } from './native-figure.ts';

/**
 * Where a claim's decision range comes from. `spread`: the source's own range (`expected` as
 * given; `note` says which figures span it). `tolerance`: the source's one figure (in the claim's
 * units: 3.62 for a 3.62× ratio, 0.49 for +49%, 0.6 for 60% lower) ± `tolerance` (0.15 = ±15%) on
 * the ratio a/b of the metric; `expected` is computed from it.
 */
export type RangeSource = { from: 'spread'; note: string } | { from: 'tolerance'; figure: number; tolerance: number };

/** One claim of claims.json. */
export interface Claim {
  /** Stable id, e.g. "s003-json". */
  id: string;
  /** The docs/sources.md entry it comes from, e.g. "Nexus/Express/Fastify report". */
  source: string;
  claim: string;
  /** The source's own figure, as it gave it. */
  sourceFigure: string;
  scenario: string;
  /** rps: requests/s; latency: mean latency (judged as the inverse requests/s ratio, Little's law). */
  metric: 'rps' | 'latency';
  /** ratio = a/b; increase = a/b − 1; reduction = 1 − a/b (of the metric). */
  compare: 'ratio' | 'increase' | 'reduction';
  /** Leaderboard labels (contender or "contender +variant"). */
  a: string;
  b: string;
  /** The decision range [min, max] of the comparison (for `range.from = 'tolerance'`: computed by loadClaims). */
  expected: [number, number];
  /** Where `expected` comes from. */
  range: RangeSource;
  /** Profiles that reproduce the source's load shape; judged in each. */
  profiles: string[];
  /** Why it may be unmeasurable here and how to measure it (e.g. Hasura needs Docker). */
  whenMissing?: string;
  /**
   * How the source's load generator ran when it shared the machine with the server, so that its
   * own figure may be client-bound (e.g. "k6 at 1000 VUs on the servers' 2-core VM"); from
   * docs/sources.md. Printed with the verdict, beside our server-bound figure.
   */
  sourceLoad?: string;
}

export type ClaimVerdict =
  | 'confirmed'
  | 'consistent, not resolved'
  | 'refuted'
  | 'inconclusive'
  | 'inconclusive (client-bound)'
  | 'inconclusive (below resolution)'
  | 'not measured';

/** A claim judged in one profile. */
export interface ClaimResult {
  claim: Claim;
  profile: string;
  /** The run whose cells were used (null when not measured). */
  runId: string | null;
  /** The ratio's figure in the claim's units (null when not measured). */
  ours: number | null;
  /** The ratio's 95% interval in the claim's units, sorted; contains `ours`. */
  band: [number, number] | null;
  /** The requests/s ratio a/b behind `ours` (paired by round). */
  ratio: RatioEstimate | null;
  verdict: ClaimVerdict;
  /** Trials of a and b. */
  trials: { a: number; b: number } | null;
  /** Labels whose figure is a lower bound (client-bound). */
  clientBound: string[];
  /** The table model's minimum detectable difference for this comparison (ratio excess, 0.1 = 10%); null without a model. */
  mdd: number | null;
  /** The reference row of the model behind `mdd` when it is b (the run has no row of the scenario's baseline); else null. */
  mddReference: string | null;
  /** How the measured shape differs from the profile's (e.g. "5 × 2 s, source 5 × 12 s"); null when it is the profile's own. */
  override: string | null;
  /** True when `override` is set: the verdict is provisional. */
  provisional: boolean;
  /** Ids of other claims judged from the very same cells (same a, b, scenario, profile and run). */
  sharedWith: string[];
  /** Evidence or reason, one sentence's worth of data (report writes around it; never names the run). */
  note: string;
  /** The exact command that measures the claim (for not measured / few trials), else null. */
  command: string | null;
  /** For an "inconclusive (client-bound)" verdict: the same comparison under a driver with headroom, else null. */
  headroom: HeadroomLine | null;
  /** When a client-bound k6 pair was judged on wrk's figures at the same concurrency (report/native-figure.ts): k6's own, else null. */
  sourceTool: SourceToolLine | null;
}

/** The same comparison in our own load shape, where neither side is client-bound (never a verdict). */
export interface HeadroomLine {
  runId: string;
  profile: string;
  driver: string;
  /** The figure and its interval in the claim's units (band sorted, contains ours). */
  ours: number;
  band: [number, number];
  /** Degrees of freedom of the interval's t quantile (null unless `kind` is 'ci95'). */
  df: number | null;
  /**
   * The interval behind `band`: the solo requests/s ratio a/b paired by round (analysis/stats.ts
   * `ratio`, the claim's own unit): a 95% CI with ≥ 5 rounds, the min–max of 2–4.
   */
  kind: RatioEstimate['kind'];
  /** Paired solo rounds behind it. */
  n: number;
  /** Where the band lies from the claimed range. */
  where: 'inside' | 'outside' | 'straddles';
}

/** Options of evaluateClaims. */
export interface EvaluateOptions {
  /** The scenario list with baselines (for the table model's baseline row; default: analysis/tables.ts `baselineOf`). */
  scenarios?: { name: string; baseline?: string }[];
}
