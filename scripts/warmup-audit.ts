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
 * - the contenders whose round 1 is lowest against their median (mean over their cells);
 * - in a run with shared server processes (meta `design.sharedProcesses`, scheduler/server-pool.ts):
 *   the first/second ratio of processes started for the cell (the first scenario of their pool
 *   key, warmed 3 s alone after a restart) against processes kept from an earlier scenario (warmed
 *   1 s for the new one), with the same common and contender-dependent parts.
 * A warm-up that is long enough gives round 1 lowest in about n/k cells and a first/second ratio
 * near 0, or a contender-dependent part no larger for restarted processes than for the first.
 * Reads only; writes nothing.
 *
 * Run: `node scripts/warmup-audit.ts [run id | run folder]` (default: the committed bake-off
 * 2026-11-26T21-34-58Z-d078; 44be, which the docs quote, is in git history at 459a2fe).
 */
import path from 'node:path';
import { median } from '../harness/analysis/stats.ts';
import { loadScenarios } from '../harness/contract/scenarios.ts';
import { loadManifest } from '../harness/core/manifest.ts';
import { CONTENDERS_DIR, RESULTS_DIR, SCENARIOS_DIR } from '../harness/core/paths.ts';
import type { CellResult } from '../harness/store/results.ts';
import { readRun } from '../harness/store/runs.ts';

const run = process.argv[2] ?? '2026-11-26T21-34-58Z-d078';
// A run id under results/runs, or a run folder (store/runs.ts readRun takes both).
const { cells, meta } = readRun(RESULTS_DIR, run);

/**
 * With shared server processes: the cells whose processes were kept from an earlier scenario (the
 * pool key of scheduler/server-pool.ts: contender, variant, Node and database need; the cell that
 * ran first under a key started them). Empty for a run with a process per cell.
 */
function keptCells(cs: CellResult[]): Set<CellResult> {
  if (!meta.design?.sharedProcesses) return new Set();
  const scenarios = loadScenarios(SCENARIOS_DIR);
  const names = scenarios.map((x) => x.name);
  const requires = new Map<string, boolean>();
  const needsDb = (c: CellResult) => {
    if (!requires.has(c.contender))
      requires.set(
        c.contender,
        loadManifest(path.join(CONTENDERS_DIR, c.contender), names).requires.includes('database'),
      );
    const sc = scenarios.find((x) => x.name === c.scenario);
    return Boolean(requires.get(c.contender) || sc?.needs.includes('database'));
  };
  const byKey = new Map<string, CellResult[]>();
  for (const c of cs) {
    const k = [c.contender, c.variant ?? '', c.node?.version ?? '', needsDb(c)].join('|');
    byKey.set(k, [...(byKey.get(k) ?? []), c]);
  }
  const kept = new Set<CellResult>();
  for (const xs of byKey.values())
    for (const c of [...xs].sort((a, b) => a.startedAt.localeCompare(b.startedAt)).slice(1)) kept.add(c);
  return kept;
}
const kept = keptCells(cells);

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
// Processes 2 and later, by how they came: 'new' (started for this cell) or 'kept' (from an earlier scenario).
const byOrigin = new Map<string, { table: string; d: number }[]>();
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
    if (inst > 1) {
      const origin = kept.has(c) ? 'kept' : 'new';
      byOrigin.set(origin, [...(byOrigin.get(origin) ?? []), { table, d: r }]);
    }
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
    ...originLines(),
  ].join('\n'),
);

/** The first/second ratio of processes 2 and later, new against kept (shared server processes only). */
function originLines(): string[] {
  if (!kept.size) return [];
  return [...byOrigin].map(([origin, xs]) => {
    const ds = xs.map((x) => x.d);
    const tables = new Map<string, number[]>();
    for (const x of xs) tables.set(x.table, [...(tables.get(x.table) ?? []), x.d]);
    const parts = [...tables.values()].filter((t) => t.length >= 3);
    return `processes 2+ ${origin === 'kept' ? 'kept from an earlier scenario (1 s warm-up)' : 'started for the cell (3 s warm-up)'}: first ÷ second round ${pct(mean(ds))} ± ${(100 * (sd(ds) / Math.sqrt(ds.length))).toFixed(1)}% (${ds.length} processes); common part ${pct(mean(parts.map(mean)))}, contender-dependent part ${median(parts.map(sd)).toFixed(3)} (over ${parts.length} table·process blocks)`;
  });
}
