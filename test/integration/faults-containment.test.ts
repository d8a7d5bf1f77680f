/**
 * Faults, round four: a contender cannot escape its core, its pause or its CPU accounting
 * (lifecycle/cgroups.ts, lifecycle/processes.ts, scheduler/containment.ts; docs/faults.md). The
 * fixture `escape` (test/fixtures/faults/escape) has an honest server and three that try: 2
 * node:cluster workers re-pinning themselves to every CPU, a server re-pinning itself to CPU 0
 * (the load driver's core), a server running in a detached child (its own session and process
 * group). Real servers, real wrk, the `quick` profile's interleaved rounds, in each containment
 * this machine offers: cgroups (v2 and v1 as mounted), v1 only, and none (BENCH_CGROUP=off).
 * Each escaper is contained (cgroups) or flagged `uncontained` and not ranked (none); the honest
 * twin is ranked either way.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { findWrk } from '../../harness/drivers/wrk.ts';
import { v1Parents } from '../../harness/lifecycle/cgroups.ts';
import { containmentInfo } from '../../harness/lifecycle/processes.ts';
import { listRuns } from '../../harness/store/runs.ts';
import { readRunAt, ROOT, runCli, tmpDir } from '../helpers.ts';

const FAULTS = path.join(ROOT, 'test', 'fixtures', 'faults');
const ESCAPERS = ['escape +cluster', 'escape +repin', 'escape +detach'];
const noWrk = findWrk() ? false : 'wrk is not installed (apt-get install -y wrk)';
const twoCores = (() => {
  try {
    return /^Cpus_allowed_list:\s*0-1$/m.test(fs.readFileSync('/proc/self/status', 'utf8')) ? false : 'needs CPUs 0-1';
  } catch {
    return 'not Linux';
  }
})();

/** Benches the four `escape` cells on json in `quick` (1 solo round) under `env`; the run as stored, with the CLI result. */
async function benchEscape(env: Record<string, string>) {
  const results = tmpDir('containment');
  const r = await runCli(
    [
      '--contenders-dir',
      FAULTS,
      '--results-dir',
      results,
      'bench',
      'escape',
      '--scenario',
      'json',
      '--profile',
      'quick',
      '--rounds',
      '1',
      '--no-baseline',
      '--no-fidelity',
    ],
    env,
  );
  const [info] = listRuns(results);
  assert.ok(info, `one run: ${r.stderr.slice(-3000)}`);
  const run = readRunAt(info.dir);
  const cell = (label: string) => run.cells.find((c) => c.label === label);
  const log = (label: string) => fs.readFileSync(path.join(info.dir, 'logs', `${cell(label)?.cellId}.log`), 'utf8');
  return { r, run, cell, log };
}

/** Every cell ok, ranked from its interleaved rounds, never over one core; re-pins refused. */
function assertContained(x: Awaited<ReturnType<typeof benchEscape>>, pause: RegExp) {
  assert.match(x.run.meta.cpuPlan.note, /contained by cgroups: core by cpuset/, x.run.meta.cpuPlan.note);
  assert.match(x.run.meta.cpuPlan.note, pause);
  assert.equal(x.r.code, 0, x.r.stderr.slice(-3000));
  for (const label of ['escape', ...ESCAPERS]) {
    const c = x.cell(label);
    assert.equal(c?.status, 'ok', `${label}: ${JSON.stringify(c?.failure)}`);
    assert.equal(c?.stats?.paired?.efficiency.length, 6, `${label}: ranked from its 6 interleaved rounds`);
    const perS = c?.resources?.server?.cpuSPerS;
    assert.ok(typeof perS === 'number' && perS <= 1.05, `${label}: ${perS} CPU-s per second, at most one core`);
  }
  // The cpuset holds: the re-pin to CPU 0 alone is refused (EINVAL); "every CPU" is cut to CPU 1.
  assert.match(x.log('escape +repin'), /repin 0: refused/);
  assert.equal(x.run.trials.filter((t) => t.status === 'uncontained').length, 0, 'no trial uncontained');
}

test('containment by cgroups: a re-pinning cluster, a self re-pin and a detached server are held to their core and pause; all ranked', {
  skip: noWrk || twoCores || (containmentInfo().kind === 'cgroup' ? false : 'no writable cgroups here'),
}, async () => {
  assertContained(await benchEscape({}), /pause by freezing/);
});

test('containment by cgroup v1 alone (BENCH_CGROUP=v1): cpuset, freezer and cpuacct hold the same three', {
  skip:
    noWrk || twoCores || (v1Parents().cpuset && v1Parents().freezer ? false : 'no cgroup v1 cpuset and freezer here'),
}, async () => {
  assertContained(await benchEscape({ BENCH_CGROUP: 'v1' }), /pause by freezing \(v1\)/);
});

test('without cgroups (BENCH_CGROUP=off): each escaper is uncontained, not ranked, and a finding; the honest twin is ranked', {
  skip: noWrk || twoCores,
}, async () => {
  const x = await benchEscape({ BENCH_CGROUP: 'off' });
  assert.match(x.run.meta.cpuPlan.note, /no cgroups here/);
  assert.equal(x.r.code, 3, `exit 3: cells broke their containment: ${x.r.stderr.slice(-3000)}`);
  // The honest twin is measured and ranked: alone after the escapers failed their warm-up, it has
  // no interleaved rounds (they need two servers) and is ranked from its solo window.
  const honest = x.cell('escape');
  assert.equal(honest?.status, 'ok', JSON.stringify(honest?.failure));
  assert.ok(honest?.stats?.rps, 'the honest twin has its figure');
  const why: Record<string, RegExp> = {
    'escape +cluster': /may run on the load driver's core|more than its one core/,
    'escape +repin': /may run on the load driver's core/,
    'escape +detach': /left its process group|more than its one core/,
  };
  for (const label of ESCAPERS) {
    const c = x.cell(label);
    assert.equal(c?.status, 'uncontained', `${label}: ${JSON.stringify(c)}`);
    assert.match(c?.failure?.reason ?? '', /^escaped its containment/);
    assert.match(c?.failure?.reason ?? '', why[label] as RegExp, label);
  }
  assert.match(x.r.stdout, /Findings: 3 /, 'the three escapers are findings');
  // The overview ranks only the honest server: its scenario lines (up to the confidence line) name no escaper.
  const start = x.r.stdout.indexOf('Overview (');
  const answer = start < 0 ? '' : x.r.stdout.slice(start, x.r.stdout.indexOf('  Resolution:', start));
  assert.match(answer, /\n {2}\S+ \(/, 'the overview has its scenario lines');
  assert.doesNotMatch(answer, /\+cluster|\+repin|\+detach/);
});
