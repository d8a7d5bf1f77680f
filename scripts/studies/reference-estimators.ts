/**
 * Which bake-off estimator agrees with the steady-state reference? For each row of a bake-off
 * run's ranked tables that the reference record also has (same contender, scenario, baseline),
 * prints the reference's requests/s ratio (and its 95% CI between processes) beside three
 * estimators of the same ratio from the run's own files:
 *
 * - interleaved: the table model's ratio, the report's "% of baseline" (analysis/tables.ts);
 * - solo: the one-way model on the solo windows' requests/s (analysis/estimator-agreement.ts).
 *
 * Then per estimator and unit (analysis/reference-gaps.ts `compareWithReference`): the accuracy
 * conclusion and its arithmetic (analysis/reference-floor.ts: the rows beyond both intervals, the
 * GLS test with the shared baseline's covariance, the targets and the floor). The interleaved
 * estimator carries the table model's split of its SE; the solo estimator only its interval, read
 * as normal and independent (its df and split are not kept). Ratios are unitless. Reads only; writes nothing.
 *
 * Run: `node scripts/studies/reference-estimators.ts <reference id|file> <bake-off run id | run folder>`.
 */
import fs from 'node:fs';
import path from 'node:path';
import { estimatorGaps } from '../../harness/analysis/estimator-agreement.ts';
import { accuracyDetails, accuracyLine, noBiasReading } from '../../harness/analysis/reference-floor.ts';
import { type BakeoffRatio, compareWithReference, splitOfFit } from '../../harness/analysis/reference-gaps.ts';
import { type ReferenceRatio, withSplits } from '../../harness/analysis/reference-stats.ts';
import { cellSamples } from '../../harness/analysis/stats.ts';
import { buildTables, type RankedTable } from '../../harness/analysis/tables.ts';
import { RESULTS_DIR } from '../../harness/core/paths.ts';
import type { CellResult } from '../../harness/store/results.ts';
import { readReference } from '../../harness/store/reference-store.ts';
import { readRun } from '../../harness/store/runs.ts';

type Est = { ratio: number; ci: [number, number] | null; df?: number | null; split?: BakeoffRatio['split'] };
type Row = { scenario: string; label: string; ref: ReferenceRatio; est: Record<string, Est | null> };

const [refArg, runId] = process.argv.slice(2);
if (!refArg || !runId) {
  process.stderr.write('usage: node scripts/studies/reference-estimators.ts <reference id|file> <bake-off run id>\n');
  process.exit(2);
}
const refFile = fs.existsSync(refArg) ? refArg : path.join(RESULTS_DIR, 'reference', `${refArg}.json`);
const ref = readReference(refFile);
const refRatios = withSplits(ref.ratios, ref.processes);
// A run id of results/runs, or a run folder elsewhere (<results dir>/runs/<id>).
const run = runId.includes('/')
  ? readRun(path.dirname(path.dirname(path.resolve(runId))), path.basename(runId), 'run', true)
  : readRun(RESULTS_DIR, runId, 'run', true);

const tablesOf = (cells: CellResult[]) => buildTables([{ meta: run.meta, cells }], { runId: run.meta.runId });
const full = tablesOf(run.cells);

const modelRatio = (t: RankedTable | undefined, label: string): Est | null => {
  const r = t?.rows.find((x) => x.label === label);
  const v = r?.vsBaseline;
  const split = t?.fit ? splitOfFit(t.fit, label) : null;
  return v ? { ratio: v.figure, ci: v.kind === 'ci95' ? v.interval : null, df: v.df, split } : null;
};

const rows: Row[] = [];
for (const t of full) {
  const solo = t.fit
    ? estimatorGaps(
        t.fit,
        t.rows.map((r) => ({ label: r.label, ...cellSamples(r.cell) })),
      )
    : [];
  for (const r of t.rows) {
    if (r.status !== 'ranked' || r.isBaseline) continue;
    const x = ref.ratios.find(
      (q) => q.contender === r.label && q.scenario === t.key.scenario && q.baseline === t.baseline,
    );
    if (!x) continue;
    const s = solo.find((g) => g.label === r.label);
    rows.push({
      scenario: t.key.scenario,
      label: r.label,
      ref: x,
      est: {
        interleaved: modelRatio(t, r.label),
        solo: s ? { ratio: s.solo.ratio, ci: s.solo.ci } : null,
      },
    });
  }
}

const f3 = (x: number) => x.toFixed(3);
const ci = (c: [number, number] | null | undefined) => (c ? `(${f3(c[0])}–${f3(c[1])})` : '(no CI)');
process.stdout.write(`reference ${ref.runId} vs bake-off ${runId}; unit: requests/s ratio to the baseline\n`);
for (const r of rows) {
  const parts = Object.entries(r.est).map(([k, e]) => (e ? `${k} ${f3(e.ratio)} ${ci(e.ci)}` : `${k} –`));
  process.stdout.write(
    `${r.scenario} · ${r.label}: reference ${f3(r.ref.rps.figure)} ${ci(r.ref.rps.ci95)}, efficiency ${r.ref.efficiency ? f3(r.ref.efficiency.figure) : '–'}; ${parts.join('; ')}\n`,
  );
}
for (const unit of ['rps', 'efficiency'] as const) {
  for (const k of ['interleaved', 'solo']) {
    const mine = rows.flatMap((r) => {
      const e = r.est[k];
      return e
        ? [
            {
              label: r.label,
              scenario: r.scenario,
              baseline: r.ref.baseline,
              ratio: e.ratio,
              ci95: e.ci,
              df: e.df,
              split: e.split,
            },
          ]
        : [];
    });
    const c = compareWithReference(mine, refRatios, unit);
    if (!c.rows.length) continue;
    const reading = noBiasReading(c);
    process.stdout.write(
      `${k} vs reference ${unit}: ${accuracyLine(c, reading, ref.runId)}\n  ${accuracyDetails(c, reading, ref.runId)}\n`,
    );
  }
}
