// The GraphQL contenders end to end: the harness starts PostgreSQL itself, seeds and checks it,
// verifies, measures, and stops it; with no database to be had, GraphQL cells are skipped and
// the REST cells still run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { readCells, readMetas, runCli, tmpDir } from './helpers.ts';

/** PIDs of live (non-zombie) processes whose command is postgres. */
function postgresPids(): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
        return /\(postgres\)/.test(stat) && stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
      } catch {
        return false;
      }
    })
    .map(Number);
}

test('bench postgraphile-fastify: embedded PostgreSQL started, seeded, checked, measured, and stopped', async () => {
  const before = postgresPids();
  const results = tmpDir('graphql');
  const r = await runCli(['--results-dir', results, 'bench', 'postgraphile-fastify', '--profile', 'smoke']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stderr,
    /PostgreSQL 1\d\.\d+ at postgres:\/\/postgres:\*\*\*@127\.0\.0\.1:\d+\/\w+ \(embedded\); users: 10000 rows, checksum [0-9a-f]{32}/,
  );
  const cells = readCells(results);
  assert.deepEqual(cells.map((c) => c.scenario).sort(), ['graphql-ping', 'graphql-users', 'ping']);
  for (const c of cells) {
    assert.equal(c.status, 'ok', JSON.stringify(c.failure ?? c.verification));
    assert.equal(c.load.bodyChecks.mismatched, 0);
    assert.ok(c.load.requests.total > 0);
  }
  const [meta] = readMetas(results);
  assert.equal(meta.database.external, false);
  assert.match(meta.database.version, /^1\d\./);
  assert.ok(Object.keys(meta.database.settings).length > 0);
  assert.deepEqual(meta.database.seed, { rows: 10000, checksum: meta.database.seed.checksum });
  assert.deepEqual(
    postgresPids().filter((p) => !before.includes(p)),
    [],
    'no postgres process left behind',
  );
  await runCli(['--results-dir', results, 'leaderboard']);
  const md = fs.readFileSync(path.join(results, 'LEADERBOARD.md'), 'utf8');
  assert.match(md, /## graphql-users · smoke · autocannon · Node 24/);
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
