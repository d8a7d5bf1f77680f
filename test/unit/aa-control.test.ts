// The A/A control (harness/analysis/aa-control.ts): the plan of `bench-all` adds a second process
// of each scenario's baseline unless --no-control (and `bench` never does); its cell is kept out
// of its table's rows, ranks and model; its verdict against the baseline (control-check.ts) and
// the count over runs on one CPU model (Wilson interval) make the how-sure line's control part.
// Fixture cells through the real analysis and view builder; nothing starts a server.
import assert from 'node:assert/strict';
import path from 'node:path';
import test from 'node:test';
import { Command } from 'commander';
import { CONTROL_VARIANT, controlLabel, isControl } from '../../harness/analysis/aa-control.ts';
import { controlCheck, controlHistory } from '../../harness/analysis/control-check.ts';
import { wilsonInterval } from '../../harness/analysis/stats.ts';
import { buildTables } from '../../harness/analysis/tables.ts';
import { planBench } from '../../harness/cli/bench.ts';
import { registerBench, registerBenchAll } from '../../harness/cli/bench-command.ts';
import type { CliContext } from '../../harness/cli/command-kit.ts';
import { parseBenchOptions } from '../../harness/cli/options.ts';
import { mulberry32 } from '../../harness/core/prng.ts';
import type { ReportSnapshot } from '../../harness/report/snapshot.ts';
import { selectRun } from '../../harness/report/snapshot.ts';
import { buildView } from '../../harness/report/view-build.ts';
import { controlLine } from '../../harness/report/view/control-view.ts';
import { cellLabel } from '../../harness/scheduler/plan.ts';
import type { CellResult, RunMeta } from '../../harness/store/results.ts';
import { type CellPatch, makeCell, makeMeta } from '../fixtures.ts';
import { ROOT, tmpDir } from '../helpers.ts';

const G = {
  contendersDir: path.join(ROOT, 'contenders'),
  scenariosDir: path.join(ROOT, 'scenarios'),
  resultsDir: tmpDir('aa-control'),
};

/** The options of `command` (bench or bench-all) as commander parses `args`, without running it. */
function rawOptions(command: 'bench' | 'bench-all', args: string[]): Record<string, unknown> {
  const program = new Command('just').exitOverride();
  const ctx = { globals: () => G, signal: new AbortController().signal, argv: [] } as CliContext;
  registerBench(program, ctx);
  registerBenchAll(program, ctx);
  const c = program.commands.find((x) => x.name() === command);
  assert.ok(c, command);
  c.action(() => {}); // parse only: no run
  program.parse([command, ...(command === 'bench' ? ['x'] : []), ...args], { from: 'user' });
  return c.opts();
}

/** The cells `bench-all` / `bench names` would plan with `args`: labels by scenario. */
function planned(command: 'bench' | 'bench-all', names: string[], args: string[]) {
  const opts = parseBenchOptions(rawOptions(command, ['--scenario', 'json,graphql-users', ...args]));
  const notes: string[] = [];
  const plan = planBench(G, names, opts, (l) => notes.push(l));
  return { cells: plan.cells, notes };
}

test('bench-all plans an A/A control of each scenario baseline by default; --no-control and `bench` leave it out', () => {
  const { cells, notes } = planned('bench-all', [], []);
  const controls = cells.filter((c) => c.variant === CONTROL_VARIANT);
  assert.deepEqual(controls.map((c) => `${c.scenario.name}: ${cellLabel(c.manifest.name, c.variant)}`).sort(), [
    'graphql-users: postgraphile-express (A/A control)',
    'json: node-http (A/A control)',
  ]);
  for (const c of controls) {
    assert.deepEqual(c.manifest.variants[CONTROL_VARIANT]?.env, {}, 'the same server: no environment of its own');
    assert.equal(c.profile.name, 'quick');
  }
  assert.ok(
    notes.some((l) => /second node-http process, the A\/A control of json/.test(l)),
    notes.join('\n'),
  );
  assert.equal(cells.filter((c) => c.variant === CONTROL_VARIANT).length, 2, 'one per scenario');
  const off = planned('bench-all', [], ['--no-control']);
  assert.equal(off.cells.filter((c) => c.variant === CONTROL_VARIANT).length, 0, '--no-control');
  assert.equal(off.cells.length, cells.length - 2, 'the same plan otherwise');
  const bench = planned('bench', ['fastify'], []);
  assert.equal(bench.cells.filter((c) => c.variant === CONTROL_VARIANT).length, 0, '`bench` has no control');
  const noBase = planned('bench-all', [], ['--no-baseline']);
  assert.equal(
    noBase.cells.filter((c) => c.variant === CONTROL_VARIANT).length,
    2,
    'bench-all has the baselines anyway',
  );
});

/**
 * A cell of run `runId` with 2 solo windows around `rps` and 6 interleaved rounds of efficiency
 * `eff` × the round's host speed × seeded noise (σ about 2%).
 */
function cell(label: string, rps: number, eff: number, seed: number, patch: CellPatch = {}): CellResult {
  const speed = [1, 0.8, 1.2, 0.9, 1.1, 1];
  const rnd = mulberry32(seed);
  const efficiency = speed.map((s) => eff * s * Math.exp(0.04 * (rnd() + rnd() + rnd() - 1.5)));
  const c = makeCell({ label, scenario: 'json', trials: [rps * 0.99, rps * 1.01], rounds: [1, 2], ...patch });
  return c.stats ? { ...c, stats: { ...c.stats, paired: { rounds: [1, 2, 3, 4, 5, 6], efficiency } } } : c;
}

const control = (eff: number, seed: number, runId = 'ra') =>
  cell(controlLabel('node-http'), 20_000, eff, seed, { runId, contender: 'node-http', variant: CONTROL_VARIANT });

const run = (cells: CellResult[], runId = 'ra', meta: Partial<RunMeta> = {}) => ({
  meta: makeMeta({ runId, ...meta }),
  cells: cells.map((c) => ({ ...c, runId })),
});

const base = () => [
  cell('node-http', 20_000, 10_000, 1),
  cell('fastify', 30_000, 14_000, 2),
  cell('hono', 25_000, 9_000, 3),
];

test("the control is never a row of its table: ranks, model and rows are the table's without it", () => {
  assert.ok(isControl(control(10_000, 9)));
  const [without] = buildTables([run(base())]);
  const [withIt] = buildTables([run([...base(), control(10_000, 9)])]);
  assert.ok(without && withIt);
  assert.equal(withIt.rows.length, 3);
  assert.ok(!withIt.rows.some((r) => isControl(r.cell)), 'not a row');
  assert.equal(withIt.controlCell?.label, 'node-http (A/A control)');
  assert.equal(without.controlCell, null);
  assert.deepEqual(
    withIt.rows.map((r) => [r.label, r.rank, r.rankRange]),
    without.rows.map((r) => [r.label, r.rank, r.rankRange]),
  );
  assert.deepEqual(withIt.model, without.model, "the table's model leaves the control out");
  // An older run's control is not an other-run row either.
  const tables = buildTables([
    run(base(), 'rb', { startedAt: '2026-11-23T00:00:00.000Z' }),
    run([...base(), control(10_000, 9)]),
  ]);
  assert.ok(tables.every((t) => t.otherRuns.every((o) => !isControl(o.cell))));
});

test('the control against the baseline: an equal one shows no false difference, a 20% faster one differs', () => {
  const [equal] = buildTables([run([...base(), control(10_000, 9)])]);
  const a = equal && controlCheck(equal);
  assert.ok(a && a.ratio !== null && a.ci);
  assert.ok(a.ci[0] <= 1 && a.ci[1] >= 1, JSON.stringify(a.ci));
  assert.equal(a.differs, false);
  const [unequal] = buildTables([run([...base(), control(12_000, 9)])]);
  const b = unequal && controlCheck(unequal);
  assert.ok(b?.ratio);
  assert.equal(b.verdict, 'faster');
  assert.equal(b.differs, true);
  assert.ok(b.ratio > 1.1 && b.ratio < 1.3, String(b.ratio));
  // The how-sure line's part: one control, in the brief's words.
  assert.match(
    controlLine([equal!], null),
    /^A\/A control: node-http ÷ node-http [01]\.\d\d× \(95% CI 0\.\d\d–1\.\d\d\), no false difference$/,
  );
  assert.match(
    controlLine([unequal!], null),
    /^A\/A control: node-http ÷ node-http 1\.\d+× \(95% CI .*\), a false difference \(faster\)$/,
  );
  // Several tables: the count, with the differing one named.
  const users = (c: CellResult) => ({ ...c, scenario: 'users' });
  const [t1, t2] = buildTables([run([...base(), control(10_000, 9), ...[...base(), control(12_000, 9)].map(users)])]);
  assert.ok(t1 && t2);
  assert.match(
    controlLine([t1, t2], null),
    /^A\/A controls \(.*\): 1 of 2 differed from their baseline \(ratios .*\): users node-http ÷ node-http .*, faster$/,
  );
  // A run without one says so.
  assert.equal(controlLine(buildTables([run(base())]), null), 'no A/A control in this run');
  // A control with too few rounds is not judged.
  const short = {
    ...control(10_000, 9),
    stats: { ...control(10_000, 9).stats!, paired: { rounds: [1, 2], efficiency: [1, 1] } },
  };
  const [few] = buildTables([run([...base(), short])]);
  assert.match(controlLine([few!], null), /^A\/A control: 1 not judged \(json: 2 rounds \(fewer than 5\)\)$/);
});

test('the controls of many runs on one CPU model: k of n differed, with the Wilson 95% interval', () => {
  const runs = [
    run([...base(), control(10_000, 9, 'r1')], 'r1'),
    run([...base(), control(12_000, 9, 'r2')], 'r2'),
    run([...base(), control(10_000, 5, 'r3')], 'r3'),
    // Another CPU model, or the same one under another kernel: another machine, not counted.
    run([...base(), control(12_000, 9, 'r4')], 'r4', { machine: { ...makeMeta().machine, cpuModel: 'Intel Xeon' } }),
    run([...base(), control(12_000, 9, 'r6')], 'r6', { machine: { ...makeMeta().machine, os: 'Linux 9.9' } }),
    // No control: not counted.
    run(base(), 'r5'),
  ];
  const h = controlHistory(runs, makeMeta().machine);
  assert.equal(h.judged, 3);
  assert.equal(h.differed, 1);
  assert.equal(h.runs, 3);
  assert.ok(Math.abs(h.rate - 1 / 3) < 1e-12);
  assert.deepEqual(h.ci, wilsonInterval(1, 3));
  // Wilson 1927 at 95% (z = 1.96): 0 of 10 → 0–27.8%; 5 of 10 → 23.7–76.3%; 1 of 3 → 6.1–79.2%.
  const near = (x: number, y: number) => Math.abs(x - y) < 5e-4;
  const [l0, h0] = wilsonInterval(0, 10);
  assert.ok(l0 === 0 && near(h0, 0.2775), `${h0}`);
  const [l5, h5] = wilsonInterval(5, 10);
  assert.ok(near(l5, 0.2366) && near(h5, 0.7634), `${l5} ${h5}`);
  const [l1, h1] = wilsonInterval(1, 3);
  assert.ok(near(l1, 0.0615) && near(h1, 0.7923), `${l1} ${h1}`);
  assert.deepEqual(wilsonInterval(0, 0), [0, 1]);
  assert.throws(() => wilsonInterval(4, 3), RangeError);
  // The how-sure line of the newest run's own report counts every run of the store on its CPU model.
  const snapshot = { runs, scenarios: [] } as unknown as ReportSnapshot;
  const one = selectRun(snapshot, 'r3');
  assert.equal(one.runs.length, 1);
  const v = buildView(one, { runId: 'r3' });
  assert.match(
    v.certainty,
    /A\/A control: node-http ÷ node-http [\d.]+× \(95% CI [^)]*\), no false difference; over 3 runs on this machine: 1 of 3 controls differed, 33% \(95% CI 6\.1–80%, Wilson/,
  );
  // A run without a control (and no control on its CPU model anywhere): said once, no count.
  const none = buildView({ runs: [run(base(), 'r5')], scenarios: [] } as unknown as ReportSnapshot, { runId: 'r5' });
  assert.match(none.certainty, /no A\/A control in this run ·/);
  assert.doesNotMatch(none.certainty, /over \d+ runs? on this machine/);
});
