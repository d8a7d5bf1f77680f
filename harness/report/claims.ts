/**
 * Seed claims, reproduced: each claim of `seed-claims.json` (one data file, the single source)
 * is computed from our measured cells and given a verdict.
 *
 * Ours: the comparison (ratio a/b, increase a/b − 1, or reduction 1 − a/b) of the two labels'
 * requests/s or mean latency, in one profile × driver × Node major (the `quick` autocannon run
 * on the pinned Node by default).
 *
 * Noise (how "inside run-to-run noise" is judged, with one trial per cell): each cell's
 * per-second requests/s samples give a coefficient of variation (stddev/mean); the comparison's
 * noise band is max(5%, 2·√(cv_a² + cv_b²)), relative. Verdicts:
 * - confirmed: a and b differ by more than the band and ours lies within the seed's range
 *   widened by the band; or they are tied and the seed's range itself reaches "no difference";
 * - inconclusive: a and b differ by less than the band (we cannot tell them apart) and the
 *   seed claims a difference;
 * - refuted: a and b differ by more than the band and ours lies outside the widened range;
 * - not measured: a cell is missing (with the claim's `whenMissing` text when it has one).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { CellResult } from '../store/results.ts';
import { steadySamples } from '../analysis/stats.ts';

export interface Claim {
  id: string;
  seed: string;
  claim: string;
  seedFigure: string;
  scenario: string;
  metric: 'rps' | 'latency';
  compare: 'ratio' | 'increase' | 'reduction';
  a: string;
  b: string;
  expected: [number, number];
  whenMissing?: string;
}

export type Verdict = 'confirmed' | 'refuted' | 'inconclusive' | 'not measured';

export interface ClaimResult {
  claim: Claim;
  ours: number | null;
  /** The relative noise band used (e.g. 0.05 = 5%). */
  noise: number | null;
  verdict: Verdict;
  note: string;
}

export const CLAIMS_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'seed-claims.json');

/** The claims from the data file. */
export function loadClaims(file = CLAIMS_FILE): Claim[] {
  return JSON.parse(fs.readFileSync(file, 'utf8')).claims;
}

function cv(c: CellResult): number {
  const s = c.stats && c.stats.trials >= 3 ? c.stats.trialRps : steadySamples(c);
  if (s.length < 2) return 0;
  const mean = s.reduce((a, b) => a + b, 0) / s.length;
  const sd = Math.sqrt(s.reduce((a, b) => a + (b - mean) ** 2, 0) / (s.length - 1));
  return mean > 0 ? sd / mean : 0;
}

/** The comparison value for a/b of `metric`. */
export function compareValue(compare: Claim['compare'], a: number, b: number): number {
  const r = a / b;
  return compare === 'ratio' ? r : compare === 'increase' ? r - 1 : 1 - r;
}

/** Computes every claim from `cells` (latest results) in one profile × driver × Node major. */
export function evaluateClaims(
  claims: Claim[],
  cells: CellResult[],
  where = { profile: 'quick', driver: 'autocannon', nodeMajor: 24 },
): ClaimResult[] {
  // A compose-only contender (Hasura) can only be measured as an external target.
  const find = (label: string, scenario: string) =>
    cells.find(
      (c) =>
        (c.label === label || c.label === `${label} (external)`) &&
        c.scenario === scenario &&
        c.status === 'ok' &&
        c.profile === where.profile &&
        c.driver === where.driver &&
        c.node.major === where.nodeMajor,
    );
  return claims.map((claim) => {
    const a = find(claim.a, claim.scenario);
    const b = find(claim.b, claim.scenario);
    if (!a || !b) {
      const missing = [!a && claim.a, !b && claim.b].filter(Boolean).join(' and ');
      return {
        claim,
        ours: null,
        noise: null,
        verdict: 'not measured' as Verdict,
        note: claim.whenMissing ?? `no ${where.profile} result for ${missing} on ${claim.scenario}`,
      };
    }
    const va = claim.metric === 'rps' ? a.load!.requestsPerSec.mean : a.load!.latencyMs.mean;
    const vb = claim.metric === 'rps' ? b.load!.requestsPerSec.mean : b.load!.latencyMs.mean;
    const ours = compareValue(claim.compare, va, vb);
    const noise = Math.max(0.05, 2 * Math.sqrt(cv(a) ** 2 + cv(b) ** 2));
    const ratio = va / vb;
    const tied = Math.abs(ratio - 1) < noise;
    // Widen the range by the band, in the comparison's own units.
    const [lo, hi] = claim.expected;
    const width = claim.compare === 'ratio' ? noise * Math.max(1, Math.abs(lo)) : noise;
    const inRange = ours >= lo - width && ours <= hi + width;
    // A claim of "no or a small difference" (its range reaches no effect) can be confirmed by a tie;
    // any other claim cannot be judged when the two rows are within noise of each other.
    const rangeAllowsNoEffect = claim.compare === 'ratio' ? lo <= 1 : lo <= 0;
    let verdict: Verdict;
    if (tied) verdict = inRange && rangeAllowsNoEffect ? 'confirmed' : 'inconclusive';
    else verdict = inRange ? 'confirmed' : 'refuted';
    const bound = [a, b].filter((c) => c.resources?.clientBound).map((c) => c.label);
    const note =
      (tied
        ? `a and b within ±${(noise * 100).toFixed(0)}% of each other`
        : `noise band ±${(noise * 100).toFixed(0)}%`) +
      (bound.length ? `; client-bound: ${bound.join(', ')} is a lower bound` : '');
    return { claim, ours, noise, verdict, note };
  });
}

/** "3.62×", "+49%", "−60%" style rendering of a comparison value. */
export function formatComparison(compare: Claim['compare'], v: number): string {
  if (compare === 'ratio') return `${v.toFixed(2)}×`;
  const pct = v * 100;
  return compare === 'increase'
    ? `${pct >= 0 ? '+' : '−'}${Math.abs(pct).toFixed(1)}%`
    : `${pct >= 0 ? '' : '−'}${Math.abs(pct).toFixed(1)}% ${pct >= 0 ? 'lower' : 'higher'}`;
}

/** The `## Seed claims` section of LEADERBOARD.md. */
export function renderClaims(
  results: ClaimResult[],
  where = { profile: 'quick', driver: 'autocannon', nodeMajor: 24 },
): string[] {
  const out = [
    '## Seed claims',
    '',
    `Each seed's claim recomputed from this leaderboard's ${where.profile} · ${where.driver} · Node ${where.nodeMajor} cells (data: \`harness/report/seed-claims.json\`). ` +
      "Noise: each cell's per-second requests/s samples after the first second (or its trials, with ≥ 3) give a coefficient of variation; the band is max(5%, 2·√(cv_a² + cv_b²)). " +
      "Confirmed: the rows are clearly apart and ours lies in the seed's range widened by the band (or they are tied and the seed's range includes no difference). Inconclusive: the rows are within the band of each other while the seed claims a difference. Refuted: clearly apart and outside the range. " +
      'The seeds ran on other hardware, other load shapes and other versions: compare directions and rough sizes.',
    '',
    "| claim | seed | seed's figure | ours | verdict |",
    '|---|---|---|---|---|',
  ];
  for (const r of results) {
    const ours = r.ours === null ? '–' : `${formatComparison(r.claim.compare, r.ours)} (${r.note})`;
    const verdict =
      r.verdict === 'not measured' ? `not measured: ${r.note.replace(/^not measured here: /, '')}` : `**${r.verdict}**`;
    out.push(
      `| ${r.claim.claim} (\`${r.claim.a}\` vs \`${r.claim.b}\`, ${r.claim.scenario}) | ${r.claim.seed.slice(0, 3)} | ${r.claim.seedFigure} | ${ours} | ${verdict} |`,
    );
  }
  out.push('');
  return out;
}
