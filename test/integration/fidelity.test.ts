/**
 * Driver fidelity (scheduler/fidelity.ts): the cell it picks, the sentence it records, a real
 * measurement (a fresh node-http server, the real wrk and autocannon, ABBA order), the skipped
 * record without wrk, and the record a real run writes into meta.json. The wrk cases are skipped
 * with the install command when wrk is missing.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildRequest, loadParams, loadScenarios, loadSharedSchemas } from '../../harness/contract/scenarios.ts';
import { type ConnectionProfile, getProfile } from '../../harness/core/profiles.ts';
import { findWrk, WRK_INSTALL } from '../../harness/drivers/wrk.ts';
import { freePort } from '../../harness/lifecycle/ports.ts';
import { describeFidelity, FIDELITY_TARGET, fidelityCell, measureFidelity } from '../../harness/scheduler/fidelity.ts';
import type { DriverFidelity } from '../../harness/store/results.ts';
import { makeCell } from '../fixtures.ts';
import { readMetas, ROOT, runCli, tmpDir } from '../helpers.ts';

const scenariosDir = path.join(ROOT, 'scenarios');
const ping = loadScenarios(scenariosDir).find((s) => s.name === 'ping')!;
const shared = loadSharedSchemas(scenariosDir);
const wrk = findWrk();
const NO_WRK = wrk ? false : `wrk is not installed: ${WRK_INSTALL} (or \`npx just tools\` as root)`;

test('the fidelity cell: the fastest ok connection-profile cell, pipelined or not', () => {
  const cells = [
    makeCell({ label: 'slow', trials: [10_000] }),
    makeCell({ label: 'fast', trials: [50_000, 52_000] }),
    makeCell({ label: 'failed', trials: [90_000], status: 'crashed' }),
    makeCell({ label: 'k6', trials: [95_000], driver: 'k6', load: { profile: { driver: 'k6' } } }),
    makeCell({ label: 'wrk-cell', trials: [60_000], driver: 'wrk' }),
  ];
  assert.equal(fidelityCell(cells)?.label, 'wrk-cell');
  const pipelined = makeCell({ label: 'pipelined', trials: [99_000], load: { profile: { pipelining: 10 } } });
  assert.equal(fidelityCell([...cells, pipelined])?.label, 'pipelined');
  assert.equal(fidelityCell([makeCell({ label: 'k6', driver: 'k6', load: { profile: { driver: 'k6' } } })]), null);
});

const record = (patch: Partial<DriverFidelity> = {}): DriverFidelity => ({
  status: 'ok',
  reason: null,
  cell: { cellId: 'x', label: 'node-http', scenario: 'ping', profile: 'quick', nodeMajor: 24, rps: 60_000 },
  connections: 100,
  runS: 3,
  threads: 1,
  reference: 'wrk',
  drivers: [
    { driver: 'autocannon', version: '8.0.0', rps: [60_000, 62_000], fidelity: 0.61 },
    { driver: 'wrk', version: '4.1.0', rps: [100_000, 102_000], fidelity: 1 },
  ],
  runs: [],
  summary: '',
  ...patch,
});

test('the sentence: each driver as a share of the native driver, the bottleneck named; a skip says how to get wrk', () => {
  assert.match(
    describeFidelity(record()),
    /driver fidelity on `node-http` · ping \(quick, 100 connections, 1 client thread\), share of wrk 4\.1\.0's 101,000 req\/s: autocannon 61% \(61,000 req\/s\) — the bottleneck at this load \(medians of 2 × 3 s, ABBA order\)/,
  );
  assert.match(
    describeFidelity(record({ pipelining: 10, cell: { ...record().cell, profile: 'pipelined' } })),
    /on `node-http` · ping \(pipelined, 100 connections, pipelining 10, 1 client thread\)/,
  );
  const fine = record();
  fine.drivers[0]!.fidelity = 0.97;
  assert.doesNotMatch(describeFidelity(fine), /bottleneck/);
  assert.ok(0.97 >= FIDELITY_TARGET);
  assert.match(
    describeFidelity(record({ status: 'skipped', reason: `the native driver wrk is not installed (${WRK_INSTALL})` })),
    /not measured on `node-http` · ping.*apt-get install -y wrk/,
  );
});

async function startNodeHttp() {
  const port = await freePort();
  const child = spawn(process.execPath, [path.join(ROOT, 'contenders', 'node-http', 'server.js')], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: 'ignore',
  });
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/ping`)).ok) break;
    } catch {
      await sleep(50);
    }
  }
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    stop: async () => {
      child.kill('SIGKILL');
    },
  };
}

const fidelityArgs = (starts: { n: number }) => ({
  cell: makeCell({ label: 'node-http', scenario: 'ping', trials: [50_000] }),
  profile: { ...(getProfile('quick') as ConnectionProfile), connections: 20 },
  runS: 1,
  cpus: null,
  threads: 1,
  signal: new AbortController().signal,
  log: () => {},
  start: () => {
    starts.n++;
    return startNodeHttp();
  },
  job: (baseUrl: string) => ({
    url: baseUrl,
    scenario: 'ping',
    scenariosDir,
    params: loadParams(ping),
    request: buildRequest(ping, loadParams(ping)),
    sampleEvery: 50,
  }),
  scenario: ping,
  sharedSchemas: shared,
});

test('a real fidelity measurement: a fresh server, autocannon and wrk in ABBA order, wrk = 1', {
  skip: NO_WRK,
}, async () => {
  const starts = { n: 0 };
  const f = await measureFidelity(fidelityArgs(starts));
  assert.equal(f.status, 'ok', f.reason ?? '');
  assert.equal(starts.n, 1, 'one fresh server');
  assert.deepEqual(
    f.runs.map((r) => r.driver),
    ['autocannon', 'wrk', 'wrk', 'autocannon'],
  );
  assert.ok(
    f.runs.every((r) => r.rps > 500 && r.errors === 0),
    JSON.stringify(f.runs),
  );
  const byName = Object.fromEntries(f.drivers.map((d) => [d.driver, d]));
  assert.equal(byName.wrk!.fidelity, 1);
  assert.equal(byName.wrk!.version, wrk!.version);
  assert.match(byName.autocannon!.version!, /^\d+\.\d+\.\d+$/);
  assert.ok(
    byName.autocannon!.fidelity! > 0.1 && byName.autocannon!.fidelity! < 5,
    String(byName.autocannon!.fidelity),
  );
  assert.equal(byName.autocannon!.rps.length, 2);
  assert.match(f.summary, /share of wrk/);
});

test('a real fidelity measurement at pipelining 10: autocannon and wrk both pipeline, k6 stays out (it cannot)', {
  skip: NO_WRK,
}, async () => {
  const starts = { n: 0 };
  const args = fidelityArgs(starts);
  const f = await measureFidelity({
    ...args,
    profile: { ...(getProfile('pipelined') as ConnectionProfile), connections: 10 },
    drivers: ['autocannon', 'wrk', 'k6'],
  });
  assert.equal(f.status, 'ok', f.reason ?? '');
  assert.equal(f.pipelining, 10);
  assert.deepEqual(
    f.runs.map((r) => r.driver),
    ['autocannon', 'wrk', 'wrk', 'autocannon'],
  );
  assert.ok(
    f.runs.every((r) => r.rps > 500 && r.errors === 0),
    JSON.stringify(f.runs),
  );
  const share = f.drivers.find((d) => d.driver === 'autocannon')!.fidelity!;
  assert.ok(share > 0.1 && share < 5, String(share));
  assert.match(f.summary, /pipelining 10.*share of wrk/);
});

test('without wrk the record is skipped with the install command and no server is started', async () => {
  const saved = process.env.BENCH_WRK;
  process.env.BENCH_WRK = '';
  try {
    const starts = { n: 0 };
    const f = await measureFidelity(fidelityArgs(starts));
    assert.equal(f.status, 'skipped');
    assert.match(f.reason!, /wrk is not installed \(apt-get install -y wrk/);
    assert.equal(starts.n, 0);
    assert.deepEqual(f.runs, []);
  } finally {
    if (saved === undefined) delete process.env.BENCH_WRK;
    else process.env.BENCH_WRK = saved;
  }
});

test('a real run records the fidelity of its drivers in meta.json', { skip: NO_WRK }, async () => {
  const results = tmpDir('fidelity-run');
  const r = await runCli([
    '--results-dir',
    results,
    'bench',
    'node-http',
    '--scenario',
    'ping,json',
    '--profile',
    'quick',
    '--rounds',
    '1',
    '--duration',
    '1',
    '--fidelity',
    '1',
  ]);
  assert.equal(r.code, 0, r.stderr);
  const [meta] = readMetas(results);
  const f = meta.fidelity as DriverFidelity;
  assert.ok(f, `meta.json has no fidelity record: ${Object.keys(meta).join(', ')}`);
  assert.equal(f.status, 'ok', f.reason ?? '');
  assert.equal(f.cell.label, 'node-http');
  assert.equal(f.runS, 1);
  assert.deepEqual(f.drivers.map((d) => d.driver).sort(), ['autocannon', 'wrk']);
  assert.equal(f.drivers.find((d) => d.driver === 'wrk')!.fidelity, 1);
});
