// Claim verdicts (harness/report/claims.ts): a decision range that includes "no difference" and a
// band that does too is "consistent, not resolved", never "confirmed"; a client-bound claim's
// second line quotes the claim's own unit (solo requests/s), not the table model's efficiency.
import assert from 'node:assert/strict';
import test from 'node:test';
import { type Claim, evaluateClaims, headroomText } from '../../harness/report/claims.ts';
import type { CellResult } from '../../harness/store/results.ts';
import { type CellPatch, makeCell, makeMeta } from '../fixtures.ts';
import { getProfile } from '../../harness/core/profiles.ts';

const PIPELINED = { durationS: 2, profile: getProfile('pipelined') };
const cell = (label: string, trials: number[], patch: CellPatch = {}) =>
  makeCell({ label, scenario: 'json', profile: 'pipelined', trials, load: PIPELINED, ...patch });
const snap = (cells: CellResult[], runId = 'r1') => [
  { meta: makeMeta({ runId }), cells: cells.map((c) => ({ ...c, runId })) },
];

const increase: Claim = {
  id: 'x-increase',
  source: 'test',
  claim: 'a vs b: up to 16% more requests/s',
  sourceFigure: '+8%',
  scenario: 'json',
  metric: 'rps',
  compare: 'increase',
  a: 'a',
  b: 'b',
  expected: [0, 0.16],
  range: { from: 'spread', note: 'test' },
  profiles: ['pipelined'],
};

test('a range that includes no difference and a band that does too: "consistent, not resolved", never "confirmed"', () => {
  // a/b per round: 1.04 on average, the rounds 0.99–1.10 apart: the band includes 0%.
  const b = [10_000, 10_000, 10_000, 10_000, 10_000];
  const a = [9_900, 11_000, 10_200, 10_800, 10_300];
  const [r] = evaluateClaims([increase], snap([cell('a', a), cell('b', b)]));
  assert.ok(r?.band && r.band[0] < 0 && r.band[1] > 0, JSON.stringify(r?.band));
  assert.ok(r.ours !== null && r.ours > 0 && r.ours < 0.16);
  assert.equal(r.verdict, 'consistent, not resolved');
  // The band excludes no difference and ours lies in the range: confirmed.
  const tight = [10_800, 10_850, 10_750, 10_820, 10_790];
  assert.equal(evaluateClaims([increase], snap([cell('a', tight), cell('b', b)]))[0]?.verdict, 'confirmed');
  // A range that excludes no difference and a band that includes it: inconclusive, as before.
  const away: Claim = { ...increase, expected: [0.05, 0.16] };
  assert.equal(evaluateClaims([away], snap([cell('a', a), cell('b', b)]))[0]?.verdict, 'inconclusive');
});

test("a client-bound requests/s claim's second line quotes solo requests/s ratios, not the model's efficiency", () => {
  const ratioClaim: Claim = { ...increase, compare: 'ratio', expected: [9, 14], sourceFigure: '11.5×' };
  const bound = { resources: { clientBound: true } } as CellPatch;
  const five = (x: number) => [1, 1.004, 0.996, 1.002, 0.998].map((w) => x * w);
  // The other run: solo requests/s a/b = 11.5; interleaved efficiency a/b = 8.4.
  const quick = (label: string, rps: number, eff: number): CellResult => {
    const c = makeCell({ label, runId: 'r2', scenario: 'json', profile: 'quick', driver: 'wrk', trials: five(rps) });
    const efficiency = [1, 0.9, 1.1, 0.95, 1.05].map((s) => eff * s);
    return { ...c, stats: { ...c.stats!, paired: { rounds: [1, 2, 3, 4, 5], efficiency } } };
  };
  const runs = [
    ...snap([cell('a', five(115_000), bound), cell('b', five(10_000))], 'r1'),
    {
      meta: makeMeta({ runId: 'r2', startedAt: '2026-11-23T00:00:00.000Z' }),
      cells: [quick('a', 115_000, 8_400), quick('b', 10_000, 1_000)],
    },
  ];
  const [r] = evaluateClaims([ratioClaim], runs);
  assert.equal(r?.verdict, 'inconclusive (client-bound)');
  const h = r.headroom;
  assert.ok(h, 'a second line');
  assert.ok(Math.abs(h.ours / 11.5 - 1) < 0.01, `solo requests/s ratio, got ${h.ours}`);
  assert.equal(h.kind, 'ci95');
  assert.match(
    headroomText(ratioClaim, h),
    /^ours, not the source's shape: 11\.50× \(95% CI .*solo requests\/s paired by round/,
  );
});
