/**
 * The report's answer, first in the terminal and on the page: one plain line per scenario of the
 * overview, hyperfine-style ("fastify ≈ hono, then express 1.20× slower, …; floor node-http
 * 1.10× faster"), one confidence line and, for a one-run report, one line on how its leaders
 * compare with the reference run's.
 *
 * Per scenario (its overview table): the stacks of the baseline's kind (REST frameworks beside
 * `node-http`, GraphQL stacks beside `postgraphile-express`; `isGraphqlStack`) are ranked among
 * themselves; the baseline is the raw floor, not a contender for first place; stacks of the other
 * kind are named apart by their own leaders. "≈" = not significantly slower than the leader (the
 * table model's pairwise test; without a model, overlapping rank ranges); "N× slower" = the
 * leader's ratio to the baseline ÷ the row's, in the headline measure (measure.ts).
 */
import type { RankedTable } from '../../analysis/tables.ts';
import { compare } from '../../analysis/table-model.ts';
import { measurementNotes } from '../measurement-notes.ts';
import type { TableView } from '../view.ts';
import type { ScenarioAnswerView } from './answer-types.ts';

export type { AnswerStep, AnswerView, ScenarioAnswerView } from './answer-types.ts';

const GRAPHQL = /graph(ql|ile)|mercurius|apollo|hasura/i;

/** True for a GraphQL server (its manifest's tags name a GraphQL framework or adapter), false for a REST framework. */
export function isGraphqlStack(tags: Record<string, string> | undefined): boolean {
  return Boolean(tags && [tags.framework, tags.adapter].some((x) => x && GRAPHQL.test(x)));
}

/** A scenario title without its bracket and, for a GraphQL scenario, without its "GraphQL: " lead. */
export function shortTitle(name: string, title: string): string {
  const t = title.replace(/\s*\(.*$/, '').trim();
  return name.startsWith('graphql') ? t.replace(/^GraphQL:\s*/, '') : t;
}

/** "1.04×", "1.2×", "12×": two decimals under 1.1 (so a resolved small gap never reads "1.0×"), one under 10, else whole. */
export function timesText(x: number): string {
  return x < 1.1 ? `${x.toFixed(2)}×` : x < 10 ? `${x.toFixed(1)}×` : `${Math.round(x)}×`;
}

interface Rankable {
  label: string;
  ratio: number;
  graphql: boolean;
  best: number;
  worst: number;
}

/** Whether `b` is not significantly slower than `a`: the table model's test, else overlapping rank ranges. */
function tiedWith(t: RankedTable | undefined, a: Rankable, b: Rankable): boolean {
  const fit = t?.fit;
  if (fit?.rows.some((r) => r.name === a.label) && fit.rows.some((r) => r.name === b.label))
    return compare(fit, a.label, b.label).verdict !== 'faster';
  return b.best <= a.worst;
}

/** The leaders (tied with the first) and the rest of `rows` (fastest first). */
function split(t: RankedTable | undefined, rows: Rankable[]): { leaders: Rankable[]; rest: Rankable[] } {
  const [top] = rows;
  if (!top) return { leaders: [], rest: [] };
  const leaders = rows.filter((r) => r === top || tiedWith(t, top, r));
  return { leaders, rest: rows.filter((r) => !leaders.includes(r)) };
}

/** The line after the title: the leaders, the next (all when three or fewer) and the slowest, the floor, the other kind. */
function answerText(a: Omit<ScenarioAnswerView, 'text'>, markQuiet = true): string {
  if (!a.leaders.length) {
    const more = a.unranked.length > 3 ? `, +${a.unranked.length - 3} more` : '';
    const named = `${a.unranked.slice(0, 3).join(', ')}${more}`;
    return `nobody ranked (see its table)${a.unranked.length ? `: ${named} (a lower bound or too few trials)` : ''}`;
  }
  const shown = a.rest.length > 3 ? [a.rest[0], null, a.rest.at(-1)] : a.rest;
  const steps = shown.map((s, i) => (s ? `${s.label} ${timesText(s.times)}${i === 0 ? ' slower' : ''}` : '…'));
  const floor = a.floor
    ? `; floor ${a.floor.label} ${a.floor.tied ? '≈' : a.floor.times >= 1 ? `${timesText(a.floor.times)} faster` : `${timesText(1 / a.floor.times)} slower`}`
    : '';
  const apart = a.apart ? `; ${a.apart.kind}: ${a.apart.leaders.join(' ≈ ')} first` : '';
  const quiet = markQuiet && a.notQuiet.length ? ' (measured beside other work)' : '';
  const more = a.unranked.length > 3 ? `, +${a.unranked.length - 3} more` : '';
  const unranked = a.unranked.length
    ? `; not ranked (lower bounds or few trials): ${a.unranked.slice(0, 3).join(', ')}${more}`
    : '';
  return `${tiedText(a.leaders)}${steps.length ? `, then ${steps.join(', ').replace(', …,', ' …')}` : ''}${floor}${apart}${unranked}${quiet}`;
}

/** Tied names joined by "≈", at most three, then "≈ N more" (a line per scenario must stay short). */
function tiedText(names: readonly string[]): string {
  return names.length > 3 ? `${names.slice(0, 3).join(' ≈ ')} ≈ ${names.length - 3} more` : names.join(' ≈ ');
}

/**
 * The scenario answers as shown: when every table was measured beside other work, the confidence
 * line says so once ("all N tables …") and no line repeats it.
 */
export function markedAnswers(answers: ScenarioAnswerView[]): ScenarioAnswerView[] {
  const all = answers.length > 1 && answers.every((a) => a.notQuiet.length);
  return all ? answers.map((a) => ({ ...a, text: answerText(a, false) })) : answers;
}

/** One scenario's answer from its overview table `v` and the ranked table behind it `t`. */
export function scenarioAnswer(v: TableView, t: RankedTable | undefined, title: string): ScenarioAnswerView {
  const tags = new Map(t?.rows.map((r) => [r.label, r.cell.tags]) ?? []);
  const rows: Rankable[] = v.rows
    .filter((r) => !r.otherRun && r.rank !== null && (r.ratio || r.isBaseline))
    .map((r) => {
      const [best, worst] = r.rankText.split('–').map(Number);
      return {
        label: r.label,
        ratio: r.isBaseline ? 1 : (r.ratio?.figure ?? 0),
        graphql: isGraphqlStack(tags.get(r.label)),
        best: best ?? r.rank ?? 1,
        worst: worst ?? best ?? r.rank ?? 1,
      };
    })
    .sort((a, b) => b.ratio - a.ratio);
  const base = rows.find((r) => r.label === v.baseline) ?? null;
  const kindGraphql = base ? base.graphql : isGraphqlStack(tags.get(v.baseline));
  const own = split(
    t,
    rows.filter((r) => r !== base && r.graphql === kindGraphql),
  );
  const other = split(
    t,
    rows.filter((r) => r !== base && r.graphql !== kindGraphql),
  );
  const lead = own.leaders[0];
  const a = {
    scenario: v.scenario,
    title: shortTitle(v.scenario, title),
    tableId: v.id,
    baseline: v.baseline,
    leaders: own.leaders.map((r) => r.label),
    rest: lead ? own.rest.map((r) => ({ label: r.label, times: lead.ratio / r.ratio })) : [],
    floor:
      base && lead
        ? {
            label: base.label,
            times: base.ratio / lead.ratio,
            tied: tiedWith(t, lead, base) && tiedWith(t, base, lead),
          }
        : null,
    apart: other.leaders.length
      ? { kind: kindGraphql ? 'REST frameworks' : 'GraphQL stacks', leaders: other.leaders.map((r) => r.label) }
      : null,
    unranked: v.rows
      .filter((r) => !r.otherRun && !r.failed && r.rank === null && r.rps)
      .map((r) => (r.clientBound ? `${r.label} (client-bound)` : r.label)),
    notQuiet: t ? (measurementNotes(t).find((n) => n.kind === 'not-quiet')?.labels ?? []) : [],
  };
  return { ...a, text: answerText(a) };
}

/** What the confidence line is made of (each part already short). */
export interface ConfidenceParts {
  /** The overview's median minimum detectable difference between two rows (0.14 = 14%), null without models. */
  medianMdd: number | null;
  /** The overview's scenario answers (their `notQuiet`). */
  answers: ScenarioAnswerView[];
  /** "12 of 14 rows within ±10%; beyond both intervals: …" (`accuracyShort`), null without a reference record. */
  accuracy: string | null;
  /** "4.0% false differences, another machine, 2 days old", or "not run". */
  selftest: string;
}

/** "Resolution: differences under 14% not resolved · 2 of 11 tables measured beside other work (figures may be biased) · …". */
export function confidenceLine(p: ConfidenceParts): string {
  const n = p.answers.length;
  const busy = p.answers.filter((a) => a.notQuiet.length).length;
  const pct = (x: number) => `${(100 * x).toFixed(x < 0.1 ? 1 : 0)}%`;
  return [
    p.medianMdd !== null
      ? `Resolution: differences under ${pct(p.medianMdd)} not resolved`
      : 'Resolution: no table model',
    busy
      ? `${busy === n && n > 1 ? `all ${n}` : `${busy} of ${n}`} tables measured beside other work (figures may be biased)`
      : `none of ${n} tables measured beside other work`,
    `accuracy vs steady state: ${p.accuracy ?? 'no reference record (`npx just reference`)'}`,
    `self-test: ${p.selftest}`,
  ].join(' · ');
}

/**
 * The accuracy line (analysis/reference-floor.ts `accuracyLine`) in short: without its lead,
 * the reference's id and the bracket on the number of bake-offs.
 */
export function accuracyShort(line: string): string {
  return line
    .replace(/^accuracy:\s*/, '')
    .replace(/ of the steady-state reference `[^`]*`( \+ `[^`]*`)*/, '')
    .replace(/\s*\((one bake-off|mean of)[^)]*\)\s*$/, '');
}

/**
 * "Winners agree with the reference run in 9 of 11 scenarios; differences: echo fastify here,
 * hono there": agreement = the two leader sets share a stack; over the scenarios both have.
 */
export function referenceLine(yours: ScenarioAnswerView[], theirs: Record<string, string[]>): string | null {
  const both = yours.filter((a) => a.leaders.length && theirs[a.scenario]?.length);
  if (!both.length) return null;
  const differ = both.filter((a) => !a.leaders.some((l) => theirs[a.scenario]?.includes(l)));
  const diff = differ.map(
    (a) => `${a.scenario} ${a.leaders.join(' ≈ ')} here, ${theirs[a.scenario]?.join(' ≈ ')} there`,
  );
  return `Winners agree with the reference run in ${both.length - differ.length} of ${both.length} scenarios${diff.length ? `; differences: ${diff.join('; ')}` : ''}.`;
}
