// The open-loop drivers of the capacity search (drivers/open-loop*.ts) with real oha and k6
// against real servers: a fixed rate is held (±10%), latency runs from the scheduled send
// (a 50 ms server shows p50 ≥ 50 ms), and an overloaded server shows its queueing delay or
// dropped requests (no coordinated omission). A missing driver's tests are skipped with the
// reason. Also: oha's JSON and k6's summary mapped to OpenLoopOutput, oha's variant arguments,
// and resolveOpenLoop's choice.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { spawn } from 'node:child_process';
import { findK6 } from '../../harness/drivers/k6.ts';
import { k6OpenLoop, k6OpenLoopExecutor, k6OpenLoopOutput } from '../../harness/drivers/open-loop-k6.ts';
import {
  findOha,
  ohaArgv,
  ohaOpenLoop,
  ohaOpenLoopOutput,
  ohaRequestArgs,
  ohaRoot,
} from '../../harness/drivers/open-loop-oha.ts';
import { type OpenLoopDriver, type OpenLoopOutput, resolveOpenLoop } from '../../harness/drivers/open-loop.ts';
import type { LoadJob } from '../../harness/drivers/driver-types.ts';
import { tmpDir } from '../helpers.ts';

const oha = findOha();
const k6 = findK6({ build: false });
const drivers: { d: OpenLoopDriver; skip: string | false }[] = [
  { d: ohaOpenLoop, skip: oha.bin ? false : `oha is not installed: ${oha.why}; install: ${oha.install}` },
  { d: k6OpenLoop, skip: k6.bin ? false : `k6 is not installed: ${k6.why}` },
];

function job(url: string, p = '/ping'): LoadJob {
  return {
    url,
    scenario: 'ping',
    scenariosDir: '',
    params: {},
    request: { method: 'GET', path: p, headers: {} },
    sampleEvery: 0,
  };
}

/**
 * A node:http server in this process answering 'pong' after `delayMs` or more by the
 * high-resolution clock: Node's timers run on libuv's whole-ms loop time and can fire up to 1 ms
 * early against it, so the wait is topped up until `performance.now()` says `delayMs` has passed.
 */
async function inProcess(delayMs = 0): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const start = performance.now();
    const answer = () => {
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('pong');
    };
    const wait = () => {
      const left = delayMs - (performance.now() - start);
      if (left > 0) setTimeout(wait, Math.ceil(left));
      else answer();
    };
    req.resume();
    wait();
  });
  server.keepAliveTimeout = 30_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

/** A child node process whose every request burns `busyMs` of CPU synchronously (≈ 1000/busyMs requests/s at most). */
async function busyChild(busyMs: number): Promise<{ url: string; close: () => void }> {
  const code = `
    const http = require('node:http');
    const s = http.createServer((req, res) => {
      const end = performance.now() + ${busyMs};
      while (performance.now() < end) {}
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8' });
      res.end('pong');
    });
    s.keepAliveTimeout = 30000;
    s.listen(0, '127.0.0.1', () => console.log(s.address().port));`;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout.once('data', (b) => resolve(Number(String(b).trim())));
    child.once('exit', (c) => reject(new Error(`busy server exited with ${c}`)));
  });
  return { url: `http://127.0.0.1:${port}`, close: () => child.kill('SIGKILL') };
}

function step(d: OpenLoopDriver, url: string, rate: number, connections: number): Promise<OpenLoopOutput> {
  return d.step(job(url), {
    rate,
    durationS: 2,
    connections,
    timeoutS: 5,
    cpus: null,
    signal: new AbortController().signal,
  });
}

const show = (o: OpenLoopOutput) =>
  `${o.driver}: ${o.achievedRps.toFixed(1)} req/s, ${o.responses} responses, p50 ${o.latencyMs.p50.toFixed(2)} ms, p99 ${o.latencyMs.p99.toFixed(2)} ms, max ${o.latencyMs.max.toFixed(1)} ms, errors ${o.errors}, dropped ${o.dropped}, cpu ${o.driverCpuMs} ms`;

for (const { d, skip } of drivers) {
  test(`${d.name}: 200 requests/s for 2 s are held (±10%) with clean latency`, { skip, timeout: 30_000 }, async (t) => {
    const s = await inProcess();
    try {
      const o = await step(d, s.url, 200, 20);
      t.diagnostic(show(o));
      assert.equal(o.driver, d.name);
      assert.equal(o.scheduled, 400);
      assert.ok(Math.abs(o.achievedRps - 200) <= 20, `achieved ${o.achievedRps} req/s`);
      assert.ok(Math.abs(o.responses - 400) <= 40, `${o.responses} responses`);
      assert.ok(o.latencyMs.p50 > 0 && o.latencyMs.p99 >= o.latencyMs.p50, JSON.stringify(o.latencyMs));
      assert.ok(o.latencyMs.max >= o.latencyMs.p99);
      assert.equal(o.non2xx, 0);
      assert.equal(o.errors, 0);
      assert.ok(o.dropped <= 2, `dropped ${o.dropped}`);
      assert.ok(o.driverCpuMs === null || o.driverCpuMs > 0, `cpu ${o.driverCpuMs}`);
      assert.match(d.version()!, new RegExp(`^${d.name} \\d+\\.\\d+\\.\\d+$`));
    } finally {
      await s.close();
    }
  });

  test(`${d.name}: a server that answers after 50 ms shows p50 ≥ 50 ms at 200 requests/s`, {
    skip,
    timeout: 30_000,
  }, async (t) => {
    const s = await inProcess(50);
    try {
      const o = await step(d, s.url, 200, 60);
      t.diagnostic(show(o));
      assert.ok(o.latencyMs.p50 >= 50, `p50 ${o.latencyMs.p50} ms`);
      assert.ok(o.latencyMs.p99 < 500, `p99 ${o.latencyMs.p99} ms`);
      assert.ok(Math.abs(o.achievedRps - 200) <= 20, `achieved ${o.achievedRps} req/s`);
      assert.equal(o.errors, 0);
    } finally {
      await s.close();
    }
  });

  test(`${d.name}: an overloaded server (≈ 100 requests/s, asked 300/s) shows its queueing delay or drops (no coordinated omission)`, {
    skip,
    timeout: 30_000,
  }, async (t) => {
    const s = await busyChild(10);
    try {
      const o = await step(d, s.url, 300, 100);
      t.diagnostic(show(o));
      assert.ok(o.achievedRps < 270, `achieved ${o.achievedRps} req/s from a ~100 req/s server`);
      // oha measures from the scheduled time: the queue shows in p99; k6 may drop instead.
      if (d.name === 'oha') assert.ok(o.latencyMs.p99 > 200, show(o));
      else assert.ok(o.latencyMs.p99 > 200 || o.dropped > 0, show(o));
      assert.ok(o.responses + o.errors + o.dropped >= o.scheduled * 0.9, 'every scheduled request is accounted for');
    } finally {
      s.close();
    }
  });
}

test('a step rejects a rate of 0 (oha -q 0 would run closed-loop) and an aborted step rejects', {
  skip: drivers.find((x) => !x.skip) ? false : 'neither oha nor k6 is installed',
}, async () => {
  const d = drivers.find((x) => !x.skip)!.d;
  const s = await inProcess();
  try {
    await assert.rejects(step(d, s.url, 0, 10), /rate > 0/);
    const ac = new AbortController();
    const run = d.step(job(s.url), {
      rate: 100,
      durationS: 5,
      connections: 10,
      timeoutS: 5,
      cpus: null,
      signal: ac.signal,
    });
    setTimeout(() => ac.abort(), 700);
    const t0 = performance.now();
    await assert.rejects(run, /aborted/);
    assert.ok(performance.now() - t0 < 4000, 'the abort stops the driver early');
  } finally {
    await s.close();
  }
});

test("oha's JSON maps to OpenLoopOutput: seconds to ms, 2xx rate, deadline aborts are not errors", () => {
  const json = {
    summary: { successRate: 1, total: 2.0012, slowest: 0.0412, fastest: 0.0001, requestsPerSec: 209.9 },
    latencyPercentiles: { p10: 0.0002, p50: 0.0005, p90: 0.0011, p99: 0.02, 'p99.9': 0.04 },
    statusCodeDistribution: { '200': 390, '503': 5 },
    errorDistribution: { 'aborted due to deadline': 20, timeout: 2 },
  };
  const o = ohaOpenLoopOutput(json, { rate: 200, durationS: 2 }, 123);
  assert.deepEqual(o, {
    driver: 'oha',
    rate: 200,
    scheduled: 400,
    responses: 395,
    achievedRps: 195,
    latencyMs: { p50: 0.5, p90: 1.1, p99: 20, max: 41.2 },
    errors: 2,
    non2xx: 5,
    dropped: 3,
    durationS: 2.0012,
    driverCpuMs: 123,
  });
  // No response at all: oha writes null percentiles (NaN); latencies read 0, responses 0.
  const none = ohaOpenLoopOutput(
    {
      summary: { total: 2, slowest: null },
      latencyPercentiles: { p50: null },
      statusCodeDistribution: {},
      errorDistribution: { 'connection refused': 400 },
    },
    { rate: 200, durationS: 2 },
    null,
  );
  assert.equal(none.responses, 0);
  assert.equal(none.errors, 400);
  assert.equal(none.dropped, 0);
  assert.deepEqual(none.latencyMs, { p50: 0, p90: 0, p99: 0, max: 0 });
});

test("k6's summary maps to OpenLoopOutput: dropped_iterations, errors + timeouts, 2xx rate", () => {
  const summary = {
    state: { testRunDurationMs: 2104 },
    metrics: {
      http_reqs: { values: { count: 380, rate: 180 } },
      bench_errors: { values: { count: 3 } },
      bench_timeouts: { values: { count: 2 } },
      bench_non2xx: { values: { count: 15 } },
      dropped_iterations: { values: { count: 20, rate: 9.5 } },
      http_req_duration: { values: { 'p(50)': 1.5, 'p(90)': 3, 'p(99)': 9, max: 30, med: 1.4 } },
    },
  };
  assert.deepEqual(k6OpenLoopOutput(summary, { rate: 200, durationS: 2 }, null), {
    driver: 'k6',
    rate: 200,
    scheduled: 400,
    responses: 375,
    achievedRps: 180,
    latencyMs: { p50: 1.5, p90: 3, p99: 9, max: 30 },
    errors: 5,
    non2xx: 15,
    dropped: 20,
    durationS: 2.104,
    driverCpuMs: null,
  });
  assert.deepEqual(k6OpenLoopExecutor({ rate: 2000, durationS: 2.5, connections: 500, timeoutS: 5 }), {
    executor: 'constant-arrival-rate',
    rate: 2000,
    timeUnit: '1s',
    duration: '2500ms',
    preAllocatedVUs: 100,
    maxVUs: 500,
    gracefulStop: '6s',
  });
  assert.equal(k6OpenLoopExecutor({ rate: 100, durationS: 2, connections: 10, timeoutS: 5 }).preAllocatedVUs, 10);
});

test('oha arguments: the open-loop flags, and variants by URL file, by body-lines file, or the first only', () => {
  const dir = tmpDir('oha-args');
  const base = job('http://127.0.0.1:9');
  const { argv } = ohaArgv(
    '/x/oha',
    {
      ...base,
      request: { method: 'POST', path: '/a', headers: { 'content-type': 'application/json' }, body: '{"a":1}' },
    },
    { rate: 250, durationS: 2, connections: 30, timeoutS: 5, cpus: '1', signal: new AbortController().signal },
    dir,
    '/tmp/out.json',
  );
  assert.deepEqual(argv, [
    '/x/oha',
    '-z',
    '2000ms',
    '-q',
    '250',
    '--latency-correction',
    '-w',
    '-c',
    '30',
    '--no-tui',
    '--output-format',
    'json',
    '-o',
    '/tmp/out.json',
    '-t',
    '5000ms',
    '--disable-compression',
    '--worker-threads',
    '1',
    '-m',
    'POST',
    '-H',
    'content-type: application/json',
    '-D',
    path.join(dir, 'body'),
    'http://127.0.0.1:9/a',
  ]);
  assert.equal(fs.readFileSync(path.join(dir, 'body'), 'utf8'), '{"a":1}');

  const get = (p: string) => ({ request: { method: 'GET', path: p, headers: {} }, params: {} });
  const byPath = ohaRequestArgs({ ...base, variants: [get('/u/1'), get('/u/2')] }, dir);
  assert.deepEqual(byPath.args, ['-m', 'GET', '--urls-from-file', path.join(dir, 'urls.txt')]);
  assert.equal(fs.readFileSync(path.join(dir, 'urls.txt'), 'utf8'), 'http://127.0.0.1:9/u/1\nhttp://127.0.0.1:9/u/2\n');
  assert.equal(byPath.note, undefined);

  const post = (body: string, p = '/graphql') => ({
    request: { method: 'POST', path: p, headers: { 'content-type': 'application/json' }, body },
    params: {},
  });
  const byBody = ohaRequestArgs({ ...base, variants: [post('{"id":1}'), post('{"id":2}')] }, dir);
  assert.deepEqual(byBody.args, [
    '-m',
    'POST',
    '-H',
    'content-type: application/json',
    '-Z',
    path.join(dir, 'bodies.txt'),
    'http://127.0.0.1:9/graphql',
  ]);
  assert.equal(fs.readFileSync(path.join(dir, 'bodies.txt'), 'utf8'), '{"id":1}\n{"id":2}\n');

  const mixed = ohaRequestArgs({ ...base, variants: [post('{"id":1}', '/a'), post('{"id":2}', '/b')] }, dir);
  assert.equal(mixed.args.at(-1), 'http://127.0.0.1:9/a');
  assert.match(mixed.note!, /only the first of 2 request variants/);
});

test('oha is looked up in BENCH_OHA, PATH and the tool cache; resolveOpenLoop falls back to k6, then to none with both install commands', () => {
  const saved = { ...process.env };
  try {
    process.env.BENCH_OHA = '';
    const missing = findOha();
    assert.equal(missing.bin, null);
    assert.match(missing.install, new RegExp(`oha --version 1\\.16\\.0 --locked --root ${ohaRoot()}`));
    if (oha.bin) {
      process.env.BENCH_OHA = oha.bin;
      assert.equal(findOha().bin, oha.bin);
      // The tool cache (BENCH_TOOLS_DIR stands for ~/.cache/node-http-bakeoff/bin), PATH without oha.
      delete process.env.BENCH_OHA;
      const cache = tmpDir('oha-cache');
      fs.symlinkSync(oha.bin, path.join(cache, 'oha'));
      process.env.BENCH_TOOLS_DIR = cache;
      process.env.PATH = (saved.PATH ?? '')
        .split(path.delimiter)
        .filter((d) => !fs.existsSync(path.join(d, 'oha')))
        .join(path.delimiter);
      assert.deepEqual(findOha(), {
        bin: path.join(cache, 'oha'),
        version: '1.16.0',
        why: '',
        install: findOha().install,
      });
      assert.equal(ohaRoot(), path.join(path.dirname(cache), 'oha-root'));
      process.env.PATH = saved.PATH;
      if (saved.BENCH_TOOLS_DIR === undefined) delete process.env.BENCH_TOOLS_DIR;
      else process.env.BENCH_TOOLS_DIR = saved.BENCH_TOOLS_DIR;
      process.env.BENCH_OHA = '';
    }
    const r = resolveOpenLoop();
    if (k6.bin) {
      assert.equal(r.driver?.name, 'k6');
      assert.match(r.note, /oha is not available .*install: .*cargo install oha/);
      assert.match(r.note, /k6 holds only about 5000 requests\/s/);
      // Preferred and installed: no note (the registry's order only matters for the fallback).
      assert.deepEqual(resolveOpenLoop('k6'), { driver: r.driver, note: '' });
    }
    process.env.BENCH_K6 = '';
    const none = resolveOpenLoop();
    assert.equal(none.driver, null);
    assert.match(none.note, /no open-loop driver: oha is not available .*; k6 is not available .*npx just tools/);
    if (oha.bin) {
      delete process.env.BENCH_OHA;
      assert.equal(resolveOpenLoop().driver?.name, 'oha');
      assert.equal(resolveOpenLoop().note, '');
    }
  } finally {
    for (const k of ['BENCH_OHA', 'BENCH_K6', 'BENCH_TOOLS_DIR', 'PATH'])
      if (saved[k] === undefined) delete process.env[k];
      else process.env[k] = saved[k];
  }
});
