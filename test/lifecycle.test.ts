// The harness lifecycle on real processes: a crash mid-run is recorded and the run goes on; a
// POST that hangs under load shows up as timeouts; Ctrl-C leaves no child process behind and
// keeps finished cells; a busy port names its holder.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { alive, CLI, descendants, FIXTURES, readCells, readMetas, ROOT, runCli, tmpDir } from './helpers.ts';

const fixtureArgs = (results: string) => ['--contenders-dir', FIXTURES, '--results-dir', results];

test('a contender that crashes mid-run is recorded with its log tail, and the run goes on', async () => {
  const results = tmpDir('crash');
  const r = await runCli([...fixtureArgs(results), 'bench', 'crashy', '--profile', 'smoke', '--scenario', 'json,echo']);
  assert.equal(r.code, 0, r.stderr);
  const cells = readCells(results);
  const json = cells.find((c) => c.scenario === 'json');
  const echo = cells.find((c) => c.scenario === 'echo');
  assert.equal(json.status, 'crashed');
  assert.match(json.failure.reason, /exited with code 3 during the load run/);
  assert.match(json.failure.logTail, /fixture crash: giving up after 500 requests/);
  assert.equal(echo.status, 'ok', 'the next cell still ran');
  assert.ok(echo.load.requests.total > 0);
  const board = await runCli([...fixtureArgs(results), 'leaderboard']);
  assert.equal(board.code, 0);
  const md = fs.readFileSync(path.join(results, 'LEADERBOARD.md'), 'utf8');
  assert.match(md, /\*\*critical\*\* · `crashy` · json \(smoke\): \*\*crashed under load\*\*/);
  assert.match(md, /- `crashy`: crashed — server exited with code 3/);
});

test('a POST handler that never answers under load is measured as timeouts and listed in Issues found', async () => {
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
  assert.equal(r.code, 0, r.stderr);
  const cells = readCells(results);
  const post = cells.find((c) => c.scenario === 'post');
  const json = cells.find((c) => c.scenario === 'json');
  assert.equal(post.status, 'ok');
  assert.equal(post.verification.level, 'pass', 'single requests pass: only load exposes the bug');
  assert.ok(post.load.timeouts > 0, `timeouts: ${post.load.timeouts}`);
  assert.ok(post.load.requestsPerSec.mean < json.load.requestsPerSec.mean / 10);
  await runCli([...fixtureArgs(results), 'leaderboard']);
  const md = fs.readFileSync(path.join(results, 'LEADERBOARD.md'), 'utf8');
  assert.match(md, /\*\*critical\*\* · `hanging-post` · post \(smoke\): \*\*errors under load\*\*. \d+ timeouts/);
  assert.doesNotMatch(
    md,
    /\*\*(critical|major)\*\* · `hanging-post` · json/,
    'json is healthy (a client-bound note may appear on 2 cores)',
  );
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
      env: { ...process.env },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let stderr = '';
  child.stderr.on('data', (b) => {
    stderr += b;
  });
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  // Wait until the second cell is under load (the first one finished and was saved).
  const deadline = Date.now() + 60_000;
  while (!/\[2\/2\]/.test(stderr) && Date.now() < deadline) await sleep(100);
  // The server and then the load driver appear under the harness: wait for both (slow CI included).
  let pids = descendants(child.pid!);
  for (let i = 0; i < 200 && pids.length < 2; i++) {
    await sleep(100);
    pids = descendants(child.pid!);
  }
  await sleep(500);
  pids = descendants(child.pid!);
  assert.ok(pids.length >= 2, `expected a server and a load driver under the harness, found ${pids}`);
  child.kill('SIGINT');
  const code = await exited;
  assert.equal(code, 130);
  // Exited children are reaped by init a moment after the harness itself exits.
  for (let i = 0; i < 20 && pids.some(alive); i++) await sleep(100);
  assert.deepEqual(pids.filter(alive), [], 'no child process may outlive the harness');
  const cells = readCells(results);
  assert.deepEqual(
    cells.map((c) => c.scenario),
    ['ping'],
  );
  assert.equal(cells[0].status, 'ok');
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
