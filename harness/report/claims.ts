/**
 * The sources' claims (docs/sources.md), judged in each source's own load shape. Data: `claims.json` beside this file (one entry per claim; ids are stable).
 *
 * The rule (also `claimsRule()`, printed by the report):
 * - Each claim names its profile(s): the source's load shape (pipelined for the Nexus/Express/
 *   Fastify report; k6-ramp for the nestjs-undici-performance report; k6-vus for the NestJS/
 *   LoopBack/Nhost comparison; stress for the PostGraphile template perf runner).
 *   It is judged once per profile.
 * - Its decision range (`expected`) comes from the source: the source's own spread (`range.from
 *   = 'spread'`, e.g. the figures on Node 20/22/24), or the source's single figure ± a stated
 *   tolerance on the ratio (`range.from = 'tolerance'`; the range is then computed here).
 * - Only cells of ONE run with ≥ 5 trials each are used (the latest run that has both); the
 *   band is the 95% interval of the ratio a/b, paired by round (analysis/stats.ts `ratio`):
 *   variation between trials, not within-run jitter. `ours` is the ratio's figure, in the
 *   claim's units (ratio, increase a/b − 1, reduction 1 − a/b). Latency claims are judged through
 *   Little's law: in a closed-loop profile at the same concurrency, mean latency a/b = requests/s b/a.
 * - confirmed: ours lies in the claimed range and the band excludes "no difference"; consistent,
 *   not resolved: ours lies in a claimed range that includes "no difference" (and so values of no
 *   practical size) and the band includes it too, so the measurement cannot tell the claim from no
 *   difference; refuted: the band lies wholly outside the claimed range; inconclusive: anything
 *   else (the band straddles the range's edge or "no difference").
 * - A client-bound side's figure is a lower bound. When that bound could move the ratio into the
 *   claimed range (refuted or inconclusive) or out of it (confirmed), the verdict is
 *   "inconclusive (client-bound)", never refuted.
 * - Resolution: when the table model of the run's table (analysis/tables.ts `tableModel`, i.e.
 *   analysis/table-model.ts; fitted with b as the reference row when the run has no row of the
 *   scenario's baseline) gives a minimum detectable difference (MDD, 90% power, two-sided 5%)
 *   and the whole claimed range lies closer to "no difference" than the MDD (in requests/s ratio:
 *   inside (1/(1 + MDD), 1 + MDD)), a refuted or inconclusive verdict, or a confirmed one whose band
 *   includes "no difference", is "inconclusive (below resolution)", never refuted.
 * - Provisional: when a cell's stored load shape (`load.profile`, after --duration/--vus/--rate)
 *   differs from the profile's definition (core/profiles.ts), the verdict is marked provisional
 *   and the override is named ("5 × 2 s, source 5 × 12 s").
 * - not measured: no run has both cells in the profile with ≥ 5 trials (or one failed); the
 *   result carries the exact command that measures it.
 * - A client-bound k6 pair whose cells both carry wrk's figure at the same concurrency
 *   (report/native-figure.ts `nativePair`), neither client-bound, is judged on wrk's figures (no
 *   table model: the run's table is k6's); k6's own ratio is kept as the source tool's
 *   (`sourceTool`), printed beside it.
 * - A second line under a driver with headroom: for an "inconclusive (client-bound)"
 *   verdict, the same comparison from the newest run that has both cells on the scenario, in any
 *   other profile, with ≥ 5 trials each and neither side client-bound nor failed (`headroom`).
 *   It is labelled as ours, not the source's shape, and never changes the verdict.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { UserError } from '../core/errors.ts';
import { getProfile, measuredSeconds, type Profile } from '../core/profiles.ts';
import type { CellResult, RunMeta } from '../store/results.ts';
import { buildTables, type RunSnapshot, tableModel } from '../analysis/tables.ts';
import { cellFailure, cellTrialCount, MIN_CI_TRIALS, type RatioEstimate, ratio } from '../analysis/stats.ts';
import { fmtDf, fmtPct } from '../core/format.ts';
import { serverBelowBusy } from '../lifecycle/sampler.ts';
import { nativePair, nativeShape, type SourceToolLine } from './native-figure.ts';

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

export const CLAIMS_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'claims.json');

/** The metric ratio a/b behind comparison value v (inverse of `valueOfMetric`). */
const metricOf = (compare: Claim['compare'], v: number) =>
  compare === 'ratio' ? v : compare === 'increase' ? v + 1 : 1 - v;
const valueOfMetric = (compare: Claim['compare'], m: number) =>
  compare === 'ratio' ? m : compare === 'increase' ? m - 1 : 1 - m;

/** The decision range of a `tolerance` range: the figure's metric ratio × (1 ± tolerance), in the claim's units, sorted. */
export function toleranceRange(compare: Claim['compare'], figure: number, tolerance: number): [number, number] {
  const m = metricOf(compare, figure);
  return ascending(valueOfMetric(compare, m * (1 - tolerance)), valueOfMetric(compare, m * (1 + tolerance)));
}

/**
 * The claims from the data file, with `expected` computed for tolerance ranges. Throws UserError
 * naming the file and the claim when an entry lacks a field, has a range of an unknown kind, or
 * gives both a tolerance and an `expected` (one source per range).
 */
export function loadClaims(file = CLAIMS_FILE): Claim[] {
  const claims = JSON.parse(fs.readFileSync(file, 'utf8')).claims as Claim[];
  return claims.map((c) => {
    const where = `${file}: claim ${c.id ?? '(no id)'}`;
    for (const k of ['id', 'source', 'scenario', 'a', 'b', 'range', 'profiles'] as const)
      if (c[k] === undefined) throw new UserError(`${where} has no '${k}'`);
    if (c.range.from === 'tolerance') {
      if (c.expected !== undefined)
        throw new UserError(
          `${where}: a tolerance range computes 'expected'; remove 'expected' or use range.from 'spread'`,
        );
      if (!(c.range.tolerance > 0 && c.range.tolerance < 1) || !Number.isFinite(c.range.figure))
        throw new UserError(`${where}: range needs a finite 'figure' and a 'tolerance' between 0 and 1 (0.15 = ±15%)`);
      return { ...c, expected: toleranceRange(c.compare, c.range.figure, c.range.tolerance) };
    }
    if (c.range.from !== 'spread' || !c.range.note || !Array.isArray(c.expected))
      throw new UserError(
        `${where}: range.from must be 'spread' (with 'note' and 'expected') or 'tolerance' (with 'figure' and 'tolerance')`,
      );
    return c;
  });
}

/** The rule, as text the report prints under the claims table (and the README quotes). */
export function claimsRule(): string {
  return [
    "Each claim is judged in its source's own load shape (the profile column): pipelined for the Nexus/Express/Fastify report, k6-ramp for the nestjs-undici-performance report, k6-vus for the NestJS/LoopBack/Nhost comparison, stress for the PostGraphile template perf runner.",
    "The decision range is printed with each claim and says where it comes from: the source's own spread, or its one figure ± a stated tolerance on the ratio.",
    'Only cells of one run with at least 5 trials each are used; the band is the 95% interval of the ratio a/b, paired by round (variation between trials, not jitter within one window).',
    "Latency claims are judged through Little's law: at the same closed-loop concurrency, mean latency a/b equals requests/s b/a.",
    'Confirmed: our figure lies in the range and the band excludes no difference.',
    'Consistent, not resolved: our figure lies in a range that includes no difference, and the band includes it too',
    '(the measurement cannot tell the claim from no difference).',
    'Refuted: the whole band lies outside the range.',
    'Inconclusive: anything else.',
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

/** The comparison value of a requests/s ratio r = a/b in the claim's units (monotonic in r). */
export function claimValue(claim: Pick<Claim, 'metric' | 'compare'>, r: number): number {
  return valueOfMetric(claim.compare, claim.metric === 'rps' ? r : 1 / r);
}

/** The inverse of claimValue: the requests/s ratio a/b that gives comparison value v. */
export function ratioForValue(claim: Pick<Claim, 'metric' | 'compare'>, v: number): number {
  const m = metricOf(claim.compare, v);
  return claim.metric === 'rps' ? m : 1 / m;
}

/** "3.62×", "+49%", "60% lower" style rendering of a comparison value. */
export function formatComparison(compare: Claim['compare'], v: number): string {
  if (compare === 'ratio') return `${v.toFixed(2)}×`;
  const pct = v * 100;
  return compare === 'increase'
    ? `${pct >= 0 ? '+' : '−'}${Math.abs(pct).toFixed(1)}%`
    : `${Math.abs(pct).toFixed(1)}% ${pct >= 0 ? 'lower' : 'higher'}`;
}

/** "3.08× … 4.16×" of a sorted pair in the claim's units. */
export function formatRange(compare: Claim['compare'], [lo, hi]: [number, number]): string {
  return `${formatComparison(compare, lo)} … ${formatComparison(compare, hi)}`;
}

/** The decision range and where it comes from: "3.08× … 4.16× (3.62× ± 15% on the ratio)". */
export function describeRange(claim: Pick<Claim, 'compare' | 'expected' | 'range'>): string {
  const r = formatRange(claim.compare, ascending(claim.expected[0], claim.expected[1]));
  const src =
    claim.range.from === 'tolerance'
      ? `the source's ${formatComparison(claim.compare, claim.range.figure)} ± ${fmtPct(claim.range.tolerance)} on the ratio`
      : `the source's spread: ${claim.range.note}`;
  return `${r} (${src})`;
}

/** The contender of a label ("nestjs-express-axios +interceptor" → "nestjs-express-axios"). */
export const contenderOf = (label: string) => (label.split(' +')[0] ?? label).replace(/ \(external\)$/, '');

/** The pair in ascending order (kept as given when equal or not comparable, like Array#sort). */
const ascending = (x: number, y: number): [number, number] => (y < x ? [y, x] : [x, y]);

/** The exact command that measures a claim in a profile. */
export function measureCommand(claim: Claim, profile: string): string {
  const names = [...new Set([contenderOf(claim.a), contenderOf(claim.b)])];
  return `just bench ${names.join(' ')} --scenario ${claim.scenario} --profile ${profile} --rounds ${MIN_CI_TRIALS}`;
}

/**
 * How a cell's measured load shape differs from its profile's definition (core/profiles.ts): the
 * window length (or ramp stages), VUs, connections and pipelining of the stored `load.profile`
 * against the defined one. "5 × 2 s, source 5 × 12 s" (windows × seconds; VUs, connections or
 * pipelining added when they differ); null when it is the profile's own shape, the cell has no
 * load, or the profile is not defined here. The source side counts max(profile rounds, 5) windows.
 */
export function shapeOverride(cell: CellResult): string | null {
  const used = cell.load?.profile as (Profile & Record<string, unknown>) | undefined;
  if (!used) return null;
  let def: Profile & Record<string, unknown>;
  try {
    def = getProfile(cell.profile) as Profile & Record<string, unknown>;
  } catch {
    return null;
  }
  const differs = (k: string) =>
    used[k] !== undefined && def[k] !== undefined && JSON.stringify(used[k]) !== JSON.stringify(def[k]);
  if (!['durationS', 'stages', 'vus', 'connections', 'pipelining'].some(differs)) return null;
  const text = (p: Profile & Record<string, unknown>, windows: number) =>
    [
      `${windows} × ${measuredSeconds(p)} s`,
      differs('vus') ? ` at ${p.vus} VUs` : '',
      differs('connections') ? ` at ${p.connections} connections` : '',
      differs('pipelining') ? `, pipelining ${p.pipelining}` : '',
    ].join('');
  return `${text(used, cellTrialCount(cell))}, source ${text(def, Math.max(def.rounds, MIN_CI_TRIALS))}`;
}

/** Accepts the store's snapshot, or a flat list of cells (grouped into runs by runId). */
function asRuns(input: RunSnapshot[] | CellResult[]): RunSnapshot[] {
  const [head] = input;
  if (!head) return [];
  if ('meta' in head) return input as RunSnapshot[];
  const by = new Map<string, CellResult[]>();
  for (const c of input as CellResult[]) by.set(c.runId, [...(by.get(c.runId) ?? []), c]);
  return [...by].map(([runId, cells]) => ({
    meta: { runId, startedAt: cells.map((c) => c.startedAt).sort()[0] ?? '' } as RunMeta,
    cells,
  }));
}

/** Options of evaluateClaims. */
export interface EvaluateOptions {
  /** The scenario list with baselines (for the table model's baseline row; default: analysis/tables.ts `baselineOf`). */
  scenarios?: { name: string; baseline?: string }[];
}

/**
 * Judges every claim in each of its profiles from same-run cells (see the module docstring).
 * `input`: the store's snapshot of runs (or a flat list of cells; runs are then told apart by runId).
 */
export function evaluateClaims(
  claims: Claim[],
  input: RunSnapshot[] | CellResult[],
  opts: EvaluateOptions = {},
): ClaimResult[] {
  const runs = [...asRuns(input)].sort(
    (x, y) =>
      (y.meta.startedAt ?? '').localeCompare(x.meta.startedAt ?? '') || y.meta.runId.localeCompare(x.meta.runId),
  );
  const out: ClaimResult[] = [];
  for (const claim of claims) for (const profile of claim.profiles) out.push(judge(claim, profile, runs, opts));
  // Claims judged from the very same cells (or the same missing cells) say so.
  const key = (r: ClaimResult) => [r.claim.a, r.claim.b, r.claim.scenario, r.profile, r.runId ?? ''].join('|');
  for (const r of out) r.sharedWith = out.filter((o) => o !== r && key(o) === key(r)).map((o) => o.claim.id);
  return out;
}

const matches = (label: string, c: CellResult) => c.label === label || c.label === `${label} (external)`;

type Pair = { run: RunSnapshot; a: CellResult; b: CellResult };

/** The latest run holding both cells in this profile with ≥ 5 trials each (`pair`), else the latest with fewer. */
function findPair(claim: Claim, profile: string, runs: RunSnapshot[]): { pair: Pair | null; fewer: Pair | null } {
  let pair: Pair | null = null;
  let fewer: Pair | null = null;
  for (const run of runs) {
    const inProfile = run.cells.filter((c) => c.scenario === claim.scenario && c.profile === profile);
    for (const a of inProfile.filter((c) => matches(claim.a, c))) {
      const b = inProfile.find((c) => matches(claim.b, c) && c.driver === a.driver && c.node.major === a.node.major);
      if (!b) continue;
      const enough = cellTrialCount(a) >= MIN_CI_TRIALS && cellTrialCount(b) >= MIN_CI_TRIALS;
      if (enough && !pair) pair = { run, a, b };
      if (!enough && !fewer) fewer = { run, a, b };
    }
    if (pair) break;
  }
  return { pair, fewer };
}

/**
 * The table model's MDD for a vs b in the pair's run (analysis/tables.ts `buildTables` → `model`):
 * against the baseline when one side is the table's baseline, else between two rows. When the run
 * has no row of the scenario's baseline (e.g. `just claims` runs without it), the same model
 * (analysis/tables.ts `tableModel`) is fitted with b, the claim's own reference, as the baseline
 * row, and its MDD against that row is a vs b's; `reference` then names b. Null when neither fits
 * (fewer than 2 ranked rows, no common rounds).
 */
function modelMdd(pair: Pair, opts: EvaluateOptions): { mdd: number; reference: string | null } | null {
  const { a, b, run } = pair;
  const t = buildTables([run], { runId: run.meta.runId, scenarios: opts.scenarios }).find(
    (x) =>
      x.key.scenario === a.scenario &&
      x.key.profile === a.profile &&
      x.key.driver === a.driver &&
      x.key.nodeMajor === a.node.major &&
      x.rows.some((r) => r.cell === a || r.label === a.label) &&
      x.rows.some((r) => r.cell === b || r.label === b.label),
  );
  if (!t) return null;
  if (t.model) {
    const vsBaseline = t.baseline === a.label || t.baseline === b.label;
    const m = vsBaseline ? t.model.mdd.baseline : t.model.mdd.pair;
    return Number.isFinite(m) ? { mdd: m, reference: null } : null;
  }
  if (t.baselineRow) return null; // the baseline is there, yet no model: too few common rounds
  const own = tableModel(
    t.rows.filter((r) => r.status === 'ranked'),
    b.label,
  );
  const m = own?.summary.mdd.baseline;
  return m !== undefined && Number.isFinite(m) ? { mdd: m, reference: b.label } : null;
}

function notMeasured(claim: Claim, profile: string, fewer: Pair | null): ClaimResult {
  const note = fewer
    ? `run ${fewer.run.meta.runId} has ${cellTrialCount(fewer.a)} and ${cellTrialCount(fewer.b)} trials; a verdict needs ${MIN_CI_TRIALS} each`
    : (claim.whenMissing ?? `no run has both ${claim.a} and ${claim.b} on ${claim.scenario} in the ${profile} profile`);
  return {
    ...empty(claim, profile),
    runId: fewer?.run.meta.runId ?? null,
    trials: fewer ? { a: cellTrialCount(fewer.a), b: cellTrialCount(fewer.b) } : null,
    note,
  };
}

function empty(claim: Claim, profile: string): ClaimResult {
  return {
    claim,
    profile,
    runId: null,
    ours: null,
    band: null,
    ratio: null,
    verdict: 'not measured',
    trials: null,
    clientBound: [],
    mdd: null,
    mddReference: null,
    override: null,
    provisional: false,
    sharedWith: [],
    note: '',
    command: measureCommand(claim, profile),
    headroom: null,
    sourceTool: null,
  };
}

/** confirmed / refuted / inconclusive from the band alone (the module docstring's rule). */
function bandVerdict(claim: Claim, r: RatioEstimate, ours: number, band: [number, number]): ClaimVerdict {
  const [lo, hi] = ascending(claim.expected[0], claim.expected[1]);
  const noEffect = claimValue(claim, 1);
  const rangeHasNoEffect = lo <= noEffect && noEffect <= hi;
  const bandHasNoEffect = band[0] <= noEffect && noEffect <= band[1];
  if (r.kind !== 'ci95') return 'inconclusive';
  if (band[1] < lo || band[0] > hi) return 'refuted';
  if (ours >= lo && ours <= hi && !bandHasNoEffect) return 'confirmed';
  if (ours >= lo && ours <= hi && rangeHasNoEffect) return 'consistent, not resolved';
  return 'inconclusive';
}

/** A client-bound side's requests/s is a lower bound: a bound on a raises r, on b lowers it. */
function clientBoundVerdict(claim: Claim, v: ClaimVerdict, a: CellResult, b: CellResult, iv: number[]): ClaimVerdict {
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

/** A requests/s ratio and its interval in the claim's units: the figure, and a sorted band that contains it. */
function inClaimUnits(claim: Claim, figure: number, [lo, hi]: readonly number[]) {
  const ours = claimValue(claim, figure);
  const ends = ascending(claimValue(claim, lo ?? figure), claimValue(claim, hi ?? figure));
  const band: [number, number] = [Math.min(ends[0], ours), Math.max(ends[1], ours)];
  return { ours, band };
}

/** The ratio a/b in the claim's units: its figure, and a sorted 95% band that contains it. */
function claimBand(claim: Claim, a: CellResult, b: CellResult) {
  const r = ratio(a, b);
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

function judge(claim: Claim, profile: string, runs: RunSnapshot[], opts: EvaluateOptions): ClaimResult {
  const { pair, fewer } = findPair(claim, profile, runs);
  if (!pair) return notMeasured(claim, profile, fewer);
  const { run, a, b } = pair;
  const trials = { a: cellTrialCount(a), b: cellTrialCount(b) };
  const override = [...new Set([a, b].map(shapeOverride).filter((x): x is string => x !== null))].join('; ') || null;
  const base = { ...empty(claim, profile), runId: run.meta.runId, trials, override, provisional: override !== null };
  const failed = [a, b].map((c) => [c.label, cellFailure(c)] as const).filter(([, f]) => f);
  if (failed.length) return { ...base, note: `failed: ${failed.map(([l, f]) => `${l} (${f})`).join('; ')}` };
  // A client-bound k6 pair with wrk's server-bound figures beside it is judged on those.
  const native = nativePair(a, b);
  const [ja, jb] = native ? [native.a, native.b] : [a, b];
  const { r, ours, iv, band } = claimBand(claim, ja, jb);
  let verdict = clientBoundVerdict(claim, bandVerdict(claim, r, ours, band), ja, jb, iv);
  const clientBound = [ja, jb].filter((c) => c.resources?.clientBound).map((c) => c.label);
  const sourceTool = native ? toolLine(claim, a, b) : null;
  const model = native ? null : modelMdd(pair, opts);
  const mdd = model?.mdd ?? null;
  const noEffect = claimValue(claim, 1);
  const resolved = band[0] > noEffect || band[1] < noEffect;
  if (
    mdd !== null &&
    belowResolution(claim, mdd) &&
    (verdict === 'refuted' ||
      verdict === 'inconclusive' ||
      verdict === 'consistent, not resolved' ||
      (verdict === 'confirmed' && !resolved))
  )
    verdict = 'inconclusive (below resolution)';
  const fmt = (v: number) => formatComparison(claim.compare, v);
  const note = [
    `${fmt(ours)} (95% interval ${fmt(band[0])} … ${fmt(band[1])}, ${r.n} paired rounds)`,
    sourceTool ? sourceToolText(claim.compare, sourceTool) : '',
    clientBound.length ? `client-bound (lower bound): ${clientBound.join(', ')}` : '',
    model
      ? `the table model's MDD ±${fmtPct(model.mdd, 1)}${model.reference ? ` (reference row ${model.reference}: the run has no row of the scenario's baseline)` : ''}`
      : '',
  ]
    .filter(Boolean)
    .join('; ');
  const mddReference = model?.reference ?? null;
  const headroom =
    verdict === 'inconclusive (client-bound)' ? headroomLine(claim, profile, a.node.major, runs, opts) : null;
  return {
    ...base,
    ours,
    band,
    ratio: r,
    verdict,
    clientBound,
    mdd,
    mddReference,
    note,
    command: null,
    headroom,
    sourceTool,
  };
}

/** k6's own figure of a pair judged on wrk's (`SourceToolLine`). */
function toolLine(claim: Claim, a: CellResult, b: CellResult): SourceToolLine {
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

/** The verdict as printed: "refuted", "refuted (provisional: 5 × 2 s, source 5 × 12 s)". */
export function verdictText(r: Pick<ClaimResult, 'verdict' | 'provisional' | 'override'>): string {
  return r.provisional && r.verdict !== 'not measured' ? `${r.verdict} (provisional: ${r.override})` : r.verdict;
}

/** "shares its measurement with X: the same cells, so the verdicts can differ only through the decision ranges". */
export function sharedText(r: Pick<ClaimResult, 'sharedWith'>): string {
  if (!r.sharedWith.length) return '';
  return `same measurement as ${r.sharedWith.join(', ')} (the same cells): the verdicts can differ only because the decision ranges differ`;
}

/** The claims section as Markdown lines (heading, rule, table). */
export function renderClaims(results: ClaimResult[]): string[] {
  const out = [
    '## Source claims',
    '',
    `${claimsRule()} (data: \`harness/report/claims.json\`; sources: \`docs/sources.md\`)`,
    '',
    "| claim | source | source's figure | decision range | profile | ours (95% interval) | verdict |",
    '|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    const ours =
      r.ours === null || !r.band
        ? '–'
        : `${formatComparison(r.claim.compare, r.ours)} (${formatRange(r.claim.compare, r.band)})${r.clientBound.length ? `, lower bound: ${r.clientBound.join(', ')}` : ''}, run ${r.runId}`;
    const shared = sharedText(r);
    const second = r.headroom
      ? `<br>${headroomText(r.claim, r.headroom)}`
      : r.sourceTool
        ? `<br>${sourceToolText(r.claim.compare, r.sourceTool)}`
        : '';
    const verdict =
      r.verdict === 'not measured'
        ? `not measured: ${r.note}${r.command ? `; run \`${r.command}\`` : ''}`
        : `**${verdictText(r)}**`;
    out.push(
      `| ${r.claim.claim} (\`${r.claim.a}\` vs \`${r.claim.b}\`, ${r.claim.scenario}) | ${r.claim.source} | ${r.claim.sourceFigure} | ${describeRange(r.claim)} | ${r.profile} | ${ours}${second} | ${verdict}${shared ? `; ${shared}` : ''} |`,
    );
  }
  out.push('');
  return out;
}
