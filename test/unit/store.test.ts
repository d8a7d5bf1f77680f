// The result store (harness/store/): atomic files, runs never overwritten, run states (running,
// complete, interrupted, abandoned), schema-validated reads that skip bad files with one warning
// each, baselines of complete runs only, and the compare/baseline CLI on top of them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import type { CellResult } from '../../harness/store/results.ts';
import { createRunDir, readAllResults, writeJsonAtomic } from '../../harness/store/result-files.ts';
import { runCli, tmpDir } from '../helpers.ts';
import { makeCell, makeMeta } from '../fixtures.ts';
import {
  latestCompleteRun,
  listRuns,
  openRun,
  readBaseline,
  readRun,
  saveBaseline,
  sweepAbandoned,
  writeSelftest,
} from '../../harness/store/runs.ts';
import { getProfile } from '../../harness/core/profiles.ts';

function cell(label: string, scenario: string, rps: number, patch: Partial<CellResult> = {}): CellResult {
  return {
    schemaVersion: 1,
    runId: 'r1',
    cellId: `${label}__${scenario}`,
    contender: label,
    variant: null,
    label,
    displayName: label,
    tags: {},
    scenario,
    driver: 'autocannon',
    profile: 'quick',
    node: { version: 'v24.0.0', major: 24 },
    status: 'ok',
    verification: { level: 'pass', reasons: [] },
    startupMs: 100,
    overheadMs: { start: 100, verify: 5, teardown: 10, total: 115 },
    load: {
      driver: 'autocannon',
      requestsPerSec: { mean: rps, stddev: 0, samples: [rps] },
      latencyMs: { mean: 1, p50: 1, p90: 2, p99: 3, max: 4 },
      latencyHistogramUs: '',
      requests: { total: rps * 5, sent: rps * 5 },
      errors: 0,
      timeouts: 0,
      non2xx: 0,
      bytes: 1,
      durationS: 5,
      bodyChecks: { sampled: 10, mismatched: 0 },
      driverCpuMs: { user: 1, system: 1 },
      profile: getProfile('quick'),
    },
    failure: null,
    cpuPlan: {
      pinned: true,
      server: '1',
      client: '0',
      services: '0',
      allowedCores: [0, 1],
      clientThreads: 1,
      note: 'x',
    },
    logFile: null,
    target: { kind: 'local', url: null },
    startedAt: '2026-01-01T00:00:00Z',
    finishedAt: '2026-01-01T00:00:10Z',
    ...patch,
  };
}

test('runs get their own folder and are never overwritten', () => {
  const dir = tmpDir('store');
  createRunDir(dir, 'run-a');
  assert.throws(() => createRunDir(dir, 'run-a'), /EEXIST/);
});

test('a half-written or foreign file is skipped, not fatal', () => {
  const dir = tmpDir('store');
  const run = createRunDir(dir, 'run-a');
  writeJsonAtomic(path.join(run, 'meta.json'), makeMeta({ runId: 'run-a', state: 'complete' }));
  writeJsonAtomic(path.join(run, 'cells', 'good.json'), cell('node-http', 'json', 1000));
  fs.writeFileSync(path.join(run, 'cells', 'broken.json'), '{"schemaVersion": 1, "runId": "run-a", "lo');
  const { cells, skipped } = readAllResults(dir);
  assert.equal(cells.length, 1);
  assert.deepEqual(
    skipped.map((f) => path.basename(f)),
    ['broken.json'],
  );
  assert.deepEqual(
    fs.readdirSync(path.join(run, 'cells')).filter((f) => f.includes('.tmp') || f.startsWith('.')),
    [],
  );
});

// ---- The store API (harness/store/runs.ts): runs, states, validated reads, baselines ----

/** A dead pid: a child that has exited. */
function deadPid(): number {
  return Number(execFileSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))']).toString());
}

function init(patch: Partial<ReturnType<typeof makeMeta>> = {}) {
  const { schemaVersion, runId, startedAt, finishedAt, state, harnessPid, ...rest } = makeMeta(patch);
  return rest;
}

test('openRun: own folder, meta with the harness pid, trials and cells written atomically, finish', () => {
  const dir = tmpDir('store-api');
  const w = openRun(dir, init(), 'run-1');
  assert.equal(w.meta.state, 'running');
  assert.equal(w.meta.harnessPid, process.pid);
  assert.throws(() => openRun(dir, init(), 'run-1'), /EEXIST/, 'never into another run');
  const c = makeCell({ runId: 'run-1', cellId: 'a__ping__autocannon__quick__node24' });
  w.writeTrial({ ...c, round: 1 }, 1);
  w.writeCell(c);
  assert.ok(fs.existsSync(path.join(w.dir, 'trials', 'a__ping__autocannon__quick__node24__t1.json')));
  assert.match(w.relative(w.logFile(c.cellId)), /^runs\/run-1\/logs\/a__ping__autocannon__quick__node24\.log$/);
  assert.equal(listRuns(dir)[0]!.state, 'running', 'our own pid is alive');
  w.finish('complete');
  const r = readRun(dir, 'run-1', 'run', true);
  assert.equal(r.state, 'complete');
  assert.equal(r.cells.length, 1);
  assert.deepEqual(r.warnings, []);
  assert.equal(latestCompleteRun(dir), 'run-1');
});

test('a run left running by a dead harness is abandoned: listed, then marked by sweepAbandoned', () => {
  const dir = tmpDir('store-abandoned');
  const w = openRun(dir, init(), 'run-dead');
  w.updateMeta({ harnessPid: deadPid() });
  openRun(dir, init(), 'run-alive');
  assert.deepEqual(
    listRuns(dir).map((r) => [r.runId, r.state]),
    [
      ['run-alive', 'running'],
      ['run-dead', 'abandoned'],
    ],
  );
  assert.deepEqual(sweepAbandoned(dir), ['run-dead']);
  assert.equal(JSON.parse(fs.readFileSync(path.join(w.dir, 'meta.json'), 'utf8')).state, 'abandoned');
  assert.deepEqual(sweepAbandoned(dir), [], 'marked once');
  assert.equal(latestCompleteRun(dir), null);
  assert.throws(() => readRun(dir, 'run-dead', 'run', true), /is abandoned, not complete/);
});

test('truncated, garbage, empty and incomplete files are skipped with one warning each; never a throw', () => {
  const dir = tmpDir('store-bad');
  const w = openRun(dir, init(), 'run-1');
  w.writeCell(makeCell({ cellId: 'good' }));
  const cells = path.join(w.dir, 'cells');
  fs.writeFileSync(path.join(cells, 'truncated.json'), '{"schemaVersion": 1, "runId": "r", "lo');
  fs.writeFileSync(path.join(cells, 'garbage.json'), '\u0000\u0001 not json');
  fs.writeFileSync(path.join(cells, 'empty.json'), '');
  const { load: _l, ...noLoad } = makeCell({ cellId: 'incomplete' });
  fs.writeFileSync(path.join(cells, 'incomplete.json'), JSON.stringify({ ...noLoad, load: null }));
  fs.writeFileSync(path.join(cells, 'nolabel.json'), JSON.stringify({ ...makeCell(), label: undefined }));
  w.finish('complete');
  const r = readRun(dir, 'run-1');
  assert.deepEqual(
    r.cells.map((c) => c.cellId),
    ['good'],
  );
  assert.equal(r.warnings.length, 5);
  for (const [f, why] of [
    ['truncated', /not valid JSON/],
    ['garbage', /not valid JSON/],
    ['empty', /empty file/],
    ['incomplete', /incomplete: load: an ok cell has no load measurement/],
    ['nolabel', /incomplete: label/],
  ] as const)
    assert.match(r.warnings.find((x) => x.includes(`${f}.json`)) ?? '', why);
  const all = readAllResults(dir);
  assert.equal(all.cells.length, 1);
  assert.equal(all.skipped.length, 5);
  // A garbage meta.json: the run is skipped by readAll and is a UserError for readRun.
  const w2 = openRun(dir, init(), 'run-2');
  fs.writeFileSync(path.join(w2.dir, 'meta.json'), 'garbage');
  assert.equal(readAllResults(dir).runs.length, 1);
  assert.throws(
    () => readRun(dir, 'run-2'),
    (e: Error) => e.name === 'UserError' && /cannot be read/.test(e.message),
  );
  assert.equal(listRuns(dir).find((x) => x.runId === 'run-2')?.state, 'unreadable');
});

test('baselines take complete runs only; selftest records go through the store', () => {
  const dir = tmpDir('store-baseline');
  const done = openRun(dir, init(), 'run-done');
  done.writeCell(makeCell());
  done.finish('complete');
  const cut = openRun(dir, init(), 'run-cut');
  cut.finish('interrupted');
  assert.throws(() => saveBaseline(dir, 'run-cut', 'main'), /is interrupted, not complete/);
  assert.match(saveBaseline(dir, 'run-done', 'main'), /baselines\/main$/);
  assert.equal(readBaseline(dir, 'main').cells.length, 1);
  assert.throws(() => readBaseline(dir, 'nope'), /no baseline named 'nope'/);
  assert.throws(() => saveBaseline(dir, 'run-done', 'bad name'), /may use letters/);
  const f = writeSelftest(dir, 'run-done', { x: 1 });
  assert.equal(path.relative(dir, f), path.join('selftest', 'run-done.json'));
});

test('compare and baseline CLI: an incomplete run is exit 2; --fail-on-regression with 0 compared cells is an error', async () => {
  const dir = tmpDir('store-cli');
  const a = openRun(dir, init(), 'run-a');
  a.writeCell(makeCell({ cellId: 'x' }));
  a.finish('complete');
  const b = openRun(dir, init(), 'run-b');
  b.writeCell(makeCell({ cellId: 'y' }));
  b.finish('complete');
  const cut = openRun(dir, init(), 'run-cut');
  cut.finish('interrupted');
  fs.writeFileSync(path.join(b.dir, 'cells', 'broken.json'), '{"trunc');
  const inc = await runCli(['--results-dir', dir, 'compare', 'run-a', 'run-cut']);
  assert.equal(inc.code, 2, inc.stderr);
  assert.match(inc.stderr, /run 'run-cut' is interrupted, not complete/);
  assert.doesNotMatch(inc.stderr, /at .*\.ts:\d+/, 'no stack trace');
  const none = await runCli(['--results-dir', dir, 'compare', 'run-a', 'run-b', '--fail-on-regression']);
  assert.equal(none.code, 2, none.stderr);
  assert.match(none.stderr, /compared 0 cells/);
  assert.match(none.stderr, /skipped .*broken\.json: not valid JSON/);
  const base = await runCli(['--results-dir', dir, 'baseline', 'main']);
  assert.equal(base.code, 0, base.stderr);
  assert.match(base.stdout, /saved run-b as baseline 'main'/, 'the latest complete run, not the interrupted one');
  const bad = await runCli(['--results-dir', dir, 'baseline', 'main', 'run-cut']);
  assert.equal(bad.code, 2);
});

test('compaction: the cells and trials of a complete run become gzipped NDJSON, read back the same; a running run is refused', async () => {
  const { compactRun } = await import('../../harness/store/compact.ts');
  const { openRun, readRun, readTrials } = await import('../../harness/store/runs.ts');
  const results = tmpDir('compact');
  const { schemaVersion, runId, startedAt, finishedAt, state, harnessPid, ...init } = makeMeta();
  const id = '2026-01-03T00-00-00Z-0003';
  const w = openRun(results, init, id);
  for (const [i, c] of ['a', 'b', 'c'].entries()) {
    w.writeTrial(makeCell({ cellId: `${c}__ping`, runId: id, round: 1 }), i + 1);
    w.writeCell(makeCell({ cellId: `${c}__ping`, runId: id }));
  }
  const dir = path.join(results, 'runs', id);
  assert.throws(() => compactRun(results, dir), /only a complete run is compacted/);
  w.finish('complete');
  const before = { cells: readRun(results, id).cells, trials: readTrials(dir).trials };
  const { before: b, after: a } = compactRun(results, dir);
  assert.ok(a > 0 && a < b, `${b} → ${a} bytes`);
  assert.deepEqual(fs.readdirSync(dir).sort(), ['cells.ndjson.gz', 'logs', 'meta.json', 'trials.ndjson.gz']);
  assert.deepEqual(readRun(results, id).cells, before.cells);
  assert.deepEqual(readTrials(dir).trials, before.trials);
  assert.equal(readAllResults(results).cells.length, 3);
});
