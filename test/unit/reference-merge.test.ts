// Reference records read as one (harness/analysis/reference-merge.ts): records of one shape pooled
// block by block when their ratios agree, read as draws of a day's ratio when the record ×
// contender interaction is large, never grouped across designs; the interaction F's null
// distribution and the merged interval's coverage checked by simulating records with per-record
// host speeds and a per-record spread of the true ratios.
import assert from 'node:assert/strict';
import test from 'node:test';
import fQuantile from '@stdlib/stats-base-dists-f-quantile';
import {
  mergeReferences,
  POOL_ALPHA,
  type PoolSource,
  poolRecords,
  poolText,
  recordIds,
} from '../../harness/analysis/reference-merge.ts';
import { mulberry32 } from '../../harness/core/prng.ts';
import { poolCoverage, simulatedRecord } from '../../scripts/studies/reference-pool-coverage.ts';

const record = simulatedRecord;

test('records of one shape that agree are pooled: all their blocks, a narrower interval, a host speed that drops out', () => {
  const r = mulberry32(54);
  const a = record('a', '2026-11-01T00:00:00Z', 16, { express: 0.43, fastify: 0.89 }, r, { speed: 65_000 });
  const b = record('b', '2026-11-02T00:00:00Z', 20, { express: 0.43, fastify: 0.89 }, r, { speed: 30_000 });
  const m = mergeReferences([a, b]);
  assert.equal(m.pools.length, 1);
  const pool = m.pools[0];
  assert.ok(pool?.pooled, `F ${pool?.test?.f} vs ${pool?.test?.critical}`);
  assert.equal(pool?.blocks, 36);
  assert.match(
    pool ? poolText(pool) : '',
    /^References `a` \+ `b` \(json; express, fastify, node-http; one design\): pooled, 36 blocks \(record × contender F \d+\.\d\d on 2 and 68 df; they pool below \d+\.\d\d, its median\)\.$/,
  );
  assert.deepEqual(m.ids, ['a', 'b']);
  const ex = m.ratios.find((x) => x.contender === 'express');
  assert.equal(ex?.record, 'a+b');
  assert.deepEqual(recordIds(ex?.record), ['a', 'b']);
  assert.equal(ex?.rps.n, 36);
  assert.equal(ex?.rps.df, 2 * 35);
  const width = (f: { ci95: [number, number] | null } | undefined) =>
    Math.log((f?.ci95?.[1] ?? 0) / (f?.ci95?.[0] ?? 1));
  const alone = (s: PoolSource) => s.ratios.find((x) => x.contender === 'express')?.rps;
  assert.ok(width(ex?.rps) < Math.min(width(alone(a)), width(alone(b))), 'narrower than either record');
  // The host speed (65k against 30k requests/s) is a block effect: the pooled ratio stays near the truth.
  assert.ok(Math.abs(Math.log((ex?.rps.figure ?? 0) / 0.43)) < 0.04, String(ex?.rps.figure));
  const fa = m.ratios.find((x) => x.contender === 'fastify');
  assert.equal(fa?.record, 'a+b', 'both ratios of the pool share its source (one baseline mean)');
});

test("records whose ratios differ are read as draws of a day's ratio: their mean, the interaction as its error", () => {
  const r = mulberry32(7);
  const a = record('a', '2026-11-01T00:00:00Z', 16, { express: 0.44, fastify: 0.89 }, r, { sd: 0.03 });
  const b = record('b', '2026-11-02T00:00:00Z', 20, { express: 0.36, fastify: 0.89 }, r, { sd: 0.03 });
  const m = mergeReferences([a, b]);
  const pool = m.pools[0];
  assert.equal(pool?.pooled, false);
  assert.ok((pool?.test?.f ?? 0) > (pool?.test?.critical ?? Infinity), `F ${pool?.test?.f} vs ${pool?.test?.critical}`);
  assert.match(pool ? poolText(pool) : '', /their ratios differ: read as their mean, .* \(2 df\)/);
  const ex = m.ratios.find((x) => x.contender === 'express');
  const of = (s: PoolSource) => s.ratios.find((x) => x.contender === 'express')?.rps;
  assert.equal(ex?.record, 'a+b');
  assert.equal(ex?.rps.df, 2, '(C − 1)(R − 1)');
  assert.ok(
    Math.abs((ex?.rps.figure ?? 0) - Math.sqrt((of(a)?.figure ?? 0) * (of(b)?.figure ?? 0))) < 1e-12,
    'geometric mean',
  );
  const width = (f: { ci95: [number, number] | null } | undefined) =>
    Math.log((f?.ci95?.[1] ?? 0) / (f?.ci95?.[0] ?? 1));
  assert.ok(width(ex?.rps) > width(of(a)) + width(of(b)), 'wider than the two records together');
  assert.deepEqual(m.ids, ['a', 'b']);
});

test('records of another design, Node.js version or contender set are never grouped', () => {
  const r = mulberry32(3);
  const base = record('a', '2026-11-01T00:00:00Z', 6, { express: 0.43 }, r);
  const others = [
    record('w', '2026-11-02T00:00:00Z', 6, { express: 0.43 }, r, { windows: 3 }),
    record('n', '2026-11-03T00:00:00Z', 6, { express: 0.43 }, r, { node: 'v22.1.0' }),
    record('c', '2026-11-04T00:00:00Z', 6, { express: 0.43, fastify: 0.9 }, r),
    { ...record('x', '2026-11-05T00:00:00Z', 6, { express: 0.43 }, r), design: undefined },
  ];
  for (const o of others) assert.deepEqual(poolRecords([base, o]).pools, [], o.runId);
});

test('the interaction F follows its F distribution on records with one true ratio and their own host speeds', () => {
  const r = mulberry32(46);
  const sims = 600;
  let alarms = 0;
  for (let i = 0; i < sims; i++) {
    const a = record('a', '2026-11-01T00:00:00Z', 8, { express: 0.43, fastify: 0.89 }, r, { speed: 60_000 });
    const b = record('b', '2026-11-02T00:00:00Z', 10, { express: 0.43, fastify: 0.89 }, r, { speed: 25_000 });
    const p = poolRecords([a, b]).pools[0];
    if (p?.test && p.test.f > fQuantile(0.95, p.test.df[0], p.test.df[1])) alarms++;
  }
  const rate = alarms / sims;
  assert.ok(rate > 0.02 && rate < 0.09, `F beyond its 95% quantile in ${(100 * rate).toFixed(1)}%`);
});

test("the merged 95% interval covers the true ratio, whether the records' true ratios agree or spread by 3%", () => {
  // 500 draws: a true 95% reads 93.0–96.9% (binomial 99%); a 5% pooling level read 83.3% at τ = 3% (1,000 draws).
  for (const tau of [0, 0.03]) {
    const c = poolCoverage(tau, POOL_ALPHA, 500, 12);
    assert.ok(c.merged >= 0.925, `τ ${tau}: covers ${(100 * c.merged).toFixed(1)}%`);
  }
  assert.ok(poolCoverage(0.03, 0.05, 500, 12).merged < 0.925, 'the 5% level falls short: the check can fail');
});

test("solo records of one shape are read as draws of a day's ratio, whose interval covers the truth", () => {
  const r = mulberry32(21);
  const a = record('a', '2026-11-01T00:00:00Z', 4, { express: 0.6, fastify: 0.95 }, r, { solo: true, sd: 0.09 });
  const b = record('b', '2026-11-02T00:00:00Z', 4, { express: 0.56, fastify: 0.9 }, r, { solo: true, sd: 0.09 });
  const m = mergeReferences([a, b]);
  const pool = m.pools[0];
  assert.equal(pool?.solo, true);
  assert.equal(pool?.pooled, false);
  assert.equal(pool?.test, undefined, 'no interaction F: solo processes are not blocks');
  assert.match(pool ? poolText(pool) : '', /: solo records, read as their mean, .* \(2 df\)\.$/);
  const ex = m.ratios.find((x) => x.contender === 'express');
  const of = (s: PoolSource) => s.ratios.find((x) => x.contender === 'express')?.rps;
  assert.equal(ex?.record, 'a+b', 'the mean of both records, not the newer alone');
  assert.equal(ex?.rps.n, 8);
  assert.ok(
    Math.abs((ex?.rps.figure ?? 0) - Math.sqrt((of(a)?.figure ?? 0) * (of(b)?.figure ?? 0))) < 1e-12,
    'geometric mean',
  );
  // A solo record and a rotation record are never read together.
  const rot = record('c', '2026-11-03T00:00:00Z', 6, { express: 0.6, fastify: 0.95 }, r);
  assert.deepEqual(poolRecords([a, rot]).pools, []);
  // 500 draws each, with and without a 3% spread of a day's ratio.
  for (const tau of [0, 0.03]) {
    const c = poolCoverage(tau, POOL_ALPHA, 500, 5, true);
    assert.ok(c.merged >= 0.925, `solo, τ ${tau}: covers ${(100 * c.merged).toFixed(1)}%`);
  }
});
