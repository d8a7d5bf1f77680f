/**
 * Interleaved rounds (harness/scheduler/interleave.ts): the slice order, the pause gate on real
 * processes, and a real bench (real servers, real wrk) whose paired ratio recovers a planted CPU
 * cost per request.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { SliceGate, sliceOrder } from '../../harness/scheduler/interleave.ts';
import type { Entry } from '../../harness/scheduler/scheduler-types.ts';
import { findWrk } from '../../harness/drivers/wrk.ts';
import { readRunAt } from '../helpers.ts';
import { listRuns } from '../../harness/store/runs.ts';
import { buildTables } from '../../harness/analysis/tables.ts';
import { loadFailure, pausedFailures } from '../../harness/scheduler/aggregate.ts';
import type { CellResult } from '../../harness/store/results.ts';
import { ROOT, runCli, tmpDir } from '../helpers.ts';

/** The state letter of /proc/<pid>/stat (R, S, T = stopped, …). */
function state(pid: number): string {
  const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return s.slice(s.lastIndexOf(')') + 2).split(' ')[0] ?? '?';
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('slice order: every cycle has every server once, seeded, never the same server twice in a row', () => {
  const items = ['a', 'b', 'c', 'd'];
  const o = sliceOrder(items, 40, 7);
  assert.equal(o.length, 40);
  for (let i = 0; i < 40; i += 4) assert.deepEqual(o.slice(i, i + 4).sort(), items, `cycle ${i / 4}`);
  for (let i = 1; i < o.length; i++) assert.notEqual(o[i], o[i - 1], `slice ${i} repeats its predecessor`);
  assert.deepEqual(sliceOrder(items, 40, 7), o, 'same seed, same order');
  assert.notDeepEqual(sliceOrder(items, 40, 8), o, 'another seed, another order');
});

test('the gate pauses every server but the active one (SIGSTOP to real process groups) and resumes them all', async () => {
  const spawnKid = () =>
    spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { detached: true, stdio: 'ignore' });
  const kids = [spawnKid(), spawnKid(), spawnKid()];
  const stopped = () => kids.map((k) => state(k.pid as number) === 'T');
  try {
    const entries = kids.map((_, i) => ({ id: `e${i}` }) as unknown as Entry);
    const e = (i: number) => entries[i] as Entry;
    let clock = 0;
    const gate = new SliceGate(() => clock);
    gate.switchTo(e(0));
    for (const [i, k] of kids.entries()) gate.register(e(i), k.pid as number);
    await sleep(100);
    assert.deepEqual(stopped(), [false, true, true], 'a process starts paused unless its entry has the slice');
    clock = 100;
    gate.switchTo(e(1));
    await sleep(100);
    assert.deepEqual(stopped(), [true, false, true], 'only the active one runs');
    clock = 250;
    gate.switchTo(e(2));
    await sleep(100);
    assert.deepEqual(stopped(), [true, true, false]);
    clock = 300;
    gate.switchTo(e(0));
    clock = 400;
    gate.resumeAll();
    await sleep(100);
    assert.deepEqual(stopped(), [false, false, false], 'all resumed');
    assert.deepEqual(
      entries.map((x) => gate.activeMs.get(x)),
      [200, 150, 50],
      'unpaused time per entry',
    );
  } finally {
    for (const k of kids) {
      try {
        process.kill(-(k.pid as number), 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }
});

/**
 * A contenders folder with node-http (the json baseline) and the self-test fixture with a variant
 * that burns `burnUs` µs of CPU per /json request.
 */
function contenders(burnUs: number): string {
  const dir = tmpDir('interleave-contenders');
  // node-http imports undici: resolve it from the repository's node_modules.
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
  fs.cpSync(path.join(ROOT, 'contenders', 'node-http'), path.join(dir, 'node-http'), { recursive: true });
  const fixture = path.join(dir, 'selftest-burn');
  fs.cpSync(path.join(ROOT, 'contenders', '_selftest', 'selftest-burn'), fixture, { recursive: true });
  const m = JSON.parse(fs.readFileSync(path.join(fixture, 'contender.json'), 'utf8'));
  m.variants = {
    copy: { description: 'an identical copy', env: {} },
    slow: { description: 'burns CPU per request', env: { BURN_US_JSON: String(burnUs) } },
  };
  fs.writeFileSync(path.join(fixture, 'contender.json'), JSON.stringify(m));
  return dir;
}

test('a real interleaved bench (wrk): identical copies come out equal, a planted CPU cost per request comes out slower', {
  skip: findWrk() ? false : 'wrk is not installed (apt-get install -y wrk)',
}, async () => {
  const results = tmpDir('interleave-results');
  const r = await runCli([
    'bench',
    'selftest-burn',
    '--scenario',
    'json',
    '--rounds',
    '1',
    '--no-fidelity',
    '--results-dir',
    results,
    '--contenders-dir',
    contenders(40),
  ]);
  assert.equal(r.code, 0, `exit ${r.code}: ${r.stderr.slice(-3000)}`);
  const [info] = listRuns(results);
  assert.ok(info, 'one run');
  const run = readRunAt(info.dir);
  assert.equal(run.cells.length, 4, 'node-http, the fixture, its copy and its slow variant');
  for (const c of run.cells)
    assert.equal(c.stats?.paired?.efficiency.length, 6, `${c.label}: the quick profile's six interleaved rounds`);
  const paired = run.trials.filter((t) => t.paired);
  assert.equal(paired.length, 24, 'six interleaved rounds × four servers');
  for (const t of paired) assert.equal(t.paired?.servers, 4);
  // Each server ran unpaused for about a quarter of its round (slices are shuffled, timers late
  // on a busy host): never most of it, as it would if the pauses did not hold.
  for (let round = 1; round <= 6; round++) {
    const these = paired.filter((t) => t.round === round);
    const total = these.reduce((a, t) => a + (t.paired?.activeS ?? 0), 0);
    for (const t of these) {
      const share = (t.paired?.activeS ?? 0) / total;
      assert.ok(
        share > 0.1 && share < 0.45,
        `${t.label}, round ${round}: ${(100 * share).toFixed(0)}% of the round unpaused`,
      );
    }
  }
  const [t] = buildTables([{ meta: run.meta, cells: run.cells }], {});
  assert.ok(t?.model, 'ranked by the table model');
  const ratio = (label: string) => t.rows.find((x) => x.label === label)?.vsBaseline?.figure ?? Number.NaN;
  const copies = ratio('selftest-burn +copy') / ratio('selftest-burn');
  assert.ok(copies > 0.85 && copies < 1 / 0.85, `identical copies differ: ${copies.toFixed(3)}`);
  const slow = t.rows.find((x) => x.label === 'selftest-burn +slow');
  assert.equal(slow?.rankRange?.worst, 4, 'the slowed copy is last');
  assert.ok(ratio('selftest-burn +slow') < 0.8 * ratio('selftest-burn'));
  // The solo windows still give requests/s and latency; the paired trials keep no latency.
  for (const x of run.cells) assert.ok(x.stats?.latencyMs && x.stats.latencyMs.p99 > 0);
  for (const x of paired) assert.equal(x.load?.latencyHistogramUs, null);
});

test('failed requests in an interleaved round are the pause, not the contender: only the solo rounds and 2xx wrong bodies fail a cell', () => {
  const trial = (
    paired: boolean,
    over: Partial<{ timeouts: number; errors: number; non2xx: number; mismatched: number; mismatchedNon2xx: number }>,
  ) =>
    ({
      status: 'ok',
      round: 1,
      load: {
        requests: { total: 10_000, sent: 10_000 },
        errors: over.errors ?? 0,
        timeouts: over.timeouts ?? 0,
        non2xx: over.non2xx ?? 0,
        bodyChecks: { sampled: 100, mismatched: over.mismatched ?? 0, mismatchedNon2xx: over.mismatchedNon2xx ?? 0 },
      },
      ...(paired
        ? { paired: { efficiency: 1, requests: 10_000, serverCpuS: 1, activeS: 1, servers: 13, sliceMs: 100 } }
        : {}),
    }) as unknown as CellResult;
  assert.equal(loadFailure([trial(false, {}), trial(true, { timeouts: 90 })]), null);
  assert.equal(loadFailure([trial(false, {}), trial(true, { errors: 900 })]), null);
  assert.equal(loadFailure([trial(false, {}), trial(true, { non2xx: 900, mismatched: 9, mismatchedNon2xx: 9 })]), null);
  assert.deepEqual(pausedFailures([trial(false, {}), trial(true, { errors: 900, non2xx: 100 })]), {
    failed: 1000,
    requests: 10_900,
  });
  assert.equal(pausedFailures([trial(false, { errors: 5 }), trial(true, {})]), null);
  assert.match(loadFailure([trial(false, { timeouts: 90 }), trial(true, {})]) ?? '', /failed under load/);
  assert.match(loadFailure([trial(false, { errors: 90 }), trial(true, {})]) ?? '', /failed under load/);
  assert.match(
    loadFailure([trial(false, {}), trial(true, { mismatched: 3, mismatchedNon2xx: 1 })]) ?? '',
    /2 of 200 checked bodies broke the contract/,
  );
});

/** The faults fixtures pause-sensitive (with an identical copy as a variant) and late-wrong, in a temporary contenders folder. */
function pauseContenders(): string {
  const dir = tmpDir('pause-contenders');
  for (const name of ['pause-sensitive', 'late-wrong'])
    fs.cpSync(path.join(ROOT, 'test', 'fixtures', 'faults', name), path.join(dir, name), { recursive: true });
  const file = path.join(dir, 'pause-sensitive', 'contender.json');
  const m = JSON.parse(fs.readFileSync(file, 'utf8'));
  m.variants = { copy: { description: 'an identical copy', env: {} } };
  fs.writeFileSync(file, JSON.stringify(m));
  return dir;
}

for (const driver of ['wrk', 'autocannon'] as const)
  test(`the pause fails no healthy stack (${driver}): a server that fails only when paused is ranked, a wrong one still fails`, {
    skip: driver === 'wrk' && !findWrk() ? 'wrk is not installed (apt-get install -y wrk)' : false,
  }, async () => {
    const results = tmpDir(`pause-${driver}`);
    const r = await runCli([
      'bench',
      'pause-sensitive',
      'late-wrong',
      '--scenario',
      'ping',
      '--driver',
      driver,
      '--no-baseline',
      '--no-fidelity',
      '--results-dir',
      results,
      '--contenders-dir',
      pauseContenders(),
    ]);
    assert.equal(r.code, 1, `exit 1 (late-wrong failed under load): ${r.stderr.slice(-3000)}`);
    const [info] = listRuns(results);
    assert.ok(info, 'one run');
    const run = readRunAt(info.dir);
    const cell = (label: string) => run.cells.find((c) => c.label === label);
    assert.equal(cell('late-wrong')?.status, 'load-failed', JSON.stringify(cell('late-wrong')?.failure));
    let pausedFailed = 0;
    for (const label of ['pause-sensitive', 'pause-sensitive +copy']) {
      const c = cell(label);
      assert.equal(c?.status, 'ok', `${label}: ${JSON.stringify(c?.failure)}`);
      assert.equal(c?.stats?.paired?.efficiency.length, 6, `${label}: ranked from its interleaved rounds`);
      const mine = run.trials.filter((t) => t.label === label);
      for (const t of mine.filter((x) => !x.paired))
        assert.equal((t.load?.errors ?? 0) + (t.load?.non2xx ?? 0), 0, `${label}: a solo round failed requests`);
      const failed = mine
        .filter((x) => x.paired)
        .reduce((a, t) => a + (t.load ? t.load.errors + t.load.timeouts + t.load.non2xx : 0), 0);
      assert.equal(c?.pausedFailures?.failed ?? 0, failed, `${label}: the cell records its paused failures`);
      pausedFailed += failed;
    }
    // The test shows something only if the pauses did make requests fail.
    assert.ok(pausedFailed > 0, 'no request failed in the interleaved rounds: the fixture was never caught paused');
  });
