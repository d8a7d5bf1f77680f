// k6 as the second driver and the Node.js version matrix: the k6 script's contract checks
// against a live contender and a broken one (real k6), the summary parser on a saved summary,
// the k6-missing skip path, the engines check, and a run on two Node majors.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { findK6, k6Driver, k6Expectation, k6Executor, parseK6Summary, runK6 } from '../../harness/drivers/k6.ts';
import { buildRequest, loadParams, loadScenarios, loadSharedSchemas } from '../../harness/contract/scenarios.ts';
import type { Profile } from '../../harness/core/profiles.ts';
import { engineProblem } from '../../harness/lifecycle/node-runtime.ts';
import { getProfile } from '../../harness/core/profiles.ts';
import { freePort } from '../../harness/lifecycle/ports.ts';
import { FIXTURES, readCells, ROOT, runCli, tmpDir } from '../helpers.ts';
import { readRun } from '../../harness/store/runs.ts';

const scenariosDir = path.join(ROOT, 'scenarios');
const scenarios = loadScenarios(scenariosDir);
const shared = loadSharedSchemas(scenariosDir);
const k6 = findK6({ build: true });

async function serve(script: string, env: Record<string, string> = {}) {
  const port = await freePort();
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), ...env },
    stdio: 'ignore',
  });
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/ping`)).ok) break;
    } catch {
      await sleep(50);
    }
  }
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGKILL') };
}

async function k6Run(url: string, scenario: string) {
  const s = scenarios.find((x) => x.name === scenario)!;
  const params = loadParams(s);
  return runK6(
    k6.bin!,
    {
      url,
      scenario,
      scenariosDir,
      params,
      request: buildRequest(s, params),
      sampleEvery: 10,
      timeoutS: 5,
      expect: k6Expectation(s, params, shared),
      executor: k6Executor({ ...(getProfile('quick-k6') as any), vus: 5 }, null, 1),
    },
    null,
  );
}

test('the summary parser reads a saved k6 summary (p50/p90/p95/p99/max, non-2xx, body checks)', () => {
  const saved = JSON.parse(
    fs.readFileSync(path.join(ROOT, 'test', 'fixtures', 'k6', 'summary-json-quarter-500.json'), 'utf8'),
  );
  const out = parseK6Summary(saved, 'status 500, expected 200');
  assert.equal(out.driver, 'k6');
  assert.equal(out.requests.total, 12003);
  assert.equal(out.non2xx, 3000);
  assert.deepEqual(out.bodyChecks, { sampled: 12003, mismatched: 3000, firstMismatch: 'status 500, expected 200' });
  assert.ok(out.latencyMs.p99 > 2.3 && out.latencyMs.p99 < 2.32, 'p99 is read, not lost');
  assert.ok(
    out.latencyMs.p50 < out.latencyMs.p90 &&
      out.latencyMs.p90 < out.latencyMs.p95! &&
      out.latencyMs.p95! < out.latencyMs.p99,
  );
  assert.ok(Math.abs(out.requestsPerSec.mean - 11999.5) < 1);
  assert.ok(Math.abs(out.durationS - 1.0003) < 0.001);
});

test('the k6 script passes its checks against a live contender and fails them against a broken one', {
  skip: k6.bin ? false : k6.why,
}, async () => {
  const good = await serve(path.join(ROOT, 'contenders', 'node-http', 'server.js'));
  const bad = await serve(path.join(FIXTURES, 'wrong-content-type', 'server.js'));
  try {
    const ok = await k6Run(good.url, 'json');
    assert.ok(ok.requests.total > 100 && ok.bodyChecks.sampled > 0);
    assert.equal(ok.bodyChecks.mismatched, 0);
    const wrongType = await k6Run(bad.url, 'json');
    assert.equal(wrongType.bodyChecks.mismatched, wrongType.bodyChecks.sampled);
    assert.match(wrongType.bodyChecks.firstMismatch!, /content-type 'text\/html'/);
    const nulls = await k6Run(bad.url, 'fanout');
    assert.ok(nulls.bodyChecks.mismatched > 0);
    assert.match(nulls.bodyChecks.firstMismatch!, /\/data\/0 must be object/);
  } finally {
    good.stop();
    bad.stop();
  }
});

test('a k6 window (LoadDriver): constant-vus runs durationS, the client cores are recorded', {
  skip: k6.bin ? false : k6.why,
}, async () => {
  const good = await serve(path.join(ROOT, 'contenders', 'node-http', 'server.js'));
  try {
    const s = scenarios.find((x) => x.name === 'json')!;
    const params = loadParams(s);
    const p = { ...(getProfile('quick-k6') as Profile), vus: 5 } as Profile;
    const out = await k6Driver.window(
      p,
      { url: good.url, scenario: 'json', scenariosDir, params, request: buildRequest(s, params), sampleEvery: 10 },
      {
        durationS: 1,
        warmup: false,
        cpus: '0',
        threads: 1,
        signal: new AbortController().signal,
        scenario: s,
        sharedSchemas: shared,
      },
    );
    assert.equal(out.driver, 'k6');
    assert.ok(Math.abs(out.durationS - 1) < 0.6, `window ${out.durationS} s`);
    assert.ok(out.requests.total > 100 && out.bodyChecks.sampled > 0 && out.bodyChecks.mismatched === 0);
    assert.deepEqual(out.client, { cores: 1, threads: 1 });
    assert.equal(k6Driver.probe().available, true);
    assert.match(k6Driver.probe().version!, /^\d+\.\d+\.\d+$/);
  } finally {
    good.stop();
  }
});

test('k6 is found in the tool cache outside the clone (BENCH_TOOLS_DIR / ~/.cache/node-http-bakeoff/bin)', {
  skip: k6.bin ? false : k6.why,
}, () => {
  const cache = tmpDir('k6-cache');
  fs.symlinkSync(k6.bin!, path.join(cache, 'k6'));
  const saved = { PATH: process.env.PATH, BENCH_TOOLS_DIR: process.env.BENCH_TOOLS_DIR };
  // PATH without any k6 on it (node and the system tools only).
  process.env.PATH = (process.env.PATH ?? '')
    .split(path.delimiter)
    .filter((d) => !fs.existsSync(path.join(d, 'k6')))
    .join(path.delimiter);
  process.env.BENCH_TOOLS_DIR = cache;
  try {
    assert.deepEqual(findK6({ build: false }), { bin: path.join(cache, 'k6'), why: '' });
  } finally {
    process.env.PATH = saved.PATH;
    if (saved.BENCH_TOOLS_DIR === undefined) delete process.env.BENCH_TOOLS_DIR;
    else process.env.BENCH_TOOLS_DIR = saved.BENCH_TOOLS_DIR;
  }
});

test('a k6 bench records k6 cells in the common result schema', { skip: k6.bin ? false : k6.why }, async () => {
  const results = tmpDir('k6');
  const r = await runCli([
    '--results-dir',
    results,
    'bench',
    'node-http',
    '--profile',
    'quick-k6',
    '--duration',
    '1',
    '--scenario',
    'json,fanout',
  ]);
  assert.equal(r.code, 0, r.stderr);
  const cells = readCells(results);
  assert.equal(cells.length, 2);
  for (const c of cells) {
    assert.equal(c.status, 'ok');
    assert.equal(c.driver, 'k6');
    assert.equal(c.load.profile.executor, 'constant-vus');
    assert.ok(c.load.latencyMs.p99 > 0 && c.load.bodyChecks.sampled > 0 && c.load.bodyChecks.mismatched === 0);
  }
  await runCli(['--results-dir', results, 'leaderboard']);
  assert.match(
    fs.readFileSync(path.join(results, 'LEADERBOARD.md'), 'utf8'),
    /#+ (<a id="[^"]+"><\/a>)?fanout · quick-k6 · k6 · Node 24/,
  );
});

test('without k6 the k6 cells are skipped with instructions and the run still completes', async () => {
  const results = tmpDir('nok6');
  const r = await runCli(
    ['--results-dir', results, 'bench', 'node-http', '--profile', 'quick-k6', '--scenario', 'json'],
    { BENCH_K6: '' },
  );
  assert.equal(r.code, 0, r.stderr);
  const [cell] = readCells(results);
  assert.equal(cell.status, 'skipped');
  assert.match(
    cell.failure.reason,
    /k6 not available: .*install k6 ≥ 1\.8\.1 on PATH, or Go ≥ 1\.25 and run `npx just tools`/,
  );
});

test('the engines check reads the contender and every dependency in the lockfile', () => {
  const dir = tmpDir('engines');
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'future', engines: { node: '>=99' } }));
  assert.equal(engineProblem(dir, 'v24.21.0'), 'future requires node >=99');
  assert.match(
    engineProblem(path.join(ROOT, 'contenders', 'fastify'), 'v20.20.2')!,
    /^undici@8\.\d+\.\d+ requires node >=22/,
  );
  assert.equal(engineProblem(path.join(ROOT, 'contenders', 'fastify'), 'v24.21.0'), null);
});

test('--node runs a contender on several Node majors in one run; an excluded major is marked unsupported, not a crash', async () => {
  const results = tmpDir('matrix');
  const r = await runCli([
    '--results-dir',
    results,
    'bench',
    'node-http',
    '--profile',
    'smoke',
    '--scenario',
    'json',
    '--node',
    '20,22,24',
  ]);
  assert.equal(r.code, 0, r.stderr);
  const cells = readCells(results).sort((a, b) => a.node.major - b.node.major);
  assert.deepEqual(
    cells.map((c) => [c.node.major, c.status]),
    [
      [20, 'unsupported'],
      [22, 'ok'],
      [24, 'ok'],
    ],
  );
  assert.match(cells[0].failure.reason, /unsupported on Node 20: undici@8\.\d+\.\d+ requires node >=22/);
  assert.match(cells[1].node.version, /^v22\./);
  const { meta } = readRun(results, cells[1].runId);
  assert.deepEqual(
    meta.nodes.map((n: { major: number }) => n.major),
    [20, 22, 24],
  );
  await runCli(['--results-dir', results, 'leaderboard']);
  const md = fs.readFileSync(path.join(results, 'LEADERBOARD.md'), 'utf8');
  assert.match(
    md,
    /## Node\.js version matrix\n\n### smoke · autocannon · run `[^`]+`\n\n[^\n]+\n\n\| contender \| scenario \| Node 20 \(% of Node 24\) \| Node 22 \(% of Node 24\) \| Node 24 \(reference\) \|/,
  );
  assert.match(
    md,
    /\| `node-http` \| json \| unsupported on Node 20: undici@8[^|]* \| \d+%( \([^|]+\))? \| 100% · [\d,]+ req\/s \|/,
  );
});
