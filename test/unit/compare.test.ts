// Run comparison: change of each cell's ratio to its own run's baseline (drift cancels), Welch
// interval, 5% threshold; the baseline by absolute figure, flagged host-sensitive. Also through the CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareRuns, renderComparison } from '../../harness/report/compare-runs.ts';
import { csvExporter } from '../../harness/report/exporters/csv.ts';
import { jsonExporter } from '../../harness/report/exporters/json.ts';
import { snapshotOfCells } from '../../harness/report/snapshot.ts';
import type { CellResult } from '../../harness/store/results.ts';
import { openRun, readRun } from '../../harness/store/runs.ts';
import { runCli, tmpDir } from '../helpers.ts';
import { makeCell, makeMeta } from '../fixtures.ts';

const wobble = [1, 1.006, 0.994, 1.003, 0.997];
/** Five rounds at `rps`; `drift` multiplies each round (a host that slows down in round 3, say). */
const rounds = (rps: number, drift = [1, 1, 1, 1, 1], w = wobble) => w.map((x, i) => rps * x * drift[i]!);
const cell = (label: string, trials: number[], patch: Parameters<typeof makeCell>[0] = {}) =>
  makeCell({ label, scenario: 'json', trials, ...patch });
const runOf = (runId: string, cells: CellResult[], cpuModel = 'AMD EPYC') => ({
  meta: makeMeta({ runId, machine: { cpuModel, cores: 2, memoryBytes: 1, os: 'Linux', arch: 'x64' } }),
  cells: cells.map((c) => ({ ...c, runId })),
});

test('host drift cancels: a 2× slower host changes no ratio; the baseline itself is flagged host-sensitive', () => {
  const old = runOf('o', [cell('node-http', rounds(60_000)), cell('x', rounds(30_000))]);
  const slow = [1, 0.9, 1.1, 0.95, 1.05].map((d) => d * 0.5); // slower host, and drifting within the run
  const neu = runOf('n', [cell('node-http', rounds(60_000, slow)), cell('x', rounds(30_000, slow))]);
  const c = compareRuns(old, neu, 0.05);
  const by = Object.fromEntries(c.changes.map((x) => [x.label, x]));
  assert.equal(by.x!.verdict, 'no change');
  assert.equal(by.x!.basis, 'ratio-to-baseline');
  assert.equal(by.x!.baseline, 'node-http');
  assert.equal(by.x!.hostSensitive, false);
  assert.ok(Math.abs(by.x!.change) < 1e-9);
  assert.ok(Math.abs(by.x!.old - 0.5) < 1e-9 && Math.abs(by.x!.new - 0.5) < 1e-9);
  assert.equal(by['node-http']!.basis, 'absolute');
  assert.equal(by['node-http']!.hostSensitive, true);
  assert.equal(by['node-http']!.verdict, 'regressed');
  assert.deepEqual(c.counts, { improved: 0, regressed: 1, 'no change': 1 });
  assert.equal(c.machinesDiffer, false);
});

test('improved / regressed need |change| > 5% AND an interval that excludes 0', () => {
  const old = runOf('o', [
    cell('node-http', rounds(60_000)),
    cell('faster', rounds(30_000)),
    cell('slower', rounds(30_000)),
    cell('small', rounds(30_000)),
    cell('wobbly', rounds(30_000)),
    cell('gone', rounds(30_000)),
    cell('broke', rounds(30_000)),
  ]);
  const neu = runOf('n', [
    cell('node-http', rounds(60_000)),
    cell('faster', rounds(33_000)),
    cell('slower', rounds(27_000)),
    cell('small', rounds(30_900)), // +3%: tight, but under the threshold
    cell('wobbly', rounds(33_000, [1, 1.3, 0.7, 1.25, 0.8])), // +10% but all over the place
    cell('new', rounds(30_000)),
    cell('broke', rounds(30_000), { load: { non2xx: 30_000 } }),
  ]);
  const c = compareRuns(old, neu);
  assert.equal(c.threshold, 0.05);
  const v = Object.fromEntries(c.changes.map((x) => [x.label, x.verdict]));
  assert.deepEqual(v, {
    faster: 'improved',
    'node-http': 'no change',
    slower: 'regressed',
    small: 'no change',
    wobbly: 'no change',
  });
  const faster = c.changes.find((x) => x.label === 'faster')!;
  assert.ok(Math.abs(faster.change - 0.1) < 1e-9);
  assert.equal(faster.kind, 'ci95');
  assert.ok(faster.interval![0] > 0.05 && faster.interval![1] < 0.15);
  assert.deepEqual(
    c.unmatched.map((u) => [u.cellId.split('__')[0], u.reason]),
    [
      ['broke', 'new run: 100% of requests failed (0 errors, 0 timeouts, 30000 non-2xx)'],
      ['gone', 'not in the new run'],
      ['new', 'not in the old run'],
    ],
  );
  assert.deepEqual(JSON.parse(JSON.stringify(c)), c, 'plain JSON');
  const md = renderComparison(c);
  assert.match(md, /5 cells: 1 improved, 1 regressed, 3 no change \(60% no change\)/);
  assert.match(
    md,
    /\| faster \| json \| ratio to node-http \| 0\.500× \| 0\.550× \| \+10\.0% \(\+\d+\.\d% … \+\d+\.\d%\) \| \*\*improved\*\* \|/,
  );
});

test('a cell whose run lacks the baseline is compared by absolute figure, host-sensitive; machines that differ are said', () => {
  const c = compareRuns(runOf('o', [cell('x', rounds(1000))]), runOf('n', [cell('x', rounds(1200))], 'Other CPU'));
  assert.equal(c.changes[0]!.basis, 'absolute');
  assert.equal(c.changes[0]!.hostSensitive, true);
  assert.equal(c.changes[0]!.verdict, 'improved');
  assert.equal(c.machinesDiffer, true);
  assert.match(renderComparison(c), /different machines/);
  // One trial: no interval, never a change.
  const one = compareRuns(runOf('o', [cell('x', [1000])]), runOf('n', [cell('x', [2000])]));
  assert.equal(one.changes[0]!.kind, 'none');
  assert.equal(one.changes[0]!.verdict, 'no change');
});

test('the older call shape (names and cell lists) still works', () => {
  const c = compareRuns('a', [cell('x', rounds(1000))], 'b', [cell('x', rounds(700))], 0.05);
  assert.equal(c.a, 'a');
  assert.equal(c.b, 'b');
  assert.equal(c.changes[0]!.verdict, 'regressed');
});

test('exports: versioned JSON and CSV with one row per cell', () => {
  const cells = [cell('a', rounds(1000)), cell('b', [1], { status: 'crashed' })];
  const snapshot = snapshotOfCells(cells, [{ name: 'json', title: 'json' }]);
  const j = JSON.parse(jsonExporter.render(snapshot));
  assert.equal(j.schema, 'bakeoff-export');
  assert.equal(j.rows.length, 2);
  assert.ok(Math.abs(j.rows[0].rps - 1000) < 5);
  assert.equal(j.rows[1].rps, null);
  const csv = csvExporter.render(snapshot).trim().split('\n');
  assert.equal(csv.length, 3);
  assert.match(csv[2]!, /,crashed,/);
});

test('the CLI compares two runs, saves baselines, and fails on a regression when asked', async () => {
  const results = tmpDir('compare');
  const write = (id: string, cells: CellResult[]) => {
    const { schemaVersion, runId, startedAt, finishedAt, state, harnessPid, ...init } = makeMeta({ runId: id });
    const w = openRun(results, init, id);
    for (const c of cells) w.writeCell({ ...c, runId: id });
    w.finish('complete');
  };
  write('run-1', [cell('x', rounds(1000))]);
  write('run-2', [cell('x', rounds(700))]);
  const plain = await runCli(['--results-dir', results, 'compare', 'run-1', 'run-2']);
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /1 cells: 0 improved, 1 regressed, 0 no change/);
  assert.match(
    plain.stdout,
    /\| x \| json \| req\/s \(host-sensitive\) \| 1,000 \| 700 \| −30\.0% .* \| \*\*regressed\*\* \|/,
  );
  const strict = await runCli(['--results-dir', results, 'compare', 'run-1', 'run-2', '--fail-on-regression']);
  assert.equal(strict.code, 1);
  assert.equal((await runCli(['--results-dir', results, 'baseline', 'main', 'run-1'])).code, 0);
  const vsBase = await runCli(['--results-dir', results, 'compare', '--baseline', 'main']);
  assert.match(vsBase.stdout, /# run-2 vs baseline main/);
  const missing = await runCli(['--results-dir', results, 'compare', 'nope', 'run-2']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /no run named 'nope' .*Known: run-1, run-2/);
  const saved = readRun(results, 'main', 'baseline').cells;
  assert.equal(saved.length, 1, 'the baseline holds run-1’s cell');
  assert.deepEqual(saved, readRun(results, 'run-1').cells);
});

test('compare of two runs with no shared group says why (profiles, drivers, Node versions) and exits 2; --verbose lists the cells', async () => {
  const results = tmpDir('compare-none');
  const write = (id: string, cells: CellResult[]) => {
    const { schemaVersion, runId, startedAt, finishedAt, state, harnessPid, ...init } = makeMeta({ runId: id });
    const w = openRun(results, init, id);
    for (const c of cells) w.writeCell({ ...c, runId: id });
    w.finish('complete');
  };
  const many = (profile: string, nodeMajor: number) =>
    Array.from({ length: 40 }, (_, i) =>
      cell(`c${i}`, rounds(1000), { profile, node: { version: `v${nodeMajor}.0.0`, major: nodeMajor } }),
    );
  write('run-quick', many('quick', 24));
  write('run-smoke', many('smoke', 22));
  const r = await runCli(['--results-dir', results, 'compare', 'run-quick', 'run-smoke']);
  assert.equal(r.code, 2, r.stderr);
  assert.equal(r.stdout, '', 'no "0 cells … no change" report');
  assert.match(r.stderr, /^error: compared 0 cells: run-quick and run-smoke share no cell measured ok in both/);
  assert.match(r.stderr, /run-quick has profile quick, driver \w+, Node v24\.\d+\.\d+; run-smoke has profile smoke/);
  assert.doesNotMatch(r.stderr, /c1__json/, 'no cell ids without --verbose');
  assert.ok(r.stderr.length < 1000, `short: ${r.stderr.length} characters`);
  const v = await runCli(['--results-dir', results, 'compare', 'run-quick', 'run-smoke', '--verbose']);
  assert.equal(v.code, 2);
  assert.match(v.stderr, /Not compared: c0__json__\w+__quick__node24 \(not in the new run\)/);
  // A comparison with some unmatched cells: their count by default, their ids with --verbose.
  write('run-more', [...many('quick', 24), cell('extra', rounds(1000))]);
  const some = await runCli(['--results-dir', results, 'compare', 'run-quick', 'run-more']);
  assert.equal(some.code, 0, some.stderr);
  assert.match(some.stdout, /Not compared: 1 cells \(1 not in the old run\); --verbose lists them\./);
  const someV = await runCli(['--results-dir', results, 'compare', 'run-quick', 'run-more', '--verbose']);
  assert.match(someV.stdout, /Not compared: extra__json__\w+__quick__node24 \(not in the old run\)/);
});
