/**
 * The driver cross-check: autocannon against wrk on the run's fastest cell, recorded in
 * meta.json and shown on the leaderboard. The end-to-end case runs the real wrk (Debian package;
 * `.ci/run` installs it) against a real node-http server; off CI it is skipped when wrk is missing.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { parseWrkOutput, wrkScript, findWrk } from '../harness/drivers/wrk.ts';
import { describeCrossCheck, fastestCell, type DriverCrossCheck } from '../harness/scheduler/cross-check.ts';
import type { CellResult } from '../harness/store/results.ts';
import { readCells, readMetas, runCli, tmpDir } from './helpers.ts';

test('wrk: the Lua script carries the request verbatim, and the result line is parsed', () => {
  const lua = wrkScript({
    method: 'POST',
    path: '/data',
    headers: { 'content-type': 'application/json' },
    body: '{"a":"é\\\\"}',
  });
  assert.match(lua, /^wrk\.method = "POST"$/m);
  assert.match(lua, /^wrk\.headers\["content-type"\] = "application\/json"$/m);
  // Quotes, backslashes and non-ASCII bytes become three-digit decimal escapes.
  assert.match(lua, /^wrk\.body = "\{\\034a\\034:\\034\\195\\169\\092\\092\\034\}"$/m);
  assert.match(lua, /^done = function\(summary, latency, requests\)$/m);
  assert.doesNotMatch(wrkScript({ method: 'GET', path: '/ping', headers: {} }), /wrk\.body/);

  const out = parseWrkOutput(
    [
      'Running 2s test @ http://127.0.0.1:1/ping',
      '  1 threads and 10 connections',
      'BAKEOFF_WRK {"requests":180000,"durationUs":2000000,"connect":0,"read":1,"write":0,"timeout":2,"status":3,"p50Us":105,"p99Us":900,"maxUs":5000}',
    ].join('\n'),
  );
  assert.equal(out.requestsPerSec, 90_000);
  assert.deepEqual(out.errors, { connect: 0, read: 1, write: 0, timeout: 2, status: 3 });
  assert.deepEqual(out.latencyMs, { p50: 0.105, p99: 0.9, max: 5 });
  assert.throws(
    () => parseWrkOutput('unable to connect to 127.0.0.1:1 Connection refused'),
    /wrk printed no result line: unable to connect/,
  );
});

function cell(label: string, rps: number, patch: Partial<CellResult> = {}, pipelining = 1): CellResult {
  return {
    cellId: `${label}__ping`,
    label,
    scenario: 'ping',
    profile: 'quick',
    driver: 'autocannon',
    status: 'ok',
    node: { version: 'v24.0.0', major: 24 },
    load: { requestsPerSec: { mean: rps, stddev: 0, samples: [] }, profile: { pipelining } },
    ...patch,
  } as unknown as CellResult;
}

test('the cross-check picks the fastest ok autocannon cell without pipelining', () => {
  const pick = fastestCell([
    cell('slow', 10_000),
    cell('fast', 50_000),
    cell('failed', 90_000, { status: 'crashed' }),
    cell('k6', 95_000, { driver: 'k6' }),
    cell('pipelined', 99_000, {}, 10),
    cell('median-of-trials', 40_000, { stats: { rps: { median: 60_000 } } as CellResult['stats'] }),
  ]);
  assert.equal(pick?.label, 'median-of-trials');
  assert.equal(fastestCell([cell('k6', 1, { driver: 'k6' })]), null);
});

test('the verdict: below 90% of wrk the driver is the bottleneck; a skipped check says how to get wrk', () => {
  const base: DriverCrossCheck = {
    status: 'ok',
    reason: null,
    tool: 'wrk',
    toolVersion: '4.1.0',
    cell: { cellId: 'x', label: 'node-http', scenario: 'ping', profile: 'quick', nodeMajor: 24, rps: 60_000 },
    connections: 100,
    runS: 3,
    runs: [
      { driver: 'autocannon', rps: 60_000, errors: 0 },
      { driver: 'wrk', rps: 100_000, errors: 0 },
      { driver: 'wrk', rps: 100_000, errors: 0 },
      { driver: 'autocannon', rps: 60_000, errors: 0 },
    ],
    ratio: 0.6,
    driverBound: true,
    summary: '',
  };
  assert.match(
    describeCrossCheck(base),
    /autocannon reached only 60% of wrk's requests\/s \(autocannon 60,000 vs wrk 4\.1\.0 100,000 req\/s, medians of 2 × 3 s each.*autocannon is the bottleneck/,
  );
  assert.match(describeCrossCheck({ ...base, ratio: 0.97, driverBound: false }), /reached 97% .*not the bottleneck/);
  assert.match(
    describeCrossCheck({
      ...base,
      status: 'skipped',
      reason: 'wrk is not installed (optional; Debian/Ubuntu: apt-get install wrk)',
    }),
    /not done on `node-http` · ping.*apt-get install wrk/,
  );
});

test('a run cross-checks autocannon against the real wrk on its fastest cell and the leaderboard says so', {
  skip: !findWrk() && !process.env.CI ? 'wrk is not installed (apt-get install wrk)' : false,
}, async () => {
  const results = tmpDir('cross-check');
  const r = await runCli([
    '--results-dir',
    results,
    'bench',
    'node-http',
    '--scenario',
    'ping,json',
    '--profile',
    'smoke',
    '--cross-check',
    '1',
  ]);
  assert.equal(r.code, 0, r.stderr);
  const [meta] = readMetas(results);
  const x = meta.driverCrossCheck as DriverCrossCheck;
  assert.equal(x.status, 'ok', x.reason ?? '');
  const fastest = readCells(results).sort((a, b) => b.load.requestsPerSec.mean - a.load.requestsPerSec.mean)[0];
  assert.equal(x.cell.cellId, fastest.cellId);
  assert.deepEqual(
    x.runs.map((run) => run.driver),
    ['autocannon', 'wrk', 'wrk', 'autocannon'],
  );
  assert.ok(
    x.runs.every((run) => run.rps > 1000 && run.errors === 0),
    JSON.stringify(x.runs),
  );
  assert.ok(x.ratio! > 0.2 && x.ratio! < 5, `ratio ${x.ratio}`);
  assert.equal(x.driverBound, x.ratio! < 0.9);
  assert.ok(
    fs.existsSync(path.join(results, 'runs', meta.runId, 'logs', `${fastest.cellId}__cross-check.log`)),
    'the fresh server has its own log',
  );
  assert.match(
    r.stderr,
    /driver cross-check: on `node-http` · (ping|json) \(smoke, 10 connections\), autocannon reached (only )?\d+% of wrk's/,
  );
  const lb = await runCli(['--results-dir', results, 'leaderboard']);
  assert.equal(lb.code, 0, lb.stderr);
  assert.match(
    fs.readFileSync(path.join(results, 'LEADERBOARD.md'), 'utf8'),
    /^- \*\*Driver cross-check\*\* \(run `[^`]+`, autocannon vs wrk\): on `node-http`/m,
  );
});

test('without wrk the cross-check is recorded as skipped with instructions, and smoke runs have none by default', async () => {
  const results = tmpDir('cross-check-none');
  const r = await runCli(
    ['--results-dir', results, 'bench', 'node-http', '--scenario', 'ping', '--profile', 'smoke', '--cross-check', '1'],
    { BENCH_WRK: '' },
  );
  assert.equal(r.code, 0, r.stderr);
  const x = readMetas(results)[0].driverCrossCheck as DriverCrossCheck;
  assert.equal(x.status, 'skipped');
  assert.match(x.reason!, /wrk is not installed .*apt-get install wrk/);
  assert.equal(readCells(results)[0].status, 'ok');

  const plain = tmpDir('cross-check-off');
  const r2 = await runCli(['--results-dir', plain, 'bench', 'node-http', '--scenario', 'ping', '--profile', 'smoke']);
  assert.equal(r2.code, 0, r2.stderr);
  assert.equal(readMetas(plain)[0].driverCrossCheck, undefined, 'smoke has no cross-check');
  const bad = await runCli([
    '--results-dir',
    plain,
    'bench',
    'node-http',
    '--profile',
    'quick-k6',
    '--cross-check',
    '2',
  ]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /--cross-check compares autocannon with wrk; quick-k6 is a k6 profile/);
});
