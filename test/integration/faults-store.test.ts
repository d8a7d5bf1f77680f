// Faults of the result store, round two (harness/store/, lifecycle/lock.ts, core/pid.ts, the CLI's
// top-level error handling; docs/faults.md): a hostile meta.json decides nothing (no deletion, no
// crash), a full or read-only results folder is a user error (exit 2, one line, the run not left
// `running`), one liveness check (zombies and reused pids are dead) with the lock record naming
// the run, and `compare` on a run folder without meta.json says so.
//
// The storage tests mount small tmpfs folders and so need root; they are skipped otherwise.
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { descendants, runCli, tmpDir } from '../helpers.ts';
import { makeCell, makeMeta } from '../fixtures.ts';
import { listRuns, openRun, readRun, saveBaseline, sweepAbandoned } from '../../harness/store/runs.ts';
import type { RunMeta } from '../../harness/store/results.ts';
import { readAllResults, writeJsonAtomic } from '../../harness/store/result-files.ts';
import { pidAlive, pidStartTime } from '../../harness/core/pid.ts';
import { acquireRunLock, readLock } from '../../harness/lifecycle/lock.ts';
import { StorageError } from '../../harness/core/errors.ts';

const NOT_ROOT = process.getuid?.() !== 0 ? 'needs root: the storage faults mount small tmpfs folders' : false;

/** No stack frame in the output. */
const noStack = (s: string) => assert.doesNotMatch(s, /\n\s+at /, 'no stack trace');

/** The `error: …` lines of stderr: exactly one, returned. */
function oneErrorLine(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l.startsWith('error:') || l.startsWith('internal error'));
  assert.equal(lines.length, 1, stderr);
  return lines[0] ?? '';
}

/** A one-window smoke bench of node-http into `results` (no baseline, variants or fidelity). */
const benchArgs = (results: string) => [
  '--results-dir',
  results,
  'bench',
  'node-http',
  '--profile',
  'smoke',
  '--scenario',
  'ping',
  '--rounds',
  '1',
  '--no-fidelity',
  '--no-baseline',
  '--no-variants',
];

/** The RunInit of a default meta (fixtures.ts makeMeta). */
function init() {
  const { schemaVersion, runId, startedAt, finishedAt, state, harnessPid, ...rest } = makeMeta();
  return rest;
}

/** Writes `runs/<id>/meta.json` with `patch` over a default meta (fields set to undefined are dropped). */
function plantRun(results: string, id: string, patch: Record<string, unknown>): string {
  const dir = path.join(results, 'runs', id);
  fs.mkdirSync(path.join(dir, 'cells'), { recursive: true });
  writeJsonAtomic(path.join(dir, 'meta.json'), { ...makeMeta({ runId: id }), ...patch });
  return dir;
}

const metaOf = (dir: string) => JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));

/** A scratch folder with a file in it: what a hostile `tempDirs` points at. */
function scratch(): string {
  const d = tmpDir('victim');
  fs.writeFileSync(path.join(d, 'precious.txt'), 'keep me');
  return d;
}

/** The four hostile meta.json variants of the issue, planted in `results`. */
function plantHostile(results: string, victim: string): Record<string, string> {
  const { harnessPid: _p, ...noPid } = makeMeta();
  return {
    paths: plantRun(results, 'run-paths', { ...noPid, runId: 'run-paths', state: 'running', tempDirs: [victim] }),
    five: plantRun(results, 'run-five', { ...noPid, runId: 'run-five', state: 'running', tempDirs: 5 }),
    state7: plantRun(results, 'run-state7', { state: 7 }),
    pidx: plantRun(results, 'run-pidx', { state: 'running', harnessPid: 'x' }),
  };
}

// ---- 1. Nothing read from a results folder decides what gets deleted ----

test('a hostile meta.json deletes nothing and crashes nothing: tempDirs paths and wrong types', () => {
  const results = tmpDir('hostile-unit');
  const victim = scratch();
  const runs = plantHostile(results, victim);
  assert.deepEqual(sweepAbandoned(results).sort(), ['run-five', 'run-paths']);
  assert.equal(fs.readFileSync(path.join(victim, 'precious.txt'), 'utf8'), 'keep me', 'the named folder survives');
  assert.equal(metaOf(runs.paths!).state, 'abandoned');
  assert.equal(metaOf(runs.five!).state, 'abandoned');
  const states = Object.fromEntries(listRuns(results).map((r) => [r.runId, r.state]));
  assert.deepEqual(states, {
    'run-five': 'abandoned',
    'run-paths': 'abandoned',
    'run-pidx': 'unreadable',
    'run-state7': 'unreadable',
  });
  const all = readAllResults(results);
  assert.deepEqual(all.runs.map((r) => r.runId).sort(), ['run-five', 'run-paths']);
  assert.match(all.warnings.join('\n'), /run-state7\/meta\.json: incomplete: state/);
  assert.match(all.warnings.join('\n'), /run-pidx\/meta\.json: incomplete: harnessPid/);
  // Fields the reports read, with wrong types: skipped with a warning, never a crash.
  plantRun(results, 'run-git', { git: 'abc' });
  plantRun(results, 'run-fidelity', { fidelity: { status: 'ok', summary: 5 } });
  plantRun(results, 'run-nodes', { nodes: 'all' });
  const w = readAllResults(results).warnings.join('\n');
  for (const [id, field] of [
    ['run-git', 'git'],
    ['run-fidelity', 'fidelity.summary'],
    ['run-nodes', 'nodes'],
  ])
    assert.match(w, new RegExp(`${id}/meta\\.json: incomplete: ${field!.replace('.', '\\.')}`));
  assert.throws(() => readRun(results, 'run-git'), /cannot be read: .*incomplete: git/);
});

test('bench with hostile meta.json files in its results folder: the named folder survives, the bench runs (exit 0)', async () => {
  const results = tmpDir('hostile-cli');
  const victim = scratch();
  const runs = plantHostile(results, victim);
  const r = await runCli(benchArgs(results));
  assert.equal(r.code, 0, r.stderr);
  noStack(r.stderr);
  assert.equal(fs.readFileSync(path.join(victim, 'precious.txt'), 'utf8'), 'keep me');
  assert.match(r.stderr, /marked 2 run\(s\) left running by a harness that died as abandoned/);
  assert.equal(metaOf(runs.paths!).state, 'abandoned');
  assert.equal(metaOf(runs.five!).state, 'abandoned');
  const done = listRuns(results).filter((x) => x.state === 'complete');
  assert.equal(done.length, 1, 'the new run is complete');
  const board = await runCli(['--results-dir', results, 'leaderboard']);
  assert.equal(board.code, 0, board.stderr);
  assert.match(board.stderr, /warning: skipped .*run-state7\/meta\.json/);
  assert.match(board.stderr, /warning: skipped .*run-pidx\/meta\.json/);
});

test('a lock file with wrong field types neither crashes the harness nor makes a live holder look dead', async (t) => {
  const file = path.join(tmpDir('lock-types'), 'bench.lock');
  const holder = spawn('sleep', ['30'], { stdio: 'ignore' });
  t.after(() => holder.kill('SIGKILL'));
  await new Promise((r) => holder.once('spawn', r));
  fs.writeFileSync(file, JSON.stringify({ pid: holder.pid, pidStart: 5, runId: 7, command: 'bench x', startedAt: {} }));
  const rec = readLock(file);
  assert.ok(typeof rec === 'object', String(rec));
  assert.deepEqual([rec.pidStart, rec.runId, rec.command], ['', null, []]);
  await assert.rejects(
    acquireRunLock({ runId: null, file }),
    (e: Error) => e.name === 'UserError' && new RegExp(`pid ${holder.pid} \\(since an unknown time\\)`).test(e.message),
  );
  fs.writeFileSync(file, JSON.stringify({ pid: 'x' }));
  assert.equal(readLock(file), 'garbled');
});

// ---- 3. One liveness check: zombies and reused pids are dead; the lock names the run ----

/** A zombie: `sh` backgrounds `sleep 0`, then execs `sleep 30`, which never reaps it. */
async function zombie(t: TestContext): Promise<number> {
  const sh = spawn('sh', ['-c', 'sleep 0 & exec sleep 30'], { stdio: 'ignore' });
  t.after(() => sh.kill('SIGKILL'));
  for (let i = 0; i < 100; i++) {
    await sleep(50);
    const z = descendants(sh.pid!).find((p) => {
      try {
        return fs.readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1]![0] === 'Z';
      } catch {
        return false;
      }
    });
    if (z) return z;
  }
  throw new Error('no zombie appeared');
}

test('pidAlive: a zombie is dead, a reused pid (other start time) is dead, this process is alive', async (t) => {
  const z = await zombie(t);
  assert.doesNotThrow(() => process.kill(z, 0), 'kill(0) alone finds the zombie');
  assert.equal(pidAlive(z), false);
  assert.equal(pidAlive(process.pid), true);
  assert.equal(pidAlive(process.pid, pidStartTime(process.pid)), true);
  assert.equal(pidAlive(process.pid, '1'), false, 'another start time: the pid was reused');
  assert.equal(pidAlive(0), false);
  assert.equal(pidAlive(-1), false);
});

test('the store reads a run of a zombie or reused-pid harness as abandoned; the leaderboard reader too', async (t) => {
  const results = tmpDir('liveness');
  const z = await zombie(t);
  plantRun(results, 'run-zombie', { state: 'running', harnessPid: z, harnessPidStart: pidStartTime(z) });
  plantRun(results, 'run-reused', { state: 'running', harnessPid: process.pid, harnessPidStart: '1' });
  plantRun(results, 'run-live', {
    state: 'running',
    harnessPid: process.pid,
    harnessPidStart: pidStartTime(process.pid),
  });
  const states = Object.fromEntries(listRuns(results).map((r) => [r.runId, r.state]));
  assert.deepEqual(states, { 'run-live': 'running', 'run-reused': 'abandoned', 'run-zombie': 'abandoned' });
  const read = Object.fromEntries(readAllResults(results).runs.map((r) => [r.runId, r.state]));
  assert.deepEqual(read, states);
  assert.equal(readRun(results, 'run-zombie').state, 'abandoned');
});

test('openRun records the harness pid start time and writes its run id into the run lock', async () => {
  const results = tmpDir('lock-runid');
  const file = path.join(tmpDir('lock-runid-file'), 'bench.lock');
  const lock = await acquireRunLock({ runId: null, file });
  try {
    assert.equal((readLock(file) as { runId: string | null }).runId, null);
    const w = openRun(results, init(), 'run-locked');
    assert.equal((readLock(file) as { runId: string | null }).runId, 'run-locked');
    assert.equal(w.meta.harnessPidStart, pidStartTime(process.pid));
    assert.equal(metaOf(w.dir).harnessPidStart, pidStartTime(process.pid));
  } finally {
    lock.release();
  }
});

test('a stale lock held by a zombie harness is taken over and its run marked abandoned', async (t) => {
  const results = tmpDir('stale-zombie');
  const file = path.join(tmpDir('stale-zombie-lock'), 'bench.lock');
  const z = await zombie(t);
  const run = plantRun(results, 'run-killed', { state: 'running', harnessPid: z, harnessPidStart: pidStartTime(z) });
  fs.writeFileSync(
    file,
    JSON.stringify({
      pid: z,
      pidStart: pidStartTime(z),
      runId: 'run-killed',
      command: ['bench', 'express'],
      startedAt: new Date().toISOString(),
    }),
  );
  const r = await runCli(benchArgs(results), { BENCH_LOCK_FILE: file });
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, new RegExp(`taking over the run lock left by pid ${z} \\(run run-killed,`));
  assert.equal(metaOf(run).state, 'abandoned');
  assert.equal(fs.existsSync(file), false, 'released at exit');
});

// ---- 4. compare on a run folder without meta.json ----

test('compare on a run folder without meta.json says the folder exists but its meta.json is missing', async () => {
  const results = tmpDir('no-meta');
  const a = openRun(results, init(), 'run-a');
  a.writeCell(makeCell({ cellId: 'x' }));
  a.finish('complete');
  fs.mkdirSync(path.join(results, 'runs', 'run-bare', 'cells'), { recursive: true });
  const r = await runCli(['--results-dir', results, 'compare', 'run-bare', 'run-a']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(oneErrorLine(r.stderr), /run folder .*run-bare exists but has no meta\.json .*delete the folder/);
  assert.doesNotMatch(r.stderr, /no run named 'run-bare'/);
  noStack(r.stderr);
  const other = await runCli(['--results-dir', results, 'compare', 'run-nope', 'run-a']);
  assert.equal(other.code, 2);
  assert.match(
    other.stderr,
    /no run named 'run-nope' .*Known: run-a\n/,
    'the bare folder is not listed as a known run',
  );
});

// ---- 2. A full or read-only results folder is a user error ----

/** A tmpfs of `size` mounted on a fresh folder, unmounted after the test. */
function tmpfs(t: TestContext, size = '200k'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bakeoff-tmpfs-'));
  execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir]);
  t.after(() => {
    execFileSync('umount', ['-l', dir]);
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

/** Fills the file system of `dir` up (a filler file written until ENOSPC); returns the filler. */
function fill(dir: string): string {
  const file = path.join(dir, 'filler');
  const fd = fs.openSync(file, 'a');
  const buf = Buffer.alloc(4096, 1);
  try {
    for (;;) fs.writeSync(fd, buf);
  } catch (e) {
    assert.equal((e as NodeJS.ErrnoException).code, 'ENOSPC');
  } finally {
    fs.closeSync(fd);
  }
  return file;
}

/** A results folder with one complete run (a cell and a trial). */
function completeRun(results: string): RunMeta {
  const w = openRun(results, init(), 'run-done');
  w.writeTrial(makeCell({ cellId: 'x' }), 1);
  w.writeCell(makeCell({ cellId: 'x' }));
  w.finish('complete');
  return w.meta;
}

test('RunWriter on a full disk: StorageError naming the folder, the run marked interrupted, later writes tried only', {
  skip: NOT_ROOT,
}, (t) => {
  const results = tmpfs(t);
  const w = openRun(results, init(), 'run-full');
  fill(results);
  assert.throws(
    () => w.writeTrial(makeCell({ cellId: 'x' }), 1),
    (e: Error) =>
      e instanceof StorageError &&
      e.exitCode === 2 &&
      e.message === `results folder ${results} is full (ENOSPC): free space or pass --results-dir <another folder>`,
  );
  assert.equal(metaOf(w.dir).state, 'interrupted', 'marked interrupted in place');
  assert.doesNotThrow(() => w.updateMeta({ upstreamDelayMs: 1 }), 'the run is failing already');
  w.finish('complete');
  assert.equal(metaOf(w.dir).state, 'interrupted', 'a failed run never becomes complete');
  assert.deepEqual(fs.readdirSync(path.join(w.dir, 'trials')), [], 'no partial trial file');
  // openRun on the full disk: StorageError, and no run folder without meta.json is left.
  assert.throws(() => openRun(results, init(), 'run-none'), StorageError);
  assert.equal(fs.existsSync(path.join(results, 'runs', 'run-none')), false);
});

test('a full results folder: bench, leaderboard, export --out and baseline exit 2 with one line, no stack', {
  skip: NOT_ROOT,
}, async (t) => {
  const results = tmpfs(t);
  completeRun(results);
  fill(results);
  const cases: [string, string[], RegExp][] = [
    ['bench', benchArgs(results), new RegExp(`results folder ${results} is full \\(ENOSPC\\)`)],
    ['leaderboard', ['--results-dir', results, 'leaderboard'], new RegExp(`results folder ${results} is full`)],
    [
      'export',
      ['--results-dir', results, 'export', '--format', 'csv', '--out', path.join(results, 'x.csv')],
      new RegExp(`output folder ${results} is full \\(ENOSPC\\): free space or choose another --out`),
    ],
    ['baseline', ['--results-dir', results, 'baseline', 'main'], new RegExp(`results folder ${results} is full`)],
  ];
  for (const [name, args, re] of cases) {
    const r = await runCli(args);
    assert.equal(r.code, 2, `${name}: ${r.stderr}`);
    assert.match(oneErrorLine(r.stderr), re, name);
    noStack(r.stderr);
  }
  const states = listRuns(results).map((x) => [x.runId, metaOf(x.dir).state]);
  assert.deepEqual(states, [['run-done', 'complete']], 'no new run folder, none left running');
  assert.equal(fs.existsSync(path.join(results, 'baselines', 'main')), false);
  assert.deepEqual(
    fs.readdirSync(path.join(results, 'baselines')).filter((f) => f.includes('tmp')),
    [],
    'no partial baseline copy',
  );
});

test('a results folder that fills up during a bench: exit 2, the run marked interrupted, not running', {
  skip: NOT_ROOT,
}, async (t) => {
  // Two 4 KiB pages: room for meta.json (~1.6 KB), not for the trial file (~5 KB) after it.
  const results = tmpfs(t, '8k');
  const r = await runCli(benchArgs(results));
  assert.equal(r.code, 2, r.stderr);
  assert.match(oneErrorLine(r.stderr), new RegExp(`results folder ${results} is full \\(ENOSPC\\)`));
  noStack(r.stderr);
  const runs = listRuns(results);
  assert.equal(runs.length, 1, 'the run folder exists');
  assert.equal(metaOf(runs[0]!.dir).state, 'interrupted');
  assert.ok(metaOf(runs[0]!.dir).finishedAt, 'with finishedAt');
});

test('a read-only results folder: bench, leaderboard, export --out and baseline exit 2 with one line, no stack', {
  skip: NOT_ROOT,
}, async (t) => {
  const results = tmpfs(t);
  completeRun(results);
  execFileSync('mount', ['-o', 'remount,ro', results]);
  const ro = new RegExp(
    `results folder ${results} is on a read-only file system \\(EROFS\\): remount it read-write or pass --results-dir`,
  );
  const cases: [string, string[], RegExp][] = [
    ['bench', benchArgs(results), ro],
    ['leaderboard', ['--results-dir', results, 'leaderboard'], ro],
    [
      'export',
      ['--results-dir', results, 'export', '--format', 'csv', '--out', path.join(results, 'x.csv')],
      new RegExp(`output folder ${results} is on a read-only file system \\(EROFS\\).*choose another --out`),
    ],
    ['baseline', ['--results-dir', results, 'baseline', 'main'], ro],
  ];
  for (const [name, args, re] of cases) {
    const r = await runCli(args);
    assert.equal(r.code, 2, `${name}: ${r.stderr}`);
    assert.match(oneErrorLine(r.stderr), re, name);
    noStack(r.stderr);
  }
  assert.deepEqual(
    listRuns(results).map((x) => [x.runId, x.state]),
    [['run-done', 'complete']],
  );
  assert.throws(() => saveBaseline(results, 'run-done', 'b'), StorageError);
});

test('a temp folder that is full during a bench: exit 2, one line naming it, the run marked interrupted', {
  skip: NOT_ROOT,
}, async (t) => {
  const tmp = tmpfs(t, '64k');
  const results = fs.mkdtempSync(path.join(os.tmpdir(), 'bakeoff-tmpfull-results-'));
  t.after(() => fs.rmSync(results, { recursive: true, force: true }));
  fill(tmp);
  // The drivers write their scripts and samples to TMPDIR; the lock lives elsewhere.
  const r = await runCli(benchArgs(results), { TMPDIR: tmp });
  assert.equal(r.code, 2, r.stderr);
  assert.match(oneErrorLine(r.stderr), new RegExp(`temp folder ${tmp} is full \\(ENOSPC\\): free space or set TMPDIR`));
  noStack(r.stderr);
  const runs = listRuns(results);
  assert.equal(runs.length, 1, r.stderr);
  assert.equal(metaOf(runs[0]!.dir).state, 'interrupted');
});
