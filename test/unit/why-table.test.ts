/**
 * The tables of `just why` without servers (analysis/why-table.ts, store/why-store.ts,
 * report/why-text.ts): CPU per request from /proc shared out by the profile's shares, the
 * "no profile" reasons, differences against the baseline or `--against`, a truncated why.json
 * (skipped with a warning; the report still renders), and `why`'s option errors (exit 2, before
 * any server). The end-to-end run with real servers is test/integration/why.test.ts.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import test from 'node:test';
import { type CpuProfile, samplerBias } from '../../harness/analysis/cpu-profile.ts';
import { whyCell, whyDiffs, type WhyCellInput } from '../../harness/analysis/why-table.ts';
import { samplerText, whyMarkdown, whyRecordText } from '../../harness/report/why-text.ts';
import { flamePathShown, readAllWhy, whyResultsDir, type WhyRecord, writeWhy } from '../../harness/store/why-store.ts';
import { ROOT, runCli, tmpDir } from '../helpers.ts';

const frame = (functionName: string, url: string) => ({
  functionName,
  url,
  lineNumber: 0,
  columnNumber: 0,
  scriptId: 0,
});

/** A profile from t = 1000 µs: `pattern` lists the node of each 1 ms sample (2 express, 3 node:http, 4 idle). */
function profile(pattern: number[]): CpuProfile {
  return {
    nodes: [
      { id: 1, callFrame: frame('(root)', ''), children: [2, 3, 4] },
      { id: 2, callFrame: frame('handle', 'file:///w/node_modules/express/lib/router.js') },
      { id: 3, callFrame: frame('write', 'node:_http_outgoing') },
      { id: 4, callFrame: frame('(idle)', '') },
    ],
    startTime: 1000,
    endTime: 1000 + pattern.length * 1000,
    samples: pattern,
    timeDeltas: pattern.map((_, i) => (i === 0 ? 0 : 1000)),
  };
}

function input(p: Partial<WhyCellInput> & { contender: string }): WhyCellInput {
  return {
    cellId: `${p.contender}__json`,
    variant: null,
    scenario: 'json',
    isBaseline: false,
    contenderDir: '/w/contenders/x',
    profileFile: 'logs/profiles/x/CPU.cpuprofile',
    profile: { ok: true, profile: profile([2, 2, 2, 3, 4, 4]) },
    window: { fromUs: 1000, toUs: 7000, requests: 100, requestsPerSec: 1000 },
    rpsPerCpuSecond: null,
    ...p,
  };
}

test('whyCell: shares of the busy samples; CPU per request from /proc when given, else the busy time', () => {
  const plain = whyCell(input({ contender: 'a' }));
  assert.equal(plain.noProfile, null);
  assert.equal(plain.cpuSource, 'profile');
  assert.equal(plain.busyUs, 4000);
  assert.equal(plain.idleUs, 2000);
  assert.equal(plain.totalNs, 40_000, '4 ms busy / 100 requests');
  assert.deepEqual(
    plain.buckets.map((b) => [b.bucket, b.share, b.ns]),
    [
      ['express', 0.75, 30_000],
      ['(idle)', null, null],
      ['node:http', 0.25, 10_000],
    ],
  );
  // /proc says 20 µs of CPU per request (50,000 requests per CPU-second): the shares split that.
  const proc = whyCell(input({ contender: 'a', rpsPerCpuSecond: 50_000 }));
  assert.equal(proc.cpuSource, 'proc');
  assert.equal(proc.totalNs, 20_000);
  assert.equal(proc.busyNs, 40_000);
  assert.equal(proc.buckets.find((b) => b.bucket === 'express')?.ns, 15_000);
  assert.equal(proc.buckets.find((b) => b.bucket === 'node:http')?.ns, 5_000);
});

test('whyCell: "no profile: …" for a missing profile, no window, no request, no sample in the window', () => {
  const missing = whyCell(input({ contender: 'a', profile: { ok: false, reason: 'no profile: x' } }));
  assert.equal(missing.noProfile, 'no profile: x');
  assert.equal(missing.totalNs, null);
  assert.match(whyCell(input({ contender: 'a', window: null })).noProfile ?? '', /no measured window/);
  const zero = whyCell(input({ contender: 'a', window: { fromUs: 1000, toUs: 7000, requests: 0, requestsPerSec: 0 } }));
  assert.match(zero.noProfile ?? '', /completed no request/);
  const outside = whyCell(
    input({ contender: 'a', window: { fromUs: 50_000, toUs: 60_000, requests: 5, requestsPerSec: 1 } }),
  );
  assert.match(outside.noProfile ?? '', /no sample inside the measured window/);
  assert.match(whyRecordText(record([missing])), /a · json: no profile: x/);
});

function record(cells: WhyRecord['cells']): WhyRecord {
  return {
    schemaVersion: 1,
    runId: 'r1',
    createdAt: '2026-01-01T00:00:00Z',
    profile: 'quick',
    durationS: 5,
    samplingIntervalUs: 1000,
    cells,
    diffs: whyDiffs(cells),
  };
}

test('whyDiffs: against the baseline by default, against --against when named; parts + remainder = difference', () => {
  const base = whyCell(
    input({ contender: 'node-http', isBaseline: true, profile: { ok: true, profile: profile([3, 4, 4, 4]) } }),
  );
  const a = whyCell(input({ contender: 'a' }));
  const b = whyCell(input({ contender: 'b', profile: { ok: true, profile: profile([2, 3, 3, 4]) } }));
  const toBase = whyDiffs([base, a, b]);
  assert.deepEqual(
    toBase.map((d) => [d.a, d.b]),
    [
      ['a__json', 'node-http__json'],
      ['b__json', 'node-http__json'],
    ],
  );
  for (const d of toBase) {
    assert.equal(d.diffNs, d.aTotalNs - d.bTotalNs);
    assert.equal(d.parts.reduce((s, p) => s + p.diffNs, 0) + d.remainderNs, d.diffNs);
  }
  const toB = whyDiffs([base, a, b], 'b');
  assert.deepEqual(
    toB.map((d) => [d.a, d.b]),
    [
      ['node-http__json', 'b__json'],
      ['a__json', 'b__json'],
    ],
  );
  assert.equal(toB[1]?.parts[0]?.bucket, 'express', 'a spends 2 ms more in express than b');
});

test('a truncated why.json is skipped with a warning; the report renders without it', () => {
  const results = tmpDir('why-store');
  const runs = path.join(whyResultsDir(results), 'runs');
  const good = whyCell(input({ contender: 'a' }));
  const base = whyCell(
    input({ contender: 'node-http', isBaseline: true, profile: { ok: true, profile: profile([3, 4]) } }),
  );
  writeWhy(path.join(runs, 'r1'), record([good, base]));
  fs.mkdirSync(path.join(runs, 'r2'), { recursive: true });
  const text = fs.readFileSync(path.join(runs, 'r1', 'why.json'), 'utf8');
  fs.writeFileSync(path.join(runs, 'r2', 'why.json'), text.slice(0, text.length / 2));
  fs.mkdirSync(path.join(runs, 'r3')); // an interrupted why run: no why.json, no warning
  const { records, warnings } = readAllWhy(results);
  assert.equal(records.length, 1);
  assert.equal(warnings.length, 1);
  assert.match(warnings[0] ?? '', /r2.*why\.json: not valid JSON/);
  const md = whyMarkdown({ runs: [], scenarios: [], why: records });
  assert.match(md, /## Why \(CPU profiles\)/);
  assert.match(md, /a on json uses 4\.0× the CPU per request of node-http/);
  assert.equal(whyMarkdown({ runs: [], scenarios: [] }), '', 'no why records: no section');
});

test('why: a capacity profile or a bad --interval is exit 2 before any server starts', async () => {
  const cap = await runCli(['why', 'express', '--profile', 'capacity']);
  assert.equal(cap.code, 2);
  assert.match(cap.stderr, /capacity profile/);
  const iv = await runCli(['why', 'express', '--interval', '0']);
  assert.equal(iv.code, 2);
  assert.match(iv.stderr, /--interval must be a whole number/);
});

test('samplerBias: the call frame’s share of the loop’s samples against passes × cost ÷ the loop; samplerText says biased past 3×', () => {
  // 10 samples of 1 ms from t = 1000 µs: 3 in process.cpuUsage's native frame (node 5), 7 in the loop.
  const p: CpuProfile = {
    nodes: [
      { id: 1, callFrame: frame('(root)', ''), children: [2] },
      { id: 2, callFrame: frame('', 'file:///h/harness/lifecycle/sampler-probe.cjs'), children: [5] },
      { id: 5, callFrame: frame('cpuUsage', '') },
    ],
    startTime: 1000,
    endTime: 11_000,
    samples: [2, 5, 2, 2, 5, 2, 2, 5, 2, 2],
    timeDeltas: [0, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000],
  };
  // The loop: 1000–11000 µs, 2000 passes of a 250 ns call = 0.5 ms of 10 ms (5%).
  const b = samplerBias(p, { fromUs: 1000, toUs: 11_000, passes: 2000, callNs: 250 });
  assert.ok(Math.abs(b.timeShare - 0.05) < 1e-12, `${b.timeShare}`);
  assert.ok(Math.abs(b.sampleShare - 0.3) < 1e-12, `${b.sampleShare}`);
  assert.equal(b.samples, 10);
  assert.throws(() => samplerBias(p, { fromUs: 50_000, toUs: 60_000, passes: 1, callNs: 1 }), RangeError);

  const check = { ok: true as const, intervalUs: 5000, cpus: '1', ...b };
  assert.match(
    samplerText(check),
    /^sampler check: a system call with 5\.0% of a probe loop's time drew 30\.0% of its samples \(10 samples, every 5000 µs, CPU 1\): on this host the profiler's samples favour/,
  );
  assert.match(samplerText({ ...check, sampleShare: 0.12 }), /drew 12\.0% .*: no bias toward system calls seen\.$/);
  assert.equal(
    samplerText({ ok: false, reason: 'the sampler probe exited with 1: x' }),
    'sampler check: none (the sampler probe exited with 1: x)',
  );
  assert.match(samplerText(undefined), /^sampler check: not run/);
  // Stored and read back with the record (the field is optional: older why.json files still read).
  const results = tmpDir('why-sampler');
  const runDir = path.join(whyResultsDir(results), 'runs', 'r1');
  fs.mkdirSync(runDir, { recursive: true });
  const rec: WhyRecord = {
    schemaVersion: 1,
    runId: 'r1',
    createdAt: '2026-11-26T00:00:00.000Z',
    profile: 'quick',
    durationS: 1,
    samplingIntervalUs: 5000,
    cells: [],
    diffs: [],
    samplerCheck: check,
  };
  writeWhy(runDir, rec);
  const { records, warnings } = readAllWhy(results);
  assert.deepEqual(warnings, []);
  assert.deepEqual(records[0]?.samplerCheck, check);
  assert.match(whyRecordText(records[0]!), /^why run r1: .*\nsampler check: a system call with 5\.0%/);
});

test('flame graph paths come from the store: results/why/runs/<run-id>/<file>, and no results/ path is built outside store/', () => {
  assert.equal(
    flamePathShown('2026-01-01T00-00-00Z-abcd', 'flames/a__ping.folded'),
    'results/why/runs/2026-01-01T00-00-00Z-abcd/flames/a__ping.folded',
  );
  const built: string[] = [];
  const walk = (dir: string): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (path.relative(ROOT, p) !== path.join('harness', 'store')) walk(p);
      } else if (e.name.endsWith('.ts'))
        fs.readFileSync(p, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            if (/results\/[\w/.-]*\$\{/.test(line)) built.push(`${path.relative(ROOT, p)}:${i + 1}`);
          });
    }
  };
  walk(path.join(ROOT, 'harness'));
  assert.deepEqual(built, [], 'a results/ path built in a template outside store/');
});
