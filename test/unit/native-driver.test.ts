/**
 * The ranking driver is installed or demanded before a run (drivers/tools.ts `ensureNativeDriver`):
 * as root a missing wrk is installed, not as root the run stops with the install command and
 * `--driver autocannon` as the knowing way on; a named autocannon needs nothing. Fakes stand in
 * for apt-get (the install itself is Debian's); the last test runs the real CLI as a non-root user.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { type NativeDriverDeps, ensureNativeDriver } from '../../harness/drivers/tools.ts';
import { getProfile } from '../../harness/core/profiles.ts';
import { parseProfileOverrides, withOverrides } from '../../harness/core/profile-overrides.ts';
import { UserError } from '../../harness/core/errors.ts';
import { ROOT, tmpDir } from '../helpers.ts';

const WRK = { bin: '/usr/bin/wrk', version: '4.1.0' };

/** Fake machine: wrk present or not, apt-get allowed or not, and whether an install brings wrk. */
function machine(o: { present: boolean; root: boolean; installs: boolean }) {
  let installed = o.present;
  const calls: string[] = [];
  const deps: NativeDriverDeps = {
    find: () => (installed ? WRK : null),
    canApt: () => o.root,
    installWrk: () => {
      calls.push('apt-get install -y wrk');
      installed = o.installs;
      return o.installs ? 0 : 100;
    },
  };
  return { deps, calls };
}

test('wrk present: nothing is installed or asked', () => {
  const m = machine({ present: true, root: false, installs: false });
  const log: string[] = [];
  ensureNativeDriver(getProfile('quick'), (l) => log.push(l), m.deps);
  assert.deepEqual([m.calls, log], [[], []]);
});

test('as root a missing wrk is installed, and the run goes on with it', () => {
  const m = machine({ present: false, root: true, installs: true });
  const log: string[] = [];
  ensureNativeDriver(getProfile('quick'), (l) => log.push(l), m.deps);
  assert.deepEqual(m.calls, ['apt-get install -y wrk']);
  assert.match(log.join('\n'), /installing Debian's wrk[\s\S]*installed wrk 4\.1\.0/);
});

test('as root a failed install stops the run with the command; not as root it never tries', () => {
  for (const root of [true, false]) {
    const m = machine({ present: false, root, installs: false });
    assert.throws(
      () => ensureNativeDriver(getProfile('quick'), () => {}, m.deps),
      (e: unknown) =>
        e instanceof UserError &&
        e.exitCode === 2 &&
        /apt-get install -y wrk/.test(e.message) &&
        /--driver autocannon/.test(e.message) &&
        (root ? /apt-get could not install it/.test(e.message) : !/could not/.test(e.message)),
    );
    assert.equal(m.calls.length, root ? 1 : 0);
  }
});

test('--driver autocannon goes on without wrk; --driver wrk demands it like native; k6 profiles are left alone', () => {
  const m = machine({ present: false, root: false, installs: false });
  ensureNativeDriver(withOverrides(getProfile('quick'), { driver: 'autocannon' }), () => {}, m.deps);
  ensureNativeDriver(getProfile('quick-k6'), () => {}, m.deps);
  assert.throws(
    () => ensureNativeDriver(withOverrides(getProfile('smoke'), { driver: 'wrk' }), () => {}, m.deps),
    /not installed/,
  );
  assert.throws(
    () => withOverrides(getProfile('quick'), parseProfileOverrides({ driver: 'ab' })),
    /--driver must be one of native, wrk, autocannon/,
  );
  assert.throws(
    () => withOverrides(getProfile('quick-k6'), { driver: 'wrk' }),
    /--driver applies to the connection profiles/,
  );
});

test('the real CLI, not as root and without wrk: exit 2 before any run folder, with the install command', {
  skip: spawnSync('setpriv', ['--version']).error ? 'setpriv (util-linux) is not installed' : false,
}, () => {
  const results = tmpDir('no-wrk');
  fs.chmodSync(results, 0o777);
  const node = path.join(ROOT, 'node_modules', '.bin', 'node');
  const r = spawnSync(
    'setpriv',
    [
      '--reuid=65534',
      '--regid=65534',
      '--clear-groups',
      node,
      '--disable-warning=ExperimentalWarning',
      'harness/cli.ts',
      'bench',
      'node-http',
      '--scenario',
      'ping',
      '--results-dir',
      results,
    ],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, BENCH_WRK: '', HOME: results }, input: '' },
  );
  assert.equal(r.status, 2, `${r.stdout}\n${r.stderr}`);
  assert.match(
    r.stderr,
    /wrk, the load driver that ranks the quick profile, is not installed\. Install it: sudo apt-get update && sudo apt-get install -y wrk/,
  );
  assert.match(r.stderr, /--driver autocannon/);
  assert.deepEqual(fs.readdirSync(results), [], 'no run folder');
});
