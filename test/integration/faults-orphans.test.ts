// The fault matrix, round two, on real processes: no orphans at all (a server's detached or
// double-forked setsid child dies at stop, after verify, after a bench, after SIGKILL of the
// harness, in the cgroup mode and in the environment-token fallback; stale cgroups are swept),
// loopback re-checked after every window (a late 0.0.0.0 listener fails the cell), SIGTERM to
// `npx just bench …` stops the run, and DATABASE_URL reaches only servers that are handed it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { alive, CLI, descendants, readCells, readMetas, ROOT, runCli, tmpDir } from '../helpers.ts';
import { EXIT } from '../../harness/core/exit-codes.ts';
import { loadManifest } from '../../harness/core/manifest.ts';
import { freePort } from '../../harness/lifecycle/ports.ts';
import { v1Parents } from '../../harness/lifecycle/cgroups.ts';
import { cgroupParent, containmentInfo, sweepStaleCgroups } from '../../harness/lifecycle/processes.ts';
import { startServer } from '../../harness/lifecycle/server.ts';

const FAULTS = path.join(ROOT, 'test', 'fixtures', 'faults');
const SCENARIOS = ['ping', 'json'];
/** The machine's npx (npm's; README: `npx just …`), run with node_modules/.bin first on PATH. */
const NPX = 'npx';

/** One temp folder for this file (removed at exit); `sub(name)` makes a fresh folder in it. */
const TMP = tmpDir('faults-orphans');
let subs = 0;
function sub(name: string): string {
  const dir = path.join(TMP, `${name}-${++subs}`);
  fs.mkdirSync(dir, { mode: 0o1777 });
  return dir;
}

function cmdline(pid: number | string): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
  } catch {
    return '';
  }
}

/** Live processes of the `detached` fixture started under TMPDIR `tmp` (their argv carries it). */
function orphansOf(tmp: string): string[] {
  const mark = `bakeoff-orphan-fixture:${tmp}`;
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d) && alive(Number(d)) && cmdline(d).includes(mark))
    .map((d) => `${d} ${cmdline(d).slice(0, 100)}`);
}

/** The pids the fixture's orphans recorded (TMPDIR/orphan-<pid>): proof that they existed. */
function orphanRecords(tmp: string): number[] {
  return fs
    .readdirSync(tmp)
    .filter((f) => /^orphan-\d+$/.test(f))
    .map((f) => Number(f.slice(7)));
}

/** Polls (≤ 3 s) until no orphan of `tmp` is alive; returns those still alive. */
async function leftovers(tmp: string): Promise<string[]> {
  for (let i = 0; i < 30 && orphansOf(tmp).length; i++) await sleep(100);
  return orphansOf(tmp);
}

/** This harness's cgroup folders (bakeoff-<pid>-<ticks>) for pid `pid`, when cgroups are in use. */
function cgroupsOf(pid: number): string[] {
  const parent = cgroupParent();
  if (!parent || !fs.existsSync(parent)) return [];
  return fs.readdirSync(parent).filter((d) => d.startsWith(`bakeoff-${pid}-`));
}

/** The v1 folders `bakeoff-<pid>-*` of harness `pid`, in every v1 hierarchy mounted here (absolute paths). */
function v1CgroupsOf(pid: number): string[] {
  return Object.values(v1Parents()).flatMap((parent) =>
    fs.existsSync(parent)
      ? fs
          .readdirSync(parent)
          .filter((d) => d.startsWith(`bakeoff-${pid}-`))
          .map((d) => path.join(parent, d))
      : [],
  );
}

const CGROUPS = containmentInfo().kind === 'cgroup';
/** A load driver's command line (autocannon's worker, wrk or k6: whichever the profile resolved to). */
// A load window's driver (not `wrk -v`, the version probe before a run).
const DRIVER = /autocannon-worker|(^|\/)wrk (?!-v\s*$)|(^|\/)k6 /;

for (const mode of ['cgroup', 'environ'] as const) {
  test(`no orphans (${mode}): a server's detached and setsid double-forked children die after verify`, {
    skip: mode === 'cgroup' && !CGROUPS ? 'no writable cgroup2 here (not root, or no cgroup2 mount)' : false,
  }, async () => {
    const tmp = sub(`orphans-verify-${mode}`);
    const r = await runCli(['--contenders-dir', FAULTS, 'verify', 'detached'], {
      TMPDIR: tmp,
      ...(mode === 'environ' ? { BENCH_CGROUP: 'off' } : {}),
    });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, /detached \+setsid \(started in \d+ ms\)/);
    const made = orphanRecords(tmp);
    assert.ok(made.length >= 4, `the fixture left 2 detached and 2 setsid orphans (2 scenarios): ${made}`);
    assert.deepEqual(await leftovers(tmp), [], 'no orphan outlives verify');
    assert.deepEqual(made.filter(alive), []);
  });
}

test('no orphans: after `bench --profile smoke --scenario ping` nothing of the contender is left', async () => {
  const tmp = sub('orphans-bench');
  const results = sub('orphans-bench-results');
  const r = await runCli(
    [
      '--contenders-dir',
      FAULTS,
      '--results-dir',
      results,
      'bench',
      'detached',
      '--scenario',
      'ping',
      '--profile',
      'smoke',
    ],
    { TMPDIR: tmp },
  );
  assert.equal(r.code, 0, r.stderr);
  const cells = readCells(results);
  assert.equal(cells.length, 2, 'detached and detached +setsid');
  for (const c of cells) assert.equal(c.status, 'ok', JSON.stringify(c.failure));
  assert.ok(orphanRecords(tmp).length >= 2, 'the fixture left its orphans');
  assert.deepEqual(await leftovers(tmp), [], 'no orphan outlives the bench');
});

for (const mode of ['cgroup', 'environ'] as const)
  test(`no orphans (${mode}): SIGKILL of the harness mid-bench takes the detached and setsid children with it${mode === 'cgroup' ? '; the cgroup folder goes too' : ''}`, {
    skip: mode === 'cgroup' && !CGROUPS ? 'no writable cgroup2 here' : false,
  }, async () => {
    const tmp = sub(`orphans-sigkill-${mode}`);
    const results = sub('orphans-sigkill-results');
    const h = spawn(
      process.execPath,
      [
        '--disable-warning=ExperimentalWarning',
        CLI,
        '--contenders-dir',
        FAULTS,
        '--results-dir',
        results,
        'bench',
        'detached',
        '--scenario',
        'ping',
        '--profile',
        'quick',
      ],
      {
        cwd: ROOT,
        env: {
          ...process.env,
          TMPDIR: tmp,
          BENCH_LOCK_FILE: '',
          ...(mode === 'environ' ? { BENCH_CGROUP: 'off' } : {}),
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    h.stderr.on('data', (b) => {
      stderr += b;
    });
    const exited = new Promise<NodeJS.Signals | null>((r) => h.on('close', (_c, sig) => r(sig)));
    const driver = () => descendants(h.pid!).some((p) => DRIVER.test(cmdline(p)));
    const deadline = Date.now() + 90_000;
    // Seen once is enough: between two windows no driver runs, so a second look could miss it.
    let seen = false;
    while (Date.now() < deadline && !seen) {
      seen = driver() && orphansOf(tmp).length >= 2;
      if (!seen) await sleep(50);
    }
    assert.ok(seen, `a load driver runs beside both servers' orphans: ${stderr.slice(-2000)}`);
    const before = orphansOf(tmp);
    assert.ok(before.length >= 2, `both servers left an orphan outside their process group: ${before}`);
    const pids = descendants(h.pid!);
    assert.equal(cgroupsOf(h.pid!).length, mode === 'cgroup' ? 1 : 0, 'a cgroup folder in the cgroup mode only');
    h.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL');
    assert.deepEqual(await leftovers(tmp), [], 'no orphan outlives the SIGKILLed harness');
    for (let i = 0; i < 50 && pids.some(alive); i++) await sleep(100);
    assert.deepEqual(
      pids.filter(alive).map((p) => `${p} ${cmdline(p)}`),
      [],
      'no child of the killed harness remains',
    );
    for (let i = 0; i < 50 && (cgroupsOf(h.pid!).length || v1CgroupsOf(h.pid!).length); i++) await sleep(100);
    assert.deepEqual(cgroupsOf(h.pid!), [], 'the watchdog removed the cgroup folder');
    assert.deepEqual(v1CgroupsOf(h.pid!), [], 'and its cgroup v1 folders');
  });

test('stale cgroups: a bakeoff-<pid>-<ticks> folder of a dead harness is killed and removed, a live one is kept', {
  skip: CGROUPS ? false : 'no writable cgroup2 here',
}, async () => {
  const parent = cgroupParent()!;
  const dead = Number(spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim());
  const stale = path.join(parent, `bakeoff-${dead}-1`);
  // This test process's own folder (containmentInfo() made it): a live harness's folder.
  const kept = containmentInfo().dir!;
  fs.mkdirSync(path.join(stale, 'c1'), { recursive: true });
  // A process left in the stale cgroup, in a session of its own (a detached daemon).
  const sleeper = spawn('sh', ['-c', `echo $$ > ${path.join(stale, 'c1', 'cgroup.procs')}; exec sleep 300`], {
    detached: true,
    stdio: 'ignore',
  });
  sleeper.unref();
  try {
    for (let i = 0; i < 50 && !fs.readFileSync(path.join(stale, 'c1', 'cgroup.procs'), 'utf8').trim(); i++)
      await sleep(20);
    assert.equal(fs.readFileSync(path.join(stale, 'c1', 'cgroup.procs'), 'utf8').trim(), String(sleeper.pid));
    const removed = sweepStaleCgroups();
    assert.ok(removed.includes(stale), `removed: ${removed}`);
    assert.ok(!removed.includes(kept), 'a live harness keeps its folder');
    assert.equal(fs.existsSync(stale), false);
    assert.equal(fs.existsSync(kept), true);
    for (let i = 0; i < 20 && alive(sleeper.pid!); i++) await sleep(50);
    assert.equal(alive(sleeper.pid!), false, 'the process in the stale cgroup was killed');
  } finally {
    try {
      process.kill(sleeper.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
});

test('stale cgroups v1: the frozen freezer folder of a dead harness is thawed, killed and removed', {
  skip: v1Parents().freezer ? false : 'no cgroup v1 freezer here',
}, async () => {
  const parent = v1Parents().freezer!;
  const dead = Number(spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim());
  const stale = path.join(parent, `bakeoff-${dead}-1`);
  fs.mkdirSync(path.join(stale, 'c1'), { recursive: true });
  const procs = path.join(stale, 'c1', 'cgroup.procs');
  const sleeper = spawn('sh', ['-c', `echo $$ > ${procs}; exec sleep 300`], { detached: true, stdio: 'ignore' });
  sleeper.unref();
  try {
    for (let i = 0; i < 50 && !fs.readFileSync(procs, 'utf8').trim(); i++) await sleep(20);
    // Frozen, as a harness that died mid-round leaves a paused server: SIGKILL alone would not land.
    fs.writeFileSync(path.join(stale, 'c1', 'freezer.state'), 'FROZEN');
    const removed = sweepStaleCgroups();
    assert.ok(removed.includes(stale), `removed: ${removed}`);
    assert.equal(fs.existsSync(stale), false);
    for (let i = 0; i < 20 && alive(sleeper.pid!); i++) await sleep(50);
    assert.equal(alive(sleeper.pid!), false, 'the frozen process in the stale cgroup was killed');
  } finally {
    try {
      process.kill(sleeper.pid!, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
});

test('loopback, continuously: a server that opens a 0.0.0.0 listener after its start check fails the cell after that window (exit 3)', async () => {
  const results = sub('late-listener');
  const r = await runCli(
    [
      '--contenders-dir',
      FAULTS,
      '--results-dir',
      results,
      'bench',
      'late-listener',
      '--scenario',
      'ping',
      '--profile',
      'smoke',
    ],
    { DATABASE_URL: 'postgres://must-not-leak@127.0.0.1:9/x' },
  );
  const cells = readCells(results);
  assert.equal(cells.length, 1, r.stderr);
  const c = cells[0];
  assert.equal(c.status, 'error', JSON.stringify(c));
  assert.match(
    c.failure.reason,
    /^server listens off loopback on 0\.0\.0\.0:\d+ \(pid \d+\) since round 1; the harness allows only 127\.0\.0\.1 and ::1/,
  );
  assert.notEqual(r.code, 0);
  assert.equal(r.code, EXIT.cellsBroken, r.stderr);
  // The contender declares no database: the harness's own DATABASE_URL never reaches it.
  const logs = path.join(results, 'runs', c.runId, 'logs');
  const log = fs
    .readdirSync(logs)
    .map((f) => fs.readFileSync(path.join(logs, f), 'utf8'))
    .join('\n');
  assert.match(log, /^DATABASE_URL=\(unset\)$/m);
  assert.match(log, /late listener on 0\.0\.0\.0 at request 2300/);
});

test('DATABASE_URL: a server gets it only when the caller hands it over, never from the harness environment', async () => {
  const m = loadManifest(path.join(FAULTS, 'late-listener'), SCENARIOS);
  const saved = process.env.DATABASE_URL;
  process.env.DATABASE_URL = 'postgres://from-the-harness-env@127.0.0.1:9/x';
  try {
    for (const env of [{}, { DATABASE_URL: 'postgres://handed@127.0.0.1:9/db' }] as Record<string, string>[]) {
      const logFile = path.join(sub('dburl'), 'server.log');
      const s = await startServer(m, {
        host: '127.0.0.1',
        port: await freePort(),
        upstreamUrl: 'http://127.0.0.1:9',
        env,
        cpus: null,
        logFile,
        nodePath: process.execPath,
      });
      await s.stop();
      const first = fs.readFileSync(logFile, 'utf8').split('\n')[0];
      assert.equal(first, `DATABASE_URL=${env.DATABASE_URL ?? '(unset)'}`);
    }
  } finally {
    if (saved === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved;
  }
});

test('SIGTERM to `npx just bench …` (a CI cancel) stops the harness: run interrupted, lock released, nothing left', async () => {
  const tmp = sub('sigterm-npx');
  const results = sub('sigterm-npx-results');
  const lock = path.join(tmp, 'run.lock');
  const npx = spawn(NPX, ['just', 'bench', 'detached', '--scenario', 'ping', '--profile', 'quick'], {
    cwd: ROOT,
    env: {
      ...process.env,
      PATH: `${path.join(ROOT, 'node_modules', '.bin')}:${process.env.PATH}`,
      TMPDIR: tmp,
      BENCH_LOCK_FILE: lock,
      BENCH_CONTENDERS_DIR: FAULTS,
      BENCH_RESULTS_DIR: results,
    },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  npx.stderr.on('data', (b) => {
    stderr += b;
  });
  const harness = () => descendants(npx.pid!).find((p) => /harness\/cli\.ts bench detached/.test(cmdline(p)));
  const driver = (h: number) => descendants(h).some((p) => DRIVER.test(cmdline(p)));
  const deadline = Date.now() + 90_000;
  let h: number | undefined;
  // Seen once is enough: between two windows no driver runs, so a second look could miss it.
  let seen = false;
  while (Date.now() < deadline && !seen) {
    h = harness();
    seen = Boolean(h && driver(h));
    if (!seen) await sleep(50);
  }
  assert.ok(h && seen, `the harness runs a window under npx: ${stderr.slice(-2000)}`);
  const tree = [npx.pid!, ...descendants(npx.pid!)];
  assert.ok(fs.existsSync(lock), 'the harness holds the run lock');
  npx.kill('SIGTERM');
  for (let i = 0; i < 100 && alive(h!); i++) await sleep(100);
  assert.equal(alive(h!), false, `the harness stopped within 10 s of SIGTERM to npx: ${stderr.slice(-2000)}`);
  // just reports the harness's exit code: 130, interrupted (core/exit-codes.ts).
  for (let i = 0; i < 50 && !/exit code \d+/.test(stderr); i++) await sleep(100);
  assert.match(stderr, /error: recipe `bench` failed on line \d+ with exit code 130/);
  assert.match(stderr, /SIGTERM: stopping every process the harness started/);
  for (let i = 0; i < 50 && tree.some(alive); i++) await sleep(100);
  assert.deepEqual(
    tree.filter(alive).map((p) => `${p} ${cmdline(p)}`),
    [],
    'no process of npx, just or the harness remains',
  );
  assert.deepEqual(await leftovers(tmp), [], 'no orphan of the contender remains');
  assert.equal(fs.existsSync(lock), false, 'the run lock was released');
  const metas = readMetas(results);
  assert.equal(metas.length, 1);
  assert.equal(metas[0].state, 'interrupted');
});
