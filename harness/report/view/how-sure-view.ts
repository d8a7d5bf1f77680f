/**
 * The report's "How sure" line: the self-test's certificate (resolution-text.ts), the run's A/A
 * control and its count over runs (control-view.ts), the accuracy
 * against the steady-state reference (analysis/reference-floor.ts), the tables' median minimum detectable
 * difference, the trials and rounds behind the figures, the noisy tables, the lower bounds and the
 * driver fidelity, joined into one sentence. Percentages are of ratios (0.074 → 7.4%).
 */
import {
  accuracyDetails,
  accuracyLine,
  leftOutText,
  noBiasReading,
  recordsLabel,
} from '../../analysis/reference-floor.ts';
import { bakeoffRatiosOf, compareWithReference } from '../../analysis/reference-gaps.ts';
import { mergeReferences, poolText, recordIds } from '../../analysis/reference-merge.ts';
import { type MachineFacts, machineKey, machineName, sameMachine } from '../../core/machine.ts';
import type { RankedTable } from '../../analysis/tables.ts';
import type { ReferenceRecord } from '../../store/reference-store.ts';
import type { FidelityView, TableView } from '../view.ts';
import { fidelityClause } from './runs-view.ts';

/**
 * The median minimum detectable difference between two rows over the overview's tables (one
 * profile, each scenario's primary table) when they have models, else over every table, so a
 * report that also holds claims, matrix or capacity runs still states the bake-off's resolution.
 * `med` is a ratio − 1 (0.074 = 7.4%), null without a table model.
 */
export function medianMddOf(
  tables: TableView[],
  overview: TableView[],
): { mddTables: TableView[]; mdds: number[]; med: number | null } {
  const mddTables = overview.some((t) => t.mddPair !== null) ? overview : tables;
  const mdds = mddTables
    .map((t) => t.mddPair)
    .filter((x): x is number => x !== null && Number.isFinite(x))
    .sort((a, b) => a - b);
  const med = mdds.length ? (mdds[(mdds.length - 1) >> 1] ?? 0) / 2 + (mdds[mdds.length >> 1] ?? 0) / 2 : null;
  return { mddTables, mdds, med };
}

/**
 * A one-line answer to "how sure are these numbers?": this machine's self-test (when the snapshot
 * says, resolution-text.ts), the A/A control of these tables' run (`control`, control-view.ts),
 * the accuracy against the reference (`reference`), then these tables' median minimum detectable difference, trials,
 * intervals, how many of the same tables have noisy rows (once per table, not per cell: the
 * overview's tables when they have models, as for the MDD), client-bound cells
 * and the driver fidelity of the overview's run (else of the newest run that has one).
 */
export function certaintyOf(
  tables: TableView[],
  overview: TableView[],
  fidelity: FidelityView[],
  selftest: string | null,
  reference: string | null = null,
  control: string | null = null,
): string {
  const rows = tables.flatMap((t) => t.rows.filter((r) => !r.otherRun && !r.failed && r.rps));
  if (!rows.length) return selftest ? `No measured cell yet · ${selftest}.` : 'No measured cell yet.';
  const trials = rows.map((r) => r.trials);
  const hi = Math.max(...trials);
  const ci = rows.filter((r) => r.rps?.kind === 'ci95').length;
  const paired = rows.map((r) => r.paired).filter((n) => n > 0);
  const span = (xs: number[]) => {
    const a = Math.min(...xs);
    const b = Math.max(...xs);
    return a === b ? `${a}` : `${a}–${b}`;
  };
  const isMeasured = (t: TableView) => t.rows.some((r) => !r.otherRun && !r.failed && r.rps);
  const bound = rows.filter((r) => r.clientBound && !r.capacity).length;
  const capRows = rows.filter((r) => r.capacity);
  const capBound = capRows.filter((r) => r.capacity?.verdict === 'at-least').length;
  const { mddTables, mdds, med } = medianMddOf(tables, overview);
  const ofOverview = mddTables === overview && overview.length < tables.length;
  // The noisy count over the same tables as the median MDD (the overview's, when it has models).
  const measured = mddTables.filter(isMeasured);
  const noisy = measured.filter((t) => t.rows.some((r) => !r.otherRun && r.noisy)).length;
  const parts = [
    ...(selftest ? [selftest] : []),
    ...(control ? [control] : []),
    ...(reference ? [reference] : []),
    ...(med !== null
      ? [
          `${selftest ? 'these tables: ' : ''}median minimum detectable difference ${(100 * med).toFixed(med < 0.1 ? 1 : 0)}% between two rows (90% power; ${mdds.length} table${mdds.length === 1 ? '' : 's'}${ofOverview ? ' of the overview' : ''})`,
        ]
      : []),
    ...(paired.length
      ? [
          `ranks and ratios from ${span(paired)} interleaved round${Math.max(...paired) === 1 ? '' : 's'} per cell (requests per CPU-second, beside the table's other servers); requests/s and latency from ${span(trials)} solo window${hi === 1 ? '' : 's'}`,
        ]
      : [`${span(trials)} trial${hi === 1 ? '' : 's'} per cell; ${ci} of ${rows.length} cells have a 95% CI`]),
    `${noisy} of ${measured.length} table${measured.length === 1 ? '' : 's'}${ofOverview ? ' of the overview' : ''} noisy (see their notes)`,
    `${bound} client-bound closed-loop (lower bounds)`,
    ...(capRows.length ? [`${capBound} of ${capRows.length} capacity cells “≥” (lower bounds)`] : []),
    // The overview's run's fidelity (the run these tables come from), else the newest run's.
    fidelityClause(fidelity.find((f) => overview.some((t) => f.runId === t.runId)) ?? fidelity.at(-1)),
  ];
  return `${parts.join(' · ')}.`;
}

/**
 * The how-sure line's second certificate: the bake-off's ratios to their baselines in `tables`
 * (the overview's ranked tables) against the steady-state reference, the records `refs` read
 * together (analysis/reference-merge.ts `mergeReferences`: records of one shape pooled block by
 * block when they agree, each ratio from the source with the most blocks or processes behind it; analysis/reference-gaps.ts `compareWithReference`, the bias test and floor
 * of analysis/reference-floor.ts). Only the records of the tables' machine are read (core/machine.ts
 * `sameMachine`: CPU name and identity, kernel, cores), since a ratio to node-http changes between
 * machines by more than the bias the check looks for (docs/measurements.md). `line`: one
 * conclusion, e.g. "accuracy: 13 of 14 rows within ±10% of the steady-state reference `ID`;
 * beyond both intervals: loopback4 json −13.0% (one bake-off; …)", the records' ids joined by
 * " + ", or "accuracy: no steady-state reference of this machine …" when every record ran
 * elsewhere; `details`: its arithmetic for the report's method. Null without a record or a shared row.
 */
export function referenceAccuracy(
  all: readonly ReferenceRecord[],
  tables: RankedTable[],
): { line: string; details: string } | null {
  if (!all.length || !tables.length) return null;
  // Each table against the records of its own run's machine (an overview may hold tables of several runs).
  const byMachine = new Map<string, { machine: MachineFacts; tables: RankedTable[] }>();
  for (const t of tables) {
    const g = byMachine.get(machineKey(t.key.machine)) ?? { machine: t.key.machine, tables: [] };
    g.tables.push(t);
    byMachine.set(machineKey(t.key.machine), g);
  }
  const merges = [...byMachine.values()].flatMap((g) => {
    const refs = all.filter((r) => r.machine !== undefined && sameMachine(r.machine, g.machine));
    if (!refs.length) return [];
    const scenarios = new Set(g.tables.map((t) => t.key.scenario));
    const m = mergeReferences(refs);
    return [{ ...m, tables: g.tables, ratios: m.ratios.filter((r) => scenarios.has(r.scenario)) }];
  });
  if (!merges.length)
    return noReferenceHere(
      all,
      [...byMachine.values()].map((g) => g.machine),
    );
  const c = compareWithReference(
    bakeoffRatiosOf(merges.flatMap((m) => m.tables)),
    merges.flatMap((m) => m.ratios),
  );
  if (!c.rows.length) return null;
  const used = new Set(c.rows.flatMap((r) => recordIds(r.record)));
  const ids = [...new Set(merges.flatMap((m) => m.ids))].filter((x) => used.has(x)).sort();
  const id = recordsLabel(ids);
  const reading = noBiasReading(c);
  const left = merges
    .flatMap((m) => Object.entries(m.leftOut))
    .filter(([x]) => used.has(x))
    .map(([x, n]) => ` ${leftOutText(x, n)}`)
    .join('');
  const pools = merges
    .flatMap((m) => m.pools)
    .filter((p) => p.records.some((x) => used.has(x)))
    .map((p) => ` ${poolText(p)}`)
    .join('');
  return { line: accuracyLine(c, reading, id), details: `${accuracyDetails(c, reading, id)}${left}${pools}` };
}

/** The command that records a reference of this machine for the how-sure line's rows (README "Commands"). */
export const REFERENCE_HINT = '`npx just reference node-http express fastify loopback4 --scenario json,users`';

/**
 * The accuracy part when no record in `all` ran on any of `machines` (the tables'): says so and how to record one, and
 * names the machines the records ran on (details), instead of reading another machine's ratios.
 */
function noReferenceHere(all: readonly ReferenceRecord[], machines: MachineFacts[]): { line: string; details: string } {
  const elsewhere = new Map<string, { name: string; n: number }>();
  for (const r of all) {
    const k = r.machine ? machineKey(r.machine) : '';
    const had = elsewhere.get(k);
    elsewhere.set(k, {
      name: r.machine ? machineName(r.machine) : 'a machine it does not record',
      n: (had?.n ?? 0) + 1,
    });
  }
  const list = [...elsewhere.values()].map((e) => `${e.n} on ${e.name}`).join('; ');
  return {
    line: `accuracy: no steady-state reference of this machine yet (${REFERENCE_HINT} records one)`,
    details: `Accuracy: the ${all.length} steady-state reference record${all.length === 1 ? '' : 's'} in results/reference ran on other machines (${list}); these tables ran on ${machines.map(machineName).join(' and ')}. A record is read only on its own machine (same CPU name and identity, kernel and cores), since a ratio to the baseline changes between machines by more than the bias the check looks for.`,
  };
}
