/**
 * The report's claims section (view.ts `ClaimView`): every source claim (claims.json) with our
 * figure, its interval, the verdict and a note on what it rests on, from claims.ts.
 */
import type { CellResult, RunMeta } from '../../store/results.ts';
import {
  claimsRule,
  describeRange,
  evaluateClaims,
  formatComparison,
  formatRange,
  headroomText,
  loadClaims,
  sharedText,
  sourceLoadText,
  sourceToolText,
  verdictText,
} from '../claims.ts';
import type { ClaimView } from '../view.ts';
import { fmtPct } from '../../core/format.ts';

/**
 * The sources' claims judged against the runs (claims.ts `evaluateClaims`), each as a row of the
 * claims table with its note, and the judging rule as printed.
 */
export function claimsOf(
  runs: { meta: RunMeta; cells: CellResult[] }[],
  scenarios: { name: string; baseline?: string }[],
): { claims: ClaimView[]; rule: string } {
  const results = evaluateClaims(loadClaims(), runs, { scenarios });
  const claims = results.map((r) => {
    const band = r.band ? ` (95% CI ${formatRange(r.claim.compare, r.band)})` : '';
    const bits = [
      r.verdict === 'not measured' || r.band === null ? r.note : '',
      r.runId && !r.note.includes(r.runId) ? `run ${r.runId}` : '',
      r.trials ? `${r.trials.a} and ${r.trials.b} trials` : '',
      r.clientBound.length ? `client-bound: ${r.clientBound.join(', ')} (lower bound)` : '',
      r.sourceTool ? sourceToolText(r.claim.compare, r.sourceTool) : '',
      r.verdict === 'not measured' ? '' : sourceLoadText(r.claim, r.clientBound.length === 0),
      r.mdd !== null
        ? `the table model's minimum detectable difference ±${fmtPct(r.mdd, 1)}${r.mddReference ? ` (against ${r.mddReference} as the reference row: no baseline row in the run)` : ''}`
        : '',
      sharedText(r),
      r.command ? `measure it: \`${r.command}\`` : '',
    ].filter(Boolean);
    return {
      id: r.claim.id,
      claim: r.claim.claim,
      source: r.claim.source,
      sourceFigure: r.claim.sourceFigure,
      range: describeRange(r.claim),
      a: r.claim.a,
      b: r.claim.b,
      scenario: r.claim.scenario,
      loadShape: r.profile,
      ours: r.ours === null ? '–' : `${formatComparison(r.claim.compare, r.ours)}${band}`,
      headroom: r.headroom ? headroomText(r.claim, r.headroom) : null,
      verdict: verdictText(r),
      provisional: r.provisional,
      rule: '',
      note: bits.join('; '),
    };
  });
  return { claims, rule: claimsRule() };
}
