/**
 * Faults, round four, on real servers (docs/faults.md): the real error is kept and a server that
 * speaks no plain HTTP/1.1 fails at once (lifecycle/server.ts, contract/http.ts); a response body
 * without end is capped (contract/http.ts MAX_RESPONSE_BYTES) and the harness's memory stays small;
 * a server log is capped while it is written (lifecycle/logs.ts `capWhileWritten`); bad environment
 * values are refused before any lock or run folder (core/env.ts); the store never writes through a
 * symbolic link (store/links.ts). Fixture: test/fixtures/faults/proto.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { openRun, sweepAbandoned } from '../../harness/store/runs.ts';
import { makeCell, makeMeta } from '../fixtures.ts';
import { CLI, ROOT, runCli, TEST_LOCK_FILE, tmpDir } from '../helpers.ts';

const FAULTS = path.join(ROOT, 'test', 'fixtures', 'faults');
const hasOpenssl = spawnSync('openssl', ['version'], { stdio: 'ignore' }).status === 0;

/** `verify proto` (the contract check only) of `variants`: each cell's failure reason. */
async function verifyReasons(results: string): Promise<{ code: number | null; out: string }> {
  const r = await runCli(['--contenders-dir', FAULTS, '--results-dir', results, 'verify', 'proto']);
  return { code: r.code, out: r.stdout + r.stderr };
}

test('the real error: a short Content-Length, an h2c-only and an HTTPS-only server fail their start with the parse error, at once', async () => {
  const { code, out } = await verifyReasons(tmpDir('proto-verify'));
  assert.equal(code, 3, out);
  const line = (label: string) => out.split('\n').find((l) => l.includes(label) && /fail|answers/.test(l)) ?? '';
  for (const [label, error] of [
    ['proto +short-length', /Parse Error|HPE_/],
    ['proto +h2c', /Parse Error|HPE_|Expected HTTP/],
    ...(hasOpenssl ? [['proto +tls', /socket hang up|ECONNRESET|Parse Error|HPE_/] as const] : []),
  ] as const) {
    const l = line(label);
    assert.match(l, /cannot read: .*\(3 times in a row\)/, `${label} failed fast with the protocol error: ${out}`);
    assert.match(l, error, label);
    assert.doesNotMatch(l, /within 30000 ms/, `${label} did not wait for the ready timeout`);
  }
});

test('caps: a body without end fails verification with the figure, and the harness stays under 300 MiB', async () => {
  const results = tmpDir('proto-flood');
  const child = spawn(
    process.execPath,
    [
      '--disable-warning=ExperimentalWarning',
      CLI,
      '--contenders-dir',
      FAULTS,
      '--results-dir',
      results,
      'bench',
      'proto',
      '--scenario',
      'json',
      '--profile',
      'smoke',
      '--no-baseline',
    ],
    { cwd: ROOT, env: { ...process.env, BENCH_LOCK_FILE: TEST_LOCK_FILE }, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (b) => {
    out += b;
  });
  child.stderr.on('data', (b) => {
    out += b;
  });
  let peakKiB = 0;
  let logPeak = 0;
  const timer = setInterval(() => {
    try {
      const hwm = /^VmHWM:\s+(\d+) kB$/m.exec(fs.readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
      peakKiB = Math.max(peakKiB, Number(hwm ?? 0));
    } catch {
      /* exited */
    }
    for (const f of fs.globSync(path.join(results, 'runs', '*', 'logs', '*flood-log*.log')))
      logPeak = Math.max(logPeak, fs.statSync(f).size);
  }, 50);
  const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
  clearInterval(timer);
  assert.equal(code, 3, `exit 3 (three variants fail their start): ${out.slice(-3000)}`);
  const cell = JSON.parse(
    fs.readFileSync(fs.globSync(path.join(results, 'runs', '*', 'cells', 'proto+flood-body__*.json'))[0] ?? '', 'utf8'),
  );
  assert.equal(cell.status, 'verify-failed');
  assert.match(JSON.stringify(cell.verification), /the body passed 16 MiB/);
  assert.ok(peakKiB > 0 && peakKiB < 300 * 1024, `the harness's peak RSS ${Math.round(peakKiB / 1024)} MiB < 300 MiB`);
  // The log flood (about 50 MB/s for the cell's seconds) never grew its log far past the live cap.
  assert.ok(logPeak > 0, 'the flood-log cell wrote a log');
  assert.ok(
    logPeak < 40 * 2 ** 20,
    `the flooding log peaked at ${Math.round(logPeak / 2 ** 20)} MiB on disk (< 40 MiB)`,
  );
});

test('environment values are checked before any lock or run folder: exit 2 naming the variable, nothing written', async () => {
  for (const [name, value, says] of [
    ['BENCH_RESULTS_DIR', '', /BENCH_RESULTS_DIR must be a path, not empty/],
    ['BENCH_CONTENDERS_DIR', '', /BENCH_CONTENDERS_DIR must be a path, not empty/],
    ['BENCH_MEMORY_MAX_MIB', 'abc', /BENCH_MEMORY_MAX_MIB must be a whole number/],
    ['BENCH_MEMORY_MAX_MIB', '1e30', /BENCH_MEMORY_MAX_MIB must be a whole number/],
    ['BENCH_MEMORY_MAX_MIB', String(2 ** 30), /BENCH_MEMORY_MAX_MIB must be 16–1048576 MiB/],
    ['BENCH_PIDS_MAX', '-1', /BENCH_PIDS_MAX must be a whole number/],
    ['BENCH_CGROUP', 'v3', /BENCH_CGROUP must be 'off' or 'v1'/],
  ] as const) {
    const results = tmpDir('env-edge');
    const lock = path.join(results, 'lock');
    const args = name === 'BENCH_RESULTS_DIR' ? [] : ['--results-dir', results];
    const r = await runCli([...args, 'bench', 'node-http', '--profile', 'smoke'], {
      [name]: value,
      BENCH_LOCK_FILE: lock,
    });
    assert.equal(r.code, 2, `${name}=${value}: ${r.stderr}`);
    assert.match(r.stderr, says, `${name}=${value}`);
    assert.deepEqual(fs.readdirSync(results), [], `${name}=${value}: no run folder, no lock`);
    assert.ok(!fs.existsSync(path.join(ROOT, 'runs')), 'no runs/ in the current folder');
  }
});

/** The RunInit of a default meta (fixtures.ts makeMeta). */
function init() {
  const { schemaVersion, runId, startedAt, finishedAt, state, harnessPid, ...rest } = makeMeta();
  return rest;
}

test('links: the abandoned-run sweep skips a run folder that is a link out, and leaderboard never writes through a reports link', async () => {
  const results = tmpDir('links-results');
  const outside = tmpDir('links-outside');
  // A run folder outside, marked running by a harness that is gone, reached through a link.
  const dead = Number(spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim());
  const w = openRun(outside, init(), '2026-01-01T00-00-00Z-0001');
  w.writeCell(makeCell({ cellId: 'a__ping', runId: '2026-01-01T00-00-00Z-0001' }));
  const target = path.join(outside, 'runs', '2026-01-01T00-00-00Z-0001');
  const meta = JSON.parse(fs.readFileSync(path.join(target, 'meta.json'), 'utf8'));
  fs.writeFileSync(path.join(target, 'meta.json'), JSON.stringify({ ...meta, state: 'running', harnessPid: dead }));
  const before = fs.readFileSync(path.join(target, 'meta.json'), 'utf8');
  fs.mkdirSync(path.join(results, 'runs'), { recursive: true });
  fs.symlinkSync(target, path.join(results, 'runs', '2026-01-01T00-00-00Z-0001'));
  const warned: string[] = [];
  assert.deepEqual(
    sweepAbandoned(results, (l) => warned.push(l)),
    [],
  );
  assert.equal(fs.readFileSync(path.join(target, 'meta.json'), 'utf8'), before, 'the folder outside is untouched');
  // A run inside, and `reports` a link to a folder outside: leaderboard --run refuses, writes nothing there.
  const inside = openRun(results, init(), '2026-01-02T00-00-00Z-0002');
  inside.writeCell(makeCell({ cellId: 'a__ping', runId: '2026-01-02T00-00-00Z-0002' }));
  inside.finish('complete');
  const reportsOut = tmpDir('links-reports');
  fs.symlinkSync(reportsOut, path.join(results, 'reports'));
  const r = await runCli(['--results-dir', results, 'leaderboard', '--run', '2026-01-02T00-00-00Z-0002']);
  assert.equal(r.code, 2, r.stderr);
  assert.match(r.stderr, /is a symbolic link inside the results folder/);
  assert.deepEqual(fs.readdirSync(reportsOut), [], 'nothing written through the link');
  // A LEADERBOARD.md that is a link is not written through either.
  fs.rmSync(path.join(results, 'reports'));
  const mdOut = path.join(outside, 'LEADERBOARD.md');
  fs.writeFileSync(mdOut, 'mine\n');
  fs.symlinkSync(mdOut, path.join(results, 'LEADERBOARD.md'));
  const r2 = await runCli(['--results-dir', results, 'leaderboard']);
  assert.equal(r2.code, 2, r2.stderr);
  assert.equal(fs.readFileSync(mdOut, 'utf8'), 'mine\n');
  assert.ok(
    warned.some((l) => /symbolic link/.test(l)),
    `the sweep warned: ${warned}`,
  );
});
