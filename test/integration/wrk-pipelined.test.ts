/**
 * wrk pipelining (drivers/wrk.ts, drivers/wrk-script.ts) with the real wrk: the Lua script's
 * batches, and a fixture with a set CPU cost per request (test/fixtures/contenders/cpu-cost, a
 * fixed loop of work per request that counts its requests) pinned to the server core as the
 * harness pins it, driven at pipelining 10 from the client core: the requests wrk wrote equal the
 * server's own count, the responses it counted are those less at most one batch per connection,
 * every sampled body passes, and a half-cost twin on the same core at the same time serves 2 × the
 * requests/s (± 10%). The costs,
 * 1000 and 500 µs of loop per request, dwarf the server's own cost per request (about 15–50 µs
 * here), so the expected ratio is about 1.9–2. Skipped with the install command when wrk is missing.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildRequest, loadParams, loadScenarios, loadSharedSchemas } from '../../harness/contract/scenarios.ts';
import type { LoadJob, LoadOutput, WindowOptions } from '../../harness/drivers/driver-types.ts';
import { findWrk, runWrkWindow, WRK_INSTALL, wrkPercentileUs, wrkScript } from '../../harness/drivers/wrk.ts';
import { makeCpuPlan } from '../../harness/lifecycle/cpu-plan.ts';
import { freePort } from '../../harness/lifecycle/ports.ts';
import { pinnedCommand } from '../../harness/lifecycle/processes.ts';
import { FIXTURES } from '../helpers.ts';

const scenariosDir = path.join(path.dirname(FIXTURES), '..', '..', 'scenarios');
const scenarios = loadScenarios(scenariosDir);
const ping = scenarios.find((s) => s.name === 'ping')!;
const echo = scenarios.find((s) => s.name === 'echo')!;
const shared = loadSharedSchemas(scenariosDir);
const wrk = findWrk();
const NO_WRK = wrk ? false : `wrk is not installed: ${WRK_INSTALL} (or \`npx just tools\` as root)`;
const plan = makeCpuPlan();
const DEPTH = 10;

test('the Lua script at pipelining 10: a batch of 10 requests per request() call, counted; variants drawn per request', () => {
  const one = wrkScript({
    requests: [{ method: 'GET', path: '/ping', headers: {} }],
    dir: '/tmp/x',
    sampleEvery: 10,
    responseHook: false,
    pipelining: DEPTH,
  });
  assert.match(one, /^ {2}batch = string\.rep\(wrk\.format\(\), 10\)$/m);
  assert.match(one, /^request = function\(\)\n {2}calls = calls \+ 1\n {2}return batch\nend$/m);
  assert.match(one, /^ {2}b = b - 1$/m, 'less the call wrk makes to count the batch');
  const variants = wrkScript({
    requests: [
      { method: 'GET', path: '/echo?name=a', headers: {} },
      { method: 'GET', path: '/echo?name=b', headers: {} },
    ],
    dir: '/tmp/x',
    sampleEvery: 1,
    responseHook: true,
    pipelining: DEPTH,
  });
  assert.match(variants, /^ {2}for i = 1, 10 do parts\[i\] = reqs\[math\.random\(nreq\)\] end$/m);
  assert.doesNotMatch(variants, /string\.rep/);
  assert.match(variants, /^response = function\(status, headers, body\)$/m);
  const flat = wrkScript({
    requests: [{ method: 'GET', path: '/ping', headers: {} }],
    dir: '/x',
    sampleEvery: 1,
    responseHook: false,
  });
  assert.doesNotMatch(flat, /^request = /m, 'without pipelining the request stays static');
  assert.match(flat, /^ {2}b = -1$/m);
});

test("wrk's own percentile that read 0 (a rank among the correction's unread values) becomes its maximum, an upper bound", () => {
  assert.equal(wrkPercentileUs(0, 250_000), 250_000);
  assert.equal(wrkPercentileUs(1200, 250_000), 1200);
});

/**
 * An in-process echo server (the `echo` contract): every `wrongEvery`-th request gets a wrong
 * body, every `failEvery`-th a 503; counts what it answered.
 */
async function echoServer(wrongEvery: number, failEvery: number) {
  let n = 0;
  const server = http.createServer((req, res) => {
    const name = new URL(req.url ?? '/', 'http://x').searchParams.get('name') ?? '';
    n++;
    if (n % failEvery === 0) return res.writeHead(503, { 'content-length': 0 }).end();
    const body = JSON.stringify({ echo: n % wrongEvery === 0 ? 'wrong' : `Hello, ${name}!` });
    res
      .writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body) })
      .end(body);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  return { url: `http://127.0.0.1:${port}`, stop: () => new Promise((r) => server.close(r)) };
}

test('pipelined wrk counts non-2xx answers and wrong bodies per response, with request variants', {
  skip: NO_WRK,
}, async () => {
  const server = await echoServer(199, 50);
  try {
    const variants = Array.from({ length: 8 }, (_, i) => {
      const params = { name: `id${i}` };
      return { request: buildRequest(echo, params), params };
    });
    // 10 connections, 1 in 5 sampled: 8 connections in the main wrk, 2 in the checker, which checks every response.
    const out = await runWrkWindow(
      wrk!.bin,
      pipelined(10),
      { ...job(server.url, echo), variants, sampleEvery: 5 },
      { ...options(2), scenario: echo },
    );
    assert.ok(out.requests.total > 1000, `only ${out.requests.total} responses`);
    const failShare = out.non2xx / out.requests.total;
    assert.ok(failShare > 0.7 / 50 && failShare < 1.3 / 50, `${out.non2xx} non-2xx of ${out.requests.total}`);
    const { sampled, mismatched, mismatchedNon2xx = 0 } = out.bodyChecks;
    assert.ok(sampled > 200, JSON.stringify(out.bodyChecks));
    // The exact per-response count is `non2xx` above (every response, in wrk's response()). The
    // checked responses are the checker's connections' share: the fixture's faults follow one
    // counter across connections, so their counts vary too much to estimate a rate (32–159 wrong
    // bodies in about 19,000); both kinds must be seen and told apart.
    assert.ok(mismatchedNon2xx > 0 && mismatched - mismatchedNon2xx > 0, JSON.stringify(out.bodyChecks));
    assert.ok(mismatched > 0, JSON.stringify(out.bodyChecks));
    assert.match(out.bodyChecks.firstMismatch!, /echo "wrong"|status 503/);
  } finally {
    await server.stop();
  }
});

/** The cpu-cost fixture with `work` loop iterations per request, pinned to the server core. */
async function costServer(work: number) {
  const port = await freePort();
  const [cmd, ...args] = pinnedCommand(plan.server, [process.execPath, path.join(FIXTURES, 'cpu-cost', 'server.js')]);
  const child = spawn(cmd!, args, {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port), WORK: String(work) },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  const count = async () => Number(await (await fetch(`${url}/count`)).text());
  for (let i = 0; i < 100; i++) {
    try {
      await count();
      break;
    } catch {
      await sleep(50);
    }
  }
  /** CPU time of the server process so far, ms (utime + stime from /proc). */
  const cpuMs = () => {
    const stat = fs.readFileSync(`/proc/${child.pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) * 10;
  };
  return { url, count, cpuMs, stop: () => child.kill('SIGKILL') };
}

/** The server's count once it stops moving (the last pipelined requests drain after wrk exits). */
async function settledCount(count: () => Promise<number>): Promise<number> {
  let last = await count();
  for (;;) {
    await sleep(200);
    const now = await count();
    if (now === last) return now;
    last = now;
  }
}

/** Loop iterations of the fixture's work that take about `us` µs here (the fastest of 20 timings). */
function iterationsFor(us: number): number {
  const n = 200_000;
  let best = Number.POSITIVE_INFINITY;
  let sink = 0;
  for (let k = 0; k < 20; k++) {
    const t = process.hrtime.bigint();
    let x = k | 1;
    for (let i = 0; i < n; i++) {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
    }
    sink ^= x;
    best = Math.min(best, Number(process.hrtime.bigint() - t) / 1000);
  }
  return Math.round((n * us) / best) + (sink & 0);
}

const job = (url: string, s = ping): LoadJob => ({
  url,
  scenario: s.name,
  scenariosDir,
  params: loadParams(s),
  request: buildRequest(s, loadParams(s)),
  sampleEvery: 10,
});

const options = (durationS: number): WindowOptions => ({
  durationS,
  warmup: false,
  cpus: plan.client,
  threads: plan.clientThreads,
  signal: new AbortController().signal,
  scenario: ping,
  sharedSchemas: shared,
});

const pipelined = (connections: number) => ({ connections, pipelining: DEPTH, timeoutS: 5 });
const rate = (o: LoadOutput) => o.requests.total / o.durationS;

test('pipelined wrk against a set CPU cost per request: its count is the server’s, per response; half the cost, twice the rate', {
  skip: NO_WRK,
}, async (t) => {
  const full = await costServer(iterationsFor(1000));
  const half = await costServer(iterationsFor(500));
  try {
    // The exact count: the server counts what it received; wrk writes whole batches.
    const before = await half.count();
    const out = await runWrkWindow(wrk!.bin, pipelined(10), job(half.url), options(2));
    const received = (await settledCount(half.count)) - before;
    assert.equal(out.requests.sent, received, 'the requests wrk wrote are the ones the server received');
    assert.equal(out.requests.sent % DEPTH, 0, 'whole batches');
    const inFlight = out.requests.sent - out.requests.total;
    assert.ok(
      inFlight >= 0 && inFlight <= 10 * DEPTH,
      `${inFlight} unanswered at the end (at most 1 batch per connection)`,
    );
    assert.ok(out.requests.total > 200, `only ${out.requests.total} responses`);
    assert.equal(out.errors + out.timeouts + out.non2xx, 0);
    assert.ok(out.bodyChecks.sampled >= 5, JSON.stringify(out.bodyChecks));
    assert.equal(out.bodyChecks.mismatched, 0, out.bodyChecks.firstMismatch);

    // The rate ratio: both servers on the server core at once, each driven by its own pipelined
    // wrk, so the kernel gives each half of the core and other work on this shared machine takes
    // its turns from both alike (separate windows would each get a different share of the core).
    const both = (durationS: number) =>
      Promise.all([full, half].map((s) => runWrkWindow(wrk!.bin, pipelined(20), job(s.url), options(durationS))));
    await both(1); // warm-up
    // A server goes on with the requests in flight when wrk stopped (up to connections × 10 of
    // them): let both finish before the measured window, which they would otherwise cut into.
    await Promise.all([full, half].map((s) => settledCount(s.count)));
    const cpu0 = [full.cpuMs(), half.cpuMs()];
    const [a, b] = await both(3);
    for (const o of [a!, b!]) assert.equal(o.errors + o.timeouts + o.non2xx + o.bodyChecks.mismatched, 0);
    const ratio = rate(b!) / rate(a!);
    const figures = `half ÷ full = ${ratio.toFixed(3)} (full ${Math.round(rate(a!))}, half ${Math.round(rate(b!))} requests/s; server CPU ms ${full.cpuMs() - cpu0[0]!}, ${half.cpuMs() - cpu0[1]!})`;
    t.diagnostic(figures);
    assert.ok(ratio > 1.8 && ratio < 2.2, figures);
  } finally {
    full.stop();
    half.stop();
  }
});
