/**
 * The wrk driver with the real wrk (Debian package; `npx just tools` installs it as root): its
 * Lua script, a window against a real contender, body checks equal to the verifier's (the
 * wrong-content-type fixture, a server that answers 1 in 200 requests wrongly), request variants
 * drawn at random (a server that records the values it saw, for wrk, autocannon and k6), and the
 * registry with wrk missing. The wrk tests are skipped with the install command when wrk is missing.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import * as hdr from 'hdr-histogram-js';
import {
  buildRequest,
  loadParams,
  loadScenarios,
  loadSharedSchemas,
  type ParamValues,
} from '../../harness/contract/scenarios.ts';
import { getProfile, type ConnectionProfile, type Profile } from '../../harness/core/profiles.ts';
import { freePort } from '../../harness/lifecycle/ports.ts';
import { getDriver, probeAll, resolveDriver } from '../../harness/drivers/driver-registry.ts';
import type { DriverName, LoadJob, WindowOptions } from '../../harness/drivers/driver-types.ts';
import {
  findWrk,
  luaString,
  MAX_SAMPLES_PER_THREAD,
  readSampleFile,
  runWrkWindow,
  splitConnections,
  WRK_INSTALL,
  wrkScript,
} from '../../harness/drivers/wrk.ts';
import { findK6 } from '../../harness/drivers/k6.ts';
import { FIXTURES, ROOT, runCli, tmpDir } from '../helpers.ts';

const scenariosDir = path.join(ROOT, 'scenarios');
const scenarios = loadScenarios(scenariosDir);
const shared = loadSharedSchemas(scenariosDir);
const scenario = (name: string) => scenarios.find((s) => s.name === name)!;
const wrk = findWrk();
const NO_WRK = wrk ? false : `wrk is not installed: ${WRK_INSTALL} (or \`npx just tools\` as root)`;
const k6 = findK6({ build: false });

function jobFor(url: string, name: string, patch: Partial<LoadJob> = {}): LoadJob {
  const s = scenario(name);
  const params = loadParams(s);
  return { url, scenario: name, scenariosDir, params, request: buildRequest(s, params), sampleEvery: 10, ...patch };
}

function options(name: string, patch: Partial<WindowOptions> = {}): WindowOptions {
  return {
    durationS: 1,
    warmup: false,
    cpus: null,
    threads: 1,
    signal: new AbortController().signal,
    scenario: scenario(name),
    sharedSchemas: shared,
    ...patch,
  };
}

const profile = (connections: number): ConnectionProfile => ({
  ...(getProfile('quick') as ConnectionProfile),
  driver: 'wrk',
  connections,
  timeoutS: 5,
});

async function serveFile(script: string) {
  const port = await freePort();
  const child = spawn(process.execPath, [script], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: 'ignore',
  });
  for (let i = 0; i < 100; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/ping`)).ok) break;
    } catch {
      await sleep(50);
    }
  }
  return { url: `http://127.0.0.1:${port}`, stop: () => child.kill('SIGKILL') };
}

/**
 * An in-process echo server (the `echo` contract) that records every `name` it was asked for;
 * with `wrongEvery` n, every n-th response has a wrong body.
 */
async function echoServer(wrongEvery = 0) {
  const seen = new Map<string, number>();
  let count = 0;
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x');
    if (url.pathname === '/ping') return res.writeHead(200, { 'content-type': 'text/plain' }).end('pong');
    const name = url.searchParams.get('name') ?? '';
    seen.set(name, (seen.get(name) ?? 0) + 1);
    count++;
    const body = JSON.stringify({ echo: wrongEvery && count % wrongEvery === 0 ? 'wrong' : `Hello, ${name}!` });
    res
      .writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) })
      .end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return {
    url: `http://127.0.0.1:${port}`,
    seen,
    stop: () => new Promise((r) => server.close(r)),
  };
}

function echoVariants(n: number) {
  const s = scenario('echo');
  return Array.from({ length: n }, (_, i) => {
    const params: ParamValues = { name: `id${i}` };
    return { request: buildRequest(s, params), params };
  });
}

test('the Lua script: a static request, variants through request(), response() only when asked', () => {
  const lua = wrkScript({
    requests: [
      { method: 'POST', path: '/data', headers: { 'content-type': 'application/json' }, body: '{"a":"é\\\\"}' },
    ],
    dir: '/tmp/x',
    sampleEvery: 50,
    responseHook: false,
  });
  assert.match(lua, /^wrk\.method = "POST"$/m);
  assert.match(lua, /^wrk\.headers\["content-type"\] = "application\/json"$/m);
  // Quotes, backslashes and non-ASCII bytes become three-digit decimal escapes.
  assert.match(lua, /^wrk\.body = "\{\\034a\\034:\\034\\195\\169\\092\\092\\034\}"$/m);
  assert.doesNotMatch(lua, /^response = /m);
  assert.doesNotMatch(lua, /^request = /m);
  assert.match(lua, /^done = function\(summary, latency, requests\)$/m);
  const two = wrkScript({
    requests: [
      { method: 'GET', path: '/echo?name=a', headers: {} },
      { method: 'GET', path: '/echo?name=b', headers: {} },
    ],
    dir: '/tmp/x',
    sampleEvery: 1,
    responseHook: true,
  });
  assert.match(two, /^request = function\(\)\n {2}return reqs\[math\.random\(nreq\)\]/m);
  assert.match(two, /reqs\[#reqs \+ 1\] = wrk\.format\("GET", "\/echo\?name=b", \{\}, nil\)/);
  assert.match(two, /^response = function\(status, headers, body\)$/m);
  assert.equal(luaString('a"\\\n'), '"a\\034\\092\\010"');
});

test('connections split between the main wrk and the checker keep about 1 in sampleEvery responses checked', () => {
  assert.deepEqual(splitConnections(100, 50), { main: 98, checker: 2, every: 1 });
  assert.deepEqual(splitConnections(10, 50), { main: 9, checker: 1, every: 5 });
  assert.deepEqual(splitConnections(10, 1), { main: 0, checker: 10, every: 1 });
  assert.deepEqual(splitConnections(1, 50), { main: 0, checker: 1, every: 50 });
  assert.deepEqual(splitConnections(100, 50, 'all'), { main: 0, checker: 100, every: 50 });
  assert.deepEqual(splitConnections(100, 50, 'none'), { main: 100, checker: 0, every: 50 });
});

test('sample files: one record per sampled response, absent headers stay absent, a torn record is dropped', () => {
  const dir = tmpDir('wrk-samples');
  const file = path.join(dir, 'samples-1.bin');
  const body = Buffer.from('{"é":1}');
  fs.writeFileSync(
    file,
    Buffer.concat([
      Buffer.from(`200 31 1 -1 ${body.length}\napplication/json; charset=utf-8${body.length}`),
      body,
      Buffer.from('500 -1 -1 7 0\nchunked'),
      Buffer.from('200 5 1 -1 99\ntext/'),
    ]),
  );
  const got = readSampleFile(file);
  assert.equal(got.length, 2);
  assert.equal(got[0]!.contentType, 'application/json; charset=utf-8');
  assert.equal(got[0]!.contentLength, String(body.length));
  assert.equal(got[0]!.transferEncoding, null);
  assert.deepEqual(got[0]!.body, body);
  assert.deepEqual([got[1]!.status, got[1]!.contentType, got[1]!.transferEncoding], [500, null, 'chunked']);
});

test('a wrk window against a real contender: requests, percentiles, an HDR histogram, clean body checks', {
  skip: NO_WRK,
}, async () => {
  const good = await serveFile(path.join(ROOT, 'contenders', 'node-http', 'server.js'));
  try {
    const out = await getDriver('wrk').window(profile(20), jobFor(good.url, 'json'), options('json', { threads: 2 }));
    assert.equal(out.driver, 'wrk');
    assert.ok(out.requests.total > 500, `requests ${out.requests.total}`);
    assert.ok(Math.abs(out.durationS - 1) < 0.5, `duration ${out.durationS}`);
    assert.ok(Math.abs(out.requestsPerSec.mean - out.requests.total / out.durationS) < 1);
    assert.equal(out.errors + out.timeouts + out.non2xx, 0);
    assert.ok(out.bodyChecks.sampled > 10, JSON.stringify(out.bodyChecks));
    assert.equal(out.bodyChecks.mismatched, 0, out.bodyChecks.firstMismatch);
    const l = out.latencyMs;
    assert.ok(
      0 < l.p50 && l.p50 <= l.p90 && l.p90 <= l.p95! && l.p95! <= l.p99 && l.p99 <= l.p999! && l.p999! <= l.max,
    );
    assert.ok(out.latencyHistogramUs, 'an HDR histogram from latency(i)');
    const h = hdr.decodeFromCompressedBase64(out.latencyHistogramUs!);
    // wrk's coordinated-omission correction adds values to its histogram (its counts are not response counts).
    assert.ok(h.totalCount > out.requests.total / 4, `${h.totalCount} values for ${out.requests.total} responses`);
    assert.ok(Math.abs(h.getValueAtPercentile(50) / 1000 - l.p50) < 0.01 * l.p50 + 0.002, 'p50 is read from it');
    assert.ok(out.driverCpuMs && out.driverCpuMs.user + out.driverCpuMs.system > 0);
    // 2 threads on the main process + the checker's one.
    assert.deepEqual(out.client, { cores: (await import('node:os')).availableParallelism(), threads: 3 });
  } finally {
    good.stop();
  }
});

test("wrk's body checks are the verifier's: the wrong content-type and 1 wrong body in 200 are caught", {
  skip: NO_WRK,
}, async () => {
  const bad = await serveFile(path.join(FIXTURES, 'wrong-content-type', 'server.js'));
  const odd = await echoServer(200);
  try {
    const wrongType = await runWrkWindow(wrk!.bin, profile(10), jobFor(bad.url, 'json'), options('json'));
    assert.ok(wrongType.bodyChecks.sampled > 10);
    assert.equal(wrongType.bodyChecks.mismatched, wrongType.bodyChecks.sampled);
    assert.match(wrongType.bodyChecks.firstMismatch!, /content-type 'text\/html', expected 'application\/json/);

    const out = await runWrkWindow(
      wrk!.bin,
      profile(10),
      jobFor(odd.url, 'echo', { sampleEvery: 1 }),
      options('echo', { durationS: 2 }),
    );
    const { sampled, mismatched, firstMismatch } = out.bodyChecks;
    // sampleEvery 1: every response, up to the per-thread cap (the checker is one thread).
    assert.equal(sampled, Math.min(out.requests.total, MAX_SAMPLES_PER_THREAD));
    const expected = sampled / 200;
    assert.ok(mismatched >= expected * 0.7 && mismatched <= expected * 1.3 + 2, `${mismatched} of ${sampled}`);
    assert.match(firstMismatch!, /echo "wrong"/);
  } finally {
    bad.stop();
    await odd.stop();
  }
});

for (const driver of ['wrk', 'autocannon', 'k6'] as DriverName[]) {
  const skip = driver === 'wrk' ? NO_WRK : driver === 'k6' && !k6.bin ? k6.why : false;
  test(`${driver}: request variants are drawn at random per request and each answer is checked`, {
    skip,
  }, async () => {
    const server = await echoServer();
    try {
      const variants = echoVariants(8);
      const p: Profile =
        driver === 'k6'
          ? { ...(getProfile('quick-k6') as Profile & { driver: 'k6' }), vus: 10, timeoutS: 5 }
          : { ...profile(10), driver };
      const out = await getDriver(driver).window(
        p,
        jobFor(server.url, 'echo', { variants, sampleEvery: 5 }),
        options('echo', { durationS: 2 }),
      );
      assert.equal(out.bodyChecks.mismatched, 0, out.bodyChecks.firstMismatch);
      assert.ok(out.bodyChecks.sampled > 20, JSON.stringify(out.bodyChecks));
      const counts = variants.map((v) => server.seen.get(String(v.params.name)) ?? 0);
      const total = counts.reduce((a, b) => a + b, 0);
      assert.ok(total > 400, `only ${total} requests`);
      assert.equal(server.seen.size, 8, `values seen: ${[...server.seen.keys()].join(', ')}`);
      // Uniform: each of 8 values gets 1/8 of the requests, well within ±40%.
      for (const c of counts) assert.ok(c > (total / 8) * 0.6 && c < (total / 8) * 1.4, `counts ${counts.join(', ')}`);
    } finally {
      await server.stop();
    }
  });
}

test('autocannon at pipelining 10 with request variants: every answer is checked against the variants, none mismatched', async () => {
  // The hook's context is the connection's latest request, not the answered one: before the fix,
  // a correct server failed here (run 2026-11-25T12-18-04Z-b72b: every graphql-node body).
  const server = await echoServer();
  try {
    const out = await getDriver('autocannon').window(
      { ...profile(10), driver: 'autocannon', pipelining: 10 },
      jobFor(server.url, 'echo', { variants: echoVariants(8), sampleEvery: 5 }),
      options('echo', { durationS: 2 }),
    );
    assert.ok(out.bodyChecks.sampled > 20, JSON.stringify(out.bodyChecks));
    assert.equal(out.bodyChecks.mismatched, 0, out.bodyChecks.firstMismatch);
    assert.equal(server.seen.size, 8, `values seen: ${[...server.seen.keys()].join(', ')}`);
  } finally {
    await server.stop();
  }
});

test('autocannon and k6 check a sampled answer against the variant it answered', {
  skip: k6.bin ? false : k6.why,
}, async () => {
  // The server always answers as if asked for id0: wrong for 7 of the 8 variants.
  const server = http.createServer((_req, res) => {
    const body = JSON.stringify({ echo: 'Hello, id0!' });
    res
      .writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) })
      .end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  try {
    for (const [driver, p] of [
      ['autocannon', { ...profile(10), driver: 'autocannon' }],
      ['k6', { ...(getProfile('quick-k6') as Profile), vus: 10, timeoutS: 5 }],
    ] as [DriverName, Profile][]) {
      const out = await getDriver(driver).window(
        p,
        jobFor(url, 'echo', { variants: echoVariants(8), sampleEvery: 2 }),
        options('echo'),
      );
      const share = out.bodyChecks.mismatched / out.bodyChecks.sampled;
      assert.ok(share > 0.7 && share < 0.98, `${driver}: ${out.bodyChecks.mismatched} of ${out.bodyChecks.sampled}`);
    }
  } finally {
    await new Promise((r) => server.close(r));
  }
});

test('autocannon with threads > 1 uses its workers and still checks every thread’s samples', async () => {
  const bad = await serveFile(path.join(FIXTURES, 'wrong-content-type', 'server.js'));
  try {
    const out = await getDriver('autocannon').window(
      { ...profile(10), driver: 'autocannon' },
      jobFor(bad.url, 'json', { sampleEvery: 5 }),
      options('json', { threads: 2 }),
    );
    assert.deepEqual(out.client?.threads, 2);
    assert.ok(out.requests.total > 100);
    assert.ok(out.bodyChecks.sampled > 10, JSON.stringify(out.bodyChecks));
    assert.equal(out.bodyChecks.mismatched, out.bodyChecks.sampled);
    assert.match(out.bodyChecks.firstMismatch!, /content-type 'text\/html'/);
  } finally {
    bad.stop();
  }
});

test('the registry: native resolves to wrk when installed, else to autocannon with a note and the install command', () => {
  const quick = getProfile('quick');
  const saved = process.env.BENCH_WRK;
  try {
    process.env.BENCH_WRK = '';
    const r = resolveDriver(quick);
    assert.equal(r.name, 'autocannon');
    assert.match(r.note!, /wrk is not installed.*apt-get install -y wrk/);
    const probe = probeAll().find((p) => p.name === 'wrk')!;
    assert.equal(probe.available, false);
    assert.equal(probe.install, WRK_INSTALL);
    assert.equal(resolveDriver(getProfile('smoke')).name, 'autocannon');
    assert.equal(resolveDriver(getProfile('quick-k6')).name, 'k6');
    if (wrk) {
      delete process.env.BENCH_WRK;
      const w = resolveDriver(quick);
      assert.deepEqual([w.name, w.note], ['wrk', null]);
      assert.equal(probeAll().find((p) => p.name === 'wrk')!.version, wrk.version);
    }
  } finally {
    if (saved === undefined) delete process.env.BENCH_WRK;
    else process.env.BENCH_WRK = saved;
  }
  assert.deepEqual(
    probeAll().map((p) => p.name),
    ['autocannon', 'wrk', 'k6'],
  );
  assert.throws(() => getDriver('oha' as DriverName), /unknown load driver 'oha'/);
});

test('just doctor lists each tool with its version, and what a missing wrk costs and how to get it', async () => {
  const r = await runCli(['doctor'], { BENCH_WRK: '' });
  assert.equal(r.code, 0, r.stderr);
  assert.match(
    r.stdout,
    /^missing {2}wrk {7}costs: the native driver: profiles quick, ab, pipelined, standard, stress, capacity rank with autocannon/m,
  );
  assert.match(r.stdout, /fidelity check is skipped/);
  assert.match(r.stdout, /install: (sudo )?apt-get update && (sudo )?apt-get install -y wrk/);
  if (k6.bin) assert.match(r.stdout, /^ok {7}k6 {8}\d+\.\d+\.\d+ {2}\(/m);
  else
    assert.match(
      r.stdout,
      /^missing {2}k6 .*costs: cells of the k6 profiles \(k6-ramp, k6-vus, k6-rate, quick-k6\) are skipped/m,
    );
  const check = await runCli(['tools', '--check'], { BENCH_WRK: '' });
  assert.equal(check.stdout, r.stdout, 'tools --check = doctor');
});
