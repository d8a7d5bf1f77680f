/**
 * Client-bound from the run itself (lifecycle/sampler.ts `clientBoundRule`): a closed-loop window
 * whose server used < 85% of its core is a lower bound whichever driver ran, and so is one whose
 * driver used ≥ 90% of its own. The real test throttles a real wrk (a wrapper: one connection, at
 * nice 19 beside a busy loop on its core) against node-http, and the report says why the cell is a
 * lower bound.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { clientBoundRule } from '../../harness/lifecycle/sampler.ts';
import { findWrk } from '../../harness/drivers/wrk.ts';
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

test('a throttled wrk (one connection) leaves node-http idle: the cell is client-bound and the report says why', {
  skip: wrk ? false : 'wrk is not installed (apt-get install -y wrk)',
}, async () => {
  const dir = tmpDir('throttled-wrk');
  const wrapper = path.join(dir, 'wrk-one-connection');
  // A deliberately throttled driver: the real wrk with one connection, at nice 19 beside a busy
  // loop on its own core (it inherits the driver's CPU pinning), so it gets a sliver of that core.
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
  const run = async (env: Record<string, string>) => {
    const results = tmpDir('throttled-results');
    const r = await runCli(
      [
        'bench',
        'node-http',
        '--scenario',
        'ping',
        '--profile',
        'smoke',
        '--driver',
        'wrk',
        '--no-fidelity',
        '--results-dir',
        results,
      ],
      env,
    );
    assert.equal(r.code, 0, r.stderr.slice(-2000));
    const [info] = listRuns(results);
    assert.ok(info);
    const [cell] = readRunAt(info.dir).cells;
    assert.ok(cell?.resources, 'resources sampled');
    return { cell, out: r.stdout };
  };
  const throttled = await run({ BENCH_WRK: wrapper });
  const res = throttled.cell.resources;
  assert.equal(res?.clientBound, true, JSON.stringify(res));
  assert.equal(res?.clientBoundBy, 'server-idle');
  assert.ok((res?.server.cpuPctAvg ?? 100) < 85);
  assert.match(throttled.out, /1\s+client-bound/);
});
