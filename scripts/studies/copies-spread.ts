/**
 * The process effect a self-test run shows among its **identical copies** (issue 22; docs/noise.md,
 * "Server processes shared by the scenarios"): per scenario, the copies' interleaved rounds
 * (`stats.paired`: efficiency = requests per server CPU-second, server process) as per-process
 * means of ln(efficiency), fitted two-way (copy + process; analysis/table-model.ts `fitTwoWay`), then
 * - σ_unit: the residual sd of that fit, df (C−1)(K−1): the noise of one process's mean, which the
 *   table model's intervals are made of (analysis/tables.ts `pairedUnits`);
 * - the sd of the copies' means (natural-log units) and each copy's mean ÷ the copies' geometric mean.
 * Identical copies differ only by noise, so a σ_unit well above the per-cell design's (0.016–0.026 in
 * self-test 2026-11-26T07-02-32Z-0882) is a process effect the design adds. The copies are the
 * fixture without a variant and its `copy-N` variants; copies missing a process are left out.
 * Reads only; writes nothing.
 *
 * Run: `node scripts/studies/copies-spread.ts [run id under results/selftest/runs | run folder]` (default:
 * 0882's main run). The rejected designs' runs are in git history: 59cd at 145859b, b46d at 4d5fe65
 * (`git worktree add /tmp/x 4d5fe65`, then pass the run folder).
 */
import path from 'node:path';
import { fitTwoWay, type TwoWayRow } from '../../harness/analysis/table-model.ts';
import { RESULTS_DIR } from '../../harness/core/paths.ts';
import { readRun } from '../../harness/store/runs.ts';

const arg = process.argv[2] ?? '2026-11-26T07-02-32Z-0882';
const dir = arg.includes('/') ? path.resolve(arg) : path.join(RESULTS_DIR, 'selftest', 'runs', arg);
// A run folder (store/runs.ts readRun takes a folder as well as an id under results/runs).
const { cells } = readRun(RESULTS_DIR, dir);

const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
// scenario → copy → process → ln(efficiency) of its rounds
const byScenario = new Map<string, Map<string, Map<number, number[]>>>();
for (const c of cells) {
  const p = c.stats?.paired;
  const copy = c.variant ?? 'base';
  if (!p || c.contender !== 'selftest-burn' || !(copy === 'base' || copy.startsWith('copy'))) continue;
  const copies = byScenario.get(c.scenario) ?? new Map<string, Map<number, number[]>>();
  byScenario.set(c.scenario, copies);
  const procs = new Map<number, number[]>();
  copies.set(copy, procs);
  p.efficiency.forEach((e, i) => {
    const k = p.instances?.[i] ?? 1;
    if (e > 0) procs.set(k, [...(procs.get(k) ?? []), Math.log(e)]);
  });
}

for (const [scenario, copies] of byScenario) {
  const K = Math.max(...[...copies.values()].map((m) => m.size));
  const rows: TwoWayRow[] = [...copies.entries()]
    .filter(([, m]) => m.size === K)
    .map(([name, m]) => ({ name, y: new Map([...m.entries()].map(([k, xs]) => [k, mean(xs)])) }));
  const [first] = rows;
  const fit = first ? fitTwoWay(first.name, rows) : null;
  if (!fit) continue;
  // Every copy's residuals, also a copy the F test would leave out of the pool: each row's sd has
  // the same df, so the all-rows σ is the root mean square of the rows' sd.
  const sigmaUnit = Math.sqrt(mean(fit.rows.map((r) => r.sd ** 2)));
  const centre = mean(fit.rows.map((r) => r.logRatio));
  const sdMeans = Math.sqrt(fit.rows.reduce((a, r) => a + (r.logRatio - centre) ** 2, 0) / (fit.rows.length - 1));
  const each = rows
    .map((r) => `${r.name} ${Math.exp((fit.rows.find((f) => f.name === r.name)?.logRatio ?? 0) - centre).toFixed(2)}`)
    .join(', ');
  console.log(
    `${scenario}: ${rows.length} copies × ${K} processes, σ_unit ${sigmaUnit.toFixed(3)}, sd of copy means ${sdMeans.toFixed(3)}; ${each}`,
  );
}
