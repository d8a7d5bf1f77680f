// Manifest validation: a bad manifest names the file, the field and what was expected; unknown
// names list the valid ones; the CLI prints the error without a stack trace.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { loadManifest, loadManifests } from '../../harness/core/manifest.ts';
import { UserError } from '../../harness/core/errors.ts';
import { loadScenarios } from '../../harness/contract/scenarios.ts';
import { FIXTURES, ROOT, runCli, tmpDir } from '../helpers.ts';

const SCENARIOS = ['ping', 'json', 'echo', 'users', 'post', 'fanout', 'graphql-ping', 'graphql-users'];
const good = {
  name: 'x',
  displayName: 'X',
  tags: { framework: 'node:http', httpClient: 'none', language: 'javascript' },
  scenarios: ['ping'],
  start: ['node', 'server.js'],
};

function contenderWith(manifest: unknown, name = 'x'): string {
  const root = tmpDir('manifest');
  const dir = path.join(root, name);
  fs.mkdirSync(dir);
  fs.writeFileSync(
    path.join(dir, 'contender.json'),
    typeof manifest === 'string' ? manifest : JSON.stringify(manifest),
  );
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "type": "module", "private": true }\n');
  return dir;
}

function errorOf(fn: () => unknown): UserError {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof UserError, `expected a UserError, got ${e}`);
    return e;
  }
  assert.fail('expected an error');
}

test('a valid manifest loads with defaults', () => {
  const m = loadManifest(contenderWith(good), SCENARIOS);
  assert.equal(m.build, null);
  assert.deepEqual(m.variants, {});
  assert.equal(m.readyTimeoutMs, 30_000);
});

test('a missing field names the file and the field', () => {
  const { start: _s, ...noStart } = good;
  const dir = contenderWith(noStart);
  const e = errorOf(() => loadManifest(dir, SCENARIOS));
  assert.match(e.message, new RegExp(`${dir}/contender.json`));
  assert.match(e.message, /start: .*expected array/i);
});

test('a field of the wrong type says what was expected', () => {
  const e = errorOf(() => loadManifest(contenderWith({ ...good, scenarios: 'ping' }), SCENARIOS));
  assert.match(e.message, /scenarios: .*expected array/i);
  const e2 = errorOf(() =>
    loadManifest(contenderWith({ ...good, tags: { ...good.tags, language: 'Java Script' } }), SCENARIOS),
  );
  assert.match(e2.message, /tags\.language: a lower-case language name/);
});

test('an unknown field, a wrong name, an unknown scenario and bad JSON are errors', () => {
  assert.match(errorOf(() => loadManifest(contenderWith({ ...good, strat: ['x'] }), SCENARIOS)).message, /strat/);
  assert.match(
    errorOf(() => loadManifest(contenderWith(good, 'other'), SCENARIOS)).message,
    /name: is 'x', expected the folder name 'other'/,
  );
  assert.match(
    errorOf(() => loadManifest(contenderWith({ ...good, scenarios: ['pong'] }), SCENARIOS)).message,
    /unknown scenario\(s\) pong; expected some of ping, json/,
  );
  assert.match(errorOf(() => loadManifest(contenderWith('{ nope'), SCENARIOS)).message, /not valid JSON/);
});

test('every real contender and test fixture has a valid manifest', () => {
  const all = loadScenarios(path.join(ROOT, 'scenarios')).map((s) => s.name);
  assert.ok(loadManifests(path.join(ROOT, 'contenders'), all).length >= 4);
  assert.ok(loadManifests(FIXTURES, all).length >= 4);
  assert.deepEqual(
    loadManifests(path.join(ROOT, 'test', 'fixtures', 'faults'), all).map((m) => m.name),
    [
      'chatty',
      'detached',
      'endless-body',
      'escape',
      'forking',
      'hog',
      'late-listener',
      'late-wrong',
      'leaky',
      'pause-sensitive',
      'proto',
      'wide-listener',
    ],
  );
});

test('the CLI reports a bad manifest without a stack trace (exit 2)', async () => {
  const dir = contenderWith({ ...good, start: [] });
  const r = await runCli(['--contenders-dir', path.dirname(dir), 'list']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /contender\.json: bad manifest/);
  assert.match(r.stderr, /start: .*>=1 items/);
  assert.doesNotMatch(r.stderr, /\n\s+at /);
});

test('unknown contender, scenario and profile names list the valid ones', async () => {
  const c = await runCli(['bench', 'nope']);
  assert.equal(c.code, 2);
  assert.match(c.stderr, /unknown contender 'nope'. Valid contenders: .*express.*fastify.*hono.*node-http/);
  const s = await runCli(['bench', 'node-http', '--scenario', 'nope']);
  assert.equal(s.code, 2);
  assert.match(
    s.stderr,
    /unknown scenario 'nope'. Valid scenarios: ping, json, echo, users, post, fanout, .*graphql-users/,
  );
  const p = await runCli(['bench', 'node-http', '--profile', 'nope']);
  assert.equal(p.code, 2);
  assert.match(
    p.stderr,
    /unknown profile 'nope'. Valid profiles: smoke, quick, .*stress, capacity, k6-ramp, k6-vus, k6-rate/,
  );
});
