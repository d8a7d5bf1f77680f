// The contract verifier on good and bad responses: unit checks on constructed responses, then
// real servers (the four contenders and fixture contenders) on real sockets.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ContractChecker } from '../../harness/contract/verify.ts';
import {
  buildRequest,
  loadParams,
  loadScenarios,
  loadSharedSchemas,
  randomParams,
  type Scenario,
} from '../../harness/contract/scenarios.ts';
import { FIXTURES, ROOT, runCli } from '../helpers.ts';

const dir = path.join(ROOT, 'scenarios');
const scenarios = loadScenarios(dir);
const checker = new ContractChecker(loadSharedSchemas(dir));
const S = (name: string): Scenario => scenarios.find((s) => s.name === name)!;
const JSON_CT = 'application/json; charset=utf-8';

function res(body: unknown, headers: Record<string, string> = {}, status = 200) {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  return {
    status,
    headers: { 'content-type': JSON_CT, 'content-length': String(Buffer.byteLength(text)), ...headers },
    body: text,
  };
}
const upstreamBody = (id: number) => ({
  id,
  name: 'Mock Service Response',
  timestamp: '2026-01-01T00:00:00.000Z',
  data: { status: 'success', message: 'Response from mock service', value: 0.5 },
});
const users = Array.from({ length: 100 }, (_, i) => ({
  id: i + 1,
  name: `User ${i + 1}`,
  email: `user${i + 1}@example.com`,
  active: true,
}));

test('the contract has the eleven scenarios in order, each with a baseline contender', () => {
  assert.deepEqual(
    scenarios.map((s) => s.name),
    [
      'ping',
      'json',
      'echo',
      'users',
      'post',
      'fanout',
      'health-db',
      'graphql-ping',
      'graphql-users',
      'graphql-introspection',
      'graphql-node',
    ],
  );
  for (const s of scenarios) {
    const want = s.name.startsWith('graphql-') || s.name === 'health-db' ? 'postgraphile-express' : 'node-http';
    assert.equal(s.baseline, want, s.name);
    assert.ok(fs.existsSync(path.join(ROOT, 'contenders', s.baseline, 'contender.json')), s.baseline);
  }
});

test('a scenario file without a baseline, or with a bad one, is refused with the file and the field', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bakeoff-scen-'));
  try {
    const ping = JSON.parse(fs.readFileSync(path.join(ROOT, 'scenarios', 'ping.json'), 'utf8'));
    delete ping.baseline;
    fs.writeFileSync(path.join(dir, 'ping.json'), JSON.stringify(ping));
    assert.throws(() => loadScenarios(dir), /ping\.json: bad scenario definition[\s\S]*baseline/);
    fs.writeFileSync(path.join(dir, 'ping.json'), JSON.stringify({ ...ping, baseline: 'Node HTTP' }));
    assert.throws(() => loadScenarios(dir), /baseline.*contender name/);
    const pick = { ...ping, baseline: 'node-http', params: { u: { from: 'database.sampleUsers' } } };
    fs.writeFileSync(path.join(dir, 'ping.json'), JSON.stringify(pick));
    assert.throws(() => loadScenarios(dir), /params/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('graphql-introspection: the schema shape passes; no __schema, no types, or GraphQL errors fail', () => {
  const s = S('graphql-introspection');
  const body = JSON.parse(buildRequest(s, {}).body!);
  assert.match(body.query, /query IntrospectionQuery \{\s+__schema \{\s+queryType \{ name/);
  const schema = {
    queryType: { name: 'Query' },
    mutationType: null,
    subscriptionType: null,
    types: [{ kind: 'OBJECT', name: 'Query', fields: [] }],
    directives: [],
  };
  assert.equal(checker.checkResponse(s, {}, res({ data: { __schema: schema } })).level, 'pass');
  assert.equal(checker.checkResponse(s, {}, res({ data: { __typename: 'Query' } })).level, 'fail');
  assert.equal(checker.checkResponse(s, {}, res({ data: { __schema: { ...schema, types: [] } } })).level, 'fail');
  assert.match(
    checker.checkResponse(s, {}, res({ data: null, errors: [{ message: 'introspection is disabled' }] })).reasons[0]!,
    /GraphQL errors in the reply: .*introspection is disabled/,
  );
});

test('graphql-node: the id goes in as a variable; a random row per verification; field-by-field reasons', () => {
  const s = S('graphql-node');
  const sample = Array.from({ length: 300 }, (_, i) => ({ id: i * 7 + 1, name: `n${i}`, email: `e${i}@x.y` }));
  const rt = {
    graphql: {
      usersQuery: 'q',
      usersPath: 'data.x',
      userByIdQuery: 'query Q($id: Int!) { u(id: $id) { id } }',
      userByIdPath: 'data.u',
    },
    sampleUsers: sample,
  };
  const first = loadParams(s, rt);
  assert.deepEqual(first.user, sample[0]);
  assert.deepEqual(JSON.parse(buildRequest(s, first).body!), { query: rt.graphql.userByIdQuery, variables: { id: 1 } });
  const picks = new Set(Array.from({ length: 20 }, () => (randomParams(s, rt).user as { id: number }).id));
  assert.ok(picks.size > 10, 'random rows');
  assert.equal(checker.checkResponse(s, first, res({ data: { u: sample[0] } })).level, 'pass');
  assert.match(
    checker.checkResponse(s, first, res({ data: { u: { ...sample[0], name: 'someone' } } })).reasons[0]!,
    /data\.u: field name "someone", expected "n0"/,
  );
  assert.match(
    checker.checkResponse(s, first, res({ data: { u: null } })).reasons[0]!,
    /data\.u: null, expected \{"id":1/,
  );
  assert.throws(() => loadParams(s, { graphql: rt.graphql }), /needs database\.sampleUsers/);
  assert.throws(() => loadParams(s, { sampleUsers: sample }), /needs manifest\.graphql\.userByIdQuery/);
});

test('GraphQL: rows are compared at the manifest path; a wrong row, a missing field or an errors body fail', () => {
  const rows = Array.from({ length: 10 }, (_, i) => ({ id: i + 1, name: `n${i}`, email: `e${i}@x.y` }));
  const rt = {
    graphql: { usersQuery: '{ allUsers { nodes { id } } }', usersPath: 'data.allUsers.nodes' },
    firstUsers: rows,
  };
  const params = loadParams(S('graphql-users'), rt);
  assert.equal(JSON.parse(buildRequest(S('graphql-users'), params).body!).query, rt.graphql.usersQuery);
  const ok = checker.checkResponse(S('graphql-users'), params, res({ data: { allUsers: { nodes: rows } } }));
  assert.equal(ok.level, 'pass', ok.reasons.join());
  const wrongRow = rows.map((r, i) => (i === 3 ? { ...r, name: 'someone else' } : r));
  assert.match(
    checker.checkResponse(S('graphql-users'), params, res({ data: { allUsers: { nodes: wrongRow } } })).reasons[0]!,
    /data\.allUsers\.nodes: .*expected/,
  );
  const missing = rows.map(({ email: _e, ...r }) => r);
  assert.equal(
    checker.checkResponse(S('graphql-users'), params, res({ data: { allUsers: { nodes: missing } } })).level,
    'fail',
  );
  assert.match(
    checker.checkResponse(
      S('graphql-users'),
      params,
      res({ data: null, errors: [{ message: 'relation "users" does not exist' }] }),
    ).reasons[0]!,
    /GraphQL errors in the reply: .*relation/,
  );
  assert.match(
    checker.checkResponse(S('graphql-users'), params, res({ data: {} })).reasons[0]!,
    /nothing at data\.allUsers\.nodes/,
  );
  assert.equal(checker.checkResponse(S('graphql-ping'), {}, res({ data: { __typename: 'Query' } })).level, 'pass');
  assert.equal(
    checker.checkResponse(S('graphql-ping'), {}, res({ data: { __typename: 'Query' }, errors: [] })).level,
    'fail',
  );
  assert.throws(() => loadParams(S('graphql-users'), {}), /needs manifest\.graphql\.usersQuery/);
});

test('good responses pass', () => {
  assert.equal(
    checker.checkResponse(S('ping'), {}, res('pong', { 'content-type': 'text/plain; charset=utf-8' })).level,
    'pass',
  );
  assert.equal(checker.checkResponse(S('json'), {}, res({ message: 'Hello, World!' })).level, 'pass');
  assert.equal(
    checker.checkResponse(
      S('json'),
      {},
      res({ message: 'Hello, World!' }, { 'content-type': 'application/json; charset=UTF-8' }),
    ).level,
    'pass',
  );
  assert.equal(checker.checkResponse(S('users'), {}, res(users)).level, 'pass');
  const chunked = {
    status: 200,
    headers: { 'content-type': JSON_CT, 'transfer-encoding': 'chunked' },
    body: JSON.stringify({ message: 'aggregated', data: [1, 2, 3, 4, 5].map(upstreamBody) }),
  };
  assert.equal(checker.checkResponse(S('fanout'), {}, chunked).level, 'pass');
});

test('status, content-type and framing problems fail or warn', () => {
  const wrongType = checker.checkResponse(
    S('json'),
    {},
    res({ message: 'Hello, World!' }, { 'content-type': 'text/html' }),
  );
  assert.equal(wrongType.level, 'fail');
  assert.match(wrongType.reasons[0]!, /content-type 'text\/html', expected 'application\/json; charset=utf-8'/);
  const noCharset = checker.checkResponse(
    S('json'),
    {},
    res({ message: 'Hello, World!' }, { 'content-type': 'application/json' }),
  );
  assert.equal(noCharset.level, 'warn');
  assert.equal(checker.checkResponse(S('json'), {}, res({ message: 'Hello, World!' }, {}, 201)).level, 'fail');
  const noFraming = { status: 200, headers: { 'content-type': JSON_CT }, body: '{"message":"Hello, World!"}' };
  assert.match(checker.checkResponse(S('json'), {}, noFraming).reasons.join(), /neither content-length nor chunked/);
  assert.equal(
    checker.checkResponse(S('json'), {}, res({ message: 'Hello, World!' }, { 'content-length': '3' })).level,
    'fail',
  );
});

test('wrong bodies fail: hard-coded echo, constant POST echo, null fan-out items, 99 users', () => {
  const echoParams = randomParams(S('echo'));
  assert.notEqual(echoParams.name, 'Benchmark');
  assert.equal(checker.checkResponse(S('echo'), echoParams, res({ echo: 'Hello, Benchmark!' })).level, 'fail');
  assert.equal(checker.checkResponse(S('echo'), echoParams, res({ echo: `Hello, ${echoParams.name}!` })).level, 'pass');

  const postParams = randomParams(S('post'));
  const seedEcho = { received: loadParams(S('post')).body, processed: true };
  assert.equal(checker.checkResponse(S('post'), loadParams(S('post')), res(seedEcho)).level, 'pass');
  assert.equal(checker.checkResponse(S('post'), postParams, res(seedEcho)).level, 'fail');

  const nulls = checker.checkResponse(
    S('fanout'),
    {},
    res({ message: 'aggregated', data: [null, null, null, null, null] }),
  );
  assert.equal(nulls.level, 'fail');
  assert.match(nulls.reasons[0]!, /\/data\/0 must be object/);
  const missingField = [1, 2, 3, 4, 5].map(upstreamBody);
  delete (missingField[2]!.data as any).value;
  assert.equal(
    checker.checkResponse(S('fanout'), {}, res({ message: 'aggregated', data: missingField })).level,
    'fail',
  );
  assert.equal(checker.checkResponse(S('users'), {}, res(users.slice(1))).level, 'fail');
  assert.equal(
    checker.checkResponse(S('ping'), {}, res('PONG', { 'content-type': 'text/plain; charset=utf-8' })).level,
    'fail',
  );
});

test('the four foundation contenders pass verification on real sockets', async () => {
  const r = await runCli(['verify', 'node-http', 'express', 'fastify', 'hono']);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.equal((r.stdout.match(/^\s+pass\s/gm) ?? []).length, 24, r.stdout);
});

test('a fixture with the wrong content-type fails verification (exit 1)', async () => {
  const r = await runCli(['--contenders-dir', FIXTURES, 'verify', 'wrong-content-type']);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /pass\s+ping/);
  assert.match(r.stdout, /fail\s+json: GET \/json: content-type 'text\/html'/);
});
