// External targets: `bench <contender> --url` skips the lifecycle but still verifies and
// measures, its profile's interleaved rounds as solo rounds; compose-only contenders say how to
// run them; the URL must stay on this machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { freePort } from '../../harness/lifecycle/ports.ts';
import { alive, readCells, ROOT, runCli, tmpDir } from '../helpers.ts';

/** node-http's server.js started on a free port of 127.0.0.1 (not by the harness), once it answers /ping. */
async function startNodeHttp(): Promise<{ port: number; server: ReturnType<typeof spawn> }> {
  const port = await freePort();
  const server = spawn(process.execPath, [path.join(ROOT, 'contenders', 'node-http', 'server.js')], {
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
  return { port, server };
}

test('--url benches a server the harness did not start, and leaves it running', async () => {
  const { port, server } = await startNodeHttp();
  try {
    const results = tmpDir('external');
    const r = await runCli([
      '--results-dir',
      results,
      'bench',
      'node-http',
      '--url',
      `http://127.0.0.1:${port}`,
      '--scenario',
      'json,echo',
      '--profile',
      'smoke',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`external target http://127\\.0\\.0\\.1:${port}`));
    const cells = readCells(results);
    assert.equal(cells.length, 2);
    for (const c of cells) {
      assert.equal(c.status, 'ok');
      assert.deepEqual(c.target, { kind: 'external', url: `http://127.0.0.1:${port}` });
      assert.equal(c.label, 'node-http (external)');
      assert.equal(c.startupMs, null);
      assert.equal(c.verification.level, 'pass');
      assert.ok(c.load.requests.total > 0);
    }
    assert.ok(alive(server.pid!), "the external server is not the harness's to stop");
    await runCli(['--results-dir', results, 'leaderboard']);
    // One smoke trial is not ranked (fewer than 5 trials); the row is still shown, marked external.
    assert.match(fs.readFileSync(path.join(results, 'LEADERBOARD.md'), 'utf8'), /`node-http \(external\)`/);
  } finally {
    server.kill('SIGKILL');
  }
});

test("--url without --rounds: the profile's interleaved rounds run as solo rounds (quick: 2 + 6 = 8)", async () => {
  const { port, server } = await startNodeHttp();
  try {
    const results = tmpDir('external-rounds');
    const r = await runCli([
      '--results-dir',
      results,
      'bench',
      'node-http',
      '--url',
      `http://127.0.0.1:${port}`,
      '--scenario',
      'ping',
      '--profile',
      'quick',
      '--no-fidelity',
    ]);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, /8 rounds × 1 s windows/);
    const [cell, ...rest] = readCells(results);
    assert.equal(rest.length, 0, 'one cell: the external target');
    assert.equal(cell.stats.trials, 8, 'eight solo windows');
    assert.ok(!cell.stats.paired, 'no interleaved round');
  } finally {
    server.kill('SIGKILL');
  }
});

test('a compose-only contender without --url says what to run, without a stack trace', async () => {
  const r = await runCli(['bench', 'hasura']);
  assert.equal(r.code, 2);
  assert.match(
    r.stderr,
    /hasura runs only under Docker Compose .*`npx just compose-up hasura`, then bench it with `npx just bench hasura --url http:\/\/127\.0\.0\.1:<port>`/,
  );
  assert.doesNotMatch(r.stderr, /\n\s+at /);
  const list = await runCli(['list']);
  assert.match(list.stdout, /hasura .* compose-only/);
});

test('--url must point at this machine', async () => {
  const r = await runCli(['bench', 'node-http', '--url', 'http://10.1.2.3:8080']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--url must point at this machine/);
});
