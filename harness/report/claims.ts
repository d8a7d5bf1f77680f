/**
 * The sources' claims (docs/sources.md), judged in each source's own load shape (issue 11 item 5,
 * issue 16 item 3). Data: `claims.json` beside this file (one entry per claim; ids are stable).
 *
 * The rule (also `claimsRule()`, printed by the report):
 * - Each claim names its profile(s): the source's load shape (pipelined for the Nexus/Express/
 *   Fastify report; k6-ramp for the nestjs-undici-performance report; k6-vus for the NestJS/
 *   LoopBack/Nhost comparison; standard and stress for the PostGraphile template perf runner).
 *   It is judged once per profile.
 * - Only cells of ONE run with ≥ 5 trials each are used (the latest run that has both); the
 *   band is the 95% interval of the ratio a/b, paired by round (analysis/stats.ts `ratio`):
 *   variation between trials, not within-run jitter. `ours` is the ratio's figure, in the
 *   claim's units (ratio, increase a/b − 1, reduction 1 − a/b). Latency claims are judged through
 *   Little's law: in a closed-loop profile at the same concurrency, mean latency a/b = requests/s b/a.
 * - confirmed: ours lies in the claimed range and the band excludes "no difference" (unless the
 *   range itself includes it); refuted: the band lies wholly outside the claimed range;
 *   inconclusive: anything else (the band straddles the range's edge or "no difference").
 * - A client-bound side's figure is a lower bound. When that bound could move the ratio into the
 *   claimed range (refuted or inconclusive) or out of it (confirmed), the verdict is
 *   "inconclusive (client-bound)", never refuted.
 * - not measured: no run has both cells in the profile with ≥ 5 trials (or one failed); the
 *   result carries the exact command that measures it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CellResult, RunMeta } from '../store/results.ts';
import type { RunSnapshot } from '../analysis/tables.ts';
import { cellFailure, cellTrialCount, MIN_CI_TRIALS, type RatioEstimate, ratio } from '../analysis/stats.ts';

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
  /** The claimed range [min, max] of the comparison. */
  expected: [number, number];
  /** Profiles that reproduce the source's load shape; judged in each. */
  profiles: string[];
  /** Why it may be unmeasurable here and how to measure it (e.g. Hasura needs Docker). */
  whenMissing?: string;
}

export type ClaimVerdict = 'confirmed' | 'refuted' | 'inconclusive' | 'inconclusive (client-bound)' | 'not measured';

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
  /** Evidence or reason, one sentence's worth of data (report writes around it). */
  note: string;
  /** The exact command that measures the claim (for not measured / few trials), else null. */
  command: string | null;
}

export const CLAIMS_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'claims.json');

/** The claims from the data file; throws an Error naming the file and the claim when an entry lacks a field. */
export function loadClaims(file = CLAIMS_FILE): Claim[] {
  const claims = JSON.parse(fs.readFileSync(file, 'utf8')).claims as Claim[];
  for (const c of claims)
    for (const k of ['id', 'source', 'scenario', 'a', 'b', 'expected', 'profiles'] as const)
      if (c[k] === undefined) throw new Error(`${file}: claim ${c.id ?? '(no id)'} has no '${k}'`);
  return claims;
}

/** The rule, as text the report prints under the claims table (and the README quotes). */
export function claimsRule(): string {
  return [
    "Each claim is judged in its source's own load shape (the profile column): pipelined for the Nexus/Express/Fastify report, k6-ramp for the nestjs-undici-performance report, k6-vus for the NestJS/LoopBack/Nhost comparison, standard and stress for the PostGraphile template perf runner.",
    'Only cells of one run with at least 5 trials each are used; the band is the 95% interval of the ratio a/b, paired by round (variation between trials, not jitter within one window).',
    "Latency claims are judged through Little's law: at the same closed-loop concurrency, mean latency a/b equals requests/s b/a.",
    'Confirmed: our figure lies in the claimed range and the band excludes no difference (unless the range includes it). Refuted: the whole band lies outside the claimed range. Inconclusive: anything else.',
    'A client-bound side is a lower bound: when it could move the ratio into (or out of) the claimed range, the verdict is inconclusive (client-bound), never refuted.',
    'Not measured: no run has both cells in that profile with at least 5 trials; the command that measures it is given.',
  ].join(' ');
}

/** The comparison value of a requests/s ratio r = a/b in the claim's units (monotonic in r). */
export function claimValue(claim: Pick<Claim, 'metric' | 'compare'>, r: number): number {
  const m = claim.metric === 'rps' ? r : 1 / r; // metric a/b
  return claim.compare === 'ratio' ? m : claim.compare === 'increase' ? m - 1 : 1 - m;
}

/** The inverse of claimValue: the requests/s ratio a/b that gives comparison value v. */
export function ratioForValue(claim: Pick<Claim, 'metric' | 'compare'>, v: number): number {
  const m = claim.compare === 'ratio' ? v : claim.compare === 'increase' ? v + 1 : 1 - v;
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

/** The contender of a label ("nestjs-express-axios +interceptor" → "nestjs-express-axios"). */
const contenderOf = (label: string) => (label.split(' +')[0] ?? label).replace(/ \(external\)$/, '');

/** The pair in ascending order (kept as given when equal or not comparable, like Array#sort). */
const ascending = (x: number, y: number): [number, number] => (y < x ? [y, x] : [x, y]);

/** The exact command that measures a claim in a profile. */
export function measureCommand(claim: Claim, profile: string): string {
  const names = [...new Set([contenderOf(claim.a), contenderOf(claim.b)])];
  return `just bench ${names.join(' ')} --scenario ${claim.scenario} --profile ${profile} --rounds ${MIN_CI_TRIALS}`;
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

/**
 * Judges every claim in each of its profiles from same-run cells (see the module docstring).
 * `input`: the store's snapshot of runs (or a flat list of cells; runs are then told apart by runId).
 */
export function evaluateClaims(claims: Claim[], input: RunSnapshot[] | CellResult[]): ClaimResult[] {
  const runs = [...asRuns(input)].sort(
    (x, y) =>
      (y.meta.startedAt ?? '').localeCompare(x.meta.startedAt ?? '') || y.meta.runId.localeCompare(x.meta.runId),
  );
  const out: ClaimResult[] = [];
  for (const claim of claims) for (const profile of claim.profiles) out.push(judge(claim, profile, runs));
  return out;
}

const matches = (label: string, c: CellResult) => c.label === label || c.label === `${label} (external)`;

function judge(claim: Claim, profile: string, runs: RunSnapshot[]): ClaimResult {
  const command = measureCommand(claim, profile);
  const base = { claim, profile, ours: null, band: null, ratio: null, clientBound: [], command };
  // Latest run holding both cells in this profile; prefer one where both have ≥ 5 trials.
  let pair: { run: RunSnapshot; a: CellResult; b: CellResult } | null = null;
  let fewer: { run: RunSnapshot; a: CellResult; b: CellResult } | null = null;
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
  if (!pair) {
    const note = fewer
      ? `run ${fewer.run.meta.runId} has ${cellTrialCount(fewer.a)} and ${cellTrialCount(fewer.b)} trials; a verdict needs ${MIN_CI_TRIALS} each`
      : (claim.whenMissing ??
        `no run has both ${claim.a} and ${claim.b} on ${claim.scenario} in the ${profile} profile`);
    return {
      ...base,
      runId: fewer?.run.meta.runId ?? null,
      verdict: 'not measured',
      trials: fewer ? { a: cellTrialCount(fewer.a), b: cellTrialCount(fewer.b) } : null,
      note,
    };
  }
  const { run, a, b } = pair;
  const trials = { a: cellTrialCount(a), b: cellTrialCount(b) };
  const failed = [a, b].map((c) => [c.label, cellFailure(c)] as const).filter(([, f]) => f);
  if (failed.length)
    return {
      ...base,
      runId: run.meta.runId,
      verdict: 'not measured',
      trials,
      note: `failed in run ${run.meta.runId}: ${failed.map(([l, f]) => `${l} (${f})`).join('; ')}`,
    };
  const r = ratio(a, b);
  const ours = claimValue(claim, r.figure);
  const iv = r.interval ?? [r.figure, r.figure];
  const ends = ascending(claimValue(claim, iv[0]), claimValue(claim, iv[1]));
  const band: [number, number] = [Math.min(ends[0], ours), Math.max(ends[1], ours)];
  const [lo, hi] = [Math.min(...claim.expected), Math.max(...claim.expected)];
  const noEffect = claimValue(claim, 1);
  const rangeHasNoEffect = lo <= noEffect && noEffect <= hi;
  const bandHasNoEffect = band[0] <= noEffect && noEffect <= band[1];
  let verdict: ClaimVerdict;
  if (r.kind !== 'ci95') verdict = 'inconclusive';
  else if (band[1] < lo || band[0] > hi) verdict = 'refuted';
  else if (ours >= lo && ours <= hi && (rangeHasNoEffect || !bandHasNoEffect)) verdict = 'confirmed';
  else verdict = 'inconclusive';
  // A client-bound side's requests/s is a lower bound: a bound on a raises r, on b lowers it.
  const clientBound = [a, b].filter((c) => c.resources?.clientBound).map((c) => c.label);
  const up = Boolean(a.resources?.clientBound);
  const down = Boolean(b.resources?.clientBound);
  if (up || down) {
    // The claimed range in requests/s-ratio space, and where it lies from our interval.
    const rr = ascending(ratioForValue(claim, lo), ratioForValue(claim, hi));
    const reachable = (up && rr[1] > iv[0]) || (down && rr[0] < iv[1]);
    const canLeave = (up && Number.isFinite(rr[1])) || (down && rr[0] > 0);
    if ((verdict === 'refuted' || verdict === 'inconclusive') && reachable) verdict = 'inconclusive (client-bound)';
    else if (verdict === 'confirmed' && canLeave) verdict = 'inconclusive (client-bound)';
  }
  const fmt = (v: number) => formatComparison(claim.compare, v);
  const note = `${fmt(ours)} (95% interval ${fmt(band[0])} … ${fmt(band[1])}, ${r.n} paired rounds) in run ${run.meta.runId}${
    clientBound.length ? `; client-bound (lower bound): ${clientBound.join(', ')}` : ''
  }`;
  return {
    ...base,
    runId: run.meta.runId,
    ours,
    band,
    ratio: r,
    verdict,
    trials,
    clientBound,
    note,
    command: null,
  };
}

/** The claims section as Markdown lines (heading, rule, table). */
export function renderClaims(results: ClaimResult[]): string[] {
  const out = [
    '## Source claims',
    '',
    `${claimsRule()} (data: \`harness/report/claims.json\`; sources: \`docs/sources.md\`)`,
    '',
    "| claim | source | source's figure | profile | ours (95% interval) | verdict |",
    '|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    const ours =
      r.ours === null || !r.band
        ? '–'
        : `${formatComparison(r.claim.compare, r.ours)} (${formatComparison(r.claim.compare, r.band[0])} … ${formatComparison(r.claim.compare, r.band[1])})${r.clientBound.length ? `, lower bound: ${r.clientBound.join(', ')}` : ''}, run ${r.runId}`;
    const verdict =
      r.verdict === 'not measured'
        ? `not measured: ${r.note}${r.command ? `; run \`${r.command}\`` : ''}`
        : `**${r.verdict}**`;
    out.push(
      `| ${r.claim.claim} (\`${r.claim.a}\` vs \`${r.claim.b}\`, ${r.claim.scenario}) | ${r.claim.source} | ${r.claim.sourceFigure} | ${r.profile} | ${ours} | ${verdict} |`,
    );
  }
  out.push('');
  return out;
}
