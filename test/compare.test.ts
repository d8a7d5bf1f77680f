// Run comparison (criterion-style) and exports, on fixed result data and through the CLI.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { compareRuns } from '../harness/report/compare.ts';
import { exportCsv, exportJson } from '../harness/report/export.ts';
import { trialStats } from '../harness/analysis/stats.ts';
import { createRunDir, writeJsonAtomic, type CellResult } from '../harness/store/results.ts';
import { runCli, tmpDir } from './helpers.ts';

function cell(id: string, trials: number[], status: CellResult['status'] = 'ok'): CellResult {
  const one = (rps: number) =>
    ({
      schemaVersion: 1,
      runId: 'r',
      cellId: id,
      contender: id,
      variant: null,
      label: id,
      displayName: id,
      tags: { framework: 'fw', httpClient: 'c', language: 'javascript' },
      scenario: 'json',
      driver: 'autocannon',
      profile: 'standard-3',
      node: { version: 'v24.21.0', major: 24 },
      status,
      verification: { level: 'pass', reasons: [] },
      startupMs: 100,
      overheadMs: null,
      load: {
        driver: 'autocannon',
        requestsPerSec: { mean: rps, stddev: 0, samples: [rps] },
        latencyMs: { mean: 1, p50: 1, p90: 2, p99: 3, max: 4 },
        latencyHistogramUs: null,
        requests: { total: rps, sent: rps },
        errors: 0,
        timeouts: 0,
        non2xx: 0,
        bytes: 1,
        durationS: 5,
        bodyChecks: { sampled: 1, mismatched: 0 },
        driverCpuMs: null,
        profile: {} as any,
      },
      failure: null,
      cpuPlan: {} as any,
      logFile: null,
      target: { kind: 'local', url: null },
      startedAt: '',
      finishedAt: '2026-01-01T00:00:00Z',
    }) as CellResult;
  return { ...one(trials[1] ?? trials[0]), stats: trialStats(trials.map(one)) };
}

test('improved, regressed and no change need both the threshold and an interval that excludes 1', () => {
  const old = [
    cell('same', [1000, 1010, 990]),
    cell('faster', [1000, 1010, 990]),
    cell('slower', [1000, 1010, 990]),
    cell('wobbly', [1000, 1300, 800]),
    cell('small', [1000, 1001, 999]),
    cell('gone', [1, 1, 1]),
  ];
  const neu = [
    cell('same', [1005, 995, 1000]),
    cell('faster', [1300, 1310, 1290]),
    cell('slower', [700, 710, 690]),
    cell('wobbly', [1100, 900, 1400]),
    cell('small', [1030, 1031, 1029]),
    cell('new', [1, 1, 1]),
  ];
  const c = compareRuns('a', old, 'b', neu, 0.05);
  const v = Object.fromEntries(c.changes.map((x) => [x.cellId, x.verdict]));
  assert.deepEqual(v, {
    faster: 'improved',
    same: 'no change',
    slower: 'regressed',
    small: 'no change',
    wobbly: 'no change',
  });
  assert.deepEqual(c.unmatched, ['gone', 'new']);
  assert.deepEqual(c.counts, { improved: 1, regressed: 1, 'no change': 3 });
  assert.equal(c.noChangeFraction, 0.6);
});

test('exports: versioned JSON and CSV with one row per cell', () => {
  const cells = [cell('a', [1000, 1010, 990]), cell('b', [0], 'crashed')];
  const j = JSON.parse(exportJson(cells));
  assert.equal(j.schema, 'bakeoff-export');
  assert.equal(j.version, 1);
  assert.equal(j.rows.length, 2);
  assert.equal(j.rows[0].rps, 1000);
  assert.equal(j.rows[1].rps, null);
  const csv = exportCsv(cells).trim().split('\n');
  assert.equal(csv.length, 3);
  assert.match(
    csv[0],
    /^run_id,cell_id,contender,variant,label,scenario,driver,profile,node_version,status,target,trials,rps,/,
  );
  assert.match(csv[2], /,crashed,/);
});

test('the CLI compares two runs, saves baselines, and fails on a regression when asked', async () => {
  const results = tmpDir('compare');
  const write = (id: string, cells: CellResult[]) => {
    const dir = createRunDir(results, id);
    writeJsonAtomic(path.join(dir, 'meta.json'), { runId: id });
    for (const c of cells) writeJsonAtomic(path.join(dir, 'cells', `${c.cellId}.json`), c);
  };
  write('run-1', [cell('x', [1000, 1010, 990])]);
  write('run-2', [cell('x', [700, 710, 690])]);
  const plain = await runCli(['--results-dir', results, 'compare', 'run-1', 'run-2']);
  assert.equal(plain.code, 0, plain.stderr);
  assert.match(plain.stdout, /1 cells: 0 improved, 1 regressed, 0 no change/);
  assert.match(plain.stdout, /\| x \| json \| 1,000 \| 700 \| −30\.0% .* \| \*\*regressed\*\* \|/);
  const strict = await runCli(['--results-dir', results, 'compare', 'run-1', 'run-2', '--fail-on-regression']);
  assert.equal(strict.code, 1);
  assert.equal((await runCli(['--results-dir', results, 'baseline', 'main', 'run-1'])).code, 0);
  const vsBase = await runCli(['--results-dir', results, 'compare', '--baseline', 'main']);
  assert.match(vsBase.stdout, /# run-2 vs baseline main/);
  const missing = await runCli(['--results-dir', results, 'compare', 'nope', 'run-2']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /no run 'nope' .*Known: run-1, run-2/);
  const csv = await runCli(['--results-dir', results, 'export', '--format', 'csv']);
  assert.match(csv.stdout, /^run_id,/);
  assert.ok(fs.existsSync(path.join(results, 'baselines', 'main', 'cells', 'x.json')));
});
