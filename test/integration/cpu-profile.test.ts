/**
 * CPU profiles (issue "Why a stack is slow"): parsing and checking a V8 `.cpuprofile`, self time
 * per sample, attribution to packages, CPU per request and the difference between two stacks
 * (harness/analysis/cpu-profile.ts); and the process side (harness/lifecycle/cpu-prof.ts) with a
 * real server under the real profiler: the two-burns fixture spends 70% of its handler's loop
 * iterations in pkg-a and 30% in pkg-b, and the attribution must find 70/30 (±5 points).
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { spawn, type ChildProcess } from 'node:child_process';
import fc from 'fast-check';
import {
  attribute,
  bucketOf,
  type CpuProfile,
  cpuPerRequest,
  diffPerRequest,
  parseCpuProfile,
  readCpuProfile,
  samplerBias,
  selfTimes,
} from '../../harness/analysis/cpu-profile.ts';
import { CPU_PROF_PRELOAD, findCpuProfile, withCpuProf } from '../../harness/lifecycle/cpu-prof.ts';
import { runSamplerProbe } from '../../harness/lifecycle/sampler-probe.ts';
import { ROOT, tmpDir } from '../helpers.ts';

const FIXTURE = path.join(ROOT, 'test', 'fixtures', 'profile', 'two-burns');

const frame = (functionName: string, url = '') => ({
  functionName,
  url,
  lineNumber: 0,
  columnNumber: 0,
  scriptId: '0',
});

/** A small profile: root → (idle) 1, (program) 2, handler 3 (contender) → burn 4 (node_modules/pkg-a). */
function synthetic(samples: number[], timeDeltas: number[], endTime: number): CpuProfile {
  return {
    nodes: [
      { id: 1, callFrame: frame('(root)'), children: [2, 3, 4] },
      { id: 2, callFrame: frame('(idle)') },
      { id: 3, callFrame: frame('(program)') },
      { id: 4, callFrame: frame('handler', 'file:///srv/app/server.js'), children: [5] },
      { id: 5, callFrame: frame('burn', 'file:///srv/app/node_modules/pkg-a/index.js') },
    ],
    startTime: 1000,
    endTime,
    samples,
    timeDeltas,
  };
}

test('self time: the delta at index i+1 belongs to sample i, the last sample lasts until endTime', () => {
  // samples at t = 1010, 1030, 1060, 1100; endTime 1150.
  const p = synthetic([4, 5, 5, 2], [10, 20, 30, 40], 1150);
  const s = selfTimes(p);
  assert.deepEqual(Object.fromEntries(s), { 4: 20, 5: 30 + 40, 2: 50 });
  assert.equal(
    [...s.values()].reduce((a, b) => a + b, 0),
    1150 - 1010,
    'the parts add up to endTime − t0',
  );
  // A window cuts sample intervals: [1040, 1080) holds 20 µs of the first 5 and 20 of the second.
  assert.deepEqual(Object.fromEntries(selfTimes(p, { fromUs: 1040, toUs: 1080 })), { 5: 40 });
  // A negative delta counts as 0 (as speedscope does).
  assert.deepEqual(Object.fromEntries(selfTimes(synthetic([4, 5], [10, -5], 1020))), { 5: 10 });
});

test('bucketOf: packages (last node_modules, scopes), workspace libraries, contender code, node groups, runtime', () => {
  const ctx = { contenderDir: '/w/contenders/express' };
  const cases: [string, string, string][] = [
    ['(garbage collector)', '', '(garbage collector)'],
    ['(program)', '', '(program)'],
    ['(idle)', '', '(idle)'],
    ['writeUtf8String', '', '(native)'],
    ['x', 'node:_http_outgoing', 'node:http'],
    ['x', 'node:internal/http', 'node:http'],
    ['x', 'node:net', 'node:net'],
    ['x', 'node:internal/stream_base_commons', 'node:net'],
    ['x', 'node:internal/streams/writable', 'node:streams'],
    ['x', 'node:internal/timers', 'node:timers'],
    ['x', 'node:events', 'node:events'],
    ['x', 'node:internal/deps/undici/undici', 'node:deps/undici'],
    ['x', 'node:internal/url', 'node:other'],
    ['hash', 'node:internal/crypto/hash', 'node:crypto'],
    ['x', 'file:///w/node_modules/express/lib/router/index.js', 'express'],
    ['x', 'file:///w/node_modules/@nestjs/core/router/x.js', '@nestjs/core'],
    ['x', '/w/node_modules/a/node_modules/@fastify/ajv-compiler/index.js', '@fastify/ajv-compiler'],
    ['x', 'file:///w/node_modules/%40scope/pkg%20x/i.js', '@scope/pkg x'],
    ['x', 'file:///w/contenders/_lib-nestjs-rest/dist/app.js', '@bakeoff/lib-nestjs-rest'],
    ['x', 'file:///w/contenders/express/server.js', '(contender code)'],
    ['x', '/w/contenders/express/dist/main.js', '(contender code)'],
    ['x', 'file:///w/contenders/express-other/server.js', '(other files)'],
    ['x', 'evalmachine.<anonymous>', '(other)'],
  ];
  for (const [fn, url, want] of cases) assert.equal(bucketOf(frame(fn, url), ctx).bucket, want, url || fn);
  assert.equal(
    bucketOf(frame('x', 'file:///w/contenders/express/server.js')).bucket,
    '(other files)',
    'no contenderDir',
  );
});

test('attribute: self time by bucket, shares of the busy time ((idle) excluded), sorted', () => {
  // handler 20, burn 70, idle 50 (last sample until endTime), program 10.
  const p = synthetic([4, 5, 3, 2], [10, 20, 70, 10], 1160);
  const a = attribute(p, { contenderDir: '/srv/app' });
  assert.equal(a.wallUs, 150);
  assert.equal(a.idleUs, 50);
  assert.equal(a.busyUs, 100);
  assert.deepEqual(
    a.buckets.map((b) => [b.bucket, b.kind, b.selfUs, b.share]),
    [
      ['pkg-a', 'package', 70, 0.7],
      ['(idle)', 'runtime', 50, null],
      ['(contender code)', 'contender', 20, 0.2],
      ['(program)', 'runtime', 10, 0.1],
    ],
  );
});

test('cpu per request and the difference between two stacks: integer ns, parts + remainder = the difference exactly', () => {
  const a = attribute(synthetic([4, 5, 3, 2], [10, 20, 70, 10], 1160), { contenderDir: '/srv/app' });
  const b = attribute(synthetic([4, 3, 2], [10, 30, 20, 10], 1080), { contenderDir: '/srv/app' });
  const pa = cpuPerRequest(a, 3); // busy 100 µs / 3 requests
  const pb = cpuPerRequest(b, 2); // handler 30 + program 20 = 50 µs / 2
  assert.equal(pa.totalNs, 33333);
  assert.deepEqual(
    pa.buckets.map((x) => [x.bucket, x.ns]),
    [
      ['pkg-a', 23333],
      ['(contender code)', 6667],
      ['(program)', 3333],
    ],
  );
  assert.equal(pb.totalNs, 25000);
  const d = diffPerRequest(pa, pb);
  assert.equal(d.diffNs, 8333);
  assert.deepEqual(
    d.parts.map((x) => [x.bucket, x.aNs, x.bNs, x.diffNs]),
    [
      ['pkg-a', 23333, 0, 23333],
      ['(contender code)', 6667, 15000, -8333],
      ['(program)', 3333, 10000, -6667],
    ],
  );
  assert.equal(d.remainderNs, 0, 'every bucket listed and no rounding left over here');
  const top1 = diffPerRequest(pa, pb, 1);
  assert.deepEqual([top1.parts.length, top1.remainderBuckets, top1.remainderNs], [1, 2, 8333 - 23333]);
  assert.throws(() => cpuPerRequest(a, 0), /requests must be a positive number/);

  // Property: for any two sets of buckets and request counts, Σ parts + remainder === A − B exactly.
  const side = fc.record({
    us: fc.array(
      fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'e', '(program)'), fc.double({ min: 0, max: 1e7, noNaN: true })),
      {
        maxLength: 6,
      },
    ),
    requests: fc.integer({ min: 1, max: 1e6 }),
  });
  fc.assert(
    fc.property(side, side, fc.integer({ min: 0, max: 8 }), (x, y, top) => {
      const mk = (s: { us: [string, number][] }) => {
        const m = new Map<string, number>();
        for (const [k, v] of s.us) m.set(k, (m.get(k) ?? 0) + v);
        const busy = [...m.values()].reduce((q, v) => q + v, 0);
        return {
          wallUs: busy,
          idleUs: 0,
          busyUs: busy,
          samples: m.size,
          buckets: [...m].map(([bucket, selfUs]) => ({ bucket, kind: 'package' as const, selfUs, share: null })),
        };
      };
      const r = diffPerRequest(cpuPerRequest(mk(x), x.requests), cpuPerRequest(mk(y), y.requests), top);
      const sum = r.parts.reduce((q, p) => q + p.diffNs, 0) + r.remainderNs;
      return sum === r.diffNs && r.diffNs === r.aTotalNs - r.bTotalNs && Number.isInteger(r.remainderNs);
    }),
  );
});

test('a truncated, empty, malformed or missing profile is a "no profile" result with a reason, never a throw', () => {
  const good = JSON.stringify(synthetic([4, 5], [10, 20], 1100));
  assert.equal(parseCpuProfile(good).ok, true);
  const cases: [string, RegExp][] = [
    [good.slice(0, good.length / 2), /^no profile: the file is not valid JSON \(truncated\?\)/],
    ['', /^no profile: the file is empty/],
    ['[]', /^no profile: not a V8 CPU profile: \(top level\)/],
    [JSON.stringify({ ...JSON.parse(good), samples: 'x' }), /^no profile: not a V8 CPU profile: samples/],
    [JSON.stringify({ ...JSON.parse(good), timeDeltas: [1] }), /^no profile: 2 samples but 1 timeDeltas/],
    [JSON.stringify({ ...JSON.parse(good), samples: [4, 99] }), /names node 99, which is not in nodes/],
    [JSON.stringify({ ...JSON.parse(good), endTime: 1 }), /endTime 1 is before startTime 1000/],
  ];
  for (const [text, re] of cases) {
    const r = parseCpuProfile(text);
    assert.equal(r.ok, false);
    if (!r.ok) assert.match(r.reason, re);
  }
  const missing = readCpuProfile('/nonexistent/x.cpuprofile');
  assert.equal(missing.ok, false);
  if (!missing.ok) assert.match(missing.reason, /^no profile: cannot read \/nonexistent\/x\.cpuprofile: ENOENT/);
});

test('withCpuProf: flags and preload right after node; other commands are not profiled', () => {
  assert.deepEqual(withCpuProf(['node', 'server.js', '--x'], { dir: '/tmp/p', intervalUs: 100 }), [
    'node',
    '--cpu-prof',
    '--cpu-prof-dir=/tmp/p',
    '--cpu-prof-interval=100',
    '--require',
    CPU_PROF_PRELOAD,
    'server.js',
    '--x',
  ]);
  assert.equal(withCpuProf(['/opt/node/bin/node', 'a.js'], { dir: '/tmp/p' })?.[3], '--cpu-prof-interval=1000');
  assert.equal(withCpuProf(['docker', 'run'], { dir: '/tmp/p' }), null);
  assert.throws(() => withCpuProf(['node'], { dir: '/tmp/p', intervalUs: 0.5 }), /positive integer/);
  assert.ok(fs.existsSync(CPU_PROF_PRELOAD));
  const none = findCpuProfile('/nonexistent');
  assert.equal(none.ok, false);
});

// ---- the real profiler, real servers, real sockets ----

/** The two-burns app in a temporary folder, with packages/* as node_modules/* (node_modules is git-ignored). */
function makeApp(): string {
  const dir = tmpDir('two-burns');
  fs.copyFileSync(path.join(FIXTURE, 'server.js'), path.join(dir, 'server.js'));
  for (const pkg of ['pkg-a', 'pkg-b']) {
    fs.mkdirSync(path.join(dir, 'node_modules', pkg), { recursive: true });
    fs.copyFileSync(path.join(FIXTURE, 'packages', pkg, 'index.js'), path.join(dir, 'node_modules', pkg, 'index.js'));
  }
  return fs.realpathSync(dir);
}

interface Server {
  child: ChildProcess;
  port: number;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

const children = new Set<ChildProcess>();
test.after(() => {
  for (const c of children) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** Spawns argv (argv[0] `node` = this Node) in `cwd` and waits for its "listening <port>" line (10 s). */
async function start(argv: string[], cwd: string, env: Record<string, string> = {}): Promise<Server> {
  const [, ...args] = argv;
  const child = spawn(process.execPath, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  children.add(child);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((r) =>
    child.once('exit', (code, signal) => r({ code, signal })),
  );
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('the fixture server did not start within 10 s')), 10_000);
    let out = '';
    child.stdout!.on('data', (b) => {
      out += b;
      const m = /listening (\d+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve(Number(m[1]));
      }
    });
    child.once('exit', () => reject(new Error(`the fixture server exited before listening: ${out}`)));
  });
  return { child, port, exited };
}

/** `total` GET requests over `concurrency` keep-alive connections; resolves with the count of 200s. */
async function load(port: number, total: number, concurrency = 4): Promise<number> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency });
  let next = 0;
  let ok = 0;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path: '/', agent }, (res) => {
          res.resume();
          res.on('end', () => {
            if (res.statusCode === 200) ok++;
            resolve();
          });
        })
        .on('error', reject);
    });
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next++ < total) await one();
    }),
  );
  agent.destroy();
  return ok;
}

/** Waits for the exit, at most `ms`; SIGKILL after that (then the test fails on the result). */
async function waitExit(s: Server, ms: number) {
  const t = setTimeout(() => s.child.kill('SIGKILL'), ms);
  const r = await s.exited;
  clearTimeout(t);
  return r;
}

test('two burns under the real profiler: pkg-a and pkg-b get 70/30 of the burn time (±5 points)', async (t) => {
  const app = makeApp();
  const profDir = path.join(app, 'prof');
  const argv = withCpuProf(['node', 'server.js'], { dir: profDir })!;
  // 3 ms of burn per request (2.1 in pkg-a, 0.9 in pkg-b, timed busy loops), default 1 ms sampling.
  const s = await start(argv, app, { BURN_MS: '3' });
  assert.equal(await load(s.port, 100), 100, 'warm-up');
  // Three measured windows, on this process's hrtime: the same clock (CLOCK_MONOTONIC, µs) as the
  // profile's. The profiler samples wall time, so a window in which another process preempted
  // the server credits that time to whatever was on the stack: the median of three windows
  // keeps one such burst on a shared machine from deciding the test.
  const windows: { fromUs: number; toUs: number }[] = [];
  let served = 0;
  for (let w = 0; w < 3; w++) {
    const fromUs = Number(process.hrtime.bigint() / 1000n);
    served += await load(s.port, 150);
    windows.push({ fromUs, toUs: Number(process.hrtime.bigint() / 1000n) });
  }
  assert.equal(served, 450);
  s.child.kill('SIGTERM');
  const ex = await waitExit(s, 10_000);
  assert.deepEqual(ex, { code: 143, signal: null }, 'the preload turned SIGTERM into exit(143)');
  const found = findCpuProfile(profDir, s.child.pid);
  assert.ok(found.ok, found.ok ? '' : found.reason);
  const parsed = readCpuProfile(found.file);
  assert.ok(parsed.ok, parsed.ok ? '' : parsed.reason);
  const burnt: number[] = []; // per window, the burns' share of the busy time
  const shares = windows.map((w) => {
    const a = attribute(parsed.profile, { contenderDir: app }, w);
    assert.ok(Math.abs(a.wallUs - (w.toUs - w.fromUs)) < 1, `the window lies inside the profile (${a.wallUs} µs)`);
    const us = (b: string) => a.buckets.find((x) => x.bucket === b)?.selfUs ?? 0;
    burnt.push((us('pkg-a') + us('pkg-b')) / a.busyUs);
    return us('pkg-a') / (us('pkg-a') + us('pkg-b'));
  });
  const shareA = [...shares].sort((x, y) => x - y)[1];
  t.diagnostic(`pkg-a share of the burns by window ${shares.map((x) => x.toFixed(3)).join(', ')}`);
  t.diagnostic(`the burns' share of the busy time by window ${burnt.map((x) => x.toFixed(3)).join(', ')}`);
  // Like the share, judged on the median window: one window preempted on a loaded CI host (its
  // time credited to whatever was on the stack) failed this in a fresh clone, 2026-11-26.
  assert.ok([...burnt].sort((x, y) => x - y)[1]! > 0.5, `the burns hold most of the busy time: ${burnt}`);
  assert.ok(
    Math.abs(shareA! - 0.7) <= 0.05,
    `pkg-a's median share of the two burns is ${shareA!.toFixed(3)}, want 0.70 ± 0.05`,
  );
  const a = attribute(parsed.profile, { contenderDir: app }, { fromUs: windows[0]!.fromUs, toUs: windows[2]!.toUs });
  const whole = attribute(parsed.profile, { contenderDir: app });
  assert.ok(
    whole.buckets.some((b) => b.bucket === '(contender code)' && b.selfUs > 0),
    'server.js (run at start-up) is contender code',
  );
  // Over the whole profile: a fresh clone on a loaded host once saw no node:http sample in the windows.
  assert.ok((whole.buckets.find((b) => b.bucket === 'node:http')?.selfUs ?? 0) > 0, "node's http is seen");
  const per = cpuPerRequest(a, served);
  const aNs = per.buckets.find((x) => x.bucket === 'pkg-a')!.ns;
  assert.ok(aNs > 0 && aNs < per.totalNs);

  // The same real profile cut in half: a reason, not a throw.
  const text = fs.readFileSync(found.file, 'utf8');
  const half = parseCpuProfile(text.slice(0, Math.floor(text.length / 2)));
  assert.equal(half.ok, false);
  if (!half.ok) assert.match(half.reason, /^no profile: the file is not valid JSON \(truncated\?\)/);
});

test('stop path: plain --cpu-prof writes no profile on SIGTERM (no handler); with the preload it does, even when the server ignores SIGTERM', async () => {
  const app = makeApp();
  // Without the preload: the default action of SIGTERM kills the process before the profile is written.
  const plainDir = path.join(app, 'plain');
  const plain = await start(['node', '--cpu-prof', `--cpu-prof-dir=${plainDir}`, 'server.js'], app);
  assert.equal(await load(plain.port, 20), 20);
  plain.child.kill('SIGTERM');
  assert.deepEqual(await waitExit(plain, 10_000), { code: null, signal: 'SIGTERM' });
  const none = findCpuProfile(plainDir);
  assert.equal(none.ok, false);
  if (!none.ok) assert.match(none.reason, /^no profile: .*graceful exit/);

  // With the preload and a server that ignores SIGTERM and SIGINT: exit after the grace, profile written.
  const dir = path.join(app, 'ignoring');
  const s = await start(withCpuProf(['node', 'server.js'], { dir })!, app, {
    IGNORE_SIGNALS: '1',
    BENCH_CPU_PROF_GRACE_MS: '300',
  });
  assert.equal(await load(s.port, 20), 20);
  s.child.kill('SIGTERM');
  assert.deepEqual(await waitExit(s, 10_000), { code: 143, signal: null });
  const found = findCpuProfile(dir, s.child.pid);
  assert.ok(found.ok, found.ok ? '' : found.reason);
  const p = readCpuProfile(found.file);
  assert.ok(p.ok, p.ok ? '' : p.reason);
  assert.ok(attribute(p.profile, { contenderDir: app }).buckets.some((b) => b.bucket === 'pkg-a'));

  // SIGINT takes the same path.
  const dir2 = path.join(app, 'sigint');
  const s2 = await start(withCpuProf(['node', 'server.js'], { dir: dir2 })!, app);
  s2.child.kill('SIGINT');
  assert.deepEqual(await waitExit(s2, 10_000), { code: 130, signal: null });
  assert.equal(findCpuProfile(dir2, s2.child.pid).ok, true);
});

test('the sampler probe for real: its loop, passes and call cost, and a profile; a failed or interrupted probe is a reason, never a throw', async () => {
  const dir = tmpDir('sampler-probe');
  const r = await runSamplerProbe({ dir, intervalUs: 1000, cpus: null, loopMs: 300 });
  assert.ok(!('reason' in r), JSON.stringify(r));
  if ('reason' in r) return;
  assert.ok(r.toUs - r.fromUs >= 300_000, `the loop ran its 300 ms: ${r.toUs - r.fromUs} µs`);
  assert.ok(r.passes > 100 && r.callNs > 0, JSON.stringify(r));
  const p = readCpuProfile(r.profileFile);
  assert.ok(p.ok, p.ok ? '' : p.reason);
  const b = samplerBias(p.profile, r);
  assert.ok(b.samples > 100, `${b.samples} samples at 1 ms in 300 ms`);
  assert.ok(b.timeShare > 0 && b.timeShare < 0.5 && b.sampleShare > 0 && b.sampleShare <= 1, JSON.stringify(b));

  const missing = await runSamplerProbe({
    dir: tmpDir('sampler-probe'),
    intervalUs: 1000,
    cpus: null,
    node: '/nonexistent/node',
  });
  assert.match('reason' in missing ? missing.reason : '', /^the sampler probe exited with 127: .*not found/);
  const ac = new AbortController();
  setTimeout(() => ac.abort(), 200);
  const stopped = await runSamplerProbe({
    dir: tmpDir('sampler-probe'),
    intervalUs: 1000,
    cpus: null,
    signal: ac.signal,
  });
  assert.deepEqual(stopped, { reason: 'the sampler probe was interrupted' });
});
