// The result store and the leaderboard on fixed data: atomic files, runs never overwritten,
// unreadable files skipped, latest cell wins, ranking and "% of node-http", Issues found.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { createRunDir, readAllResults, writeJsonAtomic, type CellResult } from '../harness/store/results.ts';
import { buildTables, latestCells, renderMarkdown } from '../harness/report/leaderboard.ts';
import { findIssues } from '../harness/report/issues.ts';
import { tmpDir } from './helpers.ts';
import { getProfile } from '../harness/core/profiles.ts';

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
    cpuPlan: { pinned: true, server: '1', client: '0', services: '0', allowedCores: [0, 1], note: 'x' },
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
  writeJsonAtomic(path.join(run, 'meta.json'), { runId: 'run-a' });
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

test('the latest result of a cell wins, and tables rank by requests/s with % of node-http', () => {
  const cells = latestCells([
    cell('node-http', 'json', 1000),
    cell('fastify', 'json', 500, { finishedAt: '2026-01-01T00:00:05Z' }),
    cell('fastify', 'json', 900, { finishedAt: '2026-01-02T00:00:00Z' }),
    cell('express', 'json', 0, {
      status: 'verify-failed',
      load: null,
      verification: { level: 'fail', reasons: ['status 500'] },
      failure: { reason: 'verification failed: status 500', logTail: '' },
    }),
  ]);
  const [t] = buildTables(cells, ['json'], ['quick']);
  assert.deepEqual(
    t.rows.map((r) => [r.rank, r.cell.label, r.pctOfBaseline && Math.round(r.pctOfBaseline)]),
    [
      [1, 'node-http', 100],
      [2, 'fastify', 90],
      [null, 'express', null],
    ],
  );
  const md = renderMarkdown(
    cells,
    [
      {
        runId: 'r1',
        startedAt: '2026-01-01',
        machine: { cpuModel: 'CPU', cores: 2, memoryBytes: 2 ** 30, os: 'Linux', arch: 'x64' },
        node: { version: 'v24.0.0' },
        cpuPlan: { note: 'server on CPU 1' },
        git: { commit: 'abc', dirty: false },
        profile: 'quick',
        state: 'complete',
      } as any,
    ],
    ['json'],
    ['quick'],
  );
  assert.match(md, /\| 2 \| fastify \| 900 \(no interval\) \| 1.00 \| 3.00 \| 0 \| 90% \| – \| – \| – \| 100 \| {2}\|/);
  assert.match(
    md,
    /`node-http` ran 1\.11 times as fast as `fastify` \(no interval: autocannon gave no per-second samples\)\./,
  );
  assert.match(md, /Not ranked:\n- `express`: verify-failed — verification failed: status 500/);
  assert.match(
    md,
    /\*\*critical\*\* · `express` · json \(quick\): \*\*verification failed \(not measured\)\*\*. status 500/,
  );
});

test('Issues found lists warnings, errors under load, body mismatches, start failures and crashes, worst first', () => {
  const base = cell('a', 'json', 100);
  const f = findIssues([
    cell('w', 'json', 100, { verification: { level: 'warn', reasons: ['lacks charset'] } }),
    cell('t', 'post', 8, {
      load: {
        ...base.load!,
        requestsPerSec: { mean: 8, stddev: 0, samples: [8] },
        timeouts: 910,
        requests: { total: 40, sent: 950 },
      },
    }),
    cell('m', 'fanout', 100, {
      load: { ...base.load!, bodyChecks: { sampled: 10, mismatched: 3, firstMismatch: 'data/0 must be object' } },
    }),
    cell('s', 'json', 0, {
      status: 'start-failed',
      load: null,
      failure: { reason: 's exited with code 1 before it was ready', logTail: 'Error: boom' },
    }),
    cell('ok', 'json', 100),
  ]);
  assert.deepEqual(
    f.map((x) => [x.severity, x.label, x.title]),
    [
      ['critical', 'm', 'wrong bodies under load'],
      ['critical', 's', 'failed to start'],
      ['critical', 't', 'errors under load'],
      ['minor', 'w', 'verification warning'],
    ],
  );
  assert.match(
    f[2].evidence,
    /910 timeouts, 0 errors, 0 non-2xx against 40 good responses \(95\.8% failed\) at 8 req\/s/,
  );
  assert.match(f[1].evidence, /Log tail: Error: boom/);
});
