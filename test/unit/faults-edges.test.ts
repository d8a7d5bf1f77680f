/**
 * Faults, round four, the parts with no server (docs/faults.md): the containment rule of
 * scheduler/containment.ts on fake handles, terminal-safe text (core/terminal-text.ts), the
 * environment check (core/env.ts), the link rules of store/links.ts on real folders, and a valid
 * name suggested for a bad contender folder (core/manifest.ts).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { checkEnvironment } from '../../harness/core/env.ts';
import { UserError } from '../../harness/core/errors.ts';
import { loadManifestsLenient, suggestName } from '../../harness/core/manifest.ts';
import { terminalSafe } from '../../harness/core/terminal-text.ts';
import { containmentBreach } from '../../harness/scheduler/containment.ts';
import type { GroupContext, TargetHandle } from '../../harness/scheduler/scheduler-types.ts';
import { linkBelow, readsInside, refuseLinks } from '../../harness/store/links.ts';
import { ROOT, tmpDir } from '../helpers.ts';

const ctx = {
  cpuPlan: { pinned: true, server: '1', client: '0', services: '0', allowedCores: [0, 1], clientThreads: 1, note: '' },
} as unknown as GroupContext;
const handle = (escapes: string[] | null): TargetHandle =>
  ({
    baseUrl: 'http://127.0.0.1:1',
    pid: 1,
    startupMs: 0,
    exitInfo: () => null,
    died: new AbortController().signal,
    cpuUs: () => 0,
    stop: async () => 0,
    ...(escapes ? { escapes: () => escapes } : {}),
  }) as TargetHandle;

test('containment rule: more CPU than one core, a process outside, a thread on the driver core are breaches; a contained server is not', () => {
  const s = handle([]);
  assert.equal(containmentBreach(s, ctx, 'in a window', { cpuS: 0.99, wallS: 1 }), null, 'one core, busy');
  assert.match(
    containmentBreach(s, ctx, 'in a window', { cpuS: 1.23, wallS: 1 }) ?? '',
    /^escaped its containment in a window: used 1\.23 CPU-s in 1\.00 s it was allowed to run, more than its one core$/,
  );
  // An interleaved round allows its unpaused seconds, not its wall time.
  assert.match(
    containmentBreach(s, ctx, 'in interleaved round 2', { cpuS: 1.49, wallS: 4 }, 0.61) ?? '',
    /used 1\.49 CPU-s in 0\.61 s/,
  );
  assert.equal(containmentBreach(s, ctx, 'in interleaved round 2', { cpuS: 0.5, wallS: 4 }, 0.61), null);
  assert.equal(containmentBreach(s, ctx, 'x', { cpuS: 0.1, wallS: 0.01 }), null, 'too short to judge by CPU');
  assert.match(
    containmentBreach(handle(['processes left its cgroup (pid 7)']), ctx, 'in the warm-up', null) ?? '',
    /^escaped its containment in the warm-up: processes left its cgroup \(pid 7\)$/,
  );
  assert.equal(
    containmentBreach(handle(null), ctx, 'x', { cpuS: 9, wallS: 1 }),
    null,
    'an external target is not judged',
  );
});

test('terminal-safe text: title changes, screen clears, cursor moves and C1 controls go; colour, tabs and newlines stay', () => {
  const evil = 'a\x1b]0;pwned\x07b\x1b]2;x\x1b\\c\x1b[2J\x1b[Hd\x1b[31mred\x1b[0m\te\nf\x07\x9b2Jg\x1bch';
  assert.equal(terminalSafe(evil), 'abcd\x1b[31mred\x1b[0m\te\nf2Jgh');
  assert.equal(terminalSafe('plain — ✓ text'), 'plain — ✓ text');
});

test('environment: bad values throw a UserError naming the variable; good and unset ones pass', () => {
  for (const [k, v] of [
    ['BENCH_RESULTS_DIR', ''],
    ['BENCH_CONTENDERS_DIR', ''],
    ['BENCH_MEMORY_MAX_MIB', 'abc'],
    ['BENCH_MEMORY_MAX_MIB', '8'],
    ['BENCH_MEMORY_MAX_MIB', '1e30'],
    ['BENCH_PIDS_MAX', '-1'],
    ['BENCH_PIDS_MAX', '99999999'],
    ['BENCH_CGROUP', 'on'],
    ['BENCH_NO_PIN', 'yes'],
  ] as const)
    assert.throws(
      () => checkEnvironment({ [k]: v }),
      (e: unknown) => e instanceof UserError && e.message.startsWith(`${k} `) && e.message.includes(`got '${v}'`),
      `${k}=${v}`,
    );
  checkEnvironment({
    BENCH_MEMORY_MAX_MIB: '256',
    BENCH_PIDS_MAX: '64',
    BENCH_CGROUP: 'off',
    BENCH_WRK: '',
    BENCH_LOCK_FILE: '',
    BENCH_RESULTS_DIR: '/tmp/x',
  });
  checkEnvironment({});
});

test('links: a link below the results folder is found and refused for writing; reading follows it only inside', () => {
  const root = tmpDir('links-unit');
  const outside = tmpDir('links-unit-out');
  fs.mkdirSync(path.join(root, 'runs', 'a'), { recursive: true });
  fs.symlinkSync(outside, path.join(root, 'runs', 'out'));
  fs.symlinkSync(path.join(root, 'runs', 'a'), path.join(root, 'runs', 'in'));
  assert.equal(linkBelow(root, path.join(root, 'runs', 'a', 'meta.json')), null);
  assert.equal(linkBelow(root, path.join(root, 'runs', 'out', 'meta.json')), path.join(root, 'runs', 'out'));
  assert.equal(linkBelow(root, path.join(root, 'runs', 'new', 'meta.json')), null, 'a folder yet to be made');
  assert.throws(
    () => refuseLinks(root, path.join(root, 'runs', 'out', 'x')),
    /is a symbolic link inside the results folder/,
  );
  assert.equal(readsInside(root, path.join(root, 'runs', 'in')), true);
  assert.equal(readsInside(root, path.join(root, 'runs', 'out')), false);
  // The results folder itself may be a link: the user chose it.
  const viaLink = path.join(tmpDir('links-unit-alias'), 'results');
  fs.symlinkSync(root, viaLink);
  assert.equal(linkBelow(viaLink, path.join(viaLink, 'runs', 'a')), null);
});

test('names: a bad folder name gets a valid one suggested, and one bad folder does not hide the good contenders', () => {
  assert.equal(suggestName('my stack'), 'my-stack');
  assert.equal(suggestName('My__Fast  Stack!'), 'my-fast-stack');
  const dir = tmpDir('names');
  fs.cpSync(path.join(ROOT, 'contenders', 'node-http'), path.join(dir, 'node-http'), {
    recursive: true,
    filter: (src) => !src.includes('node_modules'),
  });
  fs.mkdirSync(path.join(dir, 'my stack'));
  fs.copyFileSync(path.join(dir, 'node-http', 'contender.json'), path.join(dir, 'my stack', 'contender.json'));
  const { manifests, errors } = loadManifestsLenient(dir, ['ping', 'json', 'echo', 'users', 'post', 'fanout']);
  assert.deepEqual(
    manifests.map((m) => m.name),
    ['node-http'],
  );
  assert.equal(errors.length, 1);
  assert.match(errors[0]?.message ?? '', /bad folder name 'my stack'.*Rename the folder to 'my-stack'/);
});
