/**
 * The A/A control's verdict (aa-control.ts): in a table whose run measured one, the control (a
 * second process of the baseline) against the baseline, by the test the table's ranks use — the
 * table model (tables.ts `tableModel`: the two-way model of interleaved rounds, else the solo
 * rounds' ratios) fitted over the table's ranked rows plus the control, then table-model.ts
 * `compare` (95% t interval, per comparison as the ranks). The two servers are the same build, so
 * the true ratio is 1: a 'faster' or 'slower' verdict is a false difference of this machine in that
 * run. The table's own model, ranks and figures leave the control out (tables.ts); this second fit
 * exists only for the control's line.
 *
 * `controlHistory` counts the judged controls of many runs on one machine (core/machine.ts
 * `sameMachine`: CPU, kernel and cores): k of n differed, the
 * share with its Wilson 95% interval (stats.ts `wilsonInterval`). The controls of one run share
 * its hour on the machine, so the interval, which treats them as independent, is too narrow when
 * the noise comes in runs.
 */
import type { CellResult } from '../store/results.ts';
import { plural } from '../core/format.ts';
import { type MachineFacts, sameMachine } from '../core/machine.ts';
import { cellFailure, MIN_CI_TRIALS, wilsonInterval, cellTrialCount } from './stats.ts';
import { compare, type Verdict } from './table-model.ts';
import { buildTables, pairedRounds, type RankedTable, type RunSnapshot, tableModel, type TableRow } from './tables.ts';

/** A table's A/A control against its baseline. Ratios are control ÷ baseline. */
export interface ControlCheck {
  /** The control's label ("node-http (A/A control)") and the table's baseline ("node-http"). */
  label: string;
  baseline: string;
  runId: string;
  scenario: string;
  profile: string;
  /** The table's machine (its run's CPU, kernel and cores). */
  machine: MachineFacts;
  /** The model's ratio, its 95% interval and verdict; null when the control could not be judged (`reason`). */
  ratio: number | null;
  ci: [number, number] | null;
  verdict: Verdict | null;
  /** True when the verdict is 'faster' or 'slower': a difference between two identical servers. */
  differs: boolean;
  /** Why there is no verdict ("failed: …", "3 rounds (fewer than 5)", "the baseline is not ranked"); null with one. */
  reason: string | null;
}

/** The control's rounds behind the model: interleaved rounds, else solo trials. */
const unitsOf = (c: CellResult) => pairedRounds(c) || cellTrialCount(c);

/**
 * The A/A control of table `t` (its `controlCell`) against the table's baseline row, as the module
 * docstring says; null when the table has no control cell. A control that failed, has fewer than 5
 * rounds, or whose table has no ranked baseline row or no model, gets `reason` and no verdict.
 */
export function controlCheck(t: RankedTable): ControlCheck | null {
  const c = t.controlCell;
  if (!c) return null;
  const head = {
    label: c.label,
    baseline: t.baseline,
    runId: t.runId,
    scenario: t.key.scenario,
    profile: t.key.profile,
    machine: t.key.machine,
  };
  const none = (reason: string): ControlCheck => ({
    ...head,
    ratio: null,
    ci: null,
    verdict: null,
    differs: false,
    reason,
  });
  const failed = cellFailure(c);
  if (failed) return none(`failed: ${failed}`);
  if (unitsOf(c) < MIN_CI_TRIALS) return none(`${plural(unitsOf(c), 'round')} (fewer than ${MIN_CI_TRIALS})`);
  const rankable = t.rows.filter((r) => r.status === 'ranked');
  const base = rankable.find((r) => r.label === t.baseline);
  if (!base) return none('the baseline is not ranked');
  // The control as one more row of the model (tableModel reads a row's label and cell only).
  const row: TableRow = { ...base, cell: c, label: c.label, isBaseline: false, rank: null, rankRange: null };
  const model = tableModel([...rankable, row], t.baseline);
  if (!model?.fit.rows.some((r) => r.name === c.label)) return none('no table model with the control');
  const k = compare(model.fit, c.label, t.baseline);
  const differs = k.verdict === 'faster' || k.verdict === 'slower';
  return { ...head, ratio: k.ratio, ci: k.ci, verdict: k.verdict, differs, reason: null };
}

/** The judged A/A controls of many runs on one machine: `differed` of `judged`, their share and its Wilson 95% interval. */
export interface ControlHistory {
  machine: MachineFacts;
  /** Runs with at least one judged control. */
  runs: number;
  judged: number;
  differed: number;
  /** differed ÷ judged (0 when none judged). */
  rate: number;
  ci: [number, number];
}

/**
 * The controls of `runs` (each run's tables, analysis/tables.ts `buildTables` with `runId`) on
 * `machine` (core/machine.ts `sameMachine`), counted: the judged ones (a verdict) and those that differed. `scenarios` gives each
 * scenario's baseline (as buildTables). Zero counts and the interval [0, 1] when none was judged.
 */
export function controlHistory(
  runs: readonly RunSnapshot[],
  machine: MachineFacts,
  scenarios: { name: string; baseline?: string }[] = [],
): ControlHistory {
  const checks = runs.flatMap((run) =>
    buildTables([run], { runId: run.meta.runId, scenarios })
      .map(controlCheck)
      .filter((x): x is ControlCheck => x !== null && x.verdict !== null && sameMachine(x.machine, machine)),
  );
  const judged = checks.length;
  const differed = checks.filter((x) => x.differs).length;
  return {
    machine,
    runs: new Set(checks.map((x) => x.runId)).size,
    judged,
    differed,
    rate: judged ? differed / judged : 0,
    ci: wilsonInterval(differed, judged),
  };
}
