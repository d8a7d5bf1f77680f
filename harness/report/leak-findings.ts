/**
 * RSS growth as a finding (analysis/leak.ts: the long-window rule and the rule across the rounds
 * of one server), worded with its figures (MiB, MiB/s, KiB per 1,000 requests), and the leak
 * rule's reach: how many measured cells it could judge, and why not the others.
 */
import type { CellResult } from '../store/results.ts';
import { cellFailure } from '../analysis/stats.ts';
import { judgeLeak, judgeLongWindow, type LeakVerdict, leakRoundsOf } from '../analysis/leak.ts';
import { RULES } from './finding-rules.ts';

/** The key of a cell's trials in issues.ts FindOptions.trials: run id and cell id (cell ids repeat across runs). */
export function trialKey(c: Pick<CellResult, 'runId' | 'cellId'>): string {
  return `${c.runId}/${c.cellId}`;
}

/**
 * How many of `cells` the leak rule could judge: a healthy cell with a load and resources whose
 * window is long (≥ RULES.longWindowS), or whose rounds on one server in `trials` (keyed by
 * `trialKey`) give the rule enough evidence (analysis/leak.ts `judgeLeak`: 3 or more rounds and
 * enough requests served, or a leak found). The default `quick` profile measures 2 solo rounds per
 * server, so its cells are not judged: the report says so rather than let "no leak found" read as
 * "checked". `{ checked, total }`, counts of cells, and `notJudged`: each cell not judged with why.
 */
export function leakCoverage(
  cells: readonly CellResult[],
  trials: ReadonlyMap<string, readonly CellResult[]> = new Map(),
): { checked: number; total: number; notJudged: { cell: string; why: string }[] } {
  const judged = cells.filter((c) => !cellFailure(c) && c.load && c.resources && !(c.servicesLost ?? []).length);
  const notJudged: { cell: string; why: string }[] = [];
  for (const c of judged) {
    if ((c.load?.durationS ?? 0) >= RULES.longWindowS) continue;
    const v = leakAcrossRounds(trials.get(trialKey(c)) ?? []);
    if (v.kind === 'not-judged') notJudged.push({ cell: `\`${c.label}\` ${c.scenario} (${c.profile})`, why: v.why });
  }
  return { checked: judged.length - notJudged.length, total: judged.length, notJudged };
}

/**
 * RSS growth that persists: over a long window (≥ RULES.longWindowS; the second-half slope when
 * recorded, else the whole window's), or across the rounds of one server (`acrossRounds`). Growth
 * within one short window (pools and JIT filling, heap before GC settles) is not a finding. Null
 * when it does not persist.
 */
export function rssGrowth(
  c: CellResult,
  trials: readonly CellResult[] = [],
): { long: boolean; evidence: string } | null {
  const r = c.resources;
  const l = c.load;
  if (!r || !l) return null;
  const mib = (b: number) => (b / 2 ** 20).toFixed(1);
  const g = judgeLongWindow(r, l.durationS);
  if (g)
    return {
      long: true,
      evidence: `+${mib(g.slopeBytesPerS)} MiB/s over ${g.secondHalf ? 'the second half of ' : ''}a ${l.durationS.toFixed(0)} s window (avg ${mib(r.server.rssBytesAvg)} MiB, peak ${mib(r.server.rssBytesPeak)} MiB)`,
    };
  return acrossRounds(trials);
}

/**
 * The leak rule of the short profiles over one cell's trials (analysis/leak.ts `judgeLeak`: the
 * rounds on one server, in round order), as a finding's evidence, or null when it found no leak
 * or could not judge (leakCoverage says which cells it could not judge).
 */
function acrossRounds(trials: readonly CellResult[]): { long: boolean; evidence: string } | null {
  const v = leakAcrossRounds(trials);
  if (v.kind !== 'leak') return null;
  const first = v.rss[0] ?? 0;
  const perK = v.keptKiBPer1k !== null ? ` — about ${v.keptKiBPer1k.toFixed(0)} KiB per 1,000 requests served` : '';
  const mib = (b: number) => (b / 2 ** 20).toFixed(0);
  const rose = `RSS rose in every one of its ${v.rss.length} rounds on the same server: ${v.rss.map(mib).join(' → ')} MiB`;
  return {
    long: false,
    evidence: [
      `${rose} (+${Math.round((100 * v.riseBytes) / first)}%)${perK}; heap growth while warming up flattens, this does not.`,
      'Run the stress profile (60 s windows) or take a heap snapshot to confirm the leak',
    ].join(' '),
  };
}

/** The leak rule's verdict on one cell's trials (analysis/leak.ts `leakRoundsOf`, `judgeLeak`). */
function leakAcrossRounds(trials: readonly CellResult[]): LeakVerdict {
  return judgeLeak(leakRoundsOf(trials));
}
