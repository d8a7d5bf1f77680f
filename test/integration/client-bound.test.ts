/**
 * Client-bound from the run itself (lifecycle/sampler.ts `clientBoundRule`): a closed-loop window
 * whose server used < 85% of its core is a lower bound whichever driver ran, and so is one whose
 * driver used ≥ 90% of its own. The real tests throttle a real wrk (a wrapper: one connection, at
 * nice 19 beside a busy loop on its core) against node-http, without pipelining and in the
 * pipelined profile (wrk at pipelining 10), and the report says why the cell is a lower bound. A
 * throttled k6 (the same wrapper idea) leaves its server idle, and the cell then carries wrk's
 * server-bound figure at the same concurrency (scheduler/native-check.ts).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { clientBoundRule } from '../../harness/lifecycle/sampler.ts';
import { findWrk } from '../../harness/drivers/wrk.ts';
import { findK6 } from '../../harness/drivers/k6.ts';
import { getProfile } from '../../harness/core/profiles.ts';
import { nativeShape } from '../../harness/scheduler/native-check.ts';
import { listRuns } from '../../harness/store/runs.ts';
import { readRunAt, runCli, tmpDir } from '../helpers.ts';

const base = { serverCores: 1, clientCores: 1, samples: 5, closedLoop: true };

test('the rule: an idle closed-loop server or a busy driver is client-bound; an open-loop idle server is not', () => {
  assert.equal(clientBoundRule({ ...base, serverCpuPct: 28, clientCpuPct: 60 }), 'server-idle');
  assert.equal(clientBoundRule({ ...base, serverCpuPct: 99, clientCpuPct: 95 }), 'driver-cpu');
  assert.equal(clientBoundRule({ ...base, serverCpuPct: 97, clientCpuPct: 45 }), null);
  assert.equal(clientBoundRule({ ...base, serverCpuPct: 30, clientCpuPct: 20, closedLoop: false }), null);
  assert.equal(clientBoundRule({ ...base, serverCpuPct: 30, clientCpuPct: 20, samples: 2 }), null, 'too few samples');
  assert.equal(clientBoundRule({ ...base, serverCpuPct: 150, serverCores: 2, clientCpuPct: 20 }), 'server-idle');
});

const wrk = findWrk();

/**
 * A deliberately throttled driver: the real wrk with one connection, at nice 19 beside a busy
 * loop on its own core (it inherits the driver's CPU pinning), so it gets a sliver of that core.
 */
function throttledWrk(): string {
  const wrapper = path.join(tmpDir('throttled-wrk'), 'wrk-one-connection');
  fs.writeFileSync(
    wrapper,
    [
      '#!/bin/sh',
      'for a in "$@"; do shift; case "$a" in -c*) set -- "$@" -c1;; *) set -- "$@" "$a";; esac; done',
      `if [ "$1" = "-v" ]; then exec ${wrk?.bin} -v; fi`,
      '( while :; do :; done ) & hog=$!',
      "trap 'kill $hog 2>/dev/null' EXIT INT TERM",
      `nice -n 19 ${wrk?.bin} "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  return wrapper;
}

/** One cell of node-http · ping with `args` (profile and its overrides) driven by the throttled wrk. */
async function throttledRun(args: string[]) {
  const results = tmpDir('throttled-results');
  const r = await runCli(
    ['bench', 'node-http', '--scenario', 'ping', ...args, '--no-fidelity', '--results-dir', results],
    { BENCH_WRK: throttledWrk() },
  );
  assert.equal(r.code, 0, r.stderr.slice(-2000));
  const [info] = listRuns(results);
  assert.ok(info);
  const [cell] = readRunAt(info.dir).cells;
  assert.ok(cell?.resources, 'resources sampled');
  return { cell, out: r.stdout };
}

test('a throttled wrk (one connection) leaves node-http idle: the cell is client-bound and the report says why', {
  skip: wrk ? false : 'wrk is not installed (apt-get install -y wrk)',
}, async () => {
  const throttled = await throttledRun(['--profile', 'smoke', '--driver', 'wrk']);
  const res = throttled.cell.resources;
  assert.equal(res?.clientBound, true, JSON.stringify(res));
  assert.equal(res?.clientBoundBy, 'server-idle');
  assert.ok((res?.server.cpuPctAvg ?? 100) < 85);
  assert.match(throttled.out, /node-http \(client-bound\)/);
});

test('pipelined, ranked by wrk: a throttled pipelining wrk leaves node-http idle and the cell is client-bound', {
  skip: wrk ? false : 'wrk is not installed (apt-get install -y wrk)',
}, async () => {
  // The profile's own driver (native = wrk), with short windows.
  const { cell, out } = await throttledRun([
    '--profile',
    'pipelined',
    '--duration',
    '2',
    '--warmup',
    '1',
    '--rounds',
    '1',
  ]);
  assert.equal(cell.driver, 'wrk');
  assert.equal(cell.load.profile.pipelining, 10);
  assert.ok(cell.load.requests.total > 0);
  // Written in batches of 10 (wrk's pipelining), at most one unanswered per connection at the end.
  assert.equal(cell.load.requests.sent % 10, 0);
  assert.ok(cell.load.requests.sent >= cell.load.requests.total);
  const res = cell.resources;
  assert.equal(res?.clientBound, true, JSON.stringify(res));
  assert.equal(res?.clientBoundBy, 'server-idle');
  assert.ok((res?.server.cpuPctAvg ?? 100) < 85);
  assert.match(out, /node-http \(client-bound\)/);
});

const k6 = findK6({ build: false });

test('the wrk shape standing in for each k6 profile: constant VUs = connections, the ramp at its peak, none for open loop', () => {
  assert.deepEqual(nativeShape(getProfile('k6-vus')), {
    connections: 1000,
    shape: 'wrk at 1000 connections (1000 constant VUs, no think time)',
  });
  assert.equal(nativeShape(getProfile('k6-ramp'))?.connections, 100);
  assert.match(nativeShape(getProfile('k6-ramp'))!.shape, /the ramp's peak of 100 VUs/);
  assert.equal(nativeShape(getProfile('k6-rate')), null, 'constant-arrival-rate is open loop');
  assert.equal(nativeShape(getProfile('quick')), null);
});

test('a throttled k6 leaves node-http idle: the cell carries wrk’s server-bound figure at the same concurrency, per round', {
  skip: !wrk ? 'wrk is not installed (apt-get install -y wrk)' : k6.bin ? false : k6.why,
}, async () => {
  // k6 at nice 19 beside a busy loop on its own core: a sliver of that core for 50 VUs.
  const wrapper = path.join(tmpDir('throttled-k6'), 'k6-throttled');
  fs.writeFileSync(
    wrapper,
    [
      '#!/bin/sh',
      `if [ "$1" = "version" ]; then exec ${k6.bin} version; fi`,
      '( while :; do :; done ) & hog=$!',
      "trap 'kill $hog 2>/dev/null' EXIT INT TERM",
      `nice -n 19 ${k6.bin} "$@"`,
      '',
    ].join('\n'),
    { mode: 0o755 },
  );
  const results = tmpDir('throttled-k6-results');
  const r = await runCli(
    [
      'bench',
      'node-http',
      '--scenario',
      'ping',
      '--profile',
      'quick-k6',
      '--duration',
      '1',
      '--warmup',
      '0',
      '--no-fidelity',
      '--results-dir',
      results,
    ],
    { BENCH_K6: wrapper },
  );
  assert.equal(r.code, 0, r.stderr.slice(-2000));
  const [info] = listRuns(results);
  const [cell] = readRunAt(info!.dir).cells;
  assert.equal(cell.driver, 'k6');
  // k6 windows are not closed-loop for the client-bound rule; the idle server is what triggers the check.
  assert.ok(cell.resources.server.cpuPctAvg < 85, JSON.stringify(cell.resources));
  const n = cell.nativeCheck;
  assert.ok(n, 'a client-bound k6 cell carries the native check');
  assert.equal(n.driver, 'wrk');
  assert.equal(n.connections, 50, 'quick-k6: 50 constant VUs = 50 connections');
  assert.deepEqual(n.rounds, [1, 2, 3, 4, 5]);
  assert.match(n.shape, /wrk at 50 connections \(50 constant VUs, no think time\)/);
  // wrk, not throttled, gets more from the same server than the throttled k6 did.
  const k6Rps = cell.stats.rps.figure;
  const wrkRps = Math.min(...n.trialRps);
  assert.ok(wrkRps > k6Rps, `wrk ${n.trialRps.map(Math.round).join(', ')} vs k6 ${Math.round(k6Rps)} requests/s`);
  assert.match(
    r.stdout + r.stderr,
    /native check: k6 left a server below 85% of its core; 1 server\(s\) × 5 × 1 s of wrk at 50 connections/,
  );
});

test('an idle tail after the load (a driver still writing its report) does not read as an idle server', async () => {
  // A real "server": 1.2 s of busy loop, then 2 s idle, as a server is while wrk's done() writes its histogram.
  const { spawn } = await import('node:child_process');
  const { Sampler } = await import('../../harness/lifecycle/sampler.ts');
  const child = spawn(
    process.execPath,
    ['-e', 'const t = Date.now(); while (Date.now() - t < 1200); setTimeout(() => {}, 2000);'],
    { detached: true, stdio: 'ignore' },
  );
  try {
    const pid = child.pid;
    assert.ok(pid);
    const sampler = new Sampler(pid, 100);
    sampler.start(null);
    await new Promise((r) => setTimeout(r, 3000));
    const use = sampler.stop(1000, 1.2, 1, 1, true);
    assert.ok(use, 'sampled');
    // Over the whole 3 s the average is at most 40%; over the 1.2 s of load it is a busy core.
    assert.ok(
      use.server.cpuPctAvg > 60,
      `CPU over the load ${use.server.cpuPctAvg.toFixed(0)}% (the idle tail was counted)`,
    );
  } finally {
    child.kill('SIGKILL');
  }
});
