// The fault matrix of issue 13 on real processes, sockets and files (docs/dev/notes-faults.md):
// no orphans after SIGKILL (REST with a forking start command, GraphQL with embedded PostgreSQL),
// stale temp folders swept at the next start, loopback only (reserved env, /proc listeners), log
// caps, the machine-wide run lock (refuse, wait, stale), exit codes and did-you-mean.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { alive, CLI, descendants, readCells, readMetas, ROOT, runCli, tmpDir } from '../helpers.ts';
import { makeCell, makeMeta } from '../fixtures.ts';
import { listRuns, openRun } from '../../harness/store/runs.ts';
import { EXIT, exitCodeForStatuses } from '../../harness/core/exit-codes.ts';
import { didYouMean, suggest } from '../../harness/core/suggest.ts';
import { loadManifest, RESERVED_ENV } from '../../harness/core/manifest.ts';
import { UserError } from '../../harness/core/errors.ts';
import { capLog, MIB } from '../../harness/lifecycle/logs.ts';
import {
  freePort,
  isLoopbackAddress,
  isListening,
  isPortFree,
  listeningAddresses,
  processTree,
} from '../../harness/lifecycle/ports.ts';
import { startServer, StartError } from '../../harness/lifecycle/server.ts';
import { acquireRunLock, readLock, sweepTempFolders, TEMP_PREFIXES } from '../../harness/lifecycle/lock.ts';

const FAULTS = path.join(ROOT, 'test', 'fixtures', 'faults');
const SCENARIOS = ['ping', 'json', 'echo', 'users', 'post', 'fanout', 'graphql-ping', 'graphql-users'];

/** A private temp folder that the postgres user can traverse too (like /tmp). */
function privateTmp(prefix: string): string {
  const dir = tmpDir(prefix);
  fs.chmodSync(dir, 0o1777);
  return dir;
}

function writeManifest(root: string, name: string, patch: object): string {
  const dir = path.join(root, name);
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(
    path.join(dir, 'contender.json'),
    JSON.stringify({
      name,
      displayName: name,
      tags: { framework: 'node:http', httpClient: 'none', language: 'javascript' },
      scenarios: ['ping'],
      start: ['node', 'server.js'],
      ...patch,
    }),
  );
  return dir;
}

test('exit codes: 3 for broken cells, 1 for failed verification, else 0', () => {
  assert.deepEqual(EXIT, { ok: 0, failed: 1, usage: 2, cellsBroken: 3, interrupted: 130, internal: 70 });
  assert.equal(exitCodeForStatuses([]), 0);
  assert.equal(exitCodeForStatuses(['ok', 'skipped', 'unsupported']), 0);
  assert.equal(exitCodeForStatuses(['ok', 'verify-failed']), 1);
  for (const s of ['build-failed', 'start-failed', 'crashed', 'error'])
    assert.equal(exitCodeForStatuses(['ok', 'verify-failed', s]), 3, s);
});

test('did you mean: close names are suggested, far ones are not', () => {
  const contenders = ['express', 'fastify', 'hono', 'node-http', 'nestjs-fastify-undici', 'postgraphile-express'];
  assert.deepEqual(suggest('fastfy', contenders), ['fastify']);
  assert.deepEqual(suggest('Express', contenders), ['express']);
  assert.deepEqual(suggest('nodehttp', contenders), ['node-http']);
  assert.deepEqual(suggest('zzzzzz', contenders), []);
  assert.equal(didYouMean('quik', ['smoke', 'quick', 'stress']), " Did you mean 'quick'?");
  assert.equal(didYouMean('qqqqqq', ['smoke', 'quick']), '');
});

test('reserved environment: a manifest or variant that sets HOST, PORT, UPSTREAM_URL, DATABASE_URL or NODE_ENV is refused', async () => {
  const root = tmpDir('reserved');
  for (const key of RESERVED_ENV) {
    const dir = writeManifest(root, `env-${key.toLowerCase().replace('_', '-')}`, { env: { [key]: 'x' } });
    assert.throws(
      () => loadManifest(dir, SCENARIOS),
      (e: unknown) => e instanceof UserError && new RegExp(`- env\\.${key}: reserved`).test(e.message),
      key,
    );
  }
  const v = writeManifest(root, 'variant-port', {
    variants: { wide: { description: 'listens elsewhere', env: { PORT: '80', HOST: '0.0.0.0' } } },
  });
  assert.throws(
    () => loadManifest(v, SCENARIOS),
    (e: unknown) =>
      e instanceof UserError &&
      /variants\.wide\.env\.PORT: reserved/.test(e.message) &&
      /variants\.wide\.env\.HOST: reserved/.test(e.message),
  );
  // Through the CLI: bad input, exit 2, the file and the field named, no stack trace.
  const r = await runCli(['--contenders-dir', root, 'list']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /contender\.json: bad manifest\n\s+- env\.\w+: reserved/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});

test('log cap: a 3 MiB log keeps its first and last MiB and says how many bytes were cut; capping twice changes nothing', () => {
  const dir = tmpDir('cap');
  const file = path.join(dir, 'server.log');
  const lines: string[] = [];
  for (let i = 0, n = 0; n < 3 * MIB; i++, n += lines[lines.length - 1]!.length)
    lines.push(`line ${String(i).padStart(8, '0')} ${'y'.repeat(50)}\n`);
  const text = lines.join('');
  fs.writeFileSync(file, text);
  const cut = capLog(file);
  const after = fs.readFileSync(file, 'utf8');
  assert.ok(after.length <= 2 * MIB, `capped to ${after.length} bytes`);
  assert.ok(cut > MIB - 4096 && cut < text.length - 2 * MIB + 4096, `cut ${cut}`);
  assert.equal(text.length - cut, after.length - after.match(/\n\[bench: .*\]\n/)![0].length);
  assert.ok(after.startsWith(lines[0]!), 'the first line is kept');
  assert.ok(after.endsWith(lines[lines.length - 1]!), 'the last line is kept');
  assert.match(after, new RegExp(`\\n\\[bench: ${cut} bytes cut from this log; `));
  assert.equal(capLog(file), 0, 'idempotent');
  assert.equal(fs.readFileSync(file, 'utf8'), after);
  const small = path.join(dir, 'small.log');
  fs.writeFileSync(small, 'hello\n');
  assert.equal(capLog(small), 0);
  assert.equal(fs.readFileSync(small, 'utf8'), 'hello\n');
  assert.equal(capLog(path.join(dir, 'missing.log')), 0);
});

test('full server logs are git-ignored (results/runs/*/logs/), every other file of a run is not', () => {
  const ignored = (f: string) => spawnSync('git', ['check-ignore', '-q', '--no-index', f], { cwd: ROOT }).status === 0;
  // A run as the store writes it (its own layout), under a scratch results folder; then each of its
  // files is asked about at the same place under results/.
  const dir = tmpDir('gitignore');
  const { schemaVersion, runId, startedAt, finishedAt, state, harnessPid, ...init } = makeMeta();
  const w = openRun(dir, init, '2026-01-01T00-00-00Z-abcd');
  const cell = makeCell({ runId: w.runId, cellId: 'fastify__json' });
  w.writeTrial({ ...cell, round: 1 }, 1);
  w.writeCell(cell);
  fs.writeFileSync(w.logFile(cell.cellId), 'log\n');
  w.finish('complete');
  const files = (fs.readdirSync(dir, { recursive: true }) as string[]).filter((f) =>
    fs.statSync(path.join(dir, f)).isFile(),
  );
  const logs = files.filter((f) => f === w.relative(w.logFile(cell.cellId)));
  assert.equal(logs.length, 1, `the log is among the run's files: ${files.join(', ')}`);
  assert.ok(files.length >= 4, `meta, trial, cell and log files: ${files.join(', ')}`);
  for (const f of files) assert.equal(ignored(path.join('results', f)), logs.includes(f), `results/${f}`);
});

test('log cap on a real server: one that prints 3 MiB leaves at most 2 MiB after stop()', async () => {
  const m = loadManifest(path.join(FAULTS, 'chatty'), SCENARIOS);
  const logFile = path.join(tmpDir('chatty'), 'chatty.log');
  const s = await startServer(m, {
    host: '127.0.0.1',
    port: await freePort(),
    upstreamUrl: 'http://127.0.0.1:9',
    env: {},
    cpus: null,
    logFile,
    nodePath: process.execPath,
  });
  assert.ok(fs.statSync(logFile).size > 3 * MIB, 'the full log was written');
  await s.stop();
  const log = fs.readFileSync(logFile, 'utf8');
  assert.ok(log.length <= 2 * MIB, `${log.length} bytes`);
  assert.match(log, /^chatty line 00000000 /);
  assert.match(log, /chatty: last line before serving\n$/);
  assert.match(log, /\n\[bench: \d+ bytes cut from this log; /);
});

test('listeningAddresses reads /proc: 0.0.0.0 is off loopback, 127.0.0.1 and ::1 are on it', async () => {
  const listen = (host: string) =>
    new Promise<net.Server>((resolve, reject) => {
      const s = net.createServer();
      s.once('error', reject);
      s.listen(0, host, () => resolve(s));
    });
  const wide = await listen('0.0.0.0');
  const local = await listen('127.0.0.1');
  const v6 = await listen('::1').catch(() => null);
  try {
    const ls = listeningAddresses([process.pid]);
    const find = (s: net.Server) => ls.find((l) => l.port === (s.address() as net.AddressInfo).port);
    assert.deepEqual(
      { ...find(wide), pid: 0 },
      { pid: 0, address: '0.0.0.0', port: (wide.address() as net.AddressInfo).port, loopback: false },
    );
    assert.equal(find(local)?.address, '127.0.0.1');
    assert.equal(find(local)?.loopback, true);
    if (v6) assert.deepEqual([find(v6)?.address, find(v6)?.loopback], ['::1', true]);
    assert.ok(processTree(process.pid).includes(process.pid));
  } finally {
    for (const s of [wide, local, v6]) s?.close();
  }
  assert.equal(isLoopbackAddress('::ffff:127.0.0.1'), true);
  assert.equal(isLoopbackAddress('::'), false);
  assert.equal(isLoopbackAddress('10.0.0.1'), false);
});

test('loopback only: a server (or a child of it) listening on 0.0.0.0 fails to start, from /proc, with no load sent', async () => {
  const m = loadManifest(path.join(FAULTS, 'wide-listener'), SCENARIOS);
  for (const env of [{}, m.variants.child!.env]) {
    const port = await freePort();
    const logFile = path.join(tmpDir('wide'), 'wide.log');
    const err = await startServer(m, {
      host: '127.0.0.1',
      port,
      upstreamUrl: 'http://127.0.0.1:9',
      env,
      cpus: null,
      logFile,
      nodePath: process.execPath,
    }).then(
      () => null,
      (e) => e,
    );
    assert.ok(err instanceof StartError, `expected a StartError, got ${err}`);
    assert.match(
      err.message,
      /^wide-listener listens off loopback on 0\.0\.0\.0:\d+ \(pid \d+\); the harness allows only 127\.0\.0\.1 and ::1/,
    );
    assert.equal(await isPortFree(port, '127.0.0.1'), true, 'the refused server was stopped');
  }
  // Through the CLI: the cells are start-failed with that reason, and the run exits 3.
  const results = tmpDir('wide-cli');
  const r = await runCli([
    '--contenders-dir',
    FAULTS,
    '--results-dir',
    results,
    'bench',
    'wide-listener',
    '--scenario',
    'ping',
    '--profile',
    'smoke',
  ]);
  const cells = readCells(results).filter((c) => c.contender === 'wide-listener');
  assert.ok(cells.length >= 2, `base and +child cells: ${r.stderr}`);
  for (const c of cells) {
    assert.equal(c.status, 'start-failed', JSON.stringify(c));
    assert.match(JSON.stringify(c), /listens off loopback on 0\.0\.0\.0:\d+/);
  }
  assert.equal(r.code, EXIT.cellsBroken, r.stderr);
});

test('run lock: a second harness refuses with the holder named (exit 2), --wait waits for it, a stale lock is taken over', async () => {
  const file = path.join(tmpDir('lock'), 'run.lock');
  const env = { BENCH_LOCK_FILE: file };
  const verify = ['--contenders-dir', FAULTS, 'verify', 'forking'];
  const held = await acquireRunLock({ runId: 'test-holder', file, command: ['bench-all'] });
  try {
    assert.equal(held.how, 'fresh');
    const again = await acquireRunLock({ runId: 'test-holder-2', file });
    assert.equal(again.how, 'reentrant');
    assert.equal((readLock(file) as { runId: string }).runId, 'test-holder-2');
    const refused = await runCli(verify, env);
    assert.equal(refused.code, EXIT.usage, refused.stderr);
    assert.match(
      refused.stderr,
      new RegExp(
        `another bake-off run holds this machine: pid ${process.pid} \\(run test-holder-2, \`bench-all\`, since [^)]+\\)\\..*--wait`,
      ),
    );
    assert.doesNotMatch(refused.stderr, /\n\s+at /);
    // --wait: the second harness waits until the holder releases, then runs.
    const waiter = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', CLI, ...verify, '--wait'], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const w = { code: null as number | null, stdout: '', stderr: '' };
    waiter.stdout.on('data', (b) => {
      w.stdout += b;
    });
    waiter.stderr.on('data', (b) => {
      w.stderr += b;
    });
    const done = new Promise<void>((r) =>
      waiter.on('close', (code) => {
        w.code = code;
        r();
      }),
    );
    for (let i = 0; i < 600 && !/waiting for the run lock/.test(w.stderr); i++) await sleep(100);
    assert.match(w.stderr, new RegExp(`waiting for the run lock: held by pid ${process.pid} `));
    await sleep(1500);
    assert.equal(w.code, null, 'still waiting while the lock is held');
    held.release();
    await done;
    assert.equal(w.code, 0, w.stderr);
    assert.match(w.stdout, /forking \(started in \d+ ms\)/);
  } finally {
    held.release();
  }
  assert.equal(readLock(file), 'missing', 'the waiting harness released the lock on exit');
  // Stale: the recorded holder is dead.
  const dead = spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim();
  fs.writeFileSync(
    file,
    JSON.stringify({ pid: Number(dead), pidStart: '1', runId: 'dead-run', command: ['bench', 'x'], startedAt: 'then' }),
  );
  const s = await runCli(verify, env);
  assert.equal(s.code, 0, s.stderr);
  assert.match(
    s.stderr,
    new RegExp(`taking over the run lock left by pid ${dead} \\(run dead-run, .*no longer running`),
  );
  assert.equal(readLock(file), 'missing');
  // Garbled (a holder died between creating and writing it): taken over after 3 s.
  fs.writeFileSync(file, '');
  const g = await acquireRunLock({ runId: null, file });
  assert.equal(g.how, 'stale');
  g.release();
});

test('temp folder sweep: only folders no live process uses, untouched for a second, whose owner is dead', async () => {
  const dir = privateTmp('sweep');
  const mk = (name: string, old = true) => {
    const p = path.join(dir, name);
    fs.mkdirSync(p);
    fs.writeFileSync(path.join(p, 'f'), 'x');
    if (old) fs.utimesSync(p, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
    return p;
  };
  const stale = TEMP_PREFIXES.map((p) => mk(`${p}stale1`));
  const young = mk('bench-ac-young1', false);
  const other = mk('not-ours-abc');
  const used = mk('bench-k6-used01');
  const pgAlive = mk('bakeoff-pg-alive1');
  fs.writeFileSync(path.join(pgAlive, 'harness.pid'), String(process.pid));
  fs.utimesSync(pgAlive, new Date(Date.now() - 60_000), new Date(Date.now() - 60_000));
  const sleeper = spawn('sleep', ['30'], { cwd: used, stdio: 'ignore' });
  try {
    await sleep(200);
    const removed = sweepTempFolders(dir).sort();
    assert.deepEqual(removed, [...stale].sort());
    for (const p of [young, other, used, pgAlive]) assert.ok(fs.existsSync(p), `${p} kept`);
  } finally {
    sleeper.kill('SIGKILL');
  }
});

test('no orphans: SIGKILL of a process that spawned a forking child takes child and grandchild with it', async () => {
  const script = `
    import { spawnTracked, watchdogPid } from ${JSON.stringify(path.join(ROOT, 'harness', 'lifecycle', 'processes.ts'))};
    const c = spawnTracked('sh', ['-c', 'sleep 300 & sleep 300; wait'], { stdio: 'ignore' });
    setTimeout(() => console.log(JSON.stringify({ child: c.pid, watchdog: watchdogPid() })), 300);
    setInterval(() => {}, 1000);
  `;
  const h = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const info = await new Promise<{ child: number; watchdog: number }>((resolve) =>
    h.stdout.once('data', (b) => resolve(JSON.parse(String(b)))),
  );
  const pids = descendants(h.pid!);
  assert.ok(pids.includes(info.child) && pids.includes(info.watchdog), `${pids}`);
  assert.ok(pids.length >= 4, `sh, two sleeps and the watchdog: ${pids}`);
  h.kill('SIGKILL');
  for (let i = 0; i < 50 && pids.some(alive); i++) await sleep(100);
  assert.deepEqual(pids.filter(alive), [], 'no child, grandchild or watchdog outlives the SIGKILLed parent');
});

/**
 * Starts `args` as a harness with a private TMPDIR (and so its own lock file and temp folders),
 * waits until a load driver runs under it, records its processes and listening ports, SIGKILLs
 * it, then checks that nothing of it remains; the next start sweeps the temp folders and takes
 * the stale lock over.
 */
async function sigkillMidCell(label: string, args: string[], timeoutMs: number) {
  const tmp = privateTmp(`sigkill-${label}`);
  const results = tmpDir(`sigkill-${label}-results`);
  const env = { ...process.env, TMPDIR: tmp, BENCH_LOCK_FILE: '' };
  const h = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', CLI, '--results-dir', results, ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  h.stderr.on('data', (b) => {
    stderr += b;
  });
  const exited = new Promise<NodeJS.Signals | null>((r) => h.on('close', (_c, sig) => r(sig)));
  const cmd = (pid: number) => {
    try {
      return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
    } catch {
      return '';
    }
  };
  const deadline = Date.now() + timeoutMs;
  let pids: number[] = [];
  while (Date.now() < deadline) {
    pids = descendants(h.pid!);
    if (pids.some((p) => /autocannon-worker|(^|\/)wrk .*-c|(^|\/)k6 run/.test(cmd(p)))) break;
    await sleep(100);
  }
  assert.ok(
    pids.some((p) => /autocannon-worker|(^|\/)wrk .*-c|(^|\/)k6 run/.test(cmd(p))),
    `no load driver appeared: ${stderr.slice(-3000)}`,
  );
  await sleep(300);
  pids = descendants(h.pid!);
  const ports = listeningAddresses(pids).map((l) => l.port);
  assert.ok(ports.length >= 1, `the server (and PostgreSQL, the upstream mock) listen: ${ports}`);
  const runDirs = listRuns(results).map((r) => r.runId);
  h.kill('SIGKILL');
  assert.equal(await exited, 'SIGKILL');
  for (let i = 0; i < 100 && pids.some(alive); i++) await sleep(100);
  assert.deepEqual(
    pids.filter(alive).map((p) => `${p} ${cmd(p)}`),
    [],
    'no process of the killed harness remains',
  );
  // Nothing listens any more (a bind test could still fail on the killed server's closing sockets).
  // A forked server re-parented to init is not among `pids`: the watchdog kills its group once the
  // harness's pipe closes, which can take a moment on a loaded machine.
  for (let i = 0; i < 100 && ports.some(isListening); i++) await sleep(100);
  for (const port of ports) assert.equal(isListening(port), false, `nothing listens on port ${port}`);
  const leftovers = () => fs.readdirSync(tmp).filter((d) => TEMP_PREFIXES.some((p) => d.startsWith(p)));
  // The next start takes the stale lock over and sweeps what the dead harness left.
  await sleep(1100);
  const next = await runCli(
    [
      '--contenders-dir',
      FAULTS,
      '--results-dir',
      results,
      'bench',
      'forking',
      '--scenario',
      'ping',
      '--profile',
      'smoke',
    ],
    { TMPDIR: tmp, BENCH_LOCK_FILE: '' },
  );
  assert.equal(next.code, 0, next.stderr);
  assert.match(next.stderr, new RegExp(`taking over the run lock left by pid ${h.pid} `));
  assert.deepEqual(leftovers(), [], 'no temp folder remains after the next start');
  // The store marks the killed run abandoned at the next start (SCHED's store/runs.ts).
  const killed = readMetas(results).filter((m) => runDirs.includes(m.runId));
  assert.equal(killed.length, 1);
  assert.equal(killed[0].state, 'abandoned');
}

test('no orphans: SIGKILL mid-cell of a REST contender whose start command forks the server', async () => {
  await sigkillMidCell(
    'rest',
    ['--contenders-dir', FAULTS, 'bench', 'forking', '--scenario', 'json', '--profile', 'quick'],
    60_000,
  );
});

test('no orphans: SIGKILL mid-cell of a GraphQL contender with embedded PostgreSQL', async () => {
  await sigkillMidCell(
    'graphql',
    ['bench', 'postgraphile-express', '--scenario', 'graphql-users', '--profile', 'smoke', '--no-variants'],
    240_000,
  );
});
