// The harness lifecycle on real processes: a crash mid-run is recorded and the run goes on (exit
// 3); a POST that hangs is caught by the verifier's concurrency burst (exit 1); Ctrl-C leaves no
// child process behind and keeps finished cells; a busy port names its holder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  alive,
  CLI,
  descendants,
  FIXTURES,
  readCells,
  readMetas,
  ROOT,
  runCli,
  TEST_LOCK_FILE,
  tmpDir,
} from '../helpers.ts';

const fixtureArgs = (results: string) => ['--contenders-dir', FIXTURES, '--results-dir', results];

test('a contender that crashes mid-run is recorded with its log tail, and the run goes on (exit 3)', async () => {
  const results = tmpDir('crash');
  const r = await runCli([...fixtureArgs(results), 'bench', 'crashy', '--profile', 'smoke', '--scenario', 'json,echo']);
  assert.equal(r.code, 3, `a crashed cell exits 3 (core/exit-codes.ts)\n${r.stderr}`);
  const cells = readCells(results);
  const json = cells.find((c) => c.scenario === 'json');
  const echo = cells.find((c) => c.scenario === 'echo');
  assert.equal(json.status, 'crashed', JSON.stringify(json.failure));
  assert.match(json.failure.reason, /exited with code 3/);
  assert.match(json.failure.logTail, /fixture crash: giving up after 3000 requests/);
  assert.equal(echo.status, 'ok', 'the next cell still ran');
  const board = await runCli([...fixtureArgs(results), 'leaderboard']);
  assert.equal(board.code, 0, board.stderr);
  const md = fs.readFileSync(path.join(results, 'LEADERBOARD.md'), 'utf8');
  assert.match(md, /crashy/);
  assert.match(md, /crashed/);
});

test('a POST handler that never answers is caught by the concurrency burst before any load (exit 1)', async () => {
  const results = tmpDir('hang');
  const r = await runCli([
    ...fixtureArgs(results),
    'bench',
    'hanging-post',
    '--profile',
    'smoke',
    '--scenario',
    'json,post',
  ]);
  assert.equal(r.code, 1, `a failed verification exits 1\n${r.stderr}`);
  const cells = readCells(results);
  const post = cells.find((c) => c.scenario === 'post');
  const json = cells.find((c) => c.scenario === 'json');
  assert.equal(post.status, 'verify-failed');
  assert.match(JSON.stringify(post), /concurrency burst \(smoke\): POST \/data: no response within \d+ ms/);
  assert.equal(json.status, 'ok', 'json is healthy and measured');
});

test('SIGINT stops every child process and keeps the finished cells', async () => {
  const results = tmpDir('sigint');
  const child = spawn(
    process.execPath,
    [
      '--disable-warning=ExperimentalWarning',
      CLI,
      ...fixtureArgs(results),
      'bench',
      'crashy',
      '--profile',
      'quick',
      '--scenario',
      'ping,echo',
    ],
    {
      cwd: ROOT,
      env: { ...process.env, BENCH_LOCK_FILE: TEST_LOCK_FILE },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (b) => {
    stderr += b;
  });
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  // Wait until a cell is saved and a load driver runs again (the next window under load).
  const driverRuns = (pids: number[]) =>
    pids.some((p) => {
      try {
        return /autocannon-worker|(^|\/)wrk\0/.test(fs.readFileSync(`/proc/${p}/cmdline`, 'utf8'));
      } catch {
        return false;
      }
    });
  const deadline = Date.now() + 120_000;
  let pids: number[] = [];
  // Seen once is enough: between two windows no driver runs, so a second look could miss it.
  let seen = false;
  while (Date.now() < deadline && !seen) {
    pids = descendants(child.pid!);
    seen = readCells(results).length > 0 && driverRuns(pids);
    if (!seen) await sleep(50);
  }
  assert.ok(readCells(results).length > 0, `a cell was saved before the signal: ${stderr.slice(-2000)}`);
  assert.ok(seen && pids.length >= 2, `a server and a load driver run under the harness: ${pids}`);
  child.kill('SIGINT');
  const code = await exited;
  assert.equal(code, 130);
  // Exited children are reaped by init a moment after the harness itself exits.
  for (let i = 0; i < 20 && pids.some(alive); i++) await sleep(100);
  assert.deepEqual(pids.filter(alive), [], 'no child process may outlive the harness');
  const cells = readCells(results);
  assert.ok(cells.length > 0, 'finished cells stay saved');
  assert.ok(cells.some((c) => c.status === 'ok'));
  assert.equal(readMetas(results)[0].state, 'interrupted');
});

test('a busy port fails with the port and the process holding it', async () => {
  const blocker = net.createServer().listen(0, '127.0.0.1');
  await new Promise((r) => blocker.once('listening', r));
  const port = (blocker.address() as net.AddressInfo).port;
  try {
    const results = tmpDir('port');
    const r = await runCli([
      ...fixtureArgs(results),
      'bench',
      'crashy',
      '--profile',
      'smoke',
      '--scenario',
      'ping',
      '--port',
      String(port),
    ]);
    assert.equal(r.code, 2);
    assert.match(r.stderr, new RegExp(`port ${port} on 127.0.0.1 is already in use by pid ${process.pid} \\(`));
    assert.doesNotMatch(r.stderr, /\n\s+at /);
  } finally {
    blocker.close();
  }
});
