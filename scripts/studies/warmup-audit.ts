/**
 * Audit of the warm-up (issue 22, "warm-up until stable: show that the round-1 bias is gone"):
 * from a run's cell files, each cell's interleaved rounds (`stats.paired`: efficiency = requests
 * per server CPU-second, round number, server process):
 * - in how many cells round 1 is the lowest round, against the n/k expected by chance (k rounds);
 * - round 1 against the cell's median round (geometric mean over cells of round 1 ÷ median − 1);
 * - within each server process, its first round against its second (geometric mean − 1, with its
 *   standard error over the pairs): the warm-up a restarted process gets is measured here too;
 * - that first/second ratio split, per table and server process, into its common part (the same
 *   for every contender: a block effect the table model removes) and its contender-dependent
 *   part (its sd across the table's contenders: only this part biases a ratio), by process;
 * - the contenders whose round 1 is lowest against their median (mean over their cells).
 * A warm-up that is long enough gives round 1 lowest in about n/k cells and a first/second ratio
 * near 0, or a contender-dependent part no larger for restarted processes than for the first.
 * Reads only; writes nothing.
 *
 * Run: `node scripts/studies/warmup-audit.ts [run id | run folder]` (default: the committed bake-off
 * 2026-11-26T21-34-58Z-d078; 44be, which the docs quote, is in git history at 459a2fe).
 */
import { median } from '../../harness/analysis/stats.ts';
import { RESULTS_DIR } from '../../harness/core/paths.ts';
import { readRun } from '../../harness/store/runs.ts';

const run = process.argv[2] ?? '2026-11-26T21-34-58Z-d078';
// A run id under results/runs, or a run folder (store/runs.ts readRun takes both).
const { cells } = readRun(RESULTS_DIR, run);

const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
const sd = (xs: number[]) => Math.sqrt(xs.reduce((a, x) => a + (x - mean(xs)) ** 2, 0) / (xs.length - 1));
const pct = (logRatio: number) => `${((Math.exp(logRatio) - 1) * 100).toFixed(1)}%`;

let used = 0;
let lowestFirst = 0;
let rounds = 0;
const firstVsMedian: number[] = [];
const firstVsSecond: number[] = [];
const byInstance = new Map<number, number[]>();
const byTable = new Map<string, { inst: number; d: number }[]>(); // scenario · process → first÷second per cell
const byLabel = new Map<string, number[]>();
for (const c of cells) {
  const p = c.stats?.paired;
  if (!p || p.efficiency.length < 4 || p.efficiency.some((e) => !(e > 0))) continue;
  const order = p.rounds.map((r, i) => ({ r, e: p.efficiency[i] ?? 0, inst: p.instances?.[i] ?? 1 }));
  order.sort((a, b) => a.r - b.r);
  used++;
  rounds = Math.max(rounds, order.length);
  const lowest = order.reduce((lo, x) => (x.e < lo.e ? x : lo));
  if (lowest === order[0]) lowestFirst++;
  const d = Math.log((order[0]?.e ?? 1) / median(order.map((x) => x.e)));
  firstVsMedian.push(d);
  byLabel.set(c.label, [...(byLabel.get(c.label) ?? []), d]);
  for (const inst of new Set(order.map((x) => x.inst))) {
    const xs = order.filter((x) => x.inst === inst);
    if (xs.length < 2) continue;
    const r = Math.log((xs[0]?.e ?? 1) / (xs[1]?.e ?? 1));
    firstVsSecond.push(r);
    byInstance.set(inst, [...(byInstance.get(inst) ?? []), r]);
    const table = `${c.scenario}·${c.profile}·${inst}`;
    byTable.set(table, [...(byTable.get(table) ?? []), { inst, d: r }]);
  }
}
if (!used) {
  console.error(`run ${run}: no cell has interleaved rounds (stats.paired): nothing to audit`);
  process.exit(2);
}
// Per table and process: the common part (mean over contenders) and the sd around it.
const common = new Map<number, number[]>();
const spread = new Map<number, number[]>();
for (const xs of byTable.values()) {
  const first = xs[0];
  if (!first || xs.length < 3) continue;
  const ds = xs.map((x) => x.d);
  common.set(first.inst, [...(common.get(first.inst) ?? []), mean(ds)]);
  spread.set(first.inst, [...(spread.get(first.inst) ?? []), sd(ds)]);
}
const perProcess = (m: Map<number, number[]>, f: (xs: number[]) => string) =>
  [...m]
    .sort((a, b) => a[0] - b[0])
    .map(([k, xs]) => `${k}: ${f(xs)}`)
    .join(', ');
const worst = [...byLabel]
  .map(([label, ds]) => ({ label, m: mean(ds) }))
  .sort((a, b) => a.m - b.m)
  .slice(0, 4);
console.log(
  [
    `run ${run}: ${used} cells with ${rounds} interleaved rounds`,
    `round 1 is the lowest round in ${lowestFirst} of ${used} cells (chance: ${(used / rounds).toFixed(1)})`,
    `round 1 against the cell's median round: ${pct(mean(firstVsMedian))} (mean over cells)`,
    `first round of a server process against its second: ${pct(mean(firstVsSecond))} (± ${(100 * (sd(firstVsSecond) / Math.sqrt(firstVsSecond.length))).toFixed(1)}% standard error, ${firstVsSecond.length} processes)`,
    `  by server process: ${[...byInstance]
      .sort((a, b) => a[0] - b[0])
      .map(([k, rs]) => `${k}: ${pct(mean(rs))} ± ${(100 * (sd(rs) / Math.sqrt(rs.length))).toFixed(1)}%`)
      .join(', ')}`,
    `  its common part (mean over a table's contenders; the model's block effect removes it), by process: ${perProcess(common, (xs) => pct(mean(xs)))}`,
    `  its contender-dependent part (sd across a table's contenders, median over tables), by process: ${perProcess(spread, (xs) => median(xs).toFixed(3))}`,
    `lowest round 1 against the median, by contender: ${worst.map((w) => `${w.label} ${pct(w.m)}`).join(', ')}`,
  ].join('\n'),
);
