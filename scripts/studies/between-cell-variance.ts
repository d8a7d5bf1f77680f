/**
 * Study: is there noise between two *cells* of one build that their server processes share, and
 * so the table model (analysis/table-model.ts `fitTwoWay`, per-process means) cannot see? Reads
 * only; writes nothing.
 *
 * - From self-test records (`results/selftest/<id>.json`, their main runs): per table, the sample
 *   variance of the identical copies' row means (log requests per CPU-second) against the model's
 *   own variance of a row mean (se², mean over the copies). Their ratio is 1 when the model carries
 *   all the noise; the excess, var − se² (floored at 0), estimates σ_u², the variance of a cell
 *   effect shared by all of a cell's processes (method of moments; e.g. Searle, Casella &
 *   McCulloch, "Variance Components", ch. 3).
 * - From bake-off runs with A/A controls (analysis/control-check.ts): per table, the control's log
 *   ratio d to its baseline and its model SE; E[d²] = se² + 2σ_u², so σ_u² ≈ mean(d² − se²) / 2.
 * - Cross-validated: each self-test record judged pair by pair (as analysis/selftest-judge.ts: 95%
 *   t intervals of `compare`) with every row's se² raised by a σ_u² estimated from the *other*
 *   records, and from the controls: false differences between identical copies, and power against
 *   the copies planted 10% and 5% slower.
 *
 * Run: `node scripts/studies/between-cell-variance.ts --selftest <id> <id> … [--controls <run id> …]`
 * (self-test ids under results/selftest/, bake-off run ids under results/runs/).
 */
import path from 'node:path';
import { controlCheck } from '../../harness/analysis/control-check.ts';
import { SELFTEST_FIXTURE } from '../../harness/analysis/selftest-judge.ts';
import { compare, type TableModel } from '../../harness/analysis/table-model.ts';
import { buildTables, tableModel } from '../../harness/analysis/tables.ts';
import { loadScenarios } from '../../harness/contract/scenarios.ts';
import { RESULTS_DIR, SCENARIOS_DIR } from '../../harness/core/paths.ts';
import { readRun } from '../../harness/store/runs.ts';

const args = process.argv.slice(2);
const after = (flag: string) => {
  const i = args.indexOf(flag);
  if (i < 0) return [];
  const rest = args.slice(i + 1);
  const end = rest.findIndex((a) => a.startsWith('--'));
  return end < 0 ? rest : rest.slice(0, end);
};
const selftests = after('--selftest');
const controlRuns = after('--controls');
const scenarios = loadScenarios(SCENARIOS_DIR);
const isCopy = (l: string) => l === SELFTEST_FIXTURE || l.startsWith(`${SELFTEST_FIXTURE} +copy-`);
const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;

/** The fitted models of one self-test record's main run, by scenario. */
function selftestModels(id: string): Map<string, TableModel> {
  const dir = path.join(RESULTS_DIR, 'selftest');
  const run = readRun(dir, id, 'run', true);
  const out = new Map<string, TableModel>();
  for (const t of buildTables([{ meta: run.meta, cells: run.cells }], { scenarios, runId: id })) {
    const m = tableModel(
      t.rows.filter((r) => r.status === 'ranked'),
      t.baseline,
    )?.fit;
    if (m) out.set(t.key.scenario, m);
  }
  return out;
}

/** σ_u² of one table from its copies: var(row means) − mean se², and the ratio var / se². */
function copyExcess(m: TableModel) {
  const rows = m.rows.filter((r) => isCopy(r.name));
  const mu = mean(rows.map((r) => r.logRatio));
  const v = rows.reduce((a, r) => a + (r.logRatio - mu) ** 2, 0) / (rows.length - 1);
  const se2 = mean(rows.map((r) => r.se ** 2));
  return { v, se2, ratio: v / se2, excess: v - se2 };
}

/** Pair verdicts of one record with every row's variance raised by `u2`. */
function judge(models: Map<string, TableModel>, u2: (scenario: string) => number) {
  let fd = 0;
  let n = 0;
  const pw = { slow10: [0, 0], slow5: [0, 0] };
  for (const [scenario, m] of models) {
    const add = Math.max(0, u2(scenario));
    const fit: TableModel = { ...m, rows: m.rows.map((r) => ({ ...r, se: Math.sqrt(r.se ** 2 + add) })) };
    const copies = fit.rows.map((r) => r.name).filter(isCopy);
    for (let i = 0; i < copies.length; i++)
      for (let j = i + 1; j < copies.length; j++) {
        const v = compare(fit, copies[i] ?? '', copies[j] ?? '').verdict;
        fd += v === 'faster' || v === 'slower' ? 1 : 0;
        n++;
      }
    for (const slow of fit.rows.map((r) => r.name).filter((l) => l.includes(' +slow')))
      for (const c of copies) {
        const k = slow.includes('+slow10-') ? 'slow10' : 'slow5';
        pw[k][0] = (pw[k][0] ?? 0) + (compare(fit, slow, c).verdict === 'slower' ? 1 : 0);
        pw[k][1] = (pw[k][1] ?? 0) + 1;
      }
  }
  const pct = (a: number, b: number) => `${((100 * a) / b).toFixed(1)}%`;
  return `false differences ${fd} of ${n} = ${pct(fd, n)}; power at 10% ${pct(pw.slow10[0] ?? 0, pw.slow10[1] ?? 1)}, at 5% ${pct(pw.slow5[0] ?? 0, pw.slow5[1] ?? 1)}`;
}

const records = new Map(selftests.map((id) => [id, selftestModels(id)]));
const perRecord = new Map<string, Map<string, number>>();
for (const [id, models] of records) {
  const ex = new Map<string, number>();
  const parts: string[] = [];
  for (const [s, m] of models) {
    const e = copyExcess(m);
    ex.set(s, e.excess);
    parts.push(`${s} ${e.ratio.toFixed(2)} (σu ${Math.sqrt(Math.max(0, e.excess)).toFixed(4)})`);
  }
  perRecord.set(id, ex);
  console.log(`self-test ${id}: var(copy means) ÷ model se², per table: ${parts.join(', ')}`);
}

const controls: { d2: number; se2: number }[] = [];
for (const id of controlRuns) {
  const run = readRun(RESULTS_DIR, id, 'run', true);
  for (const t of buildTables([{ meta: run.meta, cells: run.cells }], { scenarios, runId: id })) {
    const c = controlCheck(t);
    if (!c?.ratio || !c.ci) continue;
    const d = Math.log(c.ratio);
    // The 95% t interval's half-width ÷ its quantile ≈ SE; the quantile at the model's df ~ 2.0–2.1.
    const se = Math.log(c.ci[1] / c.ci[0]) / 2 / 2.05;
    controls.push({ d2: d * d, se2: se * se });
  }
}
const controlU2 = controls.length ? mean(controls.map((c) => c.d2 - c.se2)) / 2 : null;
if (controlRuns.length)
  console.log(
    `A/A controls: ${controls.length} over ${controlRuns.length} runs; mean d² ÷ se² ${(mean(controls.map((c) => c.d2)) / mean(controls.map((c) => c.se2))).toFixed(2)}; σu² = ${controlU2?.toExponential(2)} (σu ${controlU2 !== null ? Math.sqrt(Math.max(0, controlU2)).toFixed(4) : '–'})`,
  );

for (const [id, models] of records) {
  const others = [...perRecord].filter(([k]) => k !== id).map(([, v]) => v);
  const perScenario = (s: string) => (others.length ? mean(others.map((o) => o.get(s) ?? 0)) : 0);
  const pooled = others.length ? mean(others.flatMap((o) => [...o.values()])) : 0;
  console.log(`\n${id}`);
  console.log(`  the model as it is:                             ${judge(models, () => 0)}`);
  if (others.length) {
    console.log(`  + σu² per scenario from the other records:      ${judge(models, perScenario)}`);
    console.log(
      `  + σu² pooled from the other records (σu ${Math.sqrt(Math.max(0, pooled)).toFixed(4)}): ${judge(models, () => pooled)}`,
    );
  }
  if (controlU2 !== null)
    console.log(
      `  + σu² from the A/A controls (σu ${Math.sqrt(Math.max(0, controlU2)).toFixed(4)}):   ${judge(models, () => controlU2)}`,
    );
}
