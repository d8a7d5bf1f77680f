// The GraphQL contenders end to end: the harness starts PostgreSQL itself, seeds and checks it,
// verifies, measures, and stops it; with no database to be had, GraphQL cells are skipped and
// the REST cells still run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { readCells, readMetas, runCli, tmpDir } from '../helpers.ts';

/** PIDs of live postmasters listening on `port` (their argv has `-p <port>`). */
function postmastersOnPort(port: number): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const argv = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0');
        const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
        const i = argv.indexOf('-p');
        return (
          argv[0]!.endsWith('/postgres') &&
          i >= 0 &&
          argv[i + 1] === String(port) &&
          stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z'
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}

test('bench postgraphile-fastify: embedded PostgreSQL started, seeded, checked, measured, and stopped', async () => {
  const results = tmpDir('graphql');
  const r = await runCli(['--results-dir', results, 'bench', 'postgraphile-fastify', '--profile', 'smoke', '--wait']);
  assert.equal(r.code, 0, r.stderr);
  const started =
    /PostgreSQL 1\d\.\d+ at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:(\d+)\/\w+ \(embedded\); users: 10000 rows, checksum [0-9a-f]{32}/.exec(
      r.stderr,
    );
  assert.ok(started, r.stderr);
  const pgPort = Number(started[1]);
  const all = readCells(results);
  const cells = all.filter((c) => c.contender === 'postgraphile-fastify');
  assert.deepEqual(cells.map((c) => c.scenario).sort(), [
    'graphql-introspection',
    'graphql-node',
    'graphql-ping',
    'graphql-users',
    'health-db',
    'json',
    'ping',
  ]);
  // Each scenario's baseline is measured in the same run (postgraphile-express for health-db and GraphQL).
  const baselines = all
    .filter((c) => c.contender !== 'postgraphile-fastify')
    .map((c) => `${c.contender} ${c.scenario}`)
    .sort();
  assert.deepEqual(baselines, [
    'node-http json',
    'node-http ping',
    'postgraphile-express graphql-introspection',
    'postgraphile-express graphql-node',
    'postgraphile-express graphql-ping',
    'postgraphile-express graphql-users',
    'postgraphile-express health-db',
  ]);
  for (const c of all) {
    assert.equal(c.status, 'ok', JSON.stringify(c.failure ?? c.verification));
    assert.equal(c.load.bodyChecks.mismatched, 0);
    assert.ok(c.load.requests.total > 0);
  }
  const [meta] = readMetas(results);
  assert.equal(meta.database.external, false);
  assert.match(meta.database.version, /^1\d\./);
  assert.ok(Object.keys(meta.database.settings).length > 0);
  assert.deepEqual(meta.database.seed, { rows: 10000, checksum: meta.database.seed.checksum });
  // Its own postmaster is gone (other runs on this machine may have their own; they are not counted).
  assert.deepEqual(postmastersOnPort(pgPort), [], 'no postgres process left behind');
  await runCli(['--results-dir', results, 'leaderboard']);
  const md = fs.readFileSync(path.join(results, 'LEADERBOARD.md'), 'utf8');
  assert.match(md, /#+ (<a id="[^"]*"><\/a>)?graphql-users · smoke · autocannon · Node 24/);
});

test('no database to be had: GraphQL cells are skipped with the reason, REST cells run', async () => {
  const results = tmpDir('nodb');
  const r = await runCli(
    [
      '--results-dir',
      results,
      'bench',
      'postgraphile-express',
      'node-http',
      '--profile',
      'smoke',
      '--scenario',
      'ping,graphql-ping',
    ],
    { DATABASE_URL: 'postgres://nobody:secret@127.0.0.1:1/none' },
  );
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stderr, /secret/, 'the password is not printed');
  const cells = readCells(results);
  const pg = cells.filter((c) => c.contender === 'postgraphile-express');
  assert.equal(pg.length, 2);
  for (const c of pg) {
    assert.equal(c.status, 'skipped');
    assert.match(c.failure.reason, /needs PostgreSQL: DATABASE_URL .* is not reachable/);
  }
  assert.equal(cells.find((c) => c.contender === 'node-http').status, 'ok');
});
