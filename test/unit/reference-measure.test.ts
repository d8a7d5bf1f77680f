// The steady-state reference run (harness/scheduler/steady-reference.ts, reference-measure.ts) with
// fake dependencies, the way test/unit/scheduler.test.ts fakes a bake-off's RunDeps: no process is
// started. A fake server is a handle whose CPU time grows with the requests the fake wrk sends it;
// the fake driver makes up each window from its server's rate. The test reads the order of the
// windows, that every server started is stopped, and the record written through the store.
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { loadScenarios } from '../../harness/contract/scenarios.ts';
import { type Manifest, ManifestSchema } from '../../harness/core/manifest.ts';
import type { LoadDriver, LoadOutput } from '../../harness/drivers/driver-types.ts';
import type { CpuPlan } from '../../harness/lifecycle/cpu-plan.ts';
import type { CellSpec } from '../../harness/scheduler/plan.ts';
import type { ReferenceDeps } from '../../harness/scheduler/reference-measure.ts';
import { runReference } from '../../harness/scheduler/steady-reference.ts';
import type { TargetHandle } from '../../harness/scheduler/scheduler-types.ts';
import { readReference } from '../../harness/store/reference-store.ts';
import { ROOT, tmpDir } from '../helpers.ts';

const SCENARIOS_DIR = path.join(ROOT, 'scenarios');
const json = loadScenarios(SCENARIOS_DIR).find((s) => s.name === 'json')!;
const NODE = { major: 24, version: process.version, path: process.execPath } as CellSpec['node'];
const CPU: CpuPlan = {
  pinned: false,
  server: null,
  client: null,
  services: null,
  allowedCores: [0, 1],
  clientThreads: 1,
  note: 'fake plan',
};

function manifest(name: string): Manifest {
  const m = ManifestSchema.parse({
    name,
    displayName: name,
    tags: { framework: 'fake', httpClient: 'none', language: 'javascript' },
    scenarios: ['ping', 'json'],
    start: ['node', 'server.js'],
  });
  return { ...m, dir: `/nonexistent/${name}` } as Manifest;
}

/** A made-up window of `requests` over `durationS` seconds. */
function output(requests: number, durationS: number): LoadOutput {
  return {
    driver: 'wrk',
    requestsPerSec: { mean: requests / durationS, stddev: 0, samples: [] },
    latencyMs: { mean: 1, p50: 1, p90: 1, p99: 1, max: 1 },
    latencyHistogramUs: null,
    requests: { total: requests, sent: requests },
    errors: 0,
    timeouts: 0,
    non2xx: 0,
    bytes: 0,
    durationS,
    bodyChecks: { sampled: 0, mismatched: 0 },
    driverCpuMs: null,
  };
}

/**
 * The fake machine: servers by contender with requests/s `rps` and `cpuUsPerRequest` CPU-µs per
 * request; `abortAt`: the controller is aborted when the n-th measured window starts.
 */
function fakeMachine(o: { rps: Record<string, number>; cpuUsPerRequest: number; abortAt?: number }) {
  const log = {
    starts: [] as string[],
    stops: [] as string[],
    windows: [] as { server: string; warmup: boolean; durationS: number }[],
    services: 0,
    builds: 0,
  };
  const ac = new AbortController();
  const servers = new Map<string, { name: string; cpuUs: number }>();
  let n = 0;
  const driver: LoadDriver = {
    name: 'wrk',
    interleaves: true,
    probe: () => ({ name: 'wrk', available: true, version: 'fake-4.2', why: '', install: '' }),
    async window(_p, job, w) {
      const [base, s] = [...servers].find(([url]) => job.url.startsWith(url)) ?? [];
      assert.ok(base && s, `a window against a started server (${job.url})`);
      log.windows.push({ server: s.name, warmup: w.warmup, durationS: w.durationS });
      if (!w.warmup && ++n === o.abortAt) ac.abort();
      if (w.signal.aborted) throw new Error('aborted');
      const requests = (o.rps[s.name] ?? 0) * w.durationS;
      s.cpuUs += requests * o.cpuUsPerRequest;
      return output(requests, w.durationS);
    },
  };
  const deps: ReferenceDeps = {
    cpuPlan: CPU,
    driver: { driver, name: 'wrk', note: null },
    lifecycle: () => ({
      kind: 'local',
      build: async () => {
        log.builds++;
        return { ok: true, ms: 0, output: '' };
      },
      async start(cell, logFile): Promise<TargetHandle> {
        const label = `${cell.manifest.name}:${path.basename(logFile)}`;
        log.starts.push(label);
        const baseUrl = `http://127.0.0.1:${20_000 + log.starts.length}`;
        const state = { name: cell.manifest.name, cpuUs: 0 };
        servers.set(baseUrl, state);
        return {
          baseUrl,
          pid: null,
          startupMs: 1,
          exitInfo: () => null,
          died: new AbortController().signal,
          cpuUs: () => state.cpuUs,
          async stop() {
            log.stops.push(label);
            servers.delete(baseUrl);
            return 0;
          },
        };
      },
      logTail: () => '',
      afterStop: () => {},
    }),
    services: {
      startUpstream: async () => {
        log.services++;
        throw new Error('the json scenario needs no upstream mock');
      },
      openDatabase: async () => {
        log.services++;
        throw new Error('the json scenario needs no database');
      },
    },
    foreignCpu: () => () => 0.01,
  };
  return { deps, log, signal: ac.signal };
}

const design = { warmupS: 2, windows: 3, windowS: 5, processes: 2, connections: 10 };

test('reference: rotation blocks with fake deps: ABBA windows, fresh processes per block, every server stopped, the record through the store', async () => {
  const m = fakeMachine({ rps: { a: 10_000, b: 5_000 }, cpuUsPerRequest: 50 });
  const lines: string[] = [];
  const resultsDir = tmpDir('reference-fake');
  const out = await runReference({
    contenders: [manifest('a'), manifest('b')],
    scenarios: [json],
    baselineOf: () => 'a',
    design: { ...design, order: 'rotation' },
    resultsDir,
    scenariosDir: SCENARIOS_DIR,
    deps: m.deps,
    signal: m.signal,
    log: (l) => lines.push(l),
    node: NODE,
  });
  assert.ok(out, 'a record');
  assert.equal(m.log.builds, 2);
  assert.equal(m.log.services, 0, 'no upstream mock or database for json');
  assert.deepEqual(m.log.starts, ['a:a__json__b1.log', 'b:b__json__b1.log', 'b:b__json__b2.log', 'a:a__json__b2.log']);
  assert.deepEqual([...m.log.stops].sort(), [...m.log.starts].sort(), 'every server started is stopped');
  const measured = m.log.windows.filter((w) => !w.warmup);
  assert.deepEqual(
    measured.map((w) => w.server).join(''),
    'abbaab' + 'baabba',
    'block 1 in ABBA order, block 2 rotated',
  );
  assert.ok(measured.every((w) => w.durationS === 5));
  assert.deepEqual(
    m.log.windows.filter((w) => w.warmup).map((w) => `${w.server}${w.durationS}`),
    ['a2', 'b2', 'b2', 'a2'],
  );
  const r = out.record;
  assert.equal(r.processes.length, 4);
  assert.equal(r.interrupted, false);
  assert.equal(r.meetsMinimums, false, 'a short design is no reference');
  assert.equal(r.driver.version, 'fake-4.2');
  const fig = (c: string) => r.figures.find((f) => f.contender === c);
  assert.ok(Math.abs((fig('a')?.rps.figure ?? 0) - 10_000) < 1e-6);
  assert.ok(Math.abs((fig('b')?.efficiency?.figure ?? 0) - 20_000) < 1e-6, '1e6 / 50 µs per request');
  assert.ok(Math.abs((r.ratios[0]?.rps.figure ?? 0) - 0.5) < 1e-9, 'b ÷ a');
  assert.equal(r.quiet.read, 12);
  const back = readReference(out.file);
  assert.equal(back.runId, r.runId);
  assert.equal(path.dirname(out.file), path.join(resultsDir, 'reference'));
  assert.equal(lines.filter((l) => / · block \d, process \d: /.test(l)).length, 4, 'one line per process');
});

test('reference: solo processes in ABBA order with fake deps; Ctrl-C mid-process stops its server and keeps what finished', async () => {
  const solo = fakeMachine({ rps: { a: 8_000, b: 4_000 }, cpuUsPerRequest: 100 });
  const base = {
    contenders: [manifest('a'), manifest('b')],
    scenarios: [json],
    baselineOf: () => 'a',
    design: { ...design, order: 'ABBA' as const },
    scenariosDir: SCENARIOS_DIR,
    log: () => {},
    node: NODE,
  };
  const out = await runReference({
    ...base,
    resultsDir: tmpDir('reference-solo'),
    deps: solo.deps,
    signal: solo.signal,
  });
  assert.deepEqual(solo.log.starts, [
    'a:a__json__p1.log',
    'b:b__json__p2.log',
    'b:b__json__p3.log',
    'a:a__json__p4.log',
  ]);
  assert.deepEqual(solo.log.stops, solo.log.starts, 'each process stopped before the next starts');
  assert.deepEqual(
    out?.record.processes.map((p) => `${p.contender}${p.order}`),
    ['a1', 'b2', 'b3', 'a4'],
  );
  // Ctrl-C in the 2nd window of the 2nd process: the first process is kept, the record is interrupted.
  const cut = fakeMachine({ rps: { a: 8_000, b: 4_000 }, cpuUsPerRequest: 100, abortAt: 5 });
  const partial = await runReference({
    ...base,
    resultsDir: tmpDir('reference-cut'),
    deps: cut.deps,
    signal: cut.signal,
  });
  assert.deepEqual(cut.log.stops, cut.log.starts, 'the interrupted server is stopped too');
  assert.equal(partial?.record.interrupted, true);
  assert.equal(partial?.record.meetsMinimums, false);
  assert.deepEqual(
    partial?.record.processes.map((p) => p.contender),
    ['a'],
  );
});
