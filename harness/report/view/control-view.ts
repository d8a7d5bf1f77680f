/**
 * The how-sure line's A/A control part (analysis/control-check.ts): this run's controls — a second
 * process of each table's baseline, measured beside the others and never ranked — against their
 * baseline ("A/A control: node-http ÷ node-http 1.01× (95% CI 0.98–1.04), no false difference",
 * or "A/A controls: 0 of 11 differed from their baseline …" for several tables), then the count
 * over every run in the store on the same machine (core/machine.ts `sameMachine`: CPU, kernel,
 * cores) with its Wilson 95% interval ("over 4 runs on this machine: 2 of 40 controls differed,
 * 5.0% (95% CI 1.4–17%)"). A run without a control says
 * so ("no A/A control in this run").
 */
import { type ControlCheck, type ControlHistory, controlCheck } from '../../analysis/control-check.ts';
import type { RankedTable } from '../../analysis/tables.ts';
import { ciText, pctText } from '../resolution-text.ts';
import { estimateOf, fmtTimes } from './view-format.ts';

/** "node-http ÷ node-http 1.01× (95% CI 0.98–1.04)" of a judged control. */
function ratioText(x: ControlCheck): string {
  const e = estimateOf({ figure: x.ratio ?? 1, interval: x.ci, kind: 'ci95', n: 0 });
  return `${x.baseline} ÷ ${x.baseline} ${fmtTimes(e)}`;
}

/** "a false difference (faster)" or "no false difference". */
const outcome = (x: ControlCheck) => (x.differs ? `a false difference (${x.verdict})` : 'no false difference');

/** The count over runs: "over 4 runs on this machine: 2 of 40 controls differed, 5.0% (95% CI 1.4–17%, Wilson)"; '' when none was judged. */
export function historyText(h: ControlHistory | null): string {
  if (!h?.judged) return '';
  return `over ${h.runs} run${h.runs === 1 ? '' : 's'} on this machine: ${h.differed} of ${h.judged} control${h.judged === 1 ? '' : 's'} differed, ${pctText(h.rate)} (95% CI ${ciText(h.ci)}, Wilson; a run's controls share its hour, so it is too narrow when noise comes in runs)`;
}

/** This run's controls: one line for one, a count with the differing ones named for several. */
function runText(checks: ControlCheck[]): string {
  const judged = checks.filter((x) => x.verdict !== null);
  const unjudged = checks.filter((x) => x.verdict === null);
  const notJudged = unjudged.length
    ? `${unjudged.length} not judged (${unjudged.map((x) => `${x.scenario}: ${x.reason}`).join('; ')})`
    : '';
  const [one] = judged;
  if (one && checks.length === 1) return `A/A control: ${ratioText(one)}, ${outcome(one)}`;
  if (!judged.length) return `A/A control: ${notJudged}`;
  const ratios = judged.map((x) => x.ratio ?? 1);
  const span = `${Math.min(...ratios).toFixed(2)}×–${Math.max(...ratios).toFixed(2)}×`;
  const differed = judged.filter((x) => x.differs);
  const named = differed.map((x) => `${x.scenario} ${ratioText(x)}, ${x.verdict}`).join('; ');
  return [
    `A/A controls (a second process of each table's baseline, never ranked): ${differed.length} of ${judged.length} differed from their baseline (ratios ${span})${named ? `: ${named}` : ''}`,
    notJudged,
  ]
    .filter(Boolean)
    .join('; ');
}

/**
 * The control part of the how-sure line for `tables` (the overview's ranked tables) and the count
 * over runs `history` (null: not counted); "no A/A control in this run" (or "in these runs", when
 * the tables come from several) when no table has one, followed by the count when it has any.
 */
export function controlLine(tables: RankedTable[], history: ControlHistory | null): string {
  const checks = tables.map(controlCheck).filter((x): x is ControlCheck => x !== null);
  const runs = new Set(tables.map((t) => t.runId)).size;
  const head = checks.length ? runText(checks) : `no A/A control in ${runs > 1 ? 'these runs' : 'this run'}`;
  const over = historyText(history);
  return over ? `${head}; ${over}` : head;
}
