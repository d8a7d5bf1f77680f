/**
 * The leak rule per request served (harness/analysis/leak.ts), on recorded rounds: a slow or
 * loaded host serves fewer requests per round, so the rise per round shrinks while the KiB kept
 * per 1,000 requests does not; where the rounds served too few requests the report says "not
 * judged", never "none found".
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { judgeLeak, LEAK_RULE } from '../../harness/analysis/leak.ts';
import { findIssues } from '../../harness/report/issues.ts';
import { leakCoverage, trialKey } from '../../harness/report/leak-findings.ts';
import { leakCheckText } from '../../harness/report/view-build.ts';
import { makeCell, makeTrial } from '../fixtures.ts';

const MIB = 2 ** 20;

/** Rounds of a server with `base` MiB that keeps `kib` KiB per request and serves `perRound` requests per round. */
function leakyRounds(base: number, kib: number, perRound: number, n: number) {
  return Array.from({ length: n }, (_, i) => ({
    rssBytes: base * MIB + i * perRound * kib * 1024,
    requests: perRound,
  }));
}

test('the leak fixture (4 KiB per request) is judged the same per request on a fast and on a slow host', () => {
  const fast = judgeLeak(leakyRounds(60, 4, 40_000, 5));
  const slow = judgeLeak(leakyRounds(60, 4, 8_000, 5)); // a host 5× slower: 32,000 requests served over the rounds
  assert.equal(fast.kind, 'leak');
  assert.equal(slow.kind, 'leak');
  assert.ok(fast.kind === 'leak' && slow.kind === 'leak');
  assert.equal(Math.round(fast.keptKiBPer1k ?? 0), 4000);
  assert.equal(Math.round(slow.keptKiBPer1k ?? 0), 4000, 'KiB per 1,000 requests does not depend on the host speed');
});

test('a leak under 50% of the first round (a big server, a slow host) is caught per request; the old 50% rule missed it', () => {
  // 400 MiB, 2 KiB per request, 10,000 requests per round: +78 MiB over 5 rounds, +20%.
  const v = judgeLeak(leakyRounds(400, 2, 10_000, 5));
  assert.equal(v.kind, 'leak');
  assert.ok(v.kind === 'leak' && v.riseBytes < LEAK_RULE.growthFraction * 400 * MIB, 'under the 50% rise');
});

test('healthy warm-up from committed runs is not a leak: rising and persistent, but under 1 KiB per request', () => {
  // nestjs-fastify-undici post, pipelined, run 2026-11-25T12-18-04Z-b72b: 87,211 requests served over its rounds.
  const rss = [144, 145, 146, 169, 178];
  const v = judgeLeak(rss.map((m) => ({ rssBytes: m * MIB, requests: 21_803 })));
  assert.equal(v.kind, 'none');
  assert.ok(v.kind === 'none' && (v.keptKiBPer1k ?? 0) < 500, JSON.stringify(v));
});

test('thin evidence is "not judged": the loaded host of the report (132 → 155 → 172 MiB, 10,000 requests) and 2 rounds', () => {
  // The leaky fixture under quick --rounds 3 with wrk on a loaded machine: +30% against the 50% rule,
  // about 10,000 requests between the middles of its first and last windows.
  const rounds = [132, 155, 172].map((m) => ({ rssBytes: m * MIB, requests: 5_000 }));
  const v = judgeLeak(rounds);
  assert.equal(v.kind, 'not-judged');
  assert.match(
    v.kind === 'not-judged' ? v.why : '',
    /^only 10,000 requests served across its 3 rounds; the rule needs 30,000/,
  );
  assert.equal(judgeLeak(rounds.slice(0, 2)).kind, 'not-judged');
  // The same rounds through the report: no finding, and the report says it could not judge.
  const cell = makeCell({ label: 'leaky', trials: [5_000], resources: {} });
  const trials = [132, 155, 172].map((m, i) => ({
    ...makeTrial(5_000, { label: 'leaky', resources: { server: { rssBytesAvg: m * MIB } } }),
    round: i + 1,
  }));
  const map = new Map([[trialKey(cell), trials]]);
  assert.deepEqual(
    findIssues([cell], { trials: map }).filter((f) => f.rule === 'rss-growth'),
    [],
  );
  const cov = leakCoverage([cell], map);
  assert.equal(cov.checked, 0);
  const text = leakCheckText(cov) ?? '';
  assert.match(text, /Not judged: `leaky` ping \(quick\): only 10,000 requests served across its 3 rounds/);
  // With enough requests the same per-request leak is found and said as such.
  const served = [132, 210, 288].map((m, i) => ({
    ...makeTrial(20_000, { label: 'leaky', resources: { server: { rssBytesAvg: m * MIB } } }),
    round: i + 1,
  }));
  const [found] = findIssues([cell], { trials: new Map([[trialKey(cell), served]]) }).filter(
    (f) => f.rule === 'rss-growth',
  );
  assert.match(found?.evidence ?? '', /132 → 210 → 288 MiB .* about 3994 KiB per 1,000 requests served/);
});
