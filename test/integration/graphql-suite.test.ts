// The PostGraphile template's suite (issue 16) on a real embedded PostgreSQL and real servers:
// the four GraphQL contenders pass graphql-introspection, graphql-node and health-db (and the
// older scenarios); a server answering a wrong row for a random id fails the verifier; and the
// database-loss fault: PostgreSQL frozen or killed under a contender makes GET /health answer 503
// within the 2 s deadline (no hang, no crash), and the bench run records it.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadManifest, type Manifest } from '../../harness/core/manifest.ts';
import { ContractChecker, RANDOM_PICKS, verifyScenario } from '../../harness/contract/verify.ts';
import {
  buildRequest,
  loadParams,
  loadScenarios,
  loadSharedSchemas,
  loadVariants,
  type Scenario,
} from '../../harness/contract/scenarios.ts';
import { fetchOnce } from '../../harness/contract/http.ts';
import { openDatabase, type RunDatabase } from '../../harness/services/database.ts';
import { generateUsers, SAMPLE_SIZE, sampleUserIds } from '../../harness/services/users-seed.ts';
import { buildContender } from '../../harness/lifecycle/build.ts';
import { startServer, type ServerHandle } from '../../harness/lifecycle/server.ts';
import { freePort } from '../../harness/lifecycle/ports.ts';
import { findIssues } from '../../harness/report/issues.ts';
import { alive, CLI, descendants, readCells, ROOT, tmpDir } from '../helpers.ts';

const SCENARIOS_DIR = path.join(ROOT, 'scenarios');
const scenarios = loadScenarios(SCENARIOS_DIR);
const checker = new ContractChecker(loadSharedSchemas(SCENARIOS_DIR));
const S = (name: string): Scenario => scenarios.find((s) => s.name === name)!;
const names = scenarios.map((s) => s.name);
const CONTENDERS = [
  'postgraphile-express',
  'postgraphile-fastify',
  'nestjs-graphql-apollo',
  'nestjs-graphql-mercurius',
];
const NEW = ['health-db', 'graphql-introspection', 'graphql-node'];
const logs = tmpDir('graphql-suite');

let db: RunDatabase;
before(async () => {
  const env = process.env.DATABASE_URL;
  delete process.env.DATABASE_URL; // always the embedded one: the fault tests stop it
  db = await openDatabase({ cpus: null, log: () => {}, external: false, signal: new AbortController().signal });
  if (env !== undefined) process.env.DATABASE_URL = env;
  assert.equal(db.ready, true, db.error ?? '');
});
after(async () => {
  await db?.close();
});

/** Builds (when it has a build step) and starts contender `name` on the run's database. */
async function start(name: string, dbUrl = db.url!): Promise<{ m: Manifest; server: ServerHandle }> {
  const m = loadManifest(path.join(ROOT, 'contenders', name), names);
  const build = await buildContender(m);
  assert.ok(build.ok, build.output);
  const server = await startServer(m, {
    host: '127.0.0.1',
    port: await freePort(),
    upstreamUrl: 'http://127.0.0.1:9',
    env: { DATABASE_URL: dbUrl },
    cpus: null,
    logFile: path.join(logs, `${name}.log`),
    nodePath: process.execPath,
  });
  return { m, server };
}

/** The postmaster and every process it forked (backends call setsid(), so a group signal misses them). */
function postgresProcesses(pid: number): number[] {
  return [pid, ...descendants(pid)];
}

function signalAll(pids: number[], sig: NodeJS.Signals): void {
  for (const p of pids) {
    try {
      process.kill(p, sig);
    } catch {
      /* gone */
    }
  }
}

/** GET /health once: status, body and how long it took (ms). */
async function health(baseUrl: string): Promise<{ status: number; body: unknown; ms: number }> {
  const t0 = performance.now();
  const r = await fetchOnce(baseUrl, { method: 'GET', path: '/health' }, 10_000);
  return { status: r.status, body: JSON.parse(r.body.toString()), ms: performance.now() - t0 };
}

test('the run database reads 256 sampled users with fixed ids, and alive() answers', async () => {
  assert.equal(db.sampleUsers!.length, SAMPLE_SIZE);
  assert.ok(SAMPLE_SIZE >= 200);
  assert.deepEqual(
    db.sampleUsers!.map((u) => u.id),
    sampleUserIds(),
  );
  const seed = generateUsers();
  for (const u of db.sampleUsers!) {
    const s = seed[u.id - 1];
    assert.deepEqual(u, { id: s!.id, name: s!.name, email: s!.email });
  }
  assert.equal(await db.alive(), true);
  assert.equal(typeof db.pid, 'number');
});

test('graphql-node under load: one variant per sampled row, each request carrying its own id', () => {
  const rt = {
    graphql: {
      usersQuery: 'q',
      usersPath: 'data.x',
      userByIdQuery: 'query UserById($id: Int!) { userById(id: $id) { id name email } }',
      userByIdPath: 'data.userById',
    },
    sampleUsers: db.sampleUsers,
  };
  const variants = loadVariants(S('graphql-node'), rt)!;
  assert.equal(variants.length, SAMPLE_SIZE);
  for (const [i, v] of variants.entries()) {
    const body = JSON.parse(v.request.body!);
    assert.equal(body.query, rt.graphql.userByIdQuery);
    assert.deepEqual(body.variables, { id: db.sampleUsers![i]!.id });
    assert.deepEqual(v.params.user, db.sampleUsers![i]);
  }
  assert.equal(loadVariants(S('graphql-users'), { ...rt, firstUsers: [] }), undefined);
  assert.throws(() => loadVariants(S('graphql-node'), { graphql: rt.graphql }), /needs database\.sampleUsers/);
});

for (const name of CONTENDERS) {
  test(`${name} passes graphql-introspection, graphql-node and health-db, and its older scenarios`, async () => {
    const { m, server } = await start(name);
    try {
      for (const s of NEW) assert.ok(m.scenarios.includes(s), `${name} lists ${s}`);
      const rt = { graphql: m.graphql, firstUsers: db.firstUsers, sampleUsers: db.sampleUsers, paths: m.paths };
      for (const s of scenarios.filter((x) => m.scenarios.includes(x.name))) {
        const v = await verifyScenario(checker, server.baseUrl, s, rt);
        assert.equal(v.level, 'pass', `${name} ${s.name}: ${v.reasons.join('; ')}`);
      }
      // Every sampled id answers its own row (not just the verifier's few random ones).
      for (const variant of loadVariants(S('graphql-node'), rt)!.filter((_, i) => i % 16 === 0)) {
        const r = await fetchOnce(server.baseUrl, variant.request);
        const v = checker.checkResponse(S('graphql-node'), variant.params, r);
        assert.equal(v.level, 'pass', v.reasons.join('; '));
      }
      const h = await health(server.baseUrl);
      assert.deepEqual([h.status, h.body], [200, { status: 'ok', database: 'up' }]);
    } finally {
      await server.stop();
    }
  });
}

/** A GraphQL server on a real socket that answers graphql-node with `rowFor(id)`. */
async function fixtureServer(rowFor: (id: number) => unknown): Promise<{ baseUrl: string; close: () => void }> {
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (b) => {
      text += b;
    });
    req.on('end', () => {
      const { variables } = JSON.parse(text || '{}');
      const body = JSON.stringify({ data: { userById: rowFor(Number(variables?.id)) } });
      res.writeHead(200, {
        'content-type': 'application/json; charset=utf-8',
        'content-length': Buffer.byteLength(body),
      });
      res.end(body);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { baseUrl: `http://127.0.0.1:${port}`, close: () => server.close() };
}

test('graphql-node: a server answering a wrong row for a random id fails, field by field', async () => {
  const seed = generateUsers();
  const row = (id: number) => ({ id, name: seed[id - 1]!.name, email: seed[id - 1]!.email });
  const rt = {
    graphql: { usersQuery: 'q', usersPath: 'data.x', userByIdQuery: 'query', userByIdPath: 'data.userById' },
    sampleUsers: db.sampleUsers,
  };
  const cases: [string, (id: number) => unknown, RegExp | null][] = [
    ['the right row', (id) => row(id), null],
    ['the next row', (id) => row(id + 1), /data\.userById: field id \d+, expected \d+; field name/],
    ['always the first sampled row (a cache)', () => db.sampleUsers![0], /data\.userById: field id/],
    ['the right row with a wrong e-mail', (id) => ({ ...row(id), email: 'x@example.com' }), /field email "x@/],
    ['the right row with an extra field', (id) => ({ ...row(id), createdAt: 'x' }), /field createdAt not in the/],
    ['null', () => null, /data\.userById/],
  ];
  for (const [what, rowFor, reason] of cases) {
    const f = await fixtureServer(rowFor);
    try {
      const v = await verifyScenario(checker, f.baseUrl, S('graphql-node'), rt);
      if (!reason) assert.equal(v.level, 'pass', `${what}: ${v.reasons.join('; ')}`);
      else {
        assert.equal(v.level, 'fail', what);
        assert.match(v.reasons.join('\n'), reason, what);
      }
    } finally {
      f.close();
    }
  }
  // The cache passes the load request (the first sampled row) and fails the random ones.
  const cache = await fixtureServer(() => db.sampleUsers![0]);
  try {
    const first = loadParams(S('graphql-node'), rt);
    const r = await fetchOnce(cache.baseUrl, buildRequest(S('graphql-node'), first));
    assert.equal(checker.checkResponse(S('graphql-node'), first, r).level, 'pass');
    const v = await verifyScenario(checker, cache.baseUrl, S('graphql-node'), rt);
    assert.ok(v.reasons.length >= RANDOM_PICKS - 1, v.reasons.join('; '));
  } finally {
    cache.close();
  }
});

test('health-db: 503 {"status":"error","database":"down"} fails the contract; the 200 form passes', () => {
  const ok = JSON.stringify({ status: 'ok', database: 'up' });
  const down = JSON.stringify({ status: 'error', database: 'down' });
  const res = (status: number, body: string) => ({
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'content-length': String(body.length) },
    body,
  });
  assert.equal(checker.checkResponse(S('health-db'), {}, res(200, ok)).level, 'pass');
  assert.match(checker.checkResponse(S('health-db'), {}, res(503, down)).reasons[0]!, /status 503, expected 200/);
  assert.equal(checker.checkResponse(S('health-db'), {}, res(200, down)).level, 'fail');
});

/**
 * Its own database (so the shared one stays up): start `name`, check /health, freeze PostgreSQL
 * (SIGSTOP: a database that does not answer), check 503 within the 2 s deadline, thaw it, check 200 again,
 * then kill it (SIGKILL) while requests are in flight and check that every answer is 200 or 503,
 * none hangs, and the server lives on.
 */
async function databaseLoss(name: string): Promise<void> {
  const own = await openDatabase({ cpus: null, log: () => {}, external: false, signal: new AbortController().signal });
  assert.equal(own.ready, true, own.error ?? '');
  const { server } = await start(name, own.url!);
  try {
    assert.equal((await health(server.baseUrl)).status, 200);
    const pg = postgresProcesses(own.pid!);

    signalAll(pg, 'SIGSTOP');
    try {
      const frozen = await health(server.baseUrl);
      assert.deepEqual([frozen.status, frozen.body], [503, { status: 'error', database: 'down' }]);
      assert.ok(frozen.ms < 3500, `a frozen database answered 503 after ${Math.round(frozen.ms)} ms`);
      assert.equal(await own.alive(), false);
    } finally {
      signalAll(pg, 'SIGCONT');
    }
    let back = await health(server.baseUrl);
    for (let i = 0; i < 20 && back.status !== 200; i++) {
      await sleep(250);
      back = await health(server.baseUrl);
    }
    assert.equal(back.status, 200, 'healthy again once PostgreSQL runs again');

    // Under load: 16 keep-alive loops for 3 s; PostgreSQL is killed after 1 s.
    const statuses = new Map<number, number>();
    let slowest = 0;
    const end = Date.now() + 3000;
    const loops = Array.from({ length: 16 }, async () => {
      while (Date.now() < end) {
        const h = await health(server.baseUrl);
        statuses.set(h.status, (statuses.get(h.status) ?? 0) + 1);
        slowest = Math.max(slowest, h.ms);
      }
    });
    await sleep(1000);
    signalAll(postgresProcesses(own.pid!), 'SIGKILL');
    await Promise.all(loops);
    assert.deepEqual(
      [...statuses.keys()].sort(),
      [200, 503],
      `statuses ${JSON.stringify([...statuses])}: 200 before the kill, 503 after`,
    );
    assert.ok(slowest < 3500, `slowest /health ${Math.round(slowest)} ms: no request hangs`);
    assert.equal(server.exitInfo(), null, 'the contender did not crash');
    assert.equal(alive(server.pid), true);
    assert.equal((await fetchOnce(server.baseUrl, { method: 'GET', path: '/ping' })).status, 200);
    const dead = await health(server.baseUrl);
    assert.deepEqual([dead.status, dead.body], [503, { status: 'error', database: 'down' }]);
    assert.ok(dead.ms < 1500, `503 after ${Math.round(dead.ms)} ms`);
    assert.equal(await own.alive(), false);
  } finally {
    await server.stop();
    await own.close();
  }
}

test('database loss under postgraphile-fastify: /health turns 503 quickly, comes back, no crash', () =>
  databaseLoss('postgraphile-fastify'));

test('database loss under nestjs-graphql-mercurius: /health turns 503 quickly, comes back, no crash', () =>
  databaseLoss('nestjs-graphql-mercurius'));

/** The embedded postmasters among the descendants of `pid`. */
function postmastersUnder(pid: number): number[] {
  return descendants(pid).filter((d) => {
    try {
      const argv = fs.readFileSync(`/proc/${d}/cmdline`, 'utf8').split('\0');
      return argv[0]!.endsWith('/native/bin/postgres') && argv.includes('-D');
    } catch {
      return false;
    }
  });
}

test('database loss mid-cell in a bench run: the health-db cell records the 503s (and servicesLost)', async () => {
  const results = tmpDir('dbloss');
  const env = { ...process.env };
  delete env.DATABASE_URL;
  const child = spawn(
    process.execPath,
    [
      '--disable-warning=ExperimentalWarning',
      CLI,
      '--results-dir',
      results,
      'bench',
      'postgraphile-fastify',
      '--scenario',
      'health-db',
      '--profile',
      'standard',
      '--no-baseline',
      '--no-fidelity',
      '--wait',
    ],
    { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let out = '';
  child.stdout.on('data', (b) => {
    out += b;
  });
  child.stderr.on('data', (b) => {
    out += b;
  });
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  const killer = setTimeout(() => child.kill('SIGKILL'), 480_000);
  try {
    // Wait for the first measured trial to be written (after the verification, the burst and the
    // warm-up), then kill PostgreSQL: the remaining rounds of the cell run without a database.
    const trialWritten = () =>
      (fs.readdirSync(results, { recursive: true }) as string[]).some((f) => /trials?[/\\]/.test(f));
    const deadline = Date.now() + 400_000; // --wait: another run may hold the machine first
    while (Date.now() < deadline && child.exitCode === null && !trialWritten()) await sleep(50);
    const pg = postmastersUnder(child.pid!);
    assert.equal(pg.length, 1, `a postmaster under the bench run, a trial written\n${out}`);
    signalAll(postgresProcesses(pg[0]!), 'SIGKILL');
    const code = await exited;
    assert.notEqual(code, null, out);
    const cells = readCells(results).filter((c) => c.scenario === 'health-db');
    assert.equal(cells.length, 1, out);
    const [cell] = cells;
    assert.ok(
      (cell.load?.non2xx ?? 0) > 0,
      `the 503s are recorded: ${JSON.stringify(cell.load ?? cell.failure)}\n${out}`,
    );
    assert.equal(cell.load.timeouts, 0, 'no request hung until the driver gave up');
    assert.deepEqual(cell.servicesLost, ['database'], 'the scheduler saw the database go away');
    // The issue analysis says so, and does not blame the contender (errors, slowness).
    const findings = findIssues(cells);
    assert.deepEqual(
      findings.map((f) => f.rule),
      ['database-lost'],
      JSON.stringify(findings),
    );
    assert.match(findings[0]!.title, /database went away/);
  } finally {
    clearTimeout(killer);
    if (child.exitCode === null) child.kill('SIGKILL');
  }
});
