/**
 * The shapes of the report's answer section (answer-view.ts builds them; view.ts `ReportView.answer`
 * holds one): one plain line per scenario, the confidence line and the reference line.
 */

/** One stack after the leaders: its label and how many times slower than the leader it is (≥ 1). */
export interface AnswerStep {
  label: string;
  times: number;
}

/** One scenario's answer. Ratios are in the headline measure (requests per CPU-second or requests/s). */
export interface ScenarioAnswerView {
  scenario: string;
  /** The scenario's plain title, short (scenarios/*.json `title`, its bracket left out). */
  title: string;
  /** Anchor of its table in the page. */
  tableId: string;
  baseline: string;
  /** The stacks tied for first among the stacks of the baseline's kind (leader first); empty: nobody ranked. */
  leaders: string[];
  /** The other stacks of that kind, fastest first. */
  rest: AnswerStep[];
  /** The baseline against the leader: `times` > 1 faster, < 1 slower; `tied` when not resolved. Null when not ranked. */
  floor: { label: string; times: number; tied: boolean } | null;
  /** Stacks of the other kind (GraphQL servers in a REST scenario), by their own leaders; null when none. */
  apart: { kind: string; leaders: string[] } | null;
  /**
   * Rows of its table measured and not failed but not ranked (a lower bound at the driver's limit,
   * too few trials): named so that a ranking without them is not read as the whole answer.
   */
  unranked: string[];
  /** Rows of its table measured beside other work (analysis/quiet.ts): its figures may be biased. */
  notQuiet: string[];
  /** The line after "scenario (title): ". */
  text: string;
}

/** The answer section of a view. */
export interface AnswerView {
  /** The profile of the overview's tables. */
  profile: string | null;
  /** The measure the lines rank by (measure.ts: `HEADLINE_MEASURE`, or solo requests/s for tables without interleaved rounds). */
  measure: string;
  scenarios: ScenarioAnswerView[];
  /** The one confidence line ("Resolution: differences under 14% not resolved · …"). */
  confidence: string;
  /** "Winners agree with the reference run in 9 of 11 scenarios; differences: …"; null without a reference run. */
  reference: string | null;
}
