/**
 * Faults, round three (services, limits, the queue) on real processes: the upstream mock killed
 * mid-window is blamed as a lost service, never on the contender; a contender over its memory or
 * process limit is a clear cell failure; `--wait` is a queue in arrival order. Fixtures in
 * test/fixtures/faults/ (`hog`).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { EXIT } from '../harness/core/exit-codes.ts';
import { CLI, descendants, readCells, ROOT, TEST_LOCK_FILE, tmpDir } from './helpers.ts';

/** The command line of `pid` ('' when gone). */
function cmdline(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

test('the upstream mock killed mid-window: the cell is servicesLost upstream, not load-failed, not ranked, and the run exits 0', async () => {
  const results = tmpDir('upstream-lost');
  const h = spawn(
    process.execPath,
    [
      '--disable-warning=ExperimentalWarning',
      CLI,
      '--results-dir',
      results,
      'bench',
      'node-http',
      '--scenario',
      'fanout',
      '--profile',
      'smoke',
      '--duration',
      '3',
      '--no-baseline',
    ],
    { cwd: ROOT, env: { ...process.env, BENCH_LOCK_FILE: TEST_LOCK_FILE }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  h.stdout.on('data', (b) => {
    out += b;
  });
  h.stderr.on('data', (b) => {
    out += b;
  });
  const code = new Promise<number | null>((r) => h.on('close', (c) => r(c)));
  // The mock's pid from the run log, then the measured window (smoke: no warm-up, so the first driver is it).
  let mock = 0;
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    mock ||= Number(/upstream mock: \S+ \(pid (\d+)/.exec(out)?.[1] ?? 0);
    if (mock && descendants(h.pid!).some((p) => /autocannon-worker/.test(cmdline(p)))) break;
    await sleep(50);
  }
  assert.ok(mock > 0, `the run names the upstream mock's pid: ${out.slice(-2000)}`);
  assert.match(cmdline(mock), /upstream-mock\.ts/, 'that pid is the mock');
  await sleep(800); // mid-window: the first second of load went through the mock
  process.kill(mock, 'SIGKILL');
  assert.equal(await code, EXIT.ok, `a lost service is not the contender's failure: ${out.slice(-3000)}`);
  const [cell] = readCells(results);
  assert.ok(cell, out.slice(-2000));
  assert.deepEqual(cell.servicesLost, ['upstream'], JSON.stringify(cell).slice(0, 2000));
  assert.equal(cell.status, 'ok', 'not load-failed');
  assert.ok(cell.load.non2xx + cell.load.errors + cell.load.timeouts > 0, 'the window saw the failed fan-out');
  assert.match(out, /lost: upstream/, 'the terminal names the lost service');
  assert.doesNotMatch(out, /LOAD-FAILED/);
});
