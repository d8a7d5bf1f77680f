// Claim verdicts (harness/report/claims.ts, claim-verdict.ts): a band that reaches into the range
// and includes "no difference" is "consistent, not resolved", never "confirmed", whatever the
// range; a client-bound claim's second line quotes the claim's own unit (solo requests/s), not
// the table model's efficiency.
import assert from 'node:assert/strict';
import test from 'node:test';
import { bandVerdict, type Claim, evaluateClaims, headroomText } from '../../harness/report/claims.ts';
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
  // A range that excludes no difference, the same band reaching into it: the same verdict.
  const away: Claim = { ...increase, expected: [0.05, 0.16] };
  assert.equal(evaluateClaims([away], snap([cell('a', a), cell('b', b)]))[0]?.verdict, 'consistent, not resolved');
});

test('two claims on identical evidence get the same verdict whether or not their range includes no difference', () => {
  // The same cells, so the same band (about −1% … +9%, ours +4%): two ranges that both contain
  // ours, one reaching down to no difference and one not.
  const b = [10_000, 10_000, 10_000, 10_000, 10_000];
  const a = [9_900, 11_000, 10_200, 10_800, 10_300];
  const touches: Claim = { ...increase, id: 'touches', expected: [0, 0.16] };
  const clear: Claim = { ...increase, id: 'clear', expected: [0.02, 0.16] };
  const [r1, r2] = evaluateClaims([touches, clear], snap([cell('a', a), cell('b', b)]));
  assert.deepEqual(r1?.band, r2?.band, 'identical evidence');
  assert.ok(r1?.band && r1.band[0] < 0 && r1.band[1] > 0.02, JSON.stringify(r1?.band));
  assert.equal(r1?.verdict, 'consistent, not resolved');
  assert.equal(r2?.verdict, r1?.verdict);
  assert.deepEqual(r1?.sharedWith, ['clear'], 'and they say they share their cells');
  // The rule itself: the band against the range, never whether the range includes no difference.
  const rps = { metric: 'rps', compare: 'ratio' } as const;
  for (const expected of [
    [0.9, 1.2],
    [1.01, 1.2],
  ] as [number, number][]) {
    const claim = { ...rps, expected };
    assert.equal(bandVerdict(claim, 'ci95', 1.05, [0.98, 1.12]), 'consistent, not resolved', String(expected));
    assert.equal(bandVerdict(claim, 'ci95', 1.05, [1.02, 1.08]), 'confirmed', String(expected));
    assert.equal(bandVerdict(claim, 'ci95', 1.3, [1.25, 1.35]), 'refuted', String(expected));
    assert.equal(bandVerdict(claim, 'ci95', 1.25, [1.1, 1.4]), 'inconclusive', String(expected));
    assert.equal(bandVerdict(claim, 'range', 1.05, [1.02, 1.08]), 'inconclusive', 'no 95% CI');
  }
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
