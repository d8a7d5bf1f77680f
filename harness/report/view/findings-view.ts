/**
 * The report's findings section inputs: every run's trial files keyed for the leak rule
 * (leak-findings.ts `trialKey`), and the sentence on the leak rule's reach (which measured cells it
 * could judge, and how to make it judge the others).
 */
import type { CellResult } from '../../store/results.ts';
import { RULES } from '../finding-rules.ts';
import { trialKey } from '../leak-findings.ts';
import type { ReportSnapshot } from '../snapshot.ts';

/**
 * The report's sentence on the leak rule's reach (leak-findings.ts `leakCoverage`), or null when it judged
 * every measured cell (analysis/leak.ts LEAK_RULE: leakMinRounds rounds on one server with enough
 * requests served, or a longWindowS window). Names the cells with rounds enough but too few requests, and why (at most 5).
 */
export function leakCheckText(cov: {
  checked: number;
  total: number;
  notJudged?: readonly { cell: string; why: string }[];
}): string | null {
  if (cov.total === 0 || cov.checked === cov.total) return null;
  // Too few rounds is the default profile's lot (counted in the sentence); thin evidence otherwise is named.
  const list = (cov.notJudged ?? []).filter((x) => !/measured rounds? on one server/.test(x.why));
  const named = list
    .slice(0, 5)
    .map((x) => `${x.cell}: ${x.why}`)
    .join('; ');
  const more = list.length > 5 ? `; and ${list.length - 5} more` : '';
  const which = named ? ` Not judged: ${named}${more}.` : '';
  const rule = [
    `It needs ${RULES.leakMinRounds} or more rounds on one server`,
    `with ${RULES.leakMinRequests.toLocaleString('en-US')} or more requests served across them, or a window of ${RULES.longWindowS} s or more;`,
    'the others had fewer (the default `quick` profile measures 2 solo rounds per server).',
    `To check a contender, run \`npx just bench <contender> --rounds ${RULES.leakMinRounds}\` or \`--profile stress\`.`,
  ].join(' ');
  return `Leaks: the leak rule judged ${cov.checked} of ${cov.total} measured cells.${which} ${rule}`;
}

/** Every run's trial files by `trialKey` (the leak rule's input); empty when the reader loaded none. */
export function trialsOf(snapshot: ReportSnapshot): Map<string, CellResult[]> {
  const m = new Map<string, CellResult[]>();
  for (const r of snapshot.runs)
    for (const t of r.trials ?? []) {
      const k = trialKey(t);
      m.set(k, [...(m.get(k) ?? []), t]);
    }
  return m;
}
