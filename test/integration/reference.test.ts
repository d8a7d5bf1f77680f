// The steady-state reference (`just reference`, harness/scheduler/steady-reference.ts; arithmetic in
// harness/analysis/reference-stats.ts): ABBA order, intervals between processes, the bake-off's bias
// against it, the how-sure line's second certificate, and a real short run on two contenders
// (real servers on 127.0.0.1, wrk) whose record the compare step reads.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { mulberry32 } from '../../harness/core/prng.ts';
import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import { accuracyLine, noBiasReading } from '../../harness/analysis/reference-floor.ts';
import { compareWithReference } from '../../harness/analysis/reference-gaps.ts';
import { mergeReferences } from '../../harness/analysis/reference-merge.ts';
import {
  meetsMinimums,
  ratioOfProcesses,
  referenceFigure,
  referenceRatios,
  type ReferenceProcess,
} from '../../harness/analysis/reference-stats.ts';
import { abbaOrder, rotated } from '../../harness/scheduler/reference-measure.ts';
import { referenceDesign } from '../../harness/cli/options.ts';
import { findWrk } from '../../harness/drivers/wrk.ts';
import type { ReportSnapshot } from '../../harness/report/snapshot.ts';
import { buildView } from '../../harness/report/view-build.ts';
import { type ReferenceRecord, readReferences } from '../../harness/store/reference-store.ts';
import type { CellResult } from '../../harness/store/results.ts';
import { makeCell, makeMeta } from '../fixtures.ts';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { alive, CLI, descendants, runCli, TEST_LOCK_FILE, tmpDir } from '../helpers.ts';

const proc = (contender: string, rps: number, eff: number, order: number): ReferenceProcess => ({
  contender,
  scenario: 'json',
  order,
  windows: [{ rps, efficiency: eff, requests: rps * 10, durationS: 10, serverCpuS: (rps * 10) / eff, errors: 0 }],
  rps,
  efficiency: eff,
});

test('ABBA order, figures and ratios with intervals between processes; the design minimums', () => {
  assert.deepEqual(abbaOrder(['A', 'B'], 3), ['A', 'B', 'B', 'A', 'A', 'B']);
  assert.deepEqual(abbaOrder(['A', 'B', 'C'], 2), ['A', 'B', 'C', 'C', 'B', 'A']);
  const f = referenceFigure([10_000, 11_000, 10_500]);
  assert.ok(f.ci95 && f.ci95[0] < f.figure && f.figure < f.ci95[1] && f.n === 3);
  assert.equal(referenceFigure([5]).ci95, null);
  const r = ratioOfProcesses([5_000, 5_100, 4_950], [10_000, 10_100, 9_900]);
  assert.ok(Math.abs(r.figure - 0.5) < 0.01 && r.ci95 && r.ci95[0] < 0.5 && r.ci95[1] > 0.5);
  const ps = [
    proc('node-http', 20_000, 40_000, 1),
    proc('hono', 10_000, 22_000, 2),
    proc('hono', 10_200, 22_400, 3),
    proc('node-http', 20_400, 40_500, 4),
  ];
  const [ratio] = referenceRatios(ps, () => 'node-http');
  assert.equal(ratio?.contender, 'hono');
  assert.ok(
    ratio && Math.abs(ratio.rps.figure - 0.5) < 0.01 && Math.abs((ratio.efficiency?.figure ?? 0) - 0.55) < 0.01,
  );
  assert.equal(meetsMinimums(referenceDesign({})), true, 'the defaults meet the minimums');
  assert.equal(meetsMinimums(referenceDesign({ design: 'solo' })), true, "solo's defaults meet them too");
  assert.equal(meetsMinimums(referenceDesign({ warmup: '1', windows: '2', window: '1', processes: '2' })), false);
  assert.equal(meetsMinimums(referenceDesign({ windows: '6', window: '4' })), false, '24 s measured per process');
  assert.deepEqual(rotated(['A', 'B', 'C'], 1), ['B', 'C', 'A']);
  assert.deepEqual(rotated(['A', 'B', 'C'], 3), ['A', 'B', 'C']);
  assert.throws(() => referenceDesign({ windows: '0' }), /--windows must be a whole number from 1/);
});

/** Rotation-design processes: `blocks` blocks of the contenders `base` (figure per contender), with block effects `drift` and noise σ. */
function blocks(base: Record<string, number>, drift: number[], sigma: number, seed: number): ReferenceProcess[] {
  const rnd = mulberry32(seed);
  const gauss = () => Math.sqrt(-2 * Math.log(1 - rnd())) * Math.cos(2 * Math.PI * rnd());
  return drift.flatMap((d, b) =>
    Object.entries(base).map(([contender, v], i) => {
      const x = v * Math.exp(d + sigma * gauss());
      return { ...proc(contender, x, x, b * 10 + i + 1), block: b + 1 };
    }),
  );
}

test('rotation blocks: the block effect (the host in those minutes) cancels; the interval is pooled over contenders', () => {
  const base = { 'node-http': 40_000, hono: 30_000, express: 15_000, fastify: 38_000 };
  // The host is 30% slower in block 2 and 15% faster in block 3: solo processes would carry that.
  const ps = blocks(base, [0, Math.log(0.7), Math.log(1.15)], 0.02, 7);
  const ratios = referenceRatios(ps, () => 'node-http');
  for (const r of ratios) {
    const truth = ((base as Record<string, number>)[r.contender] ?? 0) / base['node-http'];
    const [lo, hi] = r.rps.ci95 ?? [0, 0];
    assert.ok(lo <= truth && truth <= hi, `${r.contender}: ${r.rps.figure} (${lo}–${hi}) covers ${truth}`);
    assert.ok(hi / lo < 1.15, `${r.contender}: the drift is not in the interval (${lo}–${hi})`);
  }
  // The same processes without their blocks (solo): the drift widens every interval.
  const solo = referenceRatios(
    ps.map(({ block: _b, ...p }) => p),
    () => 'node-http',
  );
  const width = (r: (typeof ratios)[number]) => (r.rps.ci95 ? r.rps.ci95[1] / r.rps.ci95[0] : Infinity);
  for (const [i, r] of solo.entries()) assert.ok(width(r) > 2 * width(ratios[i] as (typeof ratios)[number]));
  // Coverage over many simulated runs stays near 95% (the interval means what it says).
  let covered = 0;
  const runs = 400;
  for (let k = 0; k < runs; k++) {
    const r = referenceRatios(blocks(base, [0, -0.2, 0.1], 0.05, 100 + k), () => 'node-http').find(
      (x) => x.contender === 'hono',
    );
    const c = r?.rps.ci95;
    if (c && c[0] <= 0.75 && 0.75 <= c[1]) covered++;
  }
  assert.ok(covered / runs > 0.91 && covered / runs < 0.99, `coverage ${covered}/${runs}`);
  // A block one contender did not finish is left out of the fit.
  const partial = ps.filter((p) => !(p.block === 3 && p.contender === 'express'));
  assert.equal(referenceRatios(partial, () => 'node-http')[0]?.rps.n, 2);
});

test('the bake-off against the reference: the gap per row with its 90% CI, median and max |gap|, the targets', () => {
  const ref = (contender: string, figure: number, ci95: [number, number] | null) => ({
    contender,
    scenario: 'json',
    baseline: 'node-http',
    rps: { figure, ci95, n: 3, df: 14 },
    efficiency: null,
  });
  const refs = [ref('a', 0.5, null), ref('b', 0.2, null), ref('c', 0.8, null)];
  const rows = [
    {
      label: 'a',
      scenario: 'json',
      baseline: 'node-http',
      ratio: 0.505,
      ci95: [0.48, 0.54] as [number, number],
      df: 20,
    },
    {
      label: 'b',
      scenario: 'json',
      baseline: 'node-http',
      ratio: 0.24,
      ci95: [0.22, 0.26] as [number, number],
      df: 20,
    },
    { label: 'c', scenario: 'json', baseline: 'node-http', ratio: 0.8, ci95: null },
    { label: 'z', scenario: 'json', baseline: 'node-http', ratio: 0.8, ci95: null },
  ];
  const c = compareWithReference(rows, refs);
  assert.deepEqual(
    c.rows.map((r) => [r.label, Number(r.bias.toFixed(3)), r.se]),
    [
      ['a', 0.01, null],
      ['b', 0.2, null],
      ['c', 0, null],
    ],
  );
  assert.ok(Math.abs((c.medianBias ?? 0) - 0.01) < 1e-9 && Math.abs((c.maxBias ?? 0) - 0.2) < 1e-9);
  assert.equal(c.within, 0, 'no reference interval: no row is shown within ±10%');
  assert.deepEqual(c.targets, { equivalence: false, median: true, max: false, met: false });
  assert.equal(noBiasReading(c), null, 'no row with both intervals: no test');
  // With the reference's own interval (±3% on 14 df): a's gap 90% CI lies inside ±10%, b's does not.
  const withCi = refs.map((r) => ref(r.contender, r.rps.figure, [r.rps.figure * 0.97, r.rps.figure * 1.03]));
  const d = compareWithReference(rows, withCi);
  assert.deepEqual(
    d.rows.map((r) => [r.label, r.within]),
    [
      ['a', true],
      ['b', false],
      ['c', null],
    ],
  );
  const a = d.rows[0] ?? assert.fail('no row');
  // SE² = (bake-off log half-width ÷ t(0.975, 20))² + (reference's ÷ t(0.975, 14))².
  const se = Math.hypot(
    Math.log(0.54 / 0.48) / 2 / tQuantile(0.975, 20),
    Math.log(1.03 / 0.97) / 2 / tQuantile(0.975, 14),
  );
  assert.ok(Math.abs((a.se ?? 0) - se) < 1e-12, `${a.se} vs ${se}`);
  assert.ok((d.rows[1]?.z ?? 0) > 1.96 && d.rows[2]?.z === null);
  assert.equal(compareWithReference(rows.slice(0, 1), withCi).targets?.met, true);
  // A reading names b beyond both intervals; its text says one bake-off.
  const reading = noBiasReading(d, 400) ?? assert.fail('no reading');
  assert.equal(reading.rows, 2);
  assert.match(
    accuracyLine(d, reading, 'ref1'),
    /^accuracy: 2 of 3 rows within ±10% of the steady-state reference `ref1`; .* \(one bake-off; the targets are judged on ≥ 3\)$/,
  );
});

/** A bake-off cell on json of run `ra` with 6 interleaved rounds of efficiency `eff` (σ about 2%). */
function cell(label: string, eff: number, seed: number, runId = 'ra'): CellResult {
  const rnd = mulberry32(seed);
  const efficiency = [1, 0.8, 1.2, 0.9, 1.1, 1].map((s) => eff * s * Math.exp(0.04 * (rnd() + rnd() + rnd() - 1.5)));
  const c = makeCell({ runId, label, scenario: 'json', trials: [eff, eff * 1.01], rounds: [1, 2] });
  return c.stats ? { ...c, stats: { ...c.stats, paired: { rounds: [1, 2, 3, 4, 5, 6], efficiency } } } : c;
}

test('the how-sure line gains the accuracy conclusion when a record exists; its arithmetic goes to the method', () => {
  const cells = [cell('node-http', 10_000, 1), cell('hono', 5_200, 2), cell('fastify', 7_000, 3)];
  const reference = {
    kind: 'bakeoff-reference',
    version: 1,
    runId: 'ref1',
    at: '2026-11-27T00:00:00Z',
    meetsMinimums: true,
    machine: makeMeta().machine,
    ratios: [
      {
        contender: 'hono',
        scenario: 'json',
        baseline: 'node-http',
        rps: { figure: 0.5, ci95: [0.48, 0.52], n: 3 },
        efficiency: null,
      },
      {
        contender: 'fastify',
        scenario: 'json',
        baseline: 'node-http',
        rps: { figure: 0.7, ci95: [0.68, 0.72], n: 3 },
        efficiency: null,
      },
    ],
  } as ReferenceRecord;
  const snap = {
    runs: [{ meta: makeMeta({ runId: 'ra' }), cells }],
    scenarios: [],
    references: [reference],
  } as unknown as ReportSnapshot;
  const v = buildView(snap, { now: new Date('2026-11-27T01:00:00Z') });
  assert.match(
    v.certainty,
    /accuracy: [0-2] of 2 rows within ±10% of the steady-state reference `ref1`; (beyond both intervals: [^(]+|no row beyond both intervals|no single row beyond both intervals, but the gaps together are \(p [=<] [\d.]+\)) \(one bake-off; the targets are judged on ≥ 3\)/,
  );
  // The arithmetic is in the method, not the line.
  assert.doesNotMatch(v.certainty, /GLS/);
  assert.ok(
    v.method.some((m) =>
      /^Accuracy against the steady-state reference `ref1` .* GLS T = \d+\.\d on 2 df, p [=<] /.test(m),
    ),
    v.method.join('\n'),
  );
  const without = buildView({ ...snap, references: [] } as ReportSnapshot, { now: new Date('2026-11-27T01:00:00Z') });
  assert.doesNotMatch(without.certainty, /reference `/);
  // A record of another machine is not read: the same CPU name under another kernel, another CPU
  // family, or a record without a CPU identity beside a run with one. The line says so and how to
  // record one; the method names the machines.
  const zen5 = {
    vendor: 'AuthenticAMD',
    family: 26,
    model: 2,
    stepping: 1,
    microcode: '0x1',
    mitigations: { spec_rstack_overflow: 'Vulnerable: Safe RET, no microcode' },
  };
  type Machine = ReturnType<typeof makeMeta>['machine'];
  const runOn = (machine: Machine, refMachine: Machine | undefined) =>
    buildView(
      {
        ...snap,
        runs: [{ meta: makeMeta({ runId: 'ra', machine }), cells }],
        references: [{ ...reference, machine: refMachine }],
      } as unknown as ReportSnapshot,
      { now: new Date('2026-11-27T01:00:00Z') },
    );
  const here = makeMeta().machine;
  const elsewhere: [Machine, Machine | undefined][] = [
    [here, { ...here, os: 'Linux 6.1' }],
    [
      { ...here, cpu: zen5 },
      { ...here, cpu: { ...zen5, family: 25, model: 17 } },
    ],
    [
      { ...here, cpu: zen5 },
      { ...here, cpu: { ...zen5, mitigations: { spec_rstack_overflow: 'Mitigation: IBPB' } } },
    ],
    [{ ...here, cpu: zen5 }, here],
    [here, undefined],
  ];
  for (const [mine, theirs] of elsewhere) {
    const v2 = runOn(mine, theirs);
    assert.match(
      v2.certainty,
      /accuracy: no steady-state reference of this machine yet \(`npx just reference node-http express fastify loopback4 --scenario json,users` records one\)/,
      JSON.stringify(theirs),
    );
    assert.doesNotMatch(v2.certainty, /rows within/);
    assert.ok(
      v2.method.some((m) =>
        /^Accuracy: the 1 steady-state reference record in results\/reference ran on other machines \(1 on (AMD EPYC|a machine it does not record)/.test(
          m,
        ),
      ),
      v2.method.join('\n'),
    );
  }
  // The same identity is read, and a new microcode alone does not make another machine.
  const same = runOn({ ...here, cpu: zen5 }, { ...here, cpu: { ...zen5, microcode: '0x2' } });
  assert.match(same.certainty, /accuracy: [0-2] of 2 rows within ±10% of the steady-state reference `ref1`/);
});

test('`reference` in rotation blocks (short options): every contender per block, windows in rotation, ratios fitted over blocks', {
  skip: findWrk() ? false : 'wrk is not installed (npx just tools)',
}, async () => {
  const results = tmpDir('reference-rotation');
  const r = await runCli([
    '--results-dir',
    results,
    'reference',
    'node-http',
    'hono',
    'express',
    '--scenario',
    'json',
    '--warmup',
    '1',
    '--windows',
    '2',
    '--window',
    '1',
    '--processes',
    '2',
  ]);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stderr, /3 cells, 2 processes each \(rotation blocks\)/);
  assert.match(r.stderr, /json · hono · block 2, process \d: [\d,]+ requests\/s/);
  const [file] = fs.readdirSync(path.join(results, 'reference')).filter((n) => n.endsWith('.json'));
  const rec = JSON.parse(fs.readFileSync(path.join(results, 'reference', file ?? ''), 'utf8'));
  assert.equal(rec.design.order, 'rotation');
  assert.deepEqual(
    rec.processes.map((p: ReferenceProcess) => [p.block, p.contender]),
    [
      [1, 'node-http'],
      [1, 'hono'],
      [1, 'express'],
      [2, 'hono'],
      [2, 'express'],
      [2, 'node-http'],
    ],
    'block 2 starts with the next contender',
  );
  for (const p of rec.processes as ReferenceProcess[]) {
    assert.equal(p.windows.length, 2);
    for (const w of p.windows) assert.ok(w.rps > 0 && (w.efficiency ?? 0) > 0 && w.errors === 0, JSON.stringify(w));
  }
  assert.deepEqual(
    rec.ratios.map((x: { contender: string; rps: { n: number; ci95: unknown } }) => [
      x.contender,
      x.rps.n,
      !!x.rps.ci95,
    ]),
    [
      ['hono', 2, true],
      ['express', 2, true],
    ],
  );
  assert.equal(rec.quiet?.read, 12, 'every window read for other work');
});

test('`reference` on two contenders (short options): ABBA processes, a record, and reference-compare against a bake-off run', {
  skip: findWrk() ? false : 'wrk is not installed (npx just tools)',
}, async () => {
  const results = tmpDir('reference');
  const r = await runCli([
    '--results-dir',
    results,
    'reference',
    'node-http',
    'hono',
    '--scenario',
    'json',
    '--design',
    'solo',
    '--warmup',
    '1',
    '--windows',
    '2',
    '--window',
    '1',
    '--processes',
    '2',
    '--quiet',
  ]);
  assert.equal(r.code, 0, r.stderr);
  const [file] = fs.readdirSync(path.join(results, 'reference')).filter((n) => n.endsWith('.json'));
  assert.ok(file, 'a record');
  const rec = JSON.parse(fs.readFileSync(path.join(results, 'reference', file), 'utf8'));
  assert.equal(rec.meetsMinimums, false);
  assert.ok(
    rec.quiet?.read === 8 && rec.quiet.windows === 8,
    `every window's other work is read: ${JSON.stringify(rec.quiet)}`,
  );
  assert.match(r.stdout, /^quiet: \d+ of 8 windows had other work above 5\.0% of a core/m);
  assert.deepEqual(
    rec.processes.map((p: ReferenceProcess) => p.contender),
    ['node-http', 'hono', 'hono', 'node-http'],
  );
  for (const p of rec.processes as ReferenceProcess[])
    for (const w of p.windows) assert.ok(w.rps > 0 && (w.efficiency ?? 0) > 0 && w.errors === 0, JSON.stringify(w));
  assert.equal(rec.ratios[0]?.contender, 'hono');
  assert.ok(rec.ratios[0].rps.ci95, 'an interval between the 2 processes');
  assert.match(r.stdout, /json · hono: [\d,]+ requests\/s \(95% CI/);
  // A bake-off run beside it, then the comparison.
  const runDir = path.join(results, 'runs', 'ra');
  fs.mkdirSync(path.join(runDir, 'cells'), { recursive: true });
  fs.writeFileSync(path.join(runDir, 'meta.json'), JSON.stringify(makeMeta({ runId: 'ra' })));
  for (const c of [cell('node-http', 10_000, 1), cell('hono', 7_000, 2)])
    fs.writeFileSync(path.join(runDir, 'cells', `${c.cellId}.json`), JSON.stringify(c));
  const cmp = await runCli(['--results-dir', results, 'reference-compare', '--reference', rec.runId, '--run', 'ra']);
  assert.equal(cmp.code, 0, cmp.stderr);
  assert.match(cmp.stdout, /^json · hono: bake-off \d\.\d{3} vs reference \d\.\d{3}: gap [+−]\d+\.\d% \(90% CI /m);
  assert.match(cmp.stdout, /^accuracy: [01] of 1 rows within ±10% of the steady-state reference `[^`]+`; /m);
  // The record ran on this machine, the run's meta.json names a made-up one: the comparison says so.
  assert.match(
    cmp.stdout,
    new RegExp(
      `^note: reference ${rec.runId} ran on another machine \\(.+\\) than run ra \\(AMD EPYC \\(Linux 6\\.18; no CPU identity recorded\\)\\): a ratio`,
      'm',
    ),
  );
  assert.match(cmp.stdout, /^Accuracy against the steady-state reference .* GLS T = /m);
  // --scenario keeps that scenario's rows; a scenario the run has no row of is a clear error.
  const some = ['--results-dir', results, 'reference-compare', '--reference', rec.runId, '--run', 'ra'];
  const only = await runCli([...some, '--scenario', 'json']);
  assert.equal(only.code, 0, only.stderr);
  assert.equal(only.stdout, cmp.stdout);
  // --paired: one reference per run; the run against its own reads as above; a count that differs is a clear error.
  const paired = await runCli([...some, '--paired']);
  assert.equal(paired.code, 0, paired.stderr);
  assert.match(
    paired.stdout,
    new RegExp(`^paired: each run against its own reference \\(the mean of 1 paired gaps\\): ra ↔ ${rec.runId}$`, 'm'),
  );
  const rowOf = (out: string) => out.split('\n').find((l) => l.startsWith('json · hono'));
  assert.equal(rowOf(paired.stdout), rowOf(cmp.stdout));
  const uneven = await runCli([...some, '--run', 'ra', '--paired']);
  assert.equal(uneven.code, 2);
  assert.match(uneven.stderr, /--paired: 2 run\(s\) but 1 reference\(s\); give one reference per run/);
  const other = await runCli([...some, '--scenario', 'users']);
  assert.equal(other.code, 2);
  assert.match(other.stderr, /--scenario users: run ra has no ranked row of that scenario; its scenarios: json/);
  // Bad input: exit 2, never a stack.
  const bad = await runCli(['--results-dir', results, 'reference', 'no-such-stack']);
  assert.equal(bad.code, 2);
  const missing = await runCli(['--results-dir', results, 'reference-compare', '--reference', 'nope', '--run', 'ra']);
  assert.equal(missing.code, 2);
  assert.match(missing.stderr, /no reference record/);
});

test('Ctrl-C during `reference`: exit 130, no process left, the finished processes kept in a record marked interrupted', {
  skip: findWrk() ? false : 'wrk is not installed (npx just tools)',
}, async () => {
  const results = tmpDir('reference-sigint');
  const args = ['--results-dir', results, 'reference', 'node-http', 'hono', '--scenario', 'json'];
  const design = ['--design', 'solo', '--warmup', '1', '--windows', '1', '--window', '2', '--processes', '2'];
  const child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', CLI, ...args, ...design], {
    env: { ...process.env, BENCH_LOCK_FILE: TEST_LOCK_FILE },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (b) => {
    out += b;
  });
  child.stderr.on('data', (b) => {
    out += b;
  });
  const exited = new Promise<number | null>((r) => child.on('close', (code) => r(code)));
  // After the first process is measured, wait for the second one's load driver, then interrupt.
  const deadline = Date.now() + 90_000;
  let pids: number[] = [];
  while (Date.now() < deadline) {
    pids = descendants(child.pid ?? 0);
    const wrk = pids.some((p) => {
      try {
        return /(^|\/)wrk\0/.test(fs.readFileSync(`/proc/${p}/cmdline`, 'utf8'));
      } catch {
        return false;
      }
    });
    if (/process 1:/.test(out) && wrk) break;
    await sleep(50);
  }
  assert.match(out, /json · node-http · process 1:/, out);
  child.kill('SIGINT');
  assert.equal(await exited, 130, out);
  assert.doesNotMatch(out, /internal error/);
  for (let i = 0; i < 20 && pids.some(alive); i++) await sleep(100);
  assert.deepEqual(pids.filter(alive), [], 'no child process may outlive the harness');
  const [file] = fs.readdirSync(path.join(results, 'reference')).filter((n) => n.endsWith('.json'));
  assert.ok(file, 'the finished processes are kept');
  const rec = JSON.parse(fs.readFileSync(path.join(results, 'reference', file), 'utf8'));
  assert.equal(rec.interrupted, true);
  assert.equal(rec.meetsMinimums, false);
  assert.equal(rec.processes[0]?.contender, 'node-http');
});

test('the how-sure line reads every reference record together: each ratio from the record with the most processes; disturbed processes left out with their blocks', () => {
  const dir = tmpDir('reference-merge');
  fs.mkdirSync(path.join(dir, 'reference'));
  // Rotation blocks 1..n, a node-http process and one of each other contender (its ratio in block b); `busy`: blocks whose node-http window other work disturbed (10% of a core).
  const blocks = (n: number, others: Record<string, (b: number) => number>, busy: number[] = []) =>
    Array.from({ length: n }, (_, i) => i + 1).flatMap((b) => {
      const base = 50_000 * (1 + 0.05 * Math.sin(b));
      const p = (contender: string, rps: number, order: number, share: number) => ({
        contender,
        scenario: 'json',
        order,
        block: b,
        windows: [
          { rps, efficiency: rps, requests: rps * 5, durationS: 5, serverCpuS: 5, errors: 0, foreignCpuS: share * 5 },
        ],
        rps,
        efficiency: rps,
      });
      return [
        p('node-http', base, 10 * b, busy.includes(b) ? 0.1 : 0.01),
        ...Object.entries(others).map(([c, ratio], k) => p(c, base * ratio(b), 10 * b + k + 1, 0.01)),
      ];
    });
  const record = (runId: string, at: string, processes: ReturnType<typeof blocks>, meets = true) => {
    const disturbed = processes.filter((p) => (p.windows[0]?.foreignCpuS ?? 0) / 5 > 0.05).length;
    return {
      kind: 'bakeoff-reference',
      version: 1,
      runId,
      at,
      meetsMinimums: meets,
      quiet: {
        limit: 0.05,
        windows: processes.length,
        read: processes.length,
        disturbed,
        maxShare: disturbed ? 0.1 : 0.01,
      },
      processes,
      ratios: referenceRatios(processes, () => 'node-http'),
    };
  };
  const write = (r: ReturnType<typeof record>) =>
    fs.writeFileSync(path.join(dir, 'reference', `${r.runId}.json`), JSON.stringify(r));
  write(record('old', '2026-11-01T00:00:00Z', blocks(3, { loopback4: () => 0.09, express: () => 0.5 })));
  // Block 2 read 0.2 and was disturbed: left out, the other 5 blocks give 0.08 exactly.
  write(record('new', '2026-11-02T00:00:00Z', blocks(6, { loopback4: (b) => (b === 2 ? 0.2 : 0.08) }, [2])));
  // Two of three blocks disturbed: too short a quiet part, never read.
  write(record('busy', '2026-11-03T00:00:00Z', blocks(3, { hono: () => 0.7 }, [1, 2])));
  write(record('short', '2026-11-04T00:00:00Z', blocks(3, { koa: () => 0.6 }), false));
  const { references } = readReferences(dir);
  assert.deepEqual(
    references.map((r) => r.runId),
    ['old', 'new', 'busy'],
    'every record that meets the minimums, oldest first',
  );
  const merged = mergeReferences(references);
  const of = (c: string) => merged.ratios.find((r) => r.contender === c);
  assert.equal(of('loopback4')?.record, 'new', 'the record with more processes behind the ratio');
  assert.equal(of('loopback4')?.rps.n, 5, 'the disturbed block is left out');
  assert.ok(Math.abs((of('loopback4')?.rps.figure ?? 0) - 0.08) < 1e-9, String(of('loopback4')?.rps.figure));
  assert.equal(of('express')?.record, 'old');
  assert.equal(of('hono'), undefined, 'a record whose quiet part is too short is not read');
  assert.deepEqual(merged.ids, ['old', 'new']);
  assert.deepEqual(merged.leftOut, { new: 1 });
  // Rows from different records share no reference term (no common baseline mean).
  const row = (label: string, ratio: number) => ({
    label,
    scenario: 'json',
    baseline: 'node-http',
    ratio,
    ci95: [ratio * 0.95, ratio / 0.95] as [number, number],
    df: 20,
    split: null,
  });
  const c = compareWithReference([row('loopback4', 0.078), row('express', 0.5)], merged.ratios);
  const refSources = (label: string) =>
    new Set(
      (c.rows.find((r) => r.label === label)?.terms ?? []).filter((t) => t.source.startsWith('r')).map((t) => t.source),
    );
  const a = refSources('loopback4');
  const b = refSources('express');
  assert.ok(a.size > 0 && b.size > 0, 'both rows have reference terms');
  assert.ok(![...a].some((s) => b.has(s)), `${[...a]} vs ${[...b]}`);
});
