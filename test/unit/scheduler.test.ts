// The scheduler with fake dependencies (hyperfine's MockExecutor idea): no processes are
// started. Each fake "server" is an in-process node:http server on a real socket (the verifier
// and the concurrency burst talk HTTP); the fake driver returns made-up windows and can kill a
// server or abort the run at a chosen window. The fake services (upstream mock, database),
// prechecks (engines, k6) and fidelity probe count their calls, so a test can tell that the
// scheduler went through each of them: the scheduler has no branch on fake or real.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import path from 'node:path';
import type { AddressInfo } from 'node:net';
import { ManifestSchema, type Manifest } from '../../harness/core/manifest.ts';
import { loadScenarios } from '../../harness/contract/scenarios.ts';
import { getProfile, type Profile } from '../../harness/core/profiles.ts';
import type { LoadDriver, LoadOutput } from '../../harness/drivers/driver-types.ts';
import type { OpenLoopDriver } from '../../harness/drivers/open-loop.ts';
import type { CpuPlan } from '../../harness/lifecycle/cpu-plan.ts';
import type { RunDatabase } from '../../harness/services/database.ts';
import type { DriverFidelity } from '../../harness/store/results.ts';
import { planCells, withBaselines, type CellSpec } from '../../harness/scheduler/plan.ts';
import { runPlan, type RunOptions } from '../../harness/scheduler/run.ts';
import { roundOrders } from '../../harness/scheduler/rounds.ts';
import { SETTLE_SHARE } from '../../harness/scheduler/capacity-round.ts';
import { Progress } from '../../harness/scheduler/progress.ts';
import { groupPlan } from '../../harness/scheduler/group.ts';
import { fidelityPlanMs } from '../../harness/scheduler/run-fidelity.ts';
import {
  StartFailure,
  type FidelityProbe,
  type Lifecycle,
  type RunDeps,
  type ServiceRefs,
  type ToolCheck,
} from '../../harness/scheduler/scheduler-types.ts';
import { readRunAt, ROOT, tmpDir } from '../helpers.ts';
import { buildTables } from '../../harness/analysis/tables.ts';
import { listRuns } from '../../harness/store/runs.ts';

const SCENARIOS = loadScenarios(path.join(ROOT, 'scenarios'));
const ping = SCENARIOS.find((s) => s.name === 'ping')!;
const json = SCENARIOS.find((s) => s.name === 'json')!;
const fanout = SCENARIOS.find((s) => s.name === 'fanout')!;
const NODE = { major: 24, version: process.version, path: process.execPath } as CellSpec['node'];
const CPU: CpuPlan = {
  pinned: false,
  server: null,
  client: null,
  services: null,
  allowedCores: [0, 1],
  clientThreads: 1,
  note: 'fake',
};

function manifest(name: string, patch: Record<string, unknown> = {}): Manifest {
  const m = ManifestSchema.parse({
    name,
    displayName: name,
    tags: { framework: 'fake', httpClient: 'none', language: 'javascript' },
    scenarios: ['ping', 'json'],
    start: ['node', 'server.js'],
    ...patch,
  });
  return { ...m, dir: `/nonexistent/${name}` } as Manifest;
}

/**
 * Behaviour of one fake server: `wrongEvery` n → every n-th /json body is wrong (0 = never);
 * `wrong` → always; `rps`: its made-up requests/s in the first window (default 1,000).
 */
/** `cpuPerRequestUs`: the fake server's CPU-µs per request served (its `cpuUs()`; absent → null, as an external target). */
type Behaviour = {
  wrong?: boolean;
  wrongEvery?: number;
  startFails?: boolean;
  /** The n-th start of this contender's server (1-based) fails. */
  startFailsAt?: number;
  crashAtWindow?: number;
  /** The server of the n-th start of this contender (1-based) dies in its warm-up window. */
  crashInWarmupAt?: number;
  rps?: number;
  cpuPerRequestUs?: number;
};

/**
 * The machine the fakes pretend to be. `db`: the fake database (`ready` false → not ready with
 * `error`; `deadAfter` n → its n-th `alive()` and later ones answer false). `engines`: an engine
 * problem by contender name. `k6`: what the k6 lookup finds (default: a fake binary).
 * `fidelityStarts`: the fake fidelity probe starts (and stops) a server through the lifecycle.
 */
type Env = {
  db?: { ready: boolean; error?: string; deadAfter?: number };
  engines?: Record<string, string>;
  k6?: ToolCheck;
  fidelityStarts?: boolean;
};

/** Calls of each fake dependency, by name. */
type Calls = {
  lifecycle: number;
  startUpstream: number;
  stopUpstream: number;
  openDatabase: number;
  alive: number;
  closeDatabase: number;
  engineProblem: number;
  k6: number;
  fidelity: number;
};

interface World {
  deps: RunDeps;
  lifecycle: Lifecycle;
  driver: LoadDriver;
  windows: { label: string; warmup: boolean; durationS: number }[];
  started: string[];
  stopped: string[];
  calls: Calls;
  /** What each server start saw of the run's services: its label, the upstream URL and the database URL. */
  starts: { label: string; upstreamUrl: string | null; databaseUrl: string | null; logFile: string }[];
  /** The cells the fidelity probe was asked about (cell id) and what it returned. */
  fidelity: { cellId: string; runS: number; result: DriverFidelity }[];
}

const FAKE_UPSTREAM = 'http://127.0.0.1:1/fake-upstream';
const FAKE_DB_URL = 'postgres://fake@127.0.0.1:1/bench';

/** The fake database of `spec`, counting its calls in `calls`. */
function fakeDatabase(spec: NonNullable<Env['db']>, calls: Calls): RunDatabase {
  const error = spec.ready ? null : (spec.error ?? 'fake: no PostgreSQL here');
  const users = spec.ready ? [{ id: 1, name: 'Ada', email: 'ada@example.org' }] : undefined;
  return {
    ready: spec.ready,
    url: spec.ready ? FAKE_DB_URL : null,
    error,
    firstUsers: users,
    sampleUsers: users,
    pid: null,
    async alive() {
      calls.alive++;
      return spec.ready && (spec.deadAfter === undefined || calls.alive < spec.deadAfter);
    },
    meta: {
      external: false,
      version: 'fake 1.0',
      settings: {},
      seed: spec.ready ? { rows: 1, checksum: 'f' } : null,
      error,
    },
    async close() {
      calls.closeDatabase++;
    },
  };
}

/** A made-up fidelity record for `o.cell`. */
function fakeFidelityRecord(o: Parameters<FidelityProbe>[0]): DriverFidelity {
  const c = o.cell;
  return {
    status: 'ok',
    reason: null,
    cell: {
      cellId: c.cellId,
      label: c.label,
      scenario: c.scenario,
      profile: c.profile,
      nodeMajor: c.node.major,
      rps: 1,
    },
    connections: o.profile.connections,
    runS: o.runS,
    threads: o.threads,
    reference: 'wrk',
    drivers: [
      { driver: 'wrk', version: 'fake', rps: [2000], fidelity: 1 },
      { driver: 'autocannon', version: 'fake', rps: [1900], fidelity: 0.95 },
    ],
    runs: [
      { driver: 'wrk', rps: 2000, errors: 0 },
      { driver: 'autocannon', rps: 1900, errors: 0 },
    ],
    summary: 'fake fidelity',
  };
}

function world(behaviour: Record<string, Behaviour>, onWindow?: (n: number) => void, env: Env = {}): World {
  const calls: Calls = {
    lifecycle: 0,
    startUpstream: 0,
    stopUpstream: 0,
    openDatabase: 0,
    alive: 0,
    closeDatabase: 0,
    engineProblem: 0,
    k6: 0,
    fidelity: 0,
  };
  const w: World = { windows: [], started: [], stopped: [], calls, starts: [], fidelity: [] } as unknown as World;
  const byUrl = new Map<
    string,
    {
      label: string;
      died: AbortController;
      dead: string | null;
      b: Behaviour;
      n: number;
      nth: number;
      served: number;
      pids: number[];
    }
  >();
  let measured = 0;
  let services: ServiceRefs | null = null;
  w.lifecycle = {
    kind: 'local',
    build: async () => ({ ok: true, ms: 0, output: '' }),
    async start(cell: CellSpec, logFile: string) {
      const label = cell.variant ? `${cell.manifest.name} +${cell.variant}` : cell.manifest.name;
      w.starts.push({
        label,
        upstreamUrl: services!.upstreamUrl(),
        databaseUrl: services!.database()?.url ?? null,
        logFile,
      });
      const b = behaviour[cell.manifest.name] ?? {};
      const nth = w.starts.filter((x) => x.label === label).length;
      if (b.startFails || b.startFailsAt === nth)
        throw new StartFailure(`${label} exited with code 1 before it was ready`, 'boom');
      let n = 0;
      const server = http.createServer((req, res) => {
        const send = (type: string, body: string) =>
          res.writeHead(200, { 'content-type': type, 'content-length': Buffer.byteLength(body) }).end(body);
        if (req.url === '/ping') return send('text/plain; charset=utf-8', 'pong');
        n++;
        const bad = b.wrong || (b.wrongEvery && n % b.wrongEvery === 0);
        send('application/json; charset=utf-8', JSON.stringify({ message: bad ? 'nope' : 'Hello, World!' }));
      });
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const state = {
        label: `${label}·${cell.scenario.name}`,
        died: new AbortController(),
        dead: null as string | null,
        b,
        n: 0,
        nth,
        served: 0,
        pids: [] as number[],
      };
      byUrl.set(baseUrl, state);
      w.started.push(state.label);
      return {
        baseUrl,
        pid: null,
        startupMs: 5,
        exitInfo: () => state.dead,
        died: state.died.signal,
        cpuUs: () => (b.cpuPerRequestUs ? state.served * b.cpuPerRequestUs : null),
        async stop() {
          w.stopped.push(state.label);
          server.closeAllConnections();
          await new Promise((r) => server.close(r));
          return 1;
        },
      };
    },
    logTail: () => 'fake log tail',
    afterStop: () => {},
  };
  w.driver = {
    name: 'autocannon',
    interleaves: true, // the fake's windows are instant: nothing to pause
    probe: () => ({ name: 'autocannon', available: true, version: 'fake', why: '', install: '' }),
    async window(_p: Profile, job, o): Promise<LoadOutput> {
      const s = byUrl.get(job.url)!;
      w.windows.push({ label: s.label, warmup: o.warmup, durationS: o.durationS });
      if (o.warmup && s.b.crashInWarmupAt === s.nth) {
        s.dead = 'killed by SIGSEGV';
        s.died.abort();
        throw new Error('socket hang up');
      }
      if (!o.warmup) {
        s.n++;
        measured++;
        onWindow?.(measured);
        if (s.b.crashAtWindow === s.n) {
          s.dead = 'killed by SIGSEGV';
          s.died.abort();
          throw new Error('socket hang up');
        }
      }
      const rps = (s.b.rps ?? 1000) + 10 * s.n;
      s.served += rps * o.durationS;
      return {
        driver: 'autocannon',
        requestsPerSec: { mean: rps, stddev: 0, samples: [rps] },
        latencyMs: { mean: 1, p50: 1, p90: 2, p99: 3, max: 4 },
        latencyHistogramUs: null,
        requests: { total: rps * o.durationS, sent: rps * o.durationS },
        errors: 0,
        timeouts: 0,
        non2xx: 0,
        bytes: 100,
        durationS: o.durationS,
        bodyChecks: { sampled: 1, mismatched: 0 },
        driverCpuMs: null,
      };
    },
  };
  w.deps = {
    cpuPlan: CPU,
    driver: { driver: w.driver, name: 'autocannon', note: null },
    openLoop: () => ({ driver: null, note: 'no open-loop driver in this fake world' }),
    lifecycle(refs) {
      calls.lifecycle++;
      services = refs;
      return w.lifecycle;
    },
    services: {
      async startUpstream() {
        calls.startUpstream++;
        return {
          url: FAKE_UPSTREAM,
          pid: 0,
          alive: async () => true,
          gone: () => false,
          stop: async () => {
            calls.stopUpstream++;
          },
        };
      },
      async openDatabase() {
        calls.openDatabase++;
        return fakeDatabase(env.db ?? { ready: false, error: 'fake: no database configured' }, calls);
      },
    },
    prechecks: {
      engineProblem(cell) {
        calls.engineProblem++;
        return env.engines?.[cell.manifest.name] ?? null;
      },
      k6() {
        calls.k6++;
        return env.k6 ?? { bin: '/fake/k6', why: '' };
      },
    },
    async fidelity(o) {
      calls.fidelity++;
      if (env.fidelityStarts) {
        const s = await o.start();
        await s.stop();
      }
      const result = fakeFidelityRecord(o);
      w.fidelity.push({ cellId: o.cell.cellId, runS: o.runS, result });
      return result;
    },
  };
  return w;
}

/** The quick shape with solo rounds only (the interleaved rounds have tests of their own below). */
const QUICK = {
  ...getProfile('quick'),
  driver: 'autocannon',
  warmupS: 1,
  durationS: 1,
  rounds: 5,
  interleave: undefined,
} as Profile;
/** Two solo rounds, then five interleaved rounds of 1 s per server in 100 ms slices. */
const PAIRED = { ...QUICK, rounds: 2, interleave: { rounds: 5, activeS: 1, sliceMs: 100 } } as Profile;

function options(w: World, cells: CellSpec[], patch: Partial<RunOptions> = {}): RunOptions & { lines: string[] } {
  const lines: string[] = [];
  return {
    cells,
    profileName: cells[0]!.profile.name,
    resultsDir: tmpDir('sched'),
    scenariosDir: path.join(ROOT, 'scenarios'),
    upstreamDelayMs: 0,
    shuffleSeed: 42,
    burstRequests: 300,
    command: ['test'],
    signal: new AbortController().signal,
    deps: w.deps,
    log: (l) => lines.push(l),
    lines,
    ...patch,
  };
}

/** The trial files (`trials`) or cell files (`cells`) of a run folder, read through the store. */
const read = (runDir: string, what: 'trials' | 'cells') => readRunAt(runDir)[what];

test('rounds: every round has every contender once, orders differ and are reproducible from the seed', () => {
  const ids = ['a', 'b', 'c', 'd', 'e'];
  const r1 = roundOrders(ids, 5, 123);
  for (const round of r1) assert.deepEqual([...round].sort(), ids);
  assert.ok(new Set(r1.map((r) => r.join())).size > 1, 'orders differ between rounds');
  assert.deepEqual(roundOrders(ids, 5, 123), r1, 'same seed, same rounds');
  assert.notDeepEqual(roundOrders(ids, 5, 124), r1, 'another seed, other rounds');
});

test('a group: servers start once, warm once, then interleaved shuffled rounds; trials and cells written', async () => {
  const w = world({});
  const cells = planCells([manifest('a'), manifest('b'), manifest('c')], [json], QUICK, [NODE]);
  const o = options(w, cells);
  const s = await runPlan(o);
  assert.equal(s.interrupted, false);
  assert.deepEqual(w.started.sort(), ['a·json', 'b·json', 'c·json'], 'each server started once for the group');
  assert.deepEqual(w.stopped.sort(), ['a·json', 'b·json', 'c·json']);
  const warm = w.windows.filter((x) => x.warmup).map((x) => x.label);
  assert.deepEqual(warm.sort(), ['a·json', 'b·json', 'c·json'], 'one warm-up each');
  const measured = w.windows.filter((x) => !x.warmup).map((x) => x.label);
  assert.equal(measured.length, 15);
  const rounds = [0, 1, 2, 3, 4].map((r) => measured.slice(3 * r, 3 * r + 3));
  for (const r of rounds)
    assert.deepEqual([...r].sort(), ['a·json', 'b·json', 'c·json'], 'every round has every contender once');
  assert.ok(new Set(rounds.map((r) => r.join())).size > 1, 'rounds are shuffled differently');
  assert.ok(w.windows.findIndex((x) => !x.warmup) > w.windows.findLastIndex((x) => x.warmup), 'warm-ups before rounds');
  // The same seed gives the same order.
  const w2 = world({});
  await runPlan(options(w2, planCells([manifest('a'), manifest('b'), manifest('c')], [json], QUICK, [NODE])));
  assert.deepEqual(
    w2.windows.filter((x) => !x.warmup).map((x) => x.label),
    measured,
  );

  const trials = read(s.runDir, 'trials');
  assert.equal(trials.length, 15);
  assert.deepEqual([...new Set(trials.map((t) => t.round))].sort(), [1, 2, 3, 4, 5]);
  const files = read(s.runDir, 'cells');
  assert.equal(files.length, 3);
  for (const c of files) {
    assert.equal(c.status, 'ok');
    assert.equal(c.stats.trials, 5);
    assert.equal(c.driver, 'autocannon');
    assert.match(c.cellId, /__json__autocannon__quick__node24$/);
    assert.equal(c.burst.failed, 0);
    assert.equal(c.round, undefined, 'a cell file is not a trial');
  }
  const meta = readRunAt(s.runDir).meta;
  assert.equal(meta.state, 'complete');
  assert.equal(meta.harnessPid, process.pid);
  assert.deepEqual(meta.trials, { count: 5, shuffleSeed: 42 });
  assert.ok(meta.design.wallMs > 0);
});

test('the baseline is added unasked, once per scenario', () => {
  const all = [manifest('node-http'), manifest('x', { variants: { v: { description: 'd', env: { A: '1' } } } })];
  const cells = planCells([all[1]!], [ping, json], QUICK, [NODE]);
  const b = withBaselines(cells, all);
  assert.deepEqual(b.added.get('node-http'), ['ping', 'json']);
  assert.equal(b.cells.filter((c) => c.manifest.name === 'node-http').length, 2);
  assert.equal(b.cells.filter((c) => c.manifest.name === 'x').length, 4, 'the variant stays');
  assert.equal(withBaselines(b.cells, all).added.size, 0, 'not added twice');
  const missing = withBaselines(cells, [all[1]!]);
  assert.deepEqual(missing.missing.get('node-http'), ['ping', 'json']);
});

test('abort mid-group keeps the finished trials and writes cells from them', async () => {
  const ac = new AbortController();
  const w = world({}, (n) => {
    if (n === 5) ac.abort();
  });
  const cells = planCells([manifest('a'), manifest('b')], [json], QUICK, [NODE]);
  const s = await runPlan(options(w, cells, { signal: ac.signal }));
  assert.equal(s.interrupted, true);
  assert.equal(read(s.runDir, 'trials').length, 4, 'the aborted window is not a trial');
  const files = read(s.runDir, 'cells');
  assert.equal(files.length, 2);
  assert.deepEqual(files.map((c) => c.stats.trials).sort(), [2, 2]);
  assert.equal(readRunAt(s.runDir).meta.state, 'interrupted');
  assert.equal(w.stopped.length, 2, 'every server stopped');
});

test('a server that dies mid-group makes its cell crashed; the others finish', async () => {
  const w = world({ b: { crashAtWindow: 3 } });
  const cells = planCells([manifest('a'), manifest('b'), manifest('c')], [json], QUICK, [NODE]);
  const s = await runPlan(options(w, cells));
  const byName = Object.fromEntries(read(s.runDir, 'cells').map((c) => [c.contender, c]));
  assert.equal(byName.b.status, 'crashed');
  assert.match(byName.b.failure.reason, /trial 3\/5: server killed by SIGSEGV during the load run/);
  assert.equal(byName.b.stats.trials, 2, 'the two trials before the crash are kept');
  assert.equal(byName.a.status, 'ok');
  assert.equal(byName.c.status, 'ok');
  assert.equal(byName.a.stats.trials, 5);
  assert.equal(w.windows.filter((x) => x.label === 'b·json' && !x.warmup).length, 3, 'no window after the crash');
});

test('verify-failed, burst-failed and start-failed cells are not measured', async () => {
  const w = world({ bad: { wrong: true }, rare: { wrongEvery: 50 }, dead: { startFails: true } });
  const cells = planCells(
    ['ok', 'bad', 'rare', 'dead'].map((n) => manifest(n)),
    [json],
    QUICK,
    [NODE],
  );
  const s = await runPlan(options(w, cells));
  const byName = Object.fromEntries(s.cells.map((c) => [c.contender, c]));
  assert.equal(byName.ok!.status, 'ok');
  assert.equal(byName.bad!.status, 'verify-failed');
  assert.equal(byName.rare!.status, 'verify-failed');
  assert.match(
    byName.rare!.verification!.reasons.join(),
    /concurrency burst \(quick\): GET \/json: .*message.*\(\d+ of \d+ burst requests\)/,
  );
  assert.equal(byName.dead!.status, 'start-failed');
  const measured = new Set(w.windows.map((x) => x.label));
  assert.deepEqual([...measured], ['ok·json'], 'only the healthy server got load (warm-up included)');
  assert.deepEqual(w.stopped.sort(), ['bad·json', 'ok·json', 'rare·json']);
});

test('verify mode: start and contract check only, no load, nothing written', async () => {
  const w = world({ bad: { wrong: true } });
  const dir = tmpDir('sched-verify');
  const cells = planCells([manifest('ok'), manifest('bad')], [ping, json], getProfile('smoke'), [NODE]);
  const s = await runPlan(options(w, cells, { mode: 'verify', resultsDir: dir }));
  assert.equal(w.windows.length, 0);
  assert.deepEqual(s.cells.map((c) => `${c.contender}·${c.scenario}:${c.status}`).sort(), [
    'bad·json:verify-failed',
    'bad·ping:ok',
    'ok·json:ok',
    'ok·ping:ok',
  ]);
  assert.deepEqual(listRuns(dir), [], 'verify mode records no run');
});

test('progress: a line per window with elapsed time and an ETA; overhead and wall time at the end', async () => {
  const w = world({});
  const cells = planCells([manifest('a'), manifest('b')], [ping, json], QUICK, [NODE]);
  const o = options(w, cells);
  const s = await runPlan(o);
  const lines = o.lines.filter((l) => /^\[\d+\/\d+\]/.test(l));
  assert.equal(lines.length, 20, '2 contenders × 2 scenarios × 5 rounds');
  // meta.json records the phases as they ran (test/unit/eta-replay.test.ts replays such a record): every
  // phase of the plan, done or skipped, in order, and the ETA printed at the start.
  const { timings } = readRunAt(s.runDir).meta;
  const planned = [ping, json].reduce(
    (sum, sc) =>
      sum +
      groupPlan(
        cells.filter((c) => c.scenario === sc),
        5,
        'bench',
      ).ms,
    0,
  );
  const sumOf = (xs: [string, number, number, number | null][]) => xs.reduce((a, [, , p]) => a + p, 0);
  assert.equal(sumOf(timings.phases.filter(([k]: [string]) => k !== 'fidelity')), planned);
  assert.deepEqual(
    timings.phases
      .filter(([, , , took]: [string, number, number, number | null]) => took !== null)
      .map(([k, n]: [string, number]) => [k, n]),
    [
      ['build', 2],
      ['server', 2],
      ['warmup', 2],
      ['window', 10],
      ['server', 2],
      ['warmup', 2],
      ['window', 10],
      ['fidelity', 1],
    ],
  );
  // The plan, less the time the run took to open (it counts toward the first phase).
  const sinceStart = planned + fidelityPlanMs(o) - timings.startEtaMs;
  assert.ok(sinceStart >= 0 && sinceStart < 2000, `${sinceStart}`);
  assert.ok(
    o.lines.some((l) =>
      /finished: 4 cells recorded in \dm\d\ds wall time; the ETA at the start said \dm\d\ds$/.test(l),
    ),
  );
  assert.match(
    lines[0]!,
    /^\[1\/20\] [ab] · ping · quick · autocannon · Node 24 · round 1\/5 {3}elapsed \dm\d\ds, ETA \dm\d\ds$/,
  );
  assert.match(lines[19]!, /^\[20\/20\] .* · json · .* round 5\/5 /);
  assert.ok(
    o.lines.some((l) =>
      /harness overhead per cell \(start \+ verify \+ teardown\): median \d+ ms, max \d+ ms over 4 cells/.test(l),
    ),
  );
  assert.ok(o.lines.some((l) => /finished: 4 cells recorded in \dm\d\ds wall time/.test(l)));
  // The ETA counts down with a fake clock: half the plan done in the planned time → half left.
  let t = 0;
  const out: string[] = [];
  const p = new Progress(
    (l) => out.push(l),
    () => t,
  );
  p.plan('window', 10_000, 2);
  p.window('x', 5000);
  t = 5000;
  p.done('window', 5000);
  p.window('y', 5000);
  assert.match(out[0]!, /\[1\/2\] x {3}elapsed 0m00s, ETA 0m10s/);
  assert.match(out[1]!, /\[2\/2\] y {3}elapsed 0m05s, ETA 0m05s/);
});

/** A fake open-loop driver: each contender serves `mu[name]` requests/s (D/D/1: the queue grows above it). */
function fakeOpenLoop(w: World, mu: Record<string, number>): OpenLoopDriver & { steps: string[] } {
  const steps: string[] = [];
  return {
    name: 'oha',
    steps,
    version: () => 'oha fake',
    async step(job, o) {
      const port = new URL(job.url).port;
      const name = w.started.find((l) => l.startsWith(`${portNames.get(port)}·`))?.split('·')[0] ?? '?';
      steps.push(`${name}@${o.rate}`);
      const m = mu[name];
      const p99 = 1000 / m! + (o.rate > m! ? (o.rate / m! - 1) * o.durationS * 1000 : 0);
      return {
        driver: 'oha',
        rate: o.rate,
        scheduled: o.rate * o.durationS,
        responses: Math.min(o.rate, m!) * o.durationS,
        achievedRps: Math.min(o.rate, m!),
        latencyMs: { p50: 1000 / m!, p90: p99, p99, max: p99 },
        errors: 0,
        non2xx: 0,
        dropped: 0,
        durationS: o.durationS,
        driverCpuMs: null,
      };
    },
  };
}
const portNames = new Map<string, string>();

test('capacity cells: each round a closed-loop peak then an open-loop search; the cell summarises the searches', async () => {
  const w = world({});
  const start = w.lifecycle.start.bind(w.lifecycle);
  w.lifecycle.start = async (cell, log) => {
    const h = await start(cell, log);
    portNames.set(new URL(h.baseUrl).port, cell.manifest.name);
    return h;
  };
  const CAP = { ...getProfile('capacity'), driver: 'autocannon', rounds: 3 } as Profile;
  const cells = planCells([manifest('fast'), manifest('slow')], [ping], CAP, [NODE]);
  const ol = fakeOpenLoop(w, { fast: 800, slow: 100 });
  const o = options(w, cells, { rounds: 3, deps: { ...w.deps, openLoop: () => ({ driver: ol, note: '' }) } });
  const s = await runPlan(o);
  assert.equal(s.interrupted, false);
  const measured = w.windows.filter((x) => !x.warmup).map((x) => x.label);
  assert.equal(measured.length, 6, 'one closed-loop peak window per cell and round');
  const byName = Object.fromEntries(s.cells.map((c) => [c.contender, c]));
  for (const [name, mu] of [
    ['fast', 800],
    ['slow', 100],
  ] as const) {
    const c = byName[name];
    assert.equal(c!.status, 'ok');
    assert.equal(c!.capacity?.searches, 3);
    assert.equal(c!.capacity?.verdict, 'met');
    assert.equal(c!.capacity?.bracketed, 3, 'every search bracketed its capacity');
    assert.equal(c!.capacity?.sloP99Ms, ping.sloP99Ms, "the scenario's default SLO");
    assert.ok(
      // Each search's figure is its bracket's geometric midpoint; the model holds up to 1.01 mu (10 ms SLO).
      c!.stats && c!.stats.rps.figure <= mu * 1.01 * Math.sqrt(1.08) && c!.stats.rps.figure >= mu / 1.08,
      `${name}: ${c!.stats?.rps.figure}`,
    );
    assert.ok(c!.capacity!.knee! > 0 && c!.capacity!.knee! < 1);
  }
  const trials = read(s.runDir, 'trials');
  assert.equal(trials.length, 6);
  assert.ok(
    trials.every((t) => t.capacitySearch?.steps.length >= 2),
    'every trial keeps its steps',
  );
  const capProfile = getProfile('capacity');
  const w2 = (capProfile.driver !== 'k6' ? (capProfile.capacity?.priorSpread ?? 0) : 0) / 2;
  for (const t of trials) {
    // The first round starts from its own peak and a seeded factor; later rounds near the cell's
    // first bracketed search (issue 23's "first round's bracket"), never from any other result.
    const first = t.capacitySearch.steps[0].rate;
    const prior = trials
      .filter((x) => x.label === t.label && x.round < t.round && x.capacitySearch?.bound === 'bracketed')
      .sort((a, b) => a.round - b.round)[0]?.capacitySearch;
    if (!prior) {
      const share = first / t.capacitySearch.peakRps;
      assert.ok(share >= 0.5 * 2 ** -0.5 - 0.01 && share <= 0.5 * 2 ** 0.5 + 0.01, `first step at ${share} × the peak`);
    } else {
      const rel = first / (prior.rps ?? 0);
      assert.ok(
        rel >= 2 ** -w2 - 0.01 && rel <= 2 ** w2 + 0.01,
        `round ${t.round}: first step at ${rel} × the first bracketed search's figure`,
      );
    }
    assert.ok(t.capacitySearch.capRps >= t.capacitySearch.peakRps, 'the cap (≥ the round’s peak) is recorded');
  }
  assert.ok(ol.steps.some((x) => x.startsWith('slow@')) && ol.steps.some((x) => x.startsWith('fast@')));
  // The settle: one unrecorded open-loop step per search, at half its first rate, before its first step.
  const recorded = trials.reduce((a, t) => a + t.capacitySearch.steps.length, 0);
  assert.equal(ol.steps.length, recorded + trials.length, 'one settle step per search, not recorded');
  for (const t of trials) {
    const first = t.capacitySearch.steps[0].rate;
    // Half the unrounded start, so within 1 request/s of half the first step's rate.
    const settles = (x: string) =>
      x.startsWith(`${t.contender}@`) && Math.abs(Number(x.split('@')[1]) - first * SETTLE_SHARE) <= 1;
    assert.ok(
      ol.steps.some((x, i) => settles(x) && ol.steps[i + 1] === `${t.contender}@${first}`),
      `${t.label} round ${t.round}: ${ol.steps}`,
    );
  }
});

test('capacity cells without an open-loop driver are skipped with the reason', async () => {
  const w = world({});
  const CAP = { ...getProfile('capacity'), driver: 'autocannon', rounds: 1 } as Profile;
  const cells = planCells([manifest('a')], [ping], CAP, [NODE]);
  const s = await runPlan(
    options(w, cells, {
      rounds: 1,
      deps: { ...w.deps, openLoop: () => ({ driver: null, note: 'no open-loop driver (test)' }) },
    }),
  );
  assert.equal(s.cells[0]!.status, 'skipped');
  assert.match(s.cells[0]!.failure?.reason ?? '', /no open-loop driver/);
  assert.deepEqual(w.stopped, ['a·ping'], 'its server was stopped');
});

/** Cells by contender name. */
const byContender = <T extends { contender: string }>(cells: T[]): Record<string, T> =>
  Object.fromEntries(cells.map((c) => [c.contender, c]));

test('upstream: started once through the services when a fanout cell is planned, its URL reaches every server start, stopped at the end', async () => {
  const w = world({});
  const cells = planCells([manifest('f', { scenarios: ['fanout', 'json'] })], [fanout, json], QUICK, [NODE]);
  const o = options(w, cells, { rounds: 1 });
  await runPlan(o);
  assert.equal(w.calls.startUpstream, 1, 'one upstream mock per run');
  assert.equal(w.calls.stopUpstream, 1, 'stopped at the end');
  assert.equal(w.starts.length, 2);
  for (const s of w.starts) assert.equal(s.upstreamUrl, FAKE_UPSTREAM);
  assert.ok(o.lines.some((l) => l.includes(`upstream mock: ${FAKE_UPSTREAM}`)));
  // No fanout cell: no upstream mock, and the servers are told there is none.
  const w2 = world({});
  await runPlan(options(w2, planCells([manifest('a')], [json], QUICK, [NODE]), { rounds: 1 }));
  assert.equal(w2.calls.startUpstream, 0);
  assert.equal(w2.starts[0]!.upstreamUrl, null);
});

test('database: opened once, its URL reaches the servers, alive() false after a window marks the trials and the cell servicesLost', async () => {
  const w = world({}, undefined, { db: { ready: true, deadAfter: 3 } });
  const cells = planCells([manifest('pg', { requires: ['database'] }), manifest('a')], [json], QUICK, [NODE]);
  const s = await runPlan(options(w, cells));
  assert.equal(w.calls.openDatabase, 1);
  assert.equal(w.calls.closeDatabase, 1, 'closed at the end');
  assert.equal(w.calls.alive, 5, 'asked after each measured window of the database cell only');
  assert.equal(w.starts.find((x) => x.label === 'pg')?.databaseUrl, FAKE_DB_URL);
  const trials = read(s.runDir, 'trials').filter((t) => t.contender === 'pg');
  assert.deepEqual(trials.map((t) => `${t.round}:${(t.servicesLost ?? []).join()}`).sort(), [
    '1:',
    '2:',
    '3:database',
    '4:database',
    '5:database',
  ]);
  const cellsByName = byContender(read(s.runDir, 'cells'));
  assert.deepEqual(cellsByName.pg.servicesLost, ['database']);
  assert.equal(cellsByName.a.servicesLost, undefined, 'a cell without the database is not marked');
  const meta = readRunAt(s.runDir).meta;
  assert.equal(meta.database.version, 'fake 1.0', "the database's meta is recorded");
});

test('database not ready: its cells are skipped with the reason and never started; the others run', async () => {
  const w = world({}, undefined, { db: { ready: false, error: 'fake: connection refused' } });
  const cells = planCells([manifest('pg', { requires: ['database'] }), manifest('a')], [json], QUICK, [NODE]);
  const s = await runPlan(options(w, cells, { rounds: 1 }));
  const byName = byContender(s.cells);
  assert.equal(byName.pg!.status, 'skipped');
  assert.equal(byName.pg!.failure?.reason, 'needs PostgreSQL: fake: connection refused');
  assert.equal(byName.a!.status, 'ok');
  assert.deepEqual(w.started, ['a·json']);
  assert.equal(w.calls.alive, 0);
  assert.equal(w.calls.closeDatabase, 1);
});

test('prechecks: an engine problem makes the cell unsupported, a missing k6 skips k6 cells; neither is started', async () => {
  const w = world({}, undefined, { engines: { old: 'engines.node is >=99' } });
  const cells = planCells([manifest('old'), manifest('a')], [json], QUICK, [NODE]);
  const s = await runPlan(options(w, cells, { rounds: 1 }));
  const byName = byContender(s.cells);
  assert.equal(byName.old!.status, 'unsupported');
  assert.equal(byName.old!.failure?.reason, 'unsupported on Node 24: engines.node is >=99');
  assert.equal(byName.a!.status, 'ok');
  assert.deepEqual(w.started, ['a·json']);
  assert.equal(w.calls.engineProblem, 2, 'asked once per cell');
  assert.equal(w.calls.k6, 0, 'no k6 lookup without a k6 cell');

  const k6 = world({}, undefined, { k6: { bin: null, why: 'fake: k6 not installed' } });
  const o = options(k6, planCells([manifest('a')], [json], getProfile('quick-k6'), [NODE]), { rounds: 1 });
  const r = await runPlan(o);
  assert.equal(k6.calls.k6, 1, 'k6 looked up once per run');
  assert.equal(r.cells[0]!.status, 'skipped');
  assert.equal(r.cells[0]!.failure?.reason, 'k6 not available: fake: k6 not installed');
  assert.deepEqual(k6.started, []);
  assert.ok(o.lines.includes('k6 cells will be skipped: fake: k6 not installed'));
});

test('fidelity: the probe runs once per run on the fastest ok cell, on a fresh server, and its record lands in meta.json', async () => {
  const w = world({ b: { rps: 3000 }, c: { rps: 2000 } }, undefined, { fidelityStarts: true });
  const cells = planCells([manifest('a'), manifest('b'), manifest('c')], [json], QUICK, [NODE]);
  const s = await runPlan(options(w, cells, { rounds: 2, fidelityS: 2 }));
  assert.equal(w.calls.fidelity, 1);
  const fastest = s.cells.find((c) => c.contender === 'b')!;
  assert.equal(w.fidelity[0]!.cellId, fastest.cellId);
  assert.equal(w.fidelity[0]!.runS, 2, '--fidelity seconds reach the probe');
  const fresh = w.starts.filter((x) => x.label === 'b');
  assert.equal(fresh.length, 2, 'a fresh server for the check');
  assert.match(fresh[1]!.logFile, /fidelity/);
  assert.equal(w.stopped.filter((x) => x === 'b·json').length, 2, 'and stopped again');
  const meta = readRunAt(s.runDir).meta;
  assert.deepEqual(meta.fidelity, w.fidelity[0]!.result);
  // Off with --no-fidelity (0 s), and never in verify mode.
  const off = world({});
  await runPlan(options(off, planCells([manifest('a')], [json], QUICK, [NODE]), { rounds: 1, fidelityS: 0 }));
  await runPlan(options(off, planCells([manifest('a')], [json], QUICK, [NODE]), { mode: 'verify' }));
  assert.equal(off.calls.fidelity, 0);
});

test('every fake dependency is used: a plan with fanout, database, engine and k6 cells goes through each of them', async () => {
  const w = world({}, undefined, {
    db: { ready: true, deadAfter: 2 },
    engines: { old: 'too old' },
    k6: { bin: null, why: 'none' },
  });
  const cells = [
    ...planCells(
      [manifest('f', { scenarios: ['fanout'] }), manifest('pg', { requires: ['database'] })],
      [fanout, json],
      QUICK,
      [NODE],
    ),
    ...planCells([manifest('old')], [json], QUICK, [NODE]),
    ...planCells([manifest('k')], [json], getProfile('quick-k6'), [NODE]),
  ];
  const s = await runPlan(options(w, cells, { rounds: 2 }));
  for (const [name, n] of Object.entries(w.calls)) assert.ok(n > 0, `the scheduler never called the fake ${name}`);
  assert.equal(w.calls.lifecycle, 1, 'one lifecycle per run');
  assert.deepEqual(s.cells.map((c) => `${c.contender}·${c.scenario}:${c.status}`).sort(), [
    'f·fanout:verify-failed',
    'k·json:skipped',
    'old·json:unsupported',
    'pg·json:ok',
  ]);
});

test('a --node matrix interleaves its majors: one group per scenario, every server of every major in each round', async () => {
  const NODE22 = { ...NODE, major: 22 } as CellSpec['node'];
  const w = world({ 'node-http': { cpuPerRequestUs: 100 }, b: { cpuPerRequestUs: 200 } });
  const cells = planCells([manifest('node-http'), manifest('b')], [json], PAIRED, [NODE22, NODE]);
  const o = options(w, cells);
  const s = await runPlan(o);
  const run = readRunAt(s.runDir);
  const paired = run.trials.filter((t) => t.paired);
  assert.deepEqual(
    run.cells.map((c) => c.status),
    ['ok', 'ok', 'ok', 'ok'],
    o.lines.join('\n'),
  );
  assert.equal(paired.length, 4 * 5, 'five interleaved rounds × four servers (two contenders × two majors)');
  for (const t of paired) assert.equal(t.paired.servers, 4, 'all four servers share each round');
  assert.deepEqual(run.cells.map((c) => `${c.label}@${c.node.major}:${c.stats.paired.rounds.join(',')}`).sort(), [
    'b@22:1,2,3,4,5',
    'b@24:1,2,3,4,5',
    'node-http@22:1,2,3,4,5',
    'node-http@24:1,2,3,4,5',
  ]);
  assert.ok(
    o.lines.some((l) => /json · \S+ · \S+ · Node 22, 24: starting/.test(l)),
    o.lines.join('\n'),
  );
});

test('interleaved rounds: after the solo rounds, one paired trial per server and round; the model ranks on efficiency', async () => {
  // CPU-µs per request served: b costs twice the baseline's, c 1.5×; the fake servers' rps differ little.
  const cost = { 'node-http': 100, b: 200, c: 150 };
  const w = world({
    'node-http': { cpuPerRequestUs: cost['node-http'] },
    b: { cpuPerRequestUs: cost.b },
    c: { cpuPerRequestUs: cost.c },
  });
  const cells = planCells([manifest('node-http'), manifest('b'), manifest('c')], [json], PAIRED, [NODE]);
  const s = await runPlan(options(w, cells));
  const run = readRunAt(s.runDir);
  const paired = run.trials.filter((t) => t.paired);
  assert.equal(run.trials.length - paired.length, 6, 'two solo trials per cell');
  assert.equal(paired.length, 15, 'five interleaved rounds × three servers');
  for (const t of paired) {
    assert.equal(t.paired.servers, 3);
    assert.equal(t.load.latencyHistogramUs, null, 'a paused driver’s latency is never kept');
    // (requests + 100 in flight) ÷ the CPU-seconds of exactly the requests served.
    const c = cost[t.contender as keyof typeof cost];
    assert.ok(Math.abs(t.paired.efficiency - ((t.paired.requests + 100) / (t.paired.requests * c)) * 1e6) < 1e-6);
  }
  for (const c of run.cells) {
    assert.equal(c.stats.trials, 2, 'requests/s and latency come from the solo windows');
    assert.deepEqual(c.stats.paired.rounds, [1, 2, 3, 4, 5]);
    assert.equal(c.paired, undefined, 'a cell file is no paired trial');
  }
  const [t] = buildTables([{ meta: run.meta, cells: run.cells }], {});
  assert.ok(t?.model, 'the table has a model');
  const ratio = (label: string) => t.rows.find((r) => r.label === label)?.vsBaseline?.figure ?? Number.NaN;
  // The ratios are the efficiency ratios (≈ cost ratios), not the solo requests/s (≈ 1).
  assert.ok(Math.abs(ratio('b') - 0.5) < 0.02, `b: ${ratio('b')}`);
  assert.ok(Math.abs(ratio('c') - 2 / 3) < 0.02, `c: ${ratio('c')}`);
  assert.deepEqual(
    t.rows.map((r) => r.label),
    ['node-http', 'c', 'b'],
    'rows by the modelled ratio',
  );
});

test("an external target (--url): the profile's interleaved rounds run as solo rounds unless rounds are asked", async () => {
  const solo = async (patch: Partial<RunOptions>) => {
    const w = world({ a: { cpuPerRequestUs: 100 } });
    const s = await runPlan(options(w, planCells([manifest('a')], [json], PAIRED, [NODE]), patch));
    const run = readRunAt(s.runDir);
    assert.equal(run.trials.filter((t) => t.paired).length, 0, 'no interleaved round');
    return run.trials.length;
  };
  // PAIRED: 2 solo rounds, then 5 interleaved ones (profiles.ts defaultRounds).
  assert.equal(await solo({ externalUrl: 'http://127.0.0.1:9' }), 7, 'external: 2 + 5 solo rounds');
  assert.equal(await solo({ externalUrl: 'http://127.0.0.1:9', rounds: 3 }), 3, 'external, rounds asked: those');
  assert.equal(await solo({}), 2, 'one local server: its solo rounds (no pair to interleave)');
});

test('server processes: the interleaved rounds run in blocks, each server restarted, checked and warmed alone before each later block; the model judges per process', async () => {
  const cost = { 'node-http': 100, b: 200, c: 150 };
  const w = world({
    'node-http': { cpuPerRequestUs: cost['node-http'] },
    b: { cpuPerRequestUs: cost.b },
    c: { cpuPerRequestUs: cost.c, startFailsAt: 3 },
  });
  const shape = { ...PAIRED, interleave: { rounds: 6, activeS: 1, sliceMs: 100, instances: 3 } } as Profile;
  const cells = planCells([manifest('node-http'), manifest('b'), manifest('c')], [json], shape, [NODE]);
  const o = options(w, cells);
  const s = await runPlan(o);
  const run = readRunAt(s.runDir);
  // The ETA keeps the rounds and restarts still to come: the plan is not marked done at the warm-up
  // (run 2026-11-26T09-05-49Z-44be printed ETA 0m00s for its last 7 minutes).
  const etas = o.lines
    .filter((l) => /^\[\d+\/\d+\] interleaved round [1-5]: /.test(l))
    .map((l) => /ETA (\d+)m(\d+)s$/.exec(l))
    .map((m) => Number(m?.[1]) * 60 + Number(m?.[2]));
  assert.equal(etas.length, 5, o.lines.join('\n'));
  assert.ok(
    etas.every((x) => x > 0),
    `ETA > 0 before the last round: ${etas.join(', ')} s`,
  );
  const starts = (l: string) => w.starts.filter((x) => x.label === l).length;
  assert.equal(starts('node-http'), 3, 'one start per server process');
  assert.equal(starts('c'), 3, "c's third start was tried (and failed)");
  const inst = (l: string) =>
    run.trials.filter((t) => t.contender === l && t.paired).map((t) => t.paired.instance ?? 1);
  assert.deepEqual(inst('node-http'), [1, 1, 2, 2, 3, 3]);
  assert.deepEqual(inst('c'), [1, 1, 2, 2], 'c left the rounds when its restart failed');
  const failed = run.trials.find((t) => t.contender === 'c' && t.status === 'error');
  assert.match(
    failed?.failure?.reason ?? '',
    /restart as server process 3 before interleaved round 5: c exited with code 1/,
  );
  assert.equal(failed?.round, 5);
  const cellC = run.cells.find((c) => c.contender === 'c');
  assert.notEqual(cellC?.status, 'ok', 'a cell whose restart failed is not ok');
  // The warm-ups: one unrecorded solo window per live server, then one per restart before blocks 2 and 3.
  const warm = (l: string) => w.windows.filter((x) => x.warmup && x.label.startsWith(l)).map((x) => x.durationS);
  // A restarted process gets the load the first one had before its rounds, alone: 1 s warm-up + 2 solo × 1 s.
  assert.deepEqual(warm('node-http'), [1, 3, 3], 'the first warm-up, then 3 s alone per restart');
  assert.deepEqual(warm('c'), [1, 3], 'c failed to restart as process 3: no third warm-up');
  const base = run.cells.find((c) => c.contender === 'node-http');
  assert.deepEqual(base?.stats.paired.instances, [1, 1, 2, 2, 3, 3]);
  const [t] = buildTables([{ meta: run.meta, cells: run.cells }], {});
  assert.equal(t?.model?.rounds, 3, 'the model’s units are the three server processes');
  assert.equal(t?.model?.unit, 'process');
  const ratio = t?.rows.find((r) => r.label === 'b')?.vsBaseline?.figure ?? Number.NaN;
  assert.ok(Math.abs(ratio - 0.5) < 0.02, `b: ${ratio}`);
});

test('restartFirst: every server restarted and warmed alone before the first block too; the interleaved processes are 2 … instances + 1', async () => {
  const w = world({ 'node-http': { cpuPerRequestUs: 100 }, b: { cpuPerRequestUs: 200 } });
  const il = { rounds: 6, activeS: 1, sliceMs: 100, instances: 3, restartFirst: true };
  const shape = { ...PAIRED, interleave: il } as Profile;
  const cells = planCells([manifest('node-http'), manifest('b')], [json], shape, [NODE]);
  const o = options(w, cells);
  const s = await runPlan(o);
  const run = readRunAt(s.runDir);
  assert.equal(w.starts.filter((x) => x.label === 'node-http').length, 4, 'the solo process, then 3 fresh ones');
  const inst = run.trials.filter((t) => t.contender === 'node-http' && t.paired).map((t) => t.paired.instance);
  assert.deepEqual(inst, [2, 2, 3, 3, 4, 4]);
  const warm = w.windows.filter((x) => x.warmup && x.label.startsWith('node-http')).map((x) => x.durationS);
  assert.deepEqual(warm, [1, 3, 3, 3], 'the first warm-up, then 3 s alone before each of the 3 blocks');
  const [t] = buildTables([{ meta: run.meta, cells: run.cells }], {});
  assert.equal(t?.model?.rounds, 3, 'the model’s units: the three interleaved processes');
  // The plan counts the extra restart: 3 restarts of each server, not 2.
  assert.equal(groupPlan(cells, 2, 'bench').parts.restart?.n, 3 * 2);
  const plain = groupPlan(
    planCells(
      [manifest('node-http'), manifest('b')],
      [json],
      { ...PAIRED, interleave: { ...il, restartFirst: false } } as Profile,
      [NODE],
    ),
    2,
    'bench',
  );
  assert.equal(plain.parts.restart?.n, 2 * 2);
});

test('a restarted server that dies in its solo warm-up writes a crashed trial for the next round and leaves the rounds', async () => {
  const w = world({
    'node-http': { cpuPerRequestUs: 100 },
    b: { cpuPerRequestUs: 200, crashInWarmupAt: 2 },
    c: { cpuPerRequestUs: 150 },
  });
  const shape = { ...PAIRED, interleave: { rounds: 6, activeS: 1, sliceMs: 100, instances: 3 } } as Profile;
  const cells = planCells([manifest('node-http'), manifest('b'), manifest('c')], [json], shape, [NODE]);
  const s = await runPlan(options(w, cells));
  const run = readRunAt(s.runDir);
  const b = run.trials.filter((t) => t.contender === 'b');
  assert.deepEqual(
    b.filter((t) => t.paired).map((t) => t.round),
    [1, 2],
    'b measured in process 1 only',
  );
  const dead = b.find((t) => t.status !== 'ok');
  assert.equal(dead?.status, 'crashed');
  assert.equal(dead?.round, 3);
  assert.match(dead?.failure?.reason ?? '', /during the warm-up of server process 2/);
  assert.equal(w.starts.filter((x) => x.label === 'b').length, 2, 'b is not restarted again');
  assert.equal(run.trials.filter((t) => t.contender === 'c' && t.paired).length, 6, 'the others go on');
});

test('interleaved rounds are skipped, with a note, when a server’s CPU time cannot be read', async () => {
  const w = world({});
  const cells = planCells([manifest('a'), manifest('b')], [json], PAIRED, [NODE]);
  const o = options(w, cells);
  const s = await runPlan(o);
  assert.equal(read(s.runDir, 'trials').filter((t) => t.paired).length, 0);
  assert.ok(
    o.lines.some((l) => /interleaved rounds skipped: a server's CPU time cannot be read/.test(l)),
    o.lines.join('\n'),
  );
  for (const c of read(s.runDir, 'cells')) assert.equal(c.stats.paired, undefined);
});

test("cpuProfile: after each group's ranked windows, its cells once more (one window each, no interleaving) into a run of their own under why/; the ranked run is untouched", async () => {
  // CPU time readable: the ranked groups run their interleaved rounds.
  const w = world({ a: { cpuPerRequestUs: 50 }, b: { cpuPerRequestUs: 50 } });
  const cells = planCells([manifest('a'), manifest('b')], [ping, json], PAIRED, [NODE]);
  const o = options(w, cells, { cpuProfile: { intervalUs: 5000 } });
  const s = await runPlan(o);
  assert.equal(s.interrupted, false);
  const p = s.profiled;
  assert.ok(p, 'the summary carries the profiled run');
  assert.notEqual(p.runId, s.runId);
  assert.equal(path.relative(o.resultsDir, p.runDir), path.join('why', 'runs', p.runId));
  // Group by group: ranked ping, profiled ping, ranked json, profiled json (servers started in that order).
  const where = w.starts.map((x) => `${x.label}:${x.logFile.startsWith(p.runDir) ? 'profiled' : 'ranked'}`);
  const groupOf = (i: number) => w.started[i]!.split('·')[1];
  assert.deepEqual(
    where.map((x, i) => `${groupOf(i)} ${x.split(':')[1]}`),
    [
      'ping ranked',
      'ping ranked',
      'ping profiled',
      'ping profiled',
      'json ranked',
      'json ranked',
      'json profiled',
      'json profiled',
    ],
  );
  // The profiled servers got --cpu-prof after node (scheduler/profiled.ts), into the why run's logs/profiles/.
  assert.equal(p.servers.size, 4);
  for (const srv of p.servers.values()) {
    assert.equal(srv.unprofiled, null);
    assert.ok(srv.dir.startsWith(path.join(p.runDir, 'logs', 'profiles')));
    assert.equal(srv.windows.length, 1, `${srv.cellId}: one measured window`);
  }
  // The ranked run: 2 solo + 5 interleaved rounds per cell, all its own; the profiled run: one trial per cell.
  const ranked = read(s.runDir, 'trials');
  assert.equal(ranked.length, 2 * 2 * (2 + 5));
  assert.ok(ranked.every((t) => t.runId === s.runId));
  assert.deepEqual(s.cells.map((c) => c.runId).sort(), [s.runId, s.runId, s.runId, s.runId]);
  const profiled = read(p.runDir, 'trials');
  assert.equal(profiled.length, 4);
  assert.ok(profiled.every((t) => t.runId === p.runId && t.round === 1));
  assert.equal(p.cells.length, 4);
  assert.equal(readRunAt(p.runDir).meta.state, 'complete');
  assert.ok(o.lines.some((l) => l.startsWith('profiled windows (--profile-cpu, V8 sampling every 5000 µs): ')));
  // Without cpuProfile nothing of the kind.
  const plain = await runPlan(options(world({}), cells));
  assert.equal(plain.profiled, undefined);
});
