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
import { EXIT } from '../../harness/core/exit-codes.ts';
import { alive, CLI, descendants, readCells, ROOT, runCli, TEST_LOCK_FILE, tmpDir } from '../helpers.ts';

const FAULTS = path.join(ROOT, 'test', 'fixtures', 'faults');

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

/**
 * A harness-like process that takes lock `file` with --wait (polling every `pollMs`), prints
 * "took <name>" with the time, holds it `holdMs`, releases it and exits; its log lines go to stdout.
 */
function contender(name: string, file: string, pollMs: number, holdMs: number) {
  const script = `
    import { acquireRunLock } from ${JSON.stringify(path.join(ROOT, 'harness', 'lifecycle', 'lock.ts'))};
    const lock = await acquireRunLock({ runId: ${JSON.stringify(name)}, wait: true, file: ${JSON.stringify(file)},
      pollMs: ${pollMs}, command: [${JSON.stringify(name)}], log: (l) => console.log(l) });
    console.log('took ${name} ' + Date.now());
    await new Promise((r) => setTimeout(r, ${holdMs}));
    lock.release();
  `;
  const p = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', '--input-type=module', '-e', script], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  p.stdout.on('data', (b) => {
    out += b;
  });
  const done = new Promise<void>((r) => p.on('close', () => r()));
  return { out: () => out, done };
}

test('--wait is a queue: three waiters take the lock in arrival order, each told its place in line; a dead waiter is skipped', async () => {
  const dir = tmpDir('queue');
  const file = path.join(dir, 'bench.lock');
  // A ticket of a waiter that died (pid 2^22 + 1 is above pid_max's default) first in line: skipped.
  fs.mkdirSync(`${file}.queue`);
  fs.writeFileSync(path.join(`${file}.queue`, `${'0'.repeat(15)}-4194305`), JSON.stringify({ pid: 4194305 }));
  const holder = contender('holder', file, 50, 2500);
  for (let i = 0; i < 100 && !/took holder/.test(holder.out()); i++) await sleep(50);
  assert.match(holder.out(), /took holder/);
  // Arrival order a, b, c; polling fastest last, so without a queue c (50 ms) would overtake a (600 ms).
  const a = contender('a', file, 1500, 300);
  for (let i = 0; i < 100 && !/waiting for the run lock/.test(a.out()); i++) await sleep(50);
  const b = contender('b', file, 200, 300);
  for (let i = 0; i < 100 && !/waiting for the run lock/.test(b.out()); i++) await sleep(50);
  const c = contender('c', file, 50, 300);
  await Promise.all([holder.done, a.done, b.done, c.done]);
  const took = (x: { out: () => string }) => Number(/took \w+ (\d+)/.exec(x.out())?.[1] ?? Number.NaN);
  const order = [
    ['a', took(a)],
    ['b', took(b)],
    ['c', took(c)],
  ] as const;
  assert.deepEqual(
    [...order].sort((x, y) => x[1] - y[1]).map((x) => x[0]),
    ['a', 'b', 'c'],
    `first come, first served: ${a.out()}\n${b.out()}\n${c.out()}`,
  );
  assert.match(a.out(), /waiting for the run lock: held by pid \d+ \(run holder, `holder`.*; 1st in line/);
  assert.match(b.out(), /; 2nd in line/);
  assert.match(c.out(), /; 3rd in line/);
  assert.match(c.out(), /; 2nd in line/, 'told again as the queue moves');
  assert.deepEqual(fs.readdirSync(`${file}.queue`), [], 'every ticket removed, the dead one too');
  assert.equal(fs.existsSync(file), false, 'the lock released');
});

test('a run without --wait does not overtake the queue: the lock is free but a run waits, so it refuses with exit 2', async () => {
  const { acquireRunLock } = await import('../../harness/lifecycle/lock.ts');
  const { UserError } = await import('../../harness/core/errors.ts');
  const dir = tmpDir('queue-jump');
  const file = path.join(dir, 'bench.lock');
  const { pidStartTime } = await import('../../harness/core/pid.ts');
  const waiter = spawn('sleep', ['30'], { stdio: 'ignore' });
  try {
    fs.mkdirSync(`${file}.queue`);
    const ticket = `${String(Date.now()).padStart(15, '0')}-${waiter.pid}`;
    fs.writeFileSync(
      path.join(`${file}.queue`, ticket),
      JSON.stringify({ pid: waiter.pid, pidStart: pidStartTime(waiter.pid!) }),
    );
    await assert.rejects(
      acquireRunLock({ runId: null, file }),
      (e: Error) => e instanceof UserError && /1 run waits for it already \(--wait\)/.test(e.message),
    );
    assert.equal(fs.existsSync(file), false, 'the free lock was not taken');
  } finally {
    waiter.kill('SIGKILL');
  }
  await sleep(100);
  const lock = await acquireRunLock({ runId: null, file });
  assert.equal(lock.how, 'fresh', 'once the waiter is gone its ticket no longer counts');
  lock.release();
});

test('limits per contender: a server over its memory or task limit fails its cell with the reason; nothing is left', async () => {
  const results = tmpDir('limits');
  const r = await runCli(
    ['--contenders-dir', FAULTS, '--results-dir', results, 'bench', 'hog', '--scenario', 'ping', '--profile', 'smoke'],
    { BENCH_MEMORY_MAX_MIB: '256', BENCH_PIDS_MAX: '64' },
  );
  const cells = new Map(readCells(results).map((c) => [c.label, c]));
  const hog = cells.get('hog');
  const forks = cells.get('hog +forks');
  assert.ok(hog && forks, `two cells: ${r.stderr.slice(-3000)}`);
  assert.equal(hog.status, 'crashed', JSON.stringify(hog.failure));
  assert.match(hog.failure.reason, /^server exceeded its memory limit \(256 MiB[;)]/);
  assert.equal(forks.status, 'crashed', JSON.stringify(forks.failure));
  assert.match(forks.failure.reason, /(exceeded|reached) its process limit \(64 tasks/);
  assert.equal(r.code, EXIT.cellsBroken, 'exit 3: cells that crashed');
  assert.match(r.stderr + r.stdout, /exceeded its memory limit \(256 MiB/, 'the terminal says why');
  // Nothing of either server is left (the `sleep 60` children included).
  const mine = fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .map(Number)
    .filter((p) => {
      try {
        return alive(p) && fs.readFileSync(`/proc/${p}/environ`, 'utf8').includes('HOG_MODE=forks');
      } catch {
        return false;
      }
    });
  assert.deepEqual(mine, [], 'no forked `sleep 60` of the server survives');
});

/**
 * Starts `node -e <script>` with `env`: the script spawns a tracked child with `limits` that goes
 * over one of them, and prints limitBreach(pid) and the child's exit once it is gone.
 */
async function overLimit(
  env: Record<string, string>,
  hog: string,
  limits: object,
): Promise<{ breach: string | null; signal: string | null; ms: number }> {
  const script = `
    import { spawnTracked, limitBreach, stopGroup } from ${JSON.stringify(path.join(ROOT, 'harness', 'lifecycle', 'processes.ts'))};
    const t0 = Date.now();
    const c = spawnTracked(process.execPath, ['-e', ${JSON.stringify(hog)}], { stdio: 'ignore', limits: ${JSON.stringify(limits)} });
    const timer = setTimeout(() => stopGroup(c, 0), 20000);
    c.on('exit', async (code, signal) => {
      clearTimeout(timer);
      const breach = limitBreach(c.pid);
      await stopGroup(c, 0);
      console.log(JSON.stringify({ breach, signal, ms: Date.now() - t0 }));
    });
  `;
  const p = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', '--input-type=module', '-e', script], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  p.stdout.on('data', (b) => {
    out += b;
  });
  await new Promise((r) => p.on('close', r));
  return JSON.parse(out);
}

const MEMORY_HOG = 'const a = []; setInterval(() => a.push(Buffer.alloc(8 * 2 ** 20, 1)), 10);';
const THREAD_HOG =
  "const { Worker } = require('node:worker_threads'); setInterval(() => new Worker('setInterval(() => {}, 1000)', { eval: true }), 20);";

for (const mode of ['cgroup', 'off'])
  test(`limits in spawnTracked (BENCH_CGROUP=${mode}): memory and tasks over the limit stop the child, and limitBreach says which`, async () => {
    const env: Record<string, string> = mode === 'off' ? { BENCH_CGROUP: 'off' } : {};
    const mem = await overLimit(env, MEMORY_HOG, { memoryBytes: 128 * 2 ** 20, pids: 4096 });
    assert.match(mem.breach ?? '', /^exceeded its memory limit \(128 MiB[;)]/, JSON.stringify(mem));
    assert.ok(mem.ms < 15_000, `stopped in ${mem.ms} ms`);
    const tasks = await overLimit(env, THREAD_HOG, { memoryBytes: 2 ** 32, pids: 40 });
    assert.match(tasks.breach ?? '', /(exceeded|reached) its process limit \(40 tasks/, JSON.stringify(tasks));
  });
