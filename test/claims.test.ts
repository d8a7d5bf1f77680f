// Seed claims computed from fixed result data: confirmed, refuted, inconclusive, not measured.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { evaluateClaims, formatComparison, loadClaims, renderClaims, type Claim } from '../harness/report/claims.ts';
import type { CellResult } from '../harness/store/results.ts';

function cell(
  label: string,
  scenario: string,
  rps: number,
  latency: number,
  samples: number[] = [rps, rps, rps],
): CellResult {
  return {
    label,
    scenario,
    status: 'ok',
    profile: 'quick',
    driver: 'autocannon',
    node: { version: 'v24', major: 24 },
    load: {
      requestsPerSec: { mean: rps, stddev: 0, samples },
      latencyMs: { mean: latency, p50: 1, p90: 1, p99: 1, max: 1 },
    },
  } as unknown as CellResult;
}

const ratio: Claim = {
  id: 'r',
  seed: '003_x.txt',
  claim: 'A vs B',
  seedFigure: '3.6×',
  scenario: 'json',
  metric: 'rps',
  compare: 'ratio',
  a: 'A',
  b: 'B',
  expected: [3.08, 4.16],
};
const reduction: Claim = {
  id: 'l',
  seed: '000_x.txt',
  claim: 'A latency',
  seedFigure: '60–72%',
  scenario: 'fanout',
  metric: 'latency',
  compare: 'reduction',
  a: 'A',
  b: 'B',
  expected: [0.6, 0.72],
};

test('confirmed: ours inside the seed range', () => {
  const [r] = evaluateClaims([ratio], [cell('A', 'json', 3500, 1), cell('B', 'json', 1000, 1)]);
  assert.equal(r.verdict, 'confirmed');
  assert.ok(Math.abs(r.ours! - 3.5) < 1e-9);
  const [l] = evaluateClaims([reduction], [cell('A', 'fanout', 1, 3.5), cell('B', 'fanout', 1, 10)]);
  assert.equal(l.verdict, 'confirmed');
  assert.equal(formatComparison('reduction', l.ours!), '65.0% lower');
});

test('refuted: clearly apart and outside the range (wrong size or direction)', () => {
  assert.equal(evaluateClaims([ratio], [cell('A', 'json', 1500, 1), cell('B', 'json', 1000, 1)])[0].verdict, 'refuted');
  assert.equal(
    evaluateClaims([reduction], [cell('A', 'fanout', 1, 12), cell('B', 'fanout', 1, 10)])[0].verdict,
    'refuted',
  );
});

test('inconclusive: the two rows are within run-to-run noise of each other', () => {
  assert.equal(
    evaluateClaims([ratio], [cell('A', 'json', 1030, 1), cell('B', 'json', 1000, 1)])[0].verdict,
    'inconclusive',
  );
  // Noisy per-second samples widen the band: 20% apart is still a tie.
  const noisy = evaluateClaims(
    [ratio],
    [cell('A', 'json', 1200, 1, [800, 1600, 1200]), cell('B', 'json', 1000, 1, [700, 1300, 1000])],
  )[0];
  assert.equal(noisy.verdict, 'inconclusive');
  assert.ok(noisy.noise! > 0.2);
});

test("not measured: a missing row, with the claim's own note when it has one", () => {
  const [r] = evaluateClaims(
    [{ ...ratio, whenMissing: 'not measured here: needs Docker' }],
    [cell('A', 'json', 3500, 1)],
  );
  assert.equal(r.verdict, 'not measured');
  assert.match(renderClaims([r]).join('\n'), /\| not measured: needs Docker \|/);
});

test('the claims data file holds the seed claims the issues name', () => {
  const ids = loadClaims().map((c) => c.id);
  for (const id of [
    's000-undici-vs-axios',
    's000-fastify-vs-express',
    's001-interceptor-express-axios',
    's002-nestjs-vs-loopback',
    's002-nestjs-graphql-vs-hasura',
    's003-json',
    's003-post',
    's004-postgraphile-query',
  ])
    assert.ok(ids.includes(id), id);
});
