/**
 * The Node.js version matrix: each major as a % of the same contender on Node 24, with
 * intervals, from the same run; unsupported cells say why.
 *
 * Per run × profile × driver with two or more Node majors: the reference major is the harness's
 * pinned one (24) when measured, else the highest. Per scenario, when every cell of the run's
 * tables has interleaved rounds (scheduler/run.ts `groupCells` puts a `--node` matrix's majors in
 * one group, so they are paired by round), one two-way model is fitted over all of
 * them as rows `label@major` (analysis/table-model.ts `fitTwoWay`, units as the tables' own:
 * analysis/tables.ts `pairedUnits`), and each cell is compared with the same contender on the
 * reference major (`compare`: ratio, 95% CI, verdict). Cells without interleaved rounds fall back
 * to an unpaired ratio of their solo windows (analysis/stats.ts `sampleRatio`, Welch), never a
 * pairing of rounds that did not run together. A cell without a figure shows its status and why
 * (unsupported: the engines range; failed: the reason).
 */
import { pairedRounds, pairedUnits, type RankedTable, type TableRow } from '../analysis/tables.ts';
import { cellSamples, sampleRatio } from '../analysis/stats.ts';
import { compare, fitTwoWay, type TableModel } from '../analysis/table-model.ts';
import { fmtInt, fmtPct } from '../core/format.ts';
import type { NodeMatrixView } from './view.ts';

/** The reference major: the pinned one when measured, else the highest. */
function referenceMajor(majors: number[]): number {
  const pinned = Number(process.versions.node.split('.')[0]);
  return majors.includes(pinned) ? pinned : Math.max(...majors);
}

/** The two-way model over every interleaved cell of one scenario (rows `label@major`), or null. */
function scenarioModel(rows: TableRow[], ref: number): TableModel | null {
  const usable = rows.filter((r) => pairedRounds(r.cell) > 0 && r.status !== 'failed');
  if (usable.length < 2) return null;
  const units = usable.map((r) => ({ name: `${r.label}@${r.cell.node.major}`, ...pairedUnits(r.cell) }));
  const kind = units[0]?.by;
  const base = units.find((u) => u.name.endsWith(`@${ref}`)) ?? units[0];
  if (!base || !units.every((u) => u.by === kind)) return null;
  const fit = fitTwoWay(
    base.name,
    units.map((u) => ({ name: u.name, y: u.y })),
  );
  return fit && fit.df > 0 ? fit : null;
}

/** One cell's column text: % of the reference with its interval, the reference's requests/s, or status and why. */
function column(
  r: TableRow | undefined,
  refRow: TableRow | undefined,
  ref: number,
  model: TableModel | null,
): string | null {
  if (!r) return null;
  const why = r.notRanked?.detail ?? r.cell.failure?.reason ?? '';
  if (r.status === 'failed' || !(r.figure > 0))
    return why.startsWith(r.cell.status) ? why : `${r.cell.status}${why ? `: ${why}` : ''}`;
  if (r.cell.node.major === ref) return `100% · ${fmtInt(r.figure)} req/s`;
  if (!refRow || refRow.status === 'failed' || !(refRow.figure > 0))
    return `${fmtInt(r.figure)} req/s (no Node ${ref} cell)`;
  const a = `${r.label}@${r.cell.node.major}`;
  const b = `${r.label}@${ref}`;
  if (model?.rows.some((x) => x.name === a) && model.rows.some((x) => x.name === b)) {
    const c = compare(model, a, b);
    return `${fmtPct(c.ratio)} (95% CI ${fmtPct(c.ci[0])}–${fmtPct(c.ci[1])}) ${c.verdict}`;
  }
  const sa = cellSamples(r.cell);
  const sb = cellSamples(refRow.cell);
  const q = sampleRatio(sa.rps, sb.rps);
  const iv = q.interval
    ? ` (${q.kind === 'ci95' ? '95% CI' : 'range'} ${fmtPct(q.interval[0])}–${fmtPct(q.interval[1])}, unpaired)`
    : '';
  return `${fmtPct(q.figure)}${iv}`;
}

/**
 * The matrices of every run × profile × driver that measured ≥ 2 Node majors, from its ranked
 * tables (`ranked`: analysis/tables.ts `buildTables`, own-run rows only). Rows by contender then
 * scenario; columns by major, ascending.
 */
export function nodeMatrixOf(ranked: RankedTable[]): NodeMatrixView[] {
  const groups = new Map<string, RankedTable[]>();
  for (const t of ranked) {
    const k = `${t.runId}|${t.key.profile}|${t.key.driver}`;
    groups.set(k, [...(groups.get(k) ?? []), t]);
  }
  const out: NodeMatrixView[] = [];
  for (const ts of groups.values()) {
    const majors = [...new Set(ts.map((t) => t.key.nodeMajor))].sort((a, b) => a - b);
    const first = ts[0];
    if (majors.length < 2 || !first) continue;
    const ref = referenceMajor(majors);
    const rows: NodeMatrixView['rows'] = [];
    for (const scenario of [...new Set(ts.map((t) => t.key.scenario))]) {
      const cells = ts.filter((t) => t.key.scenario === scenario).flatMap((t) => t.rows);
      const model = scenarioModel(cells, ref);
      for (const label of [...new Set(cells.map((r) => r.label))]) {
        const at = (m: number) => cells.find((r) => r.label === label && r.cell.node.major === m);
        const cols = majors.map((m) => column(at(m), at(ref), ref, model));
        if (cols.filter((c) => c !== null).length > 1) rows.push({ label, scenario, cols });
      }
    }
    rows.sort((a, b) => a.label.localeCompare(b.label) || a.scenario.localeCompare(b.scenario));
    if (rows.length)
      out.push({
        runId: first.runId,
        profile: first.key.profile,
        driver: first.key.driver,
        majors,
        reference: ref,
        rows,
      });
  }
  return out;
}
