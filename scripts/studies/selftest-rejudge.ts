/**
 * A stored self-test run judged again by the current table model (analysis/selftest-judge.ts
 * `judgePairs`, `clusteredFalseDifference`): after a change of the model, what the same measured
 * trials give now, beside the figures its record holds. Prints the false-difference rate (pairs,
 * hits, Clopper–Pearson 95% interval), the pigeonhole bootstrap's interval over tables and copies
 * with its effective pairs and the runs that would certify an upper end ≤ 8%, and the power at 10%
 * and 5%. Rates are shares of pairs. Reads only; writes nothing.
 *
 * Run: `node scripts/studies/selftest-rejudge.ts [self-test run id]` (default: the newest record
 * under results/selftest/).
 */
import fs from 'node:fs';
import path from 'node:path';
import { clusteredFalseDifference, judgePairs, type PairShare } from '../../harness/analysis/selftest-judge.ts';
import { loadScenarios } from '../../harness/contract/scenarios.ts';
import { RESULTS_DIR, SCENARIOS_DIR } from '../../harness/core/paths.ts';
import { readRun } from '../../harness/store/runs.ts';

const dir = path.join(RESULTS_DIR, 'selftest');
const newest = fs
  .readdirSync(dir)
  .filter((f) => f.endsWith('.json'))
  .sort()
  .at(-1);
const id = process.argv[2] ?? newest?.replace(/\.json$/, '');
if (!id) throw new Error(`no self-test record under ${dir}`);
const record = JSON.parse(fs.readFileSync(path.join(dir, `${id}.json`), 'utf8'));
const run = readRun(dir, record.mainRun ?? id, 'run', true);
const j = judgePairs({ meta: run.meta, cells: run.cells }, loadScenarios(SCENARIOS_DIR));
const c = clusteredFalseDifference(j.nullPairs);
const pct = (x: number | null | undefined) => (x === null || x === undefined ? '–' : `${(100 * x).toFixed(1)}%`);
const share = (s: PairShare) =>
  `${s.hits} of ${s.pairs} = ${pct(s.rate)} (95% CI ${pct(s.ci95?.[0])}–${pct(s.ci95?.[1])})`;
const old = record.falseDifference;
process.stdout.write(
  `${[
    `self-test ${id} (main run ${record.mainRun ?? id}), judged by the current model:`,
    `  false differences: ${share(j.nulls)}; the record says ${old?.hits} of ${old?.pairs} = ${pct(old?.rate)}`,
    c
      ? `  pigeonhole bootstrap: 95% CI ${pct(c.ci95?.[0])}–${pct(c.ci95?.[1])}, ${c.effectivePairs?.toFixed(0)} effective pairs; runs to certify an upper end ≤ 8%: ${c.runsToCertify8 ?? '–'} at this rate, ${c.runsToCertify8AtTarget ?? '–'} at 5%`
      : '  pigeonhole bootstrap: no pairs',
    `  power at 10%: ${share(j.power10)}; at 5%: ${share(j.power5)}`,
  ].join('\n')}\n`,
);
