/**
 * The claims' text outside the view model: the verdict as printed (with its provisional shape),
 * the note of claims judged from the same cells, the command that measures a claim, and the
 * claims section as Markdown lines (`renderClaims`: heading, rule, table).
 */
import { MIN_CI_TRIALS } from '../analysis/stats.ts';
import type { Claim, ClaimResult } from './claim-types.ts';
import { describeRange, formatComparison, formatRange } from './claim-units.ts';
import { headroomText, sourceToolText } from './claim-headroom.ts';
import { claimsRule } from './claim-verdict.ts';

/** The contender of a label ("nestjs-express-axios +interceptor" → "nestjs-express-axios"). */
export const contenderOf = (label: string) => (label.split(' +')[0] ?? label).replace(/ \(external\)$/, '');

/** The exact command that measures a claim in a profile. */
export function measureCommand(claim: Claim, profile: string): string {
  const names = [...new Set([contenderOf(claim.a), contenderOf(claim.b)])];
  return `just bench ${names.join(' ')} --scenario ${claim.scenario} --profile ${profile} --rounds ${MIN_CI_TRIALS}`;
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
    const load = r.verdict === 'not measured' ? '' : sourceLoadText(r.claim, r.clientBound.length === 0);
    const verdict =
      r.verdict === 'not measured'
        ? `not measured: ${r.note}${r.command ? `; run \`${r.command}\`` : ''}`
        : `**${verdictText(r)}**`;
    out.push(
      `| ${r.claim.claim} (\`${r.claim.a}\` vs \`${r.claim.b}\`, ${r.claim.scenario}) | ${r.claim.source} | ${r.claim.sourceFigure} | ${describeRange(r.claim)} | ${r.profile} | ${ours}${second}${load ? `<br>${load}` : ''} | ${verdict}${shared ? `; ${shared}` : ''} |`,
    );
  }
  out.push('');
  return out;
}

/**
 * The note on a source figure that may be client-bound (`Claim.sourceLoad`), or '' without one:
 * "the source's own figure may be client-bound (k6 at 1000 VUs on the servers' 2-core VM); ours is
 * server-bound" (`oursServerBound` false: without the last clause).
 */
export function sourceLoadText(claim: Claim, oursServerBound: boolean): string {
  if (!claim.sourceLoad) return '';
  return `the source's own figure may be client-bound (${claim.sourceLoad})${oursServerBound ? '; ours is server-bound' : ''}`;
}
