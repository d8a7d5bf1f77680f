// The database service on a real embedded PostgreSQL (no mocks): start, seed, checksum, the first
// rows, stop without leftovers; the DATABASE_URL override; a clear error for an unreachable URL;
// no postgres process outlives a harness that is stopped with SIGTERM or killed with SIGKILL.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { alive, descendants, ROOT } from '../helpers.ts';
import {
  checkSeed,
  EXPECTED_SEED,
  firstUsers,
  generateUsers,
  seedUsers,
  startPostgres,
} from '../../harness/services/postgres.ts';
import { expectedChecksum, seedSql } from '../../harness/services/users-seed.ts';
import { makeCpuPlan } from '../../harness/lifecycle/cpu-plan.ts';

const CHILD = path.join(ROOT, 'test', 'fixtures', 'postgres-child.ts');

/** The postmaster's own processes (checkpointer, walwriter, backends…): they leave its process group. */
function postgresFamily(pid: number): number[] {
  return [pid, ...descendants(pid)];
}

/** Pids of every running postmaster of the embedded binaries (to see that none was added). */
function postmasters(): number[] {
  return fs
    .readdirSync('/proc')
    .filter((d) => /^\d+$/.test(d))
    .filter((d) => {
      try {
        const argv = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0');
        return argv[0]!.endsWith('/native/bin/postgres') && argv.includes('-D') && alive(Number(d));
      } catch {
        return false;
      }
    })
    .map(Number);
}

async function waitGone(pids: number[], ms = 5000): Promise<number[]> {
  const end = Date.now() + ms;
  while (pids.some(alive) && Date.now() < end) await sleep(50);
  return pids.filter(alive);
}

/** Runs the fixture child; resolves with its JSON line once postgres is up. */
async function startChild(): Promise<{
  child: ReturnType<typeof spawn>;
  info: { pid: number; dataDir: string; url: string; orphanGuard: string };
  exited: Promise<number | null>;
}> {
  const env = { ...process.env };
  delete env.DATABASE_URL;
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', CHILD], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  child.stdout!.on('data', (b) => {
    out += b;
  });
  child.stderr!.on('data', (b) => {
    err += b;
  });
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  const end = Date.now() + 60_000;
  while (!out.includes('\n')) {
    if (child.exitCode !== null || Date.now() > end) {
      child.kill('SIGKILL');
      throw new Error(`fixture did not start postgres: ${err}`);
    }
    await sleep(50);
  }
  return { child, info: JSON.parse(out.split('\n')[0]!), exited };
}

test('embedded postgres: start, seed, checksum, first rows, stop without leftovers', async () => {
  delete process.env.DATABASE_URL;
  const plan = makeCpuPlan();
  const db = await startPostgres({ cpus: plan.services });
  try {
    assert.equal(db.external, false);
    assert.match(db.url, /^postgres:\/\/postgres:[^@]+@127\.0\.0\.1:\d+\/bakeoff$/);
    assert.match(db.version, /^\d+\.\d+/);
    for (const s of ['shared_buffers', 'max_connections', 'fsync', 'synchronous_commit', 'work_mem'])
      assert.ok(db.settings[s], `setting ${s}`);
    assert.ok(db.pid && alive(db.pid));
    assert.equal(db.pinned, plan.pinned, `pinned to ${plan.services}`);
    if (plan.pinned) assert.equal(db.cpus, plan.services);
    assert.ok(db.dataDir && fs.existsSync(db.dataDir));

    await assert.rejects(checkSeed(db.url), /no table "users"/);
    await seedUsers(db.url);
    await seedUsers(db.url); // idempotent: drop and re-create
    const seed = await checkSeed(db.url);
    assert.deepEqual(seed, { rows: EXPECTED_SEED.rows, checksum: EXPECTED_SEED.checksum });
    assert.equal(expectedChecksum(), EXPECTED_SEED.checksum, 'the SQL checksum and the JS seed definition agree');

    const rows = await firstUsers(db.url);
    assert.deepEqual(
      rows.map((r) => r.id),
      [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    );
    assert.deepEqual(
      rows,
      generateUsers()
        .slice(0, 10)
        .map(({ id, name, email }) => ({ id, name, email })),
    );
    assert.equal((await firstUsers(db.url, 3)).length, 3);
    assert.match(
      seedSql(),
      /^CREATE TABLE users \(id serial PRIMARY KEY, name text NOT NULL, email text NOT NULL, created_at timestamptz NOT NULL\);$/m,
    );
  } finally {
    const family = db.pid ? postgresFamily(db.pid) : [];
    assert.ok(family.length > 1, 'a postmaster and its processes');
    await db.stop();
    assert.deepEqual(await waitGone(family, 2000), [], 'no postgres process survives stop()');
    assert.equal(fs.existsSync(path.dirname(db.dataDir!)), false, 'the data folder is removed');
  }
});

test('DATABASE_URL: an existing server is used as is, nothing is started', async () => {
  delete process.env.DATABASE_URL;
  const first = await startPostgres({ cpus: null });
  try {
    await seedUsers(first.url);
    const before = postmasters();
    process.env.DATABASE_URL = first.url;
    const db = await startPostgres({ cpus: null });
    assert.equal(db.external, true);
    assert.equal(db.url, first.url);
    assert.equal(db.pid, null);
    assert.equal(db.version, first.version);
    assert.deepEqual(postmasters().sort(), before.sort(), 'no second postmaster');
    assert.deepEqual(await checkSeed(db.url), { ...EXPECTED_SEED });
    await db.stop(); // does not touch the server it did not start
    assert.equal((await firstUsers(first.url, 1))[0]!.id, 1);
  } finally {
    delete process.env.DATABASE_URL;
    await first.stop();
  }
});

test('an unreachable DATABASE_URL fails fast with a clear error, password hidden', async () => {
  process.env.DATABASE_URL = 'postgres://x:secretpw@127.0.0.1:1/db';
  const t0 = Date.now();
  try {
    await assert.rejects(startPostgres({ cpus: null }), (e: Error) => {
      assert.match(
        e.message,
        /DATABASE_URL postgres:\/\/x:\*\*\*@127\.0\.0\.1:1\/db is not reachable \(.*ECONNREFUSED.*\)/,
      );
      assert.doesNotMatch(e.message, /secretpw/);
      return true;
    });
    assert.ok(Date.now() - t0 < 5000, `took ${Date.now() - t0} ms`);
    process.env.DATABASE_URL = 'not a url';
    await assert.rejects(startPostgres({ cpus: null }), /DATABASE_URL is not a URL/);
  } finally {
    delete process.env.DATABASE_URL;
  }
});

test('SIGTERM to a harness that started postgres leaves no postgres process and no data folder', async () => {
  const { child, info, exited } = await startChild();
  const family = postgresFamily(info.pid);
  assert.ok(family.length > 1);
  child.kill('SIGTERM');
  assert.equal(await exited, 0);
  assert.deepEqual(await waitGone(family, 2000), []);
  assert.equal(fs.existsSync(path.dirname(info.dataDir)), false);
});

test('SIGKILL to a harness that started postgres: the postmaster dies with it, the next start sweeps its folder', async (t) => {
  const { child, info, exited } = await startChild();
  if (info.orphanGuard !== 'pdeathsig') {
    child.kill('SIGTERM');
    await exited;
    t.skip('setpriv --pdeathsig is not available here: a SIGKILLed harness would leave its postmaster running');
    return;
  }
  const family = postgresFamily(info.pid);
  assert.ok(family.length > 1);
  child.kill('SIGKILL');
  await exited;
  assert.deepEqual(await waitGone(family, 5000), [], 'parent-death signal, then postmaster death for its processes');
  assert.ok(fs.existsSync(path.dirname(info.dataDir)), 'a killed harness cannot remove its folder');
  delete process.env.DATABASE_URL;
  const db = await startPostgres({ cpus: null });
  await db.stop();
  assert.equal(fs.existsSync(path.dirname(info.dataDir)), false, 'swept by the next start');
});
