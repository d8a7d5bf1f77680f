/**
 * The measurement notes of a table (`measurementNotes`): conditions of the measurement, not
 * contender problems, said once per table with their numbers: client-bound rows, noisy rows, few
 * trials, rows from other runs, a missing baseline, lost services, failures only while paused,
 * capacities that are lower bounds, long closed-loop tails at saturation, estimators that
 * disagree, cells measured beside other work (analysis/quiet.ts), and the same group measured on
 * other machines.
 */
import { DRIVER_BUSY_PCT, SERVER_BUSY_PCT } from '../lifecycle/sampler.ts';
import { pairedRounds, type RankedTable } from '../analysis/tables.ts';
import { FOREIGN_CPU_LIMIT, plausibleQuiet } from '../analysis/quiet.ts';
import { fmtInt, fmtMs, fmtPct, sig } from '../core/format.ts';
import { pct, RULES } from './finding-rules.ts';
import { peerTail, tailShape } from './tail-findings.ts';

/** A measurement condition of a table: not a contender problem; said once per table. */
export interface MeasurementNote {
  kind:
    | 'client-bound'
    | 'noisy'
    | 'few-trials'
    | 'other-runs'
    | 'other-machines'
    | 'no-baseline'
    | 'services-lost'
    | 'paused-failures'
    | 'capacity-lower-bound'
    | 'closed-loop-tail'
    | 'estimators-disagree'
    | 'not-quiet';
  /** Rows it concerns (labels); empty for table-wide notes. */
  labels: string[];
  /** Numbers behind it (e.g. driver CPU %, spread), one short clause. */
  detail: string;
}

/**
 * A long tail at saturation in a closed-loop table (p99 over RULES.tailRatio × p50 and ≥
 * RULES.tailMinP99Ms) that is not far worse than its peers': a measurement note (coordinated
 * omission), never a finding; the capacity profile measures the tail open loop.
 */
function closedLoopTailNote(table: RankedTable): MeasurementNote | null {
  const cells = table.rows.filter((r) => r.status !== 'failed').map((r) => r.cell);
  const long = table.rows.flatMap((r) => {
    const t = tailShape(r.cell);
    const mine = r.status !== 'failed' && peerTail(r.cell, cells) !== null; // a finding, not a note
    return t && !mine && t.p99 >= RULES.tailMinP99Ms && t.shape > RULES.tailRatio ? [{ label: r.label, ...t }] : [];
  });
  if (!long.length) return null;
  return {
    kind: 'closed-loop-tail',
    labels: long.map((x) => x.label),
    detail: [
      `p99 over ${RULES.tailRatio}× p50 under closed-loop load at saturation:`,
      `${long.map((x) => `${x.label} ${fmtMs(sig(x.p99))} ms (${x.shape.toFixed(0)}×)`).join(', ')};`,
      "every connection waits in the server's queue (coordinated omission), so this is the load, not a defect:",
      '`npx just capacity` measures the tail open loop',
    ].join(' '),
  };
}

/** Why one row is client-bound: the driver's CPU, or the server's idle CPU in a closed-loop window. */
function clientBoundDetail(r: RankedTable['rows'][number]): string {
  const res = r.cell.resources;
  if (!res) return r.label;
  const pct = (x: number) => `${x.toFixed(0)}%`;
  return res.clientBoundBy === 'server-idle'
    ? `${r.label}: the server used ${pct(res.server.cpuPctAvg)} of its core (below ${SERVER_BUSY_PCT}%) while the driver kept every connection busy (driver ${pct(res.client.cpuPctAvg)})`
    : `${r.label}: the load driver used ${pct(res.client.cpuPctAvg)} of its core (≥ ${DRIVER_BUSY_PCT}%)`;
}

/** Rows measured beside other work (analysis/quiet.ts, impossible readings left out), as a note; null when none. */
function notQuietNote(table: RankedTable): MeasurementNote | null {
  const quietOf = (r: RankedTable['rows'][number]) =>
    r.cell.quiet ? plausibleQuiet(r.cell.quiet, table.key.machine.cores) : null;
  const busy = table.rows.filter((r) => (quietOf(r)?.disturbed ?? 0) > 0);
  if (!busy.length) return null;
  return {
    kind: 'not-quiet',
    labels: busy.map((r) => r.label),
    detail: [
      `measured beside other work: processes outside the harness used more than ${pct(FOREIGN_CPU_LIMIT)} of a core in some of their windows,`,
      "which can bias a fast server's figure, not only widen its interval (docs/decisions/0012):",
      busy
        .map((r) => {
          const q = quietOf(r);
          const most = q?.maxShare !== null && q?.maxShare !== undefined ? `, up to ${pct(q.maxShare)}` : '';
          return q ? `${r.label} ${q.disturbed} of ${q.read} windows${most}` : r.label;
        })
        .join(', '),
    ].join(' '),
  };
}

/**
 * The measurement notes of one table: client-bound rows (their figure is a lower bound), noisy
 * rows (trials > 10% apart), rows with fewer than 5 trials (not ranked), rows from other runs,
 * a missing baseline, lost services, capacities that are lower bounds (verdict at-least: the
 * open-loop driver reached its limit), rows whose solo requests/s ratio and interleaved ratio to
 * the baseline disagree beyond their 95% intervals (tables.ts RowFlags.estimatorGap), and — given
 * every table — the same group measured on other machines (shown in their own tables).
 */
export function measurementNotes(table: RankedTable, allTables: RankedTable[] = []): MeasurementNote[] {
  const notes: MeasurementNote[] = [];
  const bound = table.rows.filter((r) => r.flags.clientBound);
  if (bound.length)
    notes.push({
      kind: 'client-bound',
      labels: bound.map((r) => r.label),
      detail: `${bound.map(clientBoundDetail).join('; ')}; their figures are lower bounds`,
    });
  const atLeast = table.rows.filter((r) => r.cell.capacity?.verdict === 'at-least');
  if (atLeast.length) {
    const drivers = [...new Set(atLeast.flatMap((r) => (r.cell.capacity ? [r.cell.capacity.driver] : [])))].join('/');
    notes.push({
      kind: 'capacity-lower-bound',
      labels: atLeast.map((r) => r.label),
      // A cell is "≥" only when no search bracketed its capacity (runs without `bracketed`: any search at the driver's limit).
      detail: atLeast.every((r) => r.cell.capacity?.bracketed === undefined)
        ? `the open-loop driver (${drivers}) reached its limit: these capacities are lower bounds`
        : atLeast.every((r) => r.cell.capacity?.heldAbove)
          ? `other searches held more than the bracketed figure: these capacities are lower bounds over every search`
          : `no search bracketed the capacity (the open-loop driver (${drivers}) at its limit, or no failure up to 1.5 × the median peak)${atLeast.some((r) => r.cell.capacity?.heldAbove) ? ', or other searches held more than the bracketed figure' : ''}: these capacities are lower bounds`,
    });
  }
  const noisy = table.rows.filter((r) => r.flags.noisy);
  if (noisy.length)
    notes.push({
      kind: 'noisy',
      labels: noisy.map((r) => r.label),
      detail: noisy.some((r) => pairedRounds(r.cell))
        ? `interleaved rounds that disagree much more than the table's other rows (the model keeps their own variance, F test at 1%): ${noisy.map((r) => r.label).join(', ')}`
        : `trials more than 10% apart: ${noisy.map((r) => `${r.label} ${pct(r.cell.stats?.spread ?? 0)}`).join(', ')}`,
    });
  const busy = notQuietNote(table);
  if (busy) notes.push(busy);
  const gaps = table.rows.filter((r) => r.flags.estimatorGap);
  if (gaps.length)
    notes.push({
      kind: 'estimators-disagree',
      labels: gaps.map((r) => r.label),
      detail: `the solo windows' requests/s ratio to ${table.baseline} and the interleaved rounds' ratio (requests per CPU-second, the "% of baseline" column) disagree beyond their 95% intervals: ${gaps.map((r) => `${r.label} ${gapText(r.flags.estimatorGap)}`).join(', ')}`,
    });
  const tail = closedLoopTailNote(table);
  if (tail) notes.push(tail);
  const few = table.rows.filter((r) => r.notRanked?.reason === 'few-trials');
  if (few.length)
    notes.push({
      kind: 'few-trials',
      labels: few.map((r) => r.label),
      detail: `fewer than 5 trials, not ranked: ${few.map((r) => `${r.label} (${r.trials})`).join(', ')}`,
    });
  const lost = table.rows.filter((r) => r.flags.servicesLost.length);
  if (lost.length)
    notes.push({
      kind: 'services-lost',
      labels: lost.map((r) => r.label),
      detail: `a service went away during: ${lost.map((r) => `${r.label} (${r.flags.servicesLost.join(', ')})`).join(', ')}`,
    });
  const paused = table.rows.filter((r) => r.cell.pausedFailures);
  if (paused.length)
    notes.push({
      kind: 'paused-failures',
      labels: paused.map((r) => r.label),
      detail: `requests failed only in the interleaved rounds, where the server is paused for the other servers' slices (not counted against it; its solo rounds judge it): ${paused
        .map((r) => {
          const p = r.cell.pausedFailures;
          return p ? `${r.label} ${fmtInt(p.failed)} of ${fmtInt(p.requests)}` : r.label;
        })
        .join(', ')}`,
    });
  if (!table.baselineRow)
    notes.push({
      kind: 'no-baseline',
      labels: [],
      detail: `run ${table.runId} has no ${table.baseline} cell here: no ratios`,
    });
  if (table.otherRuns.length)
    notes.push({
      kind: 'other-runs',
      labels: table.otherRuns.map((r) => r.label),
      detail: `${table.otherRuns.length} row(s) from other runs (${[...new Set(table.otherRuns.map((r) => r.runId))].join(', ')}), shown only as ratios to their own run's baseline`,
    });
  const elsewhere = allTables.filter(
    (t) =>
      t !== table &&
      t.key.scenario === table.key.scenario &&
      t.key.profile === table.key.profile &&
      t.key.driver === table.key.driver &&
      t.key.nodeMajor === table.key.nodeMajor &&
      t.key.machine.label !== table.key.machine.label,
  );
  if (elsewhere.length)
    notes.push({
      kind: 'other-machines',
      labels: [],
      detail: `also measured on ${elsewhere.map((t) => t.key.machine.label).join('; ')}: separate tables`,
    });
  return notes;
}

/** "6.1% solo vs 9.0% interleaved (×0.68)" of a row's estimator gap. */
function gapText(g: RankedTable['rows'][number]['flags']['estimatorGap']): string {
  if (!g) return '';
  const p = (x: number) => fmtPct(x, 'adaptive');
  return `${p(g.solo.ratio)} solo vs ${p(g.interleaved.ratio)} interleaved (×${g.factor.toFixed(2)})`;
}
