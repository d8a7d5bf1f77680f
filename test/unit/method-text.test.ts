// The report's method text and rank rule (report/view/method-view.ts) rendered for the committed
// results and for a fixture snapshot: every threshold and level it prints is the constant the code
// that ranks uses (analysis/table-model.ts, analysis/stats.ts), the design it describes is the
// default profile's (core/profiles.ts), there is one rank rule, and no phrase of a retired design
// (duet windows, a cell's figure as the geometric mean of its trials, a second rank rule) is left.
import assert from 'node:assert/strict';
import path from 'node:path';
import test from 'node:test';
import { readSnapshot } from '../../harness/cli/report.ts';
import { COMPARE_THRESHOLD, MIN_CI_TRIALS, NOISE_THRESHOLD } from '../../harness/analysis/stats.ts';
import {
  ALPHA,
  compare,
  EQUIVALENCE_MARGIN,
  fitTable,
  HETEROGENEITY_ALPHA,
} from '../../harness/analysis/table-model.ts';
import { DEFAULT_PROFILE, getProfile, isConnectionProfile } from '../../harness/core/profiles.ts';
import { EXPORTERS } from '../../harness/report/exporters/exporter-registry.ts';
import type { ReportSnapshot } from '../../harness/report/snapshot.ts';
import { RULE_NUMBERS } from '../../harness/report/view/method-view.ts';
import { buildView } from '../../harness/report/view-build.ts';
import { reportSnapshot } from '../report-fixture.ts';
import { ROOT } from '../helpers.ts';

const NOW = new Date('2026-11-28T00:00:00Z');

/** The rank rule and the Markdown report's "## Method" section of a snapshot. */
function methodText(s: ReportSnapshot): { rule: string; method: string } {
  const v = buildView(s, { now: NOW });
  const md = EXPORTERS.md.render(s, { now: NOW });
  const at = md.indexOf('\n## Method\n');
  assert.ok(at > 0, 'the report has a Method section');
  const end = md.indexOf('\n## ', at + 1);
  const method = md.slice(at, end < 0 ? undefined : end);
  for (const m of v.method) assert.ok(method.includes(`- ${m}`), `the Method section prints ${m.slice(0, 60)}`);
  assert.ok(md.includes(v.rankRule), 'the report prints the rank rule');
  return { rule: v.rankRule, method };
}

const all = (text: string, re: RegExp) => [...text.matchAll(re)].map((m) => m[1]);
const pct = (x: number) => `${Math.round(100 * x)}%`;

function checkText(name: string, { rule, method }: { rule: string; method: string }): void {
  const text = `${rule}\n${method}`;
  // Retired designs and a second rank rule.
  assert.doesNotMatch(text, /duet/i, `${name}: no duet windows`);
  assert.doesNotMatch(text, /geometric mean of its trials/, `${name}: no cell figure over every trial`);
  assert.doesNotMatch(method, /Rank = 1 \+/, `${name}: the method states no second rank rule`);
  assert.equal(all(text, /(best = 1 \+)/g).length, 1, `${name}: one rank rule`);
  // Every CI level printed is the model's (1 − α) or its TOST level (1 − 2α).
  const levels = new Set(all(text, /(\d+%) (?:CI|Student-t)/g));
  assert.deepEqual([...levels].sort(), [pct(1 - 2 * ALPHA), pct(1 - ALPHA)].sort(), `${name}: CI levels`);
  assert.deepEqual(all(rule, /F test at (\d+%)/g), [pct(HETEROGENEITY_ALPHA)], `${name}: the F test's level`);
  assert.deepEqual(
    all(rule, /lies inside (\S+);/g),
    [`${(1 / (1 + EQUIVALENCE_MARGIN)).toFixed(2)}–${(1 + EQUIVALENCE_MARGIN).toFixed(2)}`],
    `${name}: the equivalence bounds`,
  );
  // The ratio threshold is only the no-model rule's (the model has no point threshold).
  assert.deepEqual(
    all(text, /at least (\d\.\d\d)/g),
    [(1 + NOISE_THRESHOLD).toFixed(2)],
    `${name}: 1 + NOISE_THRESHOLD`,
  );
  assert.doesNotMatch(text, /ratio ≥ 1\.\d\d/, `${name}: no point threshold on the model's verdicts`);
  for (const n of all(text, /≥ (\d+) (?:interleaved rounds|solo windows|windows)/g))
    assert.equal(Number(n), MIN_CI_TRIALS, `${name}: trials a rank needs`);
  assert.deepEqual(all(method, /threshold (\d+%)/g), [pct(COMPARE_THRESHOLD)], `${name}: compare's threshold`);
  // The default design as it runs.
  const p = getProfile(DEFAULT_PROFILE);
  const i = isConnectionProfile(p) ? p.interleave : undefined;
  assert.ok(i, 'the default profile interleaves');
  assert.match(method, new RegExp(`the \`${p.name}\` profile`));
  assert.match(method, new RegExp(`from ${p.rounds} solo windows of ${p.durationS} s per cell`));
  assert.match(method, new RegExp(`Ranks and “% of baseline” come from ${i.rounds} interleaved rounds`));
  assert.match(method, new RegExp(`in ${i.instances} server processes per cell`));
  assert.match(method, new RegExp(`${i.sliceMs} ms slices`));
  assert.match(method, /requests per server CPU-second/);
  assert.match(method, /Latency percentiles come from the solo windows’/);
}

test('the method text of the committed results names only the rules and numbers the code uses', () => {
  const { snapshot } = readSnapshot(path.join(ROOT, 'results'), path.join(ROOT, 'scenarios'));
  checkText('committed', methodText(snapshot));
});

test('the method text of a fixture run names only the rules and numbers the code uses', () => {
  checkText('fixture', methodText(reportSnapshot()));
  assert.equal(RULE_NUMBERS.minTrials, MIN_CI_TRIALS);
});

test('the model the rule describes has no point threshold: a 2% ratio whose CI excludes 1 is "faster"', () => {
  const d = [0.019, 0.02, 0.021, 0.0195, 0.0205, 0.02];
  const m = fitTable({ baseline: 'b', rows: [{ name: 'a', d }] });
  const c = compare(m, 'a', 'b');
  assert.ok(c.ratio < 1 + NOISE_THRESHOLD && c.ci[0] > 1, JSON.stringify(c));
  assert.equal(c.verdict, 'faster');
});
