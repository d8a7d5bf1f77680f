// The sources' claims, judged in their own load shape from same-run cells with ≥ 5 trials:
// confirmed, refuted, inconclusive, inconclusive (client-bound), not measured (with the command).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readSnapshot } from '../../harness/cli/report.ts';
import {
  belowResolution,
  type Claim,
  claimsRule,
  describeRange,
  claimValue,
  evaluateClaims,
  formatComparison,
  headroomText,
  loadClaims,
  measureCommand,
  renderClaims,
  shapeOverride,
  toleranceRange,
  verdictText,
} from '../../harness/report/claims.ts';
import { ROOT } from '../helpers.ts';
import type { CellResult } from '../../harness/store/results.ts';
import { getProfile, type K6Profile } from '../../harness/core/profiles.ts';
import { UserError } from '../../harness/core/errors.ts';
import { EXPORTERS } from '../../harness/report/exporters/exporter-registry.ts';
import { snapshotOfCells } from '../../harness/report/snapshot.ts';
import { type CellPatch, makeCell, makeMeta } from '../fixtures.ts';

const wobble = [1, 1.004, 0.996, 1.002, 0.998];
const five = (rps: number, w = wobble) => w.map((x) => rps * x);
/** The pipelined profile's own shape (2 s windows, 100 connections, pipelining 10): not an override. */
const PIPELINED = { durationS: 2, profile: getProfile('pipelined') };
const json = (label: string, rps: number, patch: CellPatch & { trials?: number[] } = {}) =>
  makeCell({ label, scenario: 'json', profile: 'pipelined', trials: five(rps), load: PIPELINED, ...patch });
const snap = (cells: CellResult[], runId = 'r1') => [
  { meta: makeMeta({ runId }), cells: cells.map((c) => ({ ...c, runId })) },
];

const fastify: Claim = {
  id: 's003-json',
  source: 'Nexus/Express/Fastify report',
  claim: 'Fastify vs Express on /json: requests/s',
  sourceFigure: '3.62×',
  scenario: 'json',
  metric: 'rps',
  compare: 'ratio',
  a: 'fastify',
  b: 'express',
  expected: [3.08, 4.16],
  range: { from: 'tolerance', figure: 3.62, tolerance: 0.15 },
  profiles: ['pipelined'],
};
const latency: Claim = {
  id: 's000-undici-vs-axios',
  source: 'nestjs-undici-performance report',
  claim: 'fan-out latency lower',
  sourceFigure: '60–72% faster',
  scenario: 'fanout',
  metric: 'latency',
  compare: 'reduction',
  a: 'nestjs-fastify-undici',
  b: 'nestjs-express-axios',
  expected: [0.6, 0.72],
  range: { from: 'spread', note: '68.2, 65.9 and 71.8% faster on Node 20, 22 and 24' },
  profiles: ['k6-ramp'],
};

test('confirmed: ours in the claimed range and the band excludes no difference', () => {
  const [r] = evaluateClaims([fastify], snap([json('fastify', 35_000), json('express', 10_000)]));
  assert.equal(r!.verdict, 'confirmed');
  assert.equal(r!.profile, 'pipelined');
  assert.equal(r!.runId, 'r1');
  assert.ok(Math.abs(r!.ours! - 3.5) < 1e-9);
  assert.ok(r!.band![0] < 3.5 && 3.5 < r!.band![1]);
  assert.equal(r!.ratio!.paired, true);
  assert.deepEqual(r!.trials, { a: 5, b: 5 });
  // Latency through Little's law: 2.857× the requests/s at the same concurrency = 65% lower mean latency.
  const fan = (label: string, rps: number) =>
    makeCell({ label, scenario: 'fanout', profile: 'k6-ramp', driver: 'k6', trials: five(rps) });
  const [l] = evaluateClaims(
    [latency],
    snap([fan('nestjs-fastify-undici', 2857.142857), fan('nestjs-express-axios', 1000)]),
  );
  assert.equal(l!.verdict, 'confirmed');
  assert.equal(formatComparison('reduction', l!.ours!), '65.0% lower');
});

test('refuted: the whole band outside the claimed range (wrong size or direction)', () => {
  assert.equal(
    evaluateClaims([fastify], snap([json('fastify', 15_000), json('express', 10_000)]))[0]!.verdict,
    'refuted',
  );
  const fan = (label: string, rps: number) =>
    makeCell({ label, scenario: 'fanout', profile: 'k6-ramp', trials: five(rps) });
  assert.equal(
    evaluateClaims([latency], snap([fan('nestjs-fastify-undici', 900), fan('nestjs-express-axios', 1000)]))[0]!.verdict,
    'refuted',
  );
});

test('a client-bound side that could move the ratio into the range: inconclusive (client-bound), never refuted', () => {
  const bound = { resources: { clientBound: true } };
  const a = evaluateClaims([fastify], snap([json('fastify', 15_000, bound), json('express', 10_000)]))[0];
  assert.equal(a!.verdict, 'inconclusive (client-bound)');
  assert.deepEqual(a!.clientBound, ['fastify']);
  assert.match(a!.note, /client-bound \(lower bound\): fastify/);
  // A bound on express can only lower fastify/express further from 3.08–4.16: still refuted.
  const b = evaluateClaims([fastify], snap([json('fastify', 15_000), json('express', 10_000, bound)]))[0];
  assert.equal(b!.verdict, 'refuted');
  // Inside the range but fastify is a lower bound: the true ratio may lie above 4.16.
  const c = evaluateClaims([fastify], snap([json('fastify', 35_000, bound), json('express', 10_000)]))[0];
  assert.equal(c!.verdict, 'inconclusive (client-bound)');
});

test('a client-bound verdict gets a second line from a run where neither side is client-bound, labelled as ours', () => {
  const bound = { resources: { clientBound: true } };
  const other = [1.003, 0.997, 1.001, 0.999, 1];
  const quick = (label: string, rps: number, patch: CellPatch & { trials?: number[] } = {}) =>
    makeCell({ label, scenario: 'json', profile: 'quick', driver: 'wrk', trials: five(rps), ...patch });
  const runs = [
    ...snap([json('fastify', 15_000, bound), json('express', 10_000)], 'r1'),
    // Newer: fastify is client-bound here too, so this run is passed over.
    {
      meta: makeMeta({ runId: 'r3', startedAt: '2026-11-24T00:00:00.000Z' }),
      cells: [quick('fastify', 50_000, { ...bound, runId: 'r3' }), quick('express', 10_000, { runId: 'r3' })],
    },
    {
      meta: makeMeta({ runId: 'r2', startedAt: '2026-11-23T00:00:00.000Z' }),
      cells: [
        quick('fastify', 35_000, { runId: 'r2' }),
        quick('express', 10_000, { runId: 'r2', trials: five(10_000, other) }),
      ],
    },
  ];
  const [r] = evaluateClaims([fastify], runs);
  assert.equal(r!.verdict, 'inconclusive (client-bound)', 'the second line never changes the verdict');
  assert.equal(r!.runId, 'r1');
  const h = r!.headroom!;
  assert.deepEqual([h.runId, h.profile, h.driver, h.where], ['r2', 'quick', 'wrk', 'inside']);
  assert.ok(Math.abs(h.ours / 3.5 - 1) < 0.01 && h.band[0] < h.ours && h.ours < h.band[1], JSON.stringify(h));
  assert.match(
    headroomText(fastify, h),
    /^ours, not the source's shape: 3\.50× \(95% CI .*\) under wrk, .*\(quick, run r2, solo requests\/s paired by round, 95% CI, \d+ df\), inside the claimed range$/,
  );
  assert.match(renderClaims([r!]).join('\n'), /<br>ours, not the source's shape: 3\.50×/);
  // Outside the range under the driver with headroom.
  const out = evaluateClaims(
    [fastify],
    [
      ...runs.slice(0, 1),
      { ...runs[2]!, cells: [quick('fastify', 15_000, { runId: 'r2' }), quick('express', 10_000, { runId: 'r2' })] },
    ],
  )[0];
  assert.equal(out!.headroom!.where, 'outside');
  // No such run: no second line; and a verdict that is not client-bound never gets one.
  assert.equal(evaluateClaims([fastify], runs.slice(0, 2))[0]!.headroom, null);
  assert.equal(
    evaluateClaims([fastify], [...snap([json('fastify', 35_000), json('express', 10_000)]), runs[2]!])[0]!.headroom,
    null,
  );
});

test('a client-bound k6 pair with wrk at the same concurrency beside it: judged on wrk, k6 shown as the source tool', () => {
  const loopback: Claim = {
    id: 's002-nestjs-vs-loopback',
    source: 'NestJS/LoopBack/Nhost comparison',
    claim: 'NestJS (Fastify) REST vs LoopBack 4 REST on ping: requests/s',
    sourceFigure: '~4.9×',
    scenario: 'ping',
    metric: 'rps',
    compare: 'ratio',
    a: 'nestjs-fastify-axios',
    b: 'loopback4',
    expected: toleranceRange('ratio', 4.9, 0.1),
    range: { from: 'tolerance', figure: 4.9, tolerance: 0.1 },
    profiles: ['k6-vus'],
  };
  const K6_VUS = { durationS: 6, profile: getProfile('k6-vus') };
  const native = (rps: number, clientBound = false) => ({
    driver: 'wrk' as const,
    connections: 1000,
    trialRps: five(rps),
    rounds: [1, 2, 3, 4, 5],
    clientBound,
    shape: 'wrk at 1000 connections (1000 constant VUs, no think time)',
  });
  // k6 leaves nestjs' server idle (1.61×, a lower bound); wrk at 1000 connections reads 4.8×.
  const cell = (label: string, rps: number, patch: CellPatch = {}) =>
    makeCell({ label, scenario: 'ping', profile: 'k6-vus', driver: 'k6', trials: five(rps), load: K6_VUS, ...patch });
  const bound = { resources: { clientBound: true } } as CellPatch;
  const k6Only = [cell('nestjs-fastify-axios', 16_100, bound), cell('loopback4', 10_000)];
  const [before] = evaluateClaims([loopback], snap(k6Only));
  assert.equal(before!.verdict, 'inconclusive (client-bound)');
  assert.ok(Math.abs(before!.ours! - 1.61) < 0.01);
  assert.equal(before!.sourceTool, null);

  const withWrk = [
    cell('nestjs-fastify-axios', 16_100, { ...bound, nativeCheck: native(48_000) }),
    cell('loopback4', 10_000, { nativeCheck: native(10_000) }),
  ];
  const [r] = evaluateClaims([loopback], snap(withWrk));
  assert.equal(r!.verdict, 'confirmed', r!.note);
  assert.ok(Math.abs(r!.ours! - 4.8) < 0.01, String(r!.ours));
  assert.deepEqual(r!.clientBound, [], 'wrk was not client-bound');
  assert.equal(r!.mdd, null, "no table model: the run's table is k6's");
  const t = r!.sourceTool!;
  assert.equal(t.driver, 'k6');
  assert.ok(Math.abs(t.ours - 1.61) < 0.01 && t.band[0] <= t.ours && t.ours <= t.band[1]);
  assert.deepEqual(t.clientBound, ['nestjs-fastify-axios']);
  assert.match(
    r!.note,
    /^4\.80× .*; judged on wrk at 1000 connections \(1000 constant VUs, no think time\); k6, the source's tool: 1\.61× \(.*\), client-bound \(lower bound\): nestjs-fastify-axios/,
  );
  assert.match(renderClaims([r!]).join('\n'), /<br>judged on wrk at 1000 connections .*k6, the source's tool: 1\.61×/);

  // k6 windows are not called client-bound for an idle server: a server below 85% of its core is enough.
  const idle = {
    resources: { clientBound: false, server: { cpuPctAvg: 40, samples: 20, pinnedCores: 1 } },
  } as unknown as CellPatch;
  const [viaIdle] = evaluateClaims(
    [loopback],
    snap([
      cell('nestjs-fastify-axios', 16_100, { ...idle, nativeCheck: native(48_000) }),
      cell('loopback4', 10_000, { nativeCheck: native(10_000) }),
    ]),
  );
  assert.equal(viaIdle!.verdict, 'confirmed', viaIdle!.note);
  assert.deepEqual(viaIdle!.sourceTool!.clientBound, ['nestjs-fastify-axios']);
  // Only one side measured by wrk, or wrk itself client-bound: k6's figure stays, client-bound.
  for (const cells of [
    [withWrk[0]!, k6Only[1]!],
    [cell('nestjs-fastify-axios', 16_100, { ...bound, nativeCheck: native(48_000, true) }), withWrk[1]!],
  ]) {
    const [x] = evaluateClaims([loopback], snap(cells));
    assert.equal(x!.verdict, 'inconclusive (client-bound)');
    assert.equal(x!.sourceTool, null);
  }
  // Neither k6 side client-bound: k6's own figure is the verdict's, wrk's beside it unused.
  const [fine] = evaluateClaims(
    [loopback],
    snap([cell('nestjs-fastify-axios', 49_000, { nativeCheck: native(10_000) }), cell('loopback4', 10_000)]),
  );
  assert.equal(fine!.sourceTool, null);
  assert.ok(Math.abs(fine!.ours! - 4.9) < 0.01);
});

test('inconclusive: the band straddles the edge of the range', () => {
  const noisy = [1, 1.25, 0.8, 1.15, 0.85];
  const r = evaluateClaims(
    [fastify],
    snap([json('fastify', 30_000, { trials: five(30_000, noisy) }), json('express', 10_000)]),
  )[0];
  assert.equal(r!.verdict, 'inconclusive');
  assert.ok(r!.band![0] < 3.08 && r!.band![1] > 3.08);
});

test('not measured: missing cell, other load shape, other runs, fewer than 5 trials — with the exact command', () => {
  const missing = evaluateClaims([latency], snap([json('x', 1)]))[0];
  assert.equal(missing!.verdict, 'not measured');
  assert.equal(
    missing!.command,
    'just bench nestjs-fastify-undici nestjs-express-axios --scenario fanout --profile k6-ramp --rounds 5',
  );
  // Measured, but in quick: the claim is judged only in its source's shape.
  const quick = evaluateClaims(
    [fastify],
    snap([json('fastify', 35_000, { profile: 'quick' }), json('express', 10_000, { profile: 'quick' })]),
  )[0];
  assert.equal(quick!.verdict, 'not measured');
  // One cell per run: never compared across runs.
  const split = evaluateClaims(
    [fastify],
    [...snap([json('fastify', 35_000)], 'r1'), ...snap([json('express', 10_000)], 'r2')],
  )[0];
  assert.equal(split!.verdict, 'not measured');
  // 3 trials each: no verdict.
  const few = evaluateClaims(
    [fastify],
    snap([
      json('fastify', 35_000, { trials: [35_000, 35_100, 34_900] }),
      json('express', 10_000, { trials: [1e4, 1e4, 1e4] }),
    ]),
  )[0];
  assert.equal(few!.verdict, 'not measured');
  assert.match(few!.note, /has 3 and 3 rounds; a verdict needs 5 each/);
  assert.equal(few!.command, 'just bench fastify express --scenario json --profile pipelined --rounds 5');
  // The older run with 5 trials is used over a newer one with 3.
  const both = evaluateClaims(
    [fastify],
    [
      ...snap([json('fastify', 35_000), json('express', 10_000)], 'r1'),
      {
        meta: makeMeta({ runId: 'r2', startedAt: '2026-11-23T00:00:00.000Z' }),
        cells: [
          json('fastify', 1, { trials: [1, 1, 1], runId: 'r2' }),
          json('express', 1, { trials: [1, 1, 1], runId: 'r2' }),
        ],
      },
    ],
  )[0];
  assert.equal(both!.verdict, 'confirmed');
  assert.equal(both!.runId, 'r1');
  // A claim's own note when it cannot be measured here.
  const hasura = evaluateClaims([{ ...fastify, whenMissing: 'needs Docker' }], [])[0];
  assert.equal(hasura!.note, 'needs Docker');
  // A failed side is not judged.
  const failed = evaluateClaims(
    [fastify],
    snap([json('fastify', 35_000, { load: { non2xx: 35_000 } }), json('express', 10_000)]),
  )[0];
  assert.equal(failed!.verdict, 'not measured');
  assert.match(failed!.note, /fastify \(100% of requests failed/);
});

test('a claim with two profiles is judged in each', () => {
  const pg: Claim = {
    ...fastify,
    id: 'pg',
    source: 'PostGraphile template perf runner',
    scenario: 'health-db',
    a: 'postgraphile-fastify',
    b: 'postgraphile-express',
    compare: 'increase',
    expected: [0.45, 0.97],
    profiles: ['standard', 'stress'],
  };
  const cells = ['standard', 'stress'].flatMap((profile) => [
    makeCell({
      label: 'postgraphile-fastify',
      scenario: 'health-db',
      profile,
      trials: five(profile === 'stress' ? 1710 : 1100),
    }),
    makeCell({ label: 'postgraphile-express', scenario: 'health-db', profile, trials: five(1000) }),
  ]);
  const rs = evaluateClaims([pg], snap(cells));
  assert.deepEqual(
    rs.map((r) => [r.profile, r.verdict]),
    [
      ['standard', 'refuted'],
      ['stress', 'confirmed'],
    ],
  );
  assert.equal(formatComparison('increase', rs[1]!.ours!), '+71.0%');
});

test('claim values are monotonic in the requests/s ratio, so the band maps to a band', () => {
  for (const metric of ['rps', 'latency'] as const)
    for (const compare of ['ratio', 'increase', 'reduction'] as const) {
      const v = [0.5, 1, 2].map((r) => claimValue({ metric, compare }, r));
      assert.ok((v[0]! < v[1]! && v[1]! < v[2]!) || (v[0]! > v[1]! && v[1]! > v[2]!), `${metric} ${compare}`);
    }
  assert.equal(
    measureCommand({ ...fastify, a: 'nestjs-express-axios +interceptor', b: 'nestjs-express-axios' }, 'k6-ramp'),
    'just bench nestjs-express-axios --scenario json --profile k6-ramp --rounds 5',
  );
});

test('the rule is stated as text and printed with the table', () => {
  const rule = claimsRule();
  for (const s of [
    /pipelined for the Nexus\/Express\/Fastify report/,
    /k6-ramp for the nestjs-undici-performance report/,
    /k6-vus for the NestJS\/LoopBack\/Nhost comparison/,
    /stress for the PostGraphile template perf runner/,
    /decision range/,
    /inconclusive \(below resolution\), never refuted/,
    /provisional/,
    /at least 5 trials/,
    /inconclusive \(client-bound\), never refuted/,
    /Little's law/,
  ])
    assert.match(rule, s);
  const md = renderClaims(evaluateClaims([fastify], snap([json('x', 1)]))).join('\n');
  assert.match(
    md,
    /\| pipelined \| – \| not measured: .*`just bench fastify express --scenario json --profile pipelined --rounds 5`/,
  );
  assert.ok(md.includes(rule));
});

test('the claims data file: stable ids, docs/sources.md names, each source in its own load shape', () => {
  const claims = loadClaims();
  const ids = claims.map((c) => c.id);
  for (const id of [
    's000-undici-vs-axios',
    's000-fastify-vs-express',
    's001-interceptor-express-axios',
    's001-interceptor-fastify-axios',
    's001-interceptor-fastify-undici',
    's002-nestjs-vs-loopback',
    's002-nestjs-graphql-vs-hasura',
    's003-json',
    's003-echo',
    's003-users',
    's003-post',
    's004-postgraphile-typename',
    's004-postgraphile-query',
  ])
    assert.ok(ids.includes(id), id);
  assert.equal(new Set(ids).size, ids.length, 'ids are unique');
  const shape: Record<string, string[]> = {
    'nestjs-undici-performance report': ['k6-ramp'],
    'NestJS/LoopBack/Nhost comparison': ['k6-vus'],
    'Nexus/Express/Fastify report': ['pipelined'],
    'PostGraphile template perf runner': ['standard', 'stress'],
  };
  for (const c of claims) {
    assert.ok(shape[c.source], `${c.id}: unknown source ${c.source}`);
    assert.ok(c.profiles.length && c.profiles.every((p) => shape[c.source]!.includes(p)), `${c.id}: ${c.profiles}`);
    assert.ok(c.expected[0] <= c.expected[1], c.id);
  }
  // The __typename claim no longer repeats the +90% query claim's range; +49% lies inside its own.
  const typename = claims.find((c) => c.id === 's004-postgraphile-typename')!;
  const query = claims.find((c) => c.id === 's004-postgraphile-query')!;
  assert.notDeepEqual(typename.expected, query.expected);
  assert.ok(typename.expected[0] <= 0.49 && 0.49 <= typename.expected[1] && typename.expected[1] < 0.9);
  assert.match(typename.sourceFigure, /\+49%/);
});

// ---------------------------------------------------------------------------------------------
// Issue 24: visible decisions, provisional verdicts, resolution, shared measurements.

test('verdict rules on fixture cells: confirmed, refuted, client-bound, provisional, below resolution', () => {
  const one = (cells: CellResult[], claim: Claim = fastify) => evaluateClaims([claim], snap(cells))[0]!;
  // Band inside the range, in the profile's own shape: confirmed, not provisional.
  const inside = one([json('fastify', 35_000), json('express', 10_000)]);
  assert.equal(inside.verdict, 'confirmed');
  assert.equal(inside.provisional, false);
  assert.equal(inside.override, null);
  // Band wholly outside: refuted.
  assert.equal(one([json('fastify', 20_000), json('express', 10_000)]).verdict, 'refuted');
  // A client-bound side that could reach the range: inconclusive (client-bound).
  const bound = one([json('fastify', 20_000, { resources: { clientBound: true } }), json('express', 10_000)]);
  assert.equal(bound.verdict, 'inconclusive (client-bound)');
  // The window shortened from the profile's 2 s to 1 s (as `--duration 1` stores it): provisional, named.
  const short = { durationS: 1, profile: { ...getProfile('pipelined'), durationS: 1 } };
  const prov = one([json('fastify', 35_000, { load: short }), json('express', 10_000, { load: short })]);
  assert.equal(prov.verdict, 'confirmed');
  assert.equal(prov.provisional, true);
  assert.equal(prov.override, '5 × 1 s, source 2 × 2 s');
  assert.equal(verdictText(prov), 'confirmed (provisional: 5 × 1 s, source 2 × 2 s)');
  assert.match(renderClaims([prov]).join('\n'), /\*\*confirmed \(provisional: 5 × 1 s, source 2 × 2 s\)\*\*/);
  // Other VUs than the k6 profile's: provisional too.
  const vus = makeCell({
    label: 'x',
    scenario: 'ping',
    profile: 'k6-vus',
    driver: 'k6',
    load: { durationS: 6, profile: { ...(getProfile('k6-vus') as K6Profile), vus: 200 } },
  });
  assert.equal(shapeOverride(vus), '1 × 6 s at 200 VUs, source 5 × 6 s at 1000 VUs');
  assert.equal(
    shapeOverride(makeCell({ profile: 'k6-vus', driver: 'k6', load: { durationS: 6, profile: getProfile('k6-vus') } })),
    null,
  );
});

test('below resolution: a range closer to no difference than the table model MDD is never refuted', () => {
  // A small claimed effect (+2 … +8%); fastify is 1.5× express in every round (a tight paired band,
  // wholly outside the range), but each round's figures against the baseline swing ±25%, so the
  // table model's MDD (analysis/table-model.ts) is far above 8%.
  const small: Claim = {
    ...fastify,
    compare: 'increase',
    expected: [0.02, 0.08],
    range: { from: 'spread', note: 'test' },
  };
  const swing = [1, 1.25, 0.8, 1.2, 0.85];
  const cells = [json('fastify', 15_000), json('express', 10_000)];
  const withBase = [...cells, json('node-http', 20_000, { trials: five(20_000, swing) })];
  // No baseline row: the same model with express (the claim's b) as the reference row; the paired
  // ratios are steady, so its MDD is small and the band decides: refuted.
  const without = evaluateClaims([small], snap(cells))[0]!;
  assert.equal(without.verdict, 'refuted');
  assert.equal(without.mddReference, 'express');
  assert.ok(without.mdd !== null && without.mdd < 0.02, `MDD ${without.mdd}`);
  assert.match(without.note, /reference row express: the run has no row of the scenario's baseline/);
  const [r] = evaluateClaims([small], snap(withBase), { scenarios: [{ name: 'json', baseline: 'node-http' }] });
  assert.ok(r!.mdd !== null && r!.mdd > 0.08, `MDD ${r!.mdd}`);
  assert.equal(r!.verdict, 'inconclusive (below resolution)');
  assert.equal(r!.mddReference, null, 'the scenario baseline is the reference');
  assert.ok(belowResolution(small, r!.mdd!));
  assert.match(r!.note, /MDD ±\d+\.\d%/);
  // The same noise does not shield a claim whose range lies beyond the MDD: 3.08–4.16× is refuted.
  const big = evaluateClaims([fastify], snap(withBase))[0]!;
  assert.ok(big.mdd !== null && !belowResolution(fastify, big.mdd));
  assert.equal(big.verdict, 'refuted');
});

test('decision ranges are printed with where they come from; shared measurements say so', () => {
  assert.equal(describeRange(fastify), "3.08× … 4.16× (the source's 3.62× ± 15% on the ratio)");
  assert.equal(
    describeRange(latency),
    "60.0% lower … 72.0% lower (the source's spread: 68.2, 65.9 and 71.8% faster on Node 20, 22 and 24)",
  );
  const ready: Claim = { ...fastify, id: 'ready', expected: [1.5, 2], range: { from: 'spread', note: 't' } };
  const other: Claim = { ...fastify, id: 'other', scenario: 'echo' };
  const rs = evaluateClaims([fastify, ready, other], snap([json('fastify', 35_000), json('express', 10_000)]));
  assert.deepEqual(
    rs.map((r) => [r.claim.id, r.verdict, r.sharedWith]),
    [
      ['s003-json', 'confirmed', ['ready']],
      ['ready', 'refuted', ['s003-json']],
      ['other', 'not measured', []],
    ],
  );
  const md = renderClaims(rs).join('\n');
  assert.match(
    md,
    /same measurement as ready \(the same cells\): the verdicts can differ only because the decision ranges differ/,
  );
  assert.match(md, /\| 3\.62× \| 3\.08× … 4\.16× \(the source's 3\.62× ± 15% on the ratio\) \| pipelined \|/);
  // The run is named once (no "in run X; run X").
  assert.equal(md.split('run r1').length - 1, 2, 'once per measured row');
});

test('claims.json: every range names its source; tolerance ranges are computed, never written twice', () => {
  const claims = loadClaims();
  for (const c of claims) {
    assert.ok(c.range.from === 'spread' || c.range.from === 'tolerance', c.id);
    assert.ok(c.expected[0] < c.expected[1], c.id);
  }
  const json3 = claims.find((c) => c.id === 's003-json')!;
  assert.deepEqual(json3.range, { from: 'tolerance', figure: 3.62, tolerance: 0.15 });
  assert.ok(Math.abs(json3.expected[0] - 3.077) < 1e-9 && Math.abs(json3.expected[1] - 4.163) < 1e-9);
  // A reduction range flips: 60% lower ± 10% on the ratio 0.4 → 0.36…0.44 → 56…64% lower.
  assert.deepEqual(
    toleranceRange('reduction', 0.6, 0.1).map((x) => Number(x.toFixed(6))),
    [0.56, 0.64],
  );
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'claims-'));
  const bad = (entry: object) => {
    const f = path.join(dir, 'c.json');
    fs.writeFileSync(f, JSON.stringify({ claims: [{ ...json3, range: undefined, expected: undefined, ...entry }] }));
    return () => loadClaims(f);
  };
  // Bad data is bad input (UserError: exit 2), naming the file, the claim and what to write.
  const userError = (re: RegExp) => (e: unknown) =>
    e instanceof UserError && re.test(e.message) && e.message.includes(dir);
  assert.throws(
    bad({ range: { from: 'tolerance', figure: 3.62, tolerance: 0.15 }, expected: [3, 4] }),
    userError(/claim s003-json: a tolerance range computes 'expected'; remove 'expected'/),
  );
  assert.throws(bad({ range: { from: 'guess' }, expected: [3, 4] }), userError(/range.from must be 'spread'/));
  assert.throws(bad({}), userError(/has no 'range'/));
  fs.rmSync(dir, { recursive: true, force: true });
});

test('the committed claims runs (`just claims`): every claim but Hasura’s judged at its source’s full length, none provisional; /health and /ready share cells', () => {
  const { snapshot } = readSnapshot(path.join(ROOT, 'results'), path.join(ROOT, 'scenarios'));
  const rs = evaluateClaims(
    loadClaims(),
    snapshot.runs.map((r) => ({ meta: r.meta, cells: [...r.cells] })),
    { scenarios: snapshot.scenarios.map((s) => ({ name: s.name, baseline: s.baseline })) },
  );
  const notMeasured = rs.filter((r) => r.verdict === 'not measured').map((r) => r.claim.id);
  assert.deepEqual(notMeasured, ['s002-nestjs-graphql-vs-hasura'], 'only Hasura (Docker) is not measured');
  for (const r of rs.filter((x) => x.verdict !== 'not measured')) {
    assert.equal(r.override, null, `${r.claim.id}: measured in its profile's own shape`);
    assert.equal(r.provisional, false, r.claim.id);
    assert.ok((r.trials?.a ?? 0) >= 5 && (r.trials?.b ?? 0) >= 5, r.claim.id);
  }
  const health = rs.find((r) => r.claim.id === 's004-postgraphile-health')!;
  assert.deepEqual(health.sharedWith, ['s004-postgraphile-ready']);
  // The decided share: no claim left undecided for the client's sake, at most 3 of 18 undecided in all.
  const undecided = rs.filter((r) => r.verdict.startsWith('inconclusive')).map((r) => `${r.claim.id}: ${r.verdict}`);
  assert.ok(!undecided.some((v) => v.endsWith('(client-bound)')), undecided.join('; '));
  assert.ok(undecided.length <= 3, `${undecided.length} inconclusive: ${undecided.join('; ')}`);
});

test('the report row names the run once, the decision range, and "provisional" with the override', () => {
  const cells = (runId: string, n: number, load = PIPELINED) =>
    ['fastify', 'express'].map((label, i) =>
      makeCell({
        label,
        scenario: 'json',
        profile: 'pipelined',
        trials: five(i ? 10_000 : 35_000).slice(0, n),
        load,
        runId,
      }),
    );
  const row = (md: string) => md.split('\n').find((l) => l.startsWith('| Fastify vs Express on /json')) ?? '';
  const render = (cs: CellResult[]) =>
    row(EXPORTERS.md.render(snapshotOfCells(cs, [{ name: 'json', title: 'JSON' }]), {}));
  const few = render(cells('r-few', 3));
  assert.match(few, /not measured\*\*: run r-few has 3 and 3 rounds; a verdict needs 5 each; 3 and 3 trials/);
  assert.equal(few.split('r-few').length - 1, 1, few);
  const ok = render(cells('r-ok', 5));
  assert.match(ok, /\| 3\.08× … 4\.16× \(the source's 3\.62× ± 15% on the ratio\) \| pipelined \| 3\.50× \(95% CI /);
  assert.match(ok, /\*\*confirmed\*\*: run r-ok; 5 and 5 trials/);
  assert.equal(ok.split('r-ok').length - 1, 1, ok);
  const short = render(cells('r-short', 5, { durationS: 1, profile: { ...getProfile('pipelined'), durationS: 1 } }));
  assert.match(short, /\*\*confirmed \(provisional: 5 × 1 s, source 2 × 2 s\)\*\*: run r-short/);
});

test('the terminal report ends with the claims verdict counts, provisional ones counted', () => {
  const cells = ['fastify', 'express'].map((label, i) =>
    makeCell({
      label,
      scenario: 'json',
      profile: 'pipelined',
      trials: five(i ? 10_000 : 35_000),
      load: { durationS: 1, profile: { ...getProfile('pipelined'), durationS: 1 } },
      runId: 'r1',
    }),
  );
  const text = EXPORTERS.terminal.render(snapshotOfCells(cells, [{ name: 'json', title: 'JSON' }]), {});
  const n = loadClaims().reduce((s, c) => s + c.profiles.length, 0);
  assert.match(text.replace(/\s+/g, ' '), new RegExp(`claims: 1 confirmed of ${n} \\(1 provisional\\)`));
});

test("a source whose load generator shared the servers' machine: the verdict says its figure may be client-bound, beside ours", () => {
  const claims = loadClaims();
  const pipelined = claims.find((c) => c.id === 's003-json');
  assert.ok(pipelined?.sourceLoad, 'claims.json names how the Nexus report ran autocannon');
  const [r] = evaluateClaims([pipelined], snap([json('fastify', 36_000), json('express', 10_000)]));
  assert.match(r!.note, /the source's own figure may be client-bound \(autocannon .*\); ours is server-bound/);
  assert.match(renderClaims([r!]).join('\n'), /<br>the source's own figure may be client-bound \(autocannon/);
  // Our side client-bound: the note does not call ours server-bound.
  const bound = { resources: { clientBound: true } } as CellPatch;
  const [lower] = evaluateClaims([pipelined], snap([json('fastify', 36_000, bound), json('express', 10_000)]));
  assert.match(lower!.note, /may be client-bound \(autocannon[^)]*\)(?!; ours is server-bound)/);
  // A claim without sourceLoad prints nothing of the kind; a bad one is refused with its id.
  const plain = { ...pipelined, sourceLoad: undefined };
  assert.doesNotMatch(
    evaluateClaims([plain], snap([json('fastify', 36_000), json('express', 10_000)]))[0]!.note,
    /may be client-bound/,
  );
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'claims-')), 'claims.json');
  fs.writeFileSync(file, JSON.stringify({ claims: [{ ...pipelined, expected: undefined, sourceLoad: 7 }] }));
  assert.throws(
    () => loadClaims(file),
    (e: Error) => e instanceof UserError && /s003-json: 'sourceLoad' must be/.test(e.message),
  );
});

test('an interleaved pair is judged on the table model (requests per CPU-second per server process), not its noisy solo windows', () => {
  // Solo windows seconds apart differ by ±30% (the host's drift); the interleaved rounds see the
  // same drift in every cell of a round, so it cancels: fastify ÷ express = 3.5 in every process.
  const drift = [1, 0.7, 1.3, 0.8, 1.2, 0.9, 1.1, 1, 0.75, 1.25, 0.85, 1.15, 1, 0.95, 1.05, 1];
  const inst = drift.map((_, i) => 1 + (i >> 1));
  const cell = (label: string, eff: number, wobbleSeed: number, serverPct = 98) => {
    const c = json(label, eff, { trials: [eff * 1.3, eff * 0.7], resources: { server: { cpuPctAvg: serverPct } } });
    const efficiency = drift.map((d, i) => eff * d * (1 + 0.01 * Math.sin(i * wobbleSeed)));
    return {
      ...c,
      stats: { ...c.stats!, paired: { rounds: drift.map((_, i) => i + 1), efficiency, instances: inst } },
    };
  };
  const [r] = evaluateClaims([fastify], snap([cell('fastify', 35_000, 1), cell('express', 10_000, 2)]));
  assert.equal(r!.verdict, 'confirmed');
  assert.deepEqual(r!.trials, { a: 16, b: 16 }, 'the rounds the figure rests on');
  assert.equal(r!.ratio!.n, 8, 'units: the 8 server processes');
  assert.match(r!.ratio!.estimator, /^table model: requests per server CPU-second/);
  assert.ok(r!.band![1] / r!.band![0] < 1.05, `a narrow band: ${r!.band}`);
  assert.match(r!.note, /8 server processes of interleaved rounds, requests per CPU-second/);
  // A server that waited (below 85% of its core in its solo window): its requests per CPU-second is
  // not its requests/s, so the claim keeps the solo requests/s ratio.
  const [w] = evaluateClaims([fastify], snap([cell('fastify', 35_000, 1, 50), cell('express', 10_000, 2)]));
  assert.doesNotMatch(w!.ratio!.estimator, /^table model/);
  assert.equal(w!.ratio!.n, 2);
  // The same cells without their interleaved rounds: 2 solo windows are too few for a verdict.
  const solo = (c: CellResult) => ({ ...c, stats: { ...c.stats!, paired: undefined } });
  const [s] = evaluateClaims([fastify], snap([solo(cell('fastify', 35_000, 1)), solo(cell('express', 10_000, 2))]));
  assert.equal(s!.verdict, 'not measured');
  assert.match(s!.note, /has 2 and 2 rounds; a verdict needs 5 each/);
});
