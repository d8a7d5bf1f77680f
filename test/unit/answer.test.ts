// The report's answer (harness/report/view/answer-view.ts): one plain line per scenario with the
// baseline as the floor, REST frameworks and GraphQL stacks ranked apart, "≈" for a tie and "N×
// slower" from the leader; one confidence line that counts the tables measured beside other
// work; the reference line. Inputs: the contenders' manifests, the report fixture and the
// committed results (skipped in a clone without them).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { buildView } from '../../harness/report/view-build.ts';
import {
  accuracyShort,
  confidenceLine,
  isGraphqlStack,
  markedAnswers,
  referenceLine,
  type ScenarioAnswerView,
  shortTitle,
  timesText,
} from '../../harness/report/view/answer-view.ts';
import { readSnapshot } from '../../harness/cli/report.ts';
import { EXPORTERS } from '../../harness/report/exporters/exporter-registry.ts';
import { HEADLINE_MEASURE, SOLO_RPS } from '../../harness/report/measure.ts';
import { reportSnapshot } from '../report-fixture.ts';
import { ROOT } from '../helpers.ts';

const NOW = new Date('2026-11-22T00:00:00Z');
const committed = readSnapshot(path.join(ROOT, 'results'), path.join(ROOT, 'scenarios')).snapshot;

test("a contender's manifest tags tell a GraphQL stack from a REST framework", () => {
  const dir = path.join(ROOT, 'contenders');
  const kinds = Object.fromEntries(
    fs
      .readdirSync(dir)
      .filter((n) => !n.startsWith('_') && fs.existsSync(path.join(dir, n, 'contender.json')))
      .map((n) => [n, isGraphqlStack(JSON.parse(fs.readFileSync(path.join(dir, n, 'contender.json'), 'utf8')).tags)]),
  );
  for (const n of ['postgraphile-express', 'postgraphile-fastify', 'nestjs-graphql-apollo', 'nestjs-graphql-mercurius'])
    assert.equal(kinds[n], true, n);
  for (const n of ['node-http', 'fastify', 'express', 'hono', 'loopback4', 'nestjs-fastify-undici'])
    assert.equal(kinds[n], false, n);
});

test('titles in short, ratios as "1.04×", "1.2×", "12×"', () => {
  assert.equal(shortTitle('fanout', '5-way parallel upstream fan-out'), '5-way parallel upstream fan-out');
  assert.equal(
    shortTitle(
      'graphql-introspection',
      'GraphQL: the standard introspection query (graphql-js getIntrospectionQuery())',
    ),
    'the standard introspection query',
  );
  assert.deepEqual([1.04, 1.24, 11.6].map(timesText), ['1.04×', '1.2×', '12×']);
});

test('the fixture: one line per scenario, the leader first, the baseline only as the floor', () => {
  const v = buildView(reportSnapshot(), { now: NOW });
  assert.deepEqual(
    v.answer.scenarios.map((a) => a.scenario),
    v.winners.map((w) => w.scenario),
  );
  for (const a of v.answer.scenarios) {
    assert.ok(!a.leaders.includes(a.baseline), `${a.scenario}: the baseline is no leader`);
    assert.equal(a.floor?.label, a.baseline);
    assert.ok(a.text.startsWith(a.leaders.join(' ≈ ')), a.text);
    assert.match(a.text, new RegExp(`floor ${a.baseline} (≈|\\d)`));
    for (const r of a.rest) assert.ok(r.times >= 1, `${r.label} ${r.times}`);
  }
  assert.match(v.answer.confidence, /^Resolution: .* · none of 5 tables measured beside other work · /);
});

test('the committed results: no GraphQL server wins a REST scenario, tables beside other work are said and counted', (t) => {
  if (!committed.runs.length) return t.skip('no committed results');
  const v = buildView(committed, { now: NOW });
  const by = new Map(v.answer.scenarios.map((a) => [a.scenario, a]));
  for (const s of ['ping', 'json', 'echo', 'users', 'post', 'fanout']) {
    const a = by.get(s);
    assert.ok(a, s);
    assert.equal(a.floor?.label, 'node-http');
    assert.ok(!a.leaders.some((l) => /graph|node-http/.test(l)), `${s}: ${a.leaders}`);
  }
  assert.equal(by.get('ping')?.apart?.kind, 'GraphQL stacks');
  assert.deepEqual(by.get('graphql-ping')?.floor?.label, 'postgraphile-express');
  // Each table measured beside other work says so, and the confidence line counts them (or says none was).
  const busy = v.answer.scenarios.filter((a) => a.notQuiet.length);
  for (const a of busy) assert.match(a.text, /\(measured beside other work\)$/);
  for (const a of v.answer.scenarios.filter((x) => !x.notQuiet.length))
    assert.doesNotMatch(a.text, /beside other work/, a.scenario);
  assert.match(
    v.answer.confidence,
    new RegExp(
      `${busy.length ? busy.length : 'none'} of ${v.answer.scenarios.length} tables measured beside other work`,
    ),
  );
});

const answer = (scenario: string, leaders: string[], notQuiet: string[] = []): ScenarioAnswerView => ({
  scenario,
  title: scenario,
  tableId: scenario,
  baseline: 'node-http',
  leaders,
  rest: [],
  floor: null,
  apart: null,
  unranked: [],
  notQuiet,
  text: '',
});

test('the confidence line and the reference line', () => {
  const a = [answer('ping', ['hono', 'fastify'], ['hono']), answer('json', ['fastify']), answer('echo', ['hono'])];
  assert.equal(
    confidenceLine({ medianMdd: 0.14, answers: a, accuracy: '13 of 14 rows within ±10%', selftest: 'not run' }),
    'Resolution: differences under 14% not resolved · 1 of 3 tables measured beside other work (figures may be biased) · accuracy vs steady state: 13 of 14 rows within ±10% · self-test: not run',
  );
  assert.equal(
    referenceLine(a, { ping: ['fastify'], json: ['fastify'], echo: ['fastify', 'express'], post: ['hono'] }),
    'Winners agree with the reference run in 2 of 3 scenarios; differences: echo hono here, fastify ≈ express there.',
  );
  assert.equal(referenceLine(a, {}), null);
  assert.equal(
    accuracyShort(
      'accuracy: 12 of 14 rows within ±10% of the steady-state reference `R`; beyond both intervals: loopback4 json −11.4% (one bake-off; the targets are judged on ≥ 3)',
    ),
    '12 of 14 rows within ±10%; beyond both intervals: loopback4 json −11.4%',
  );
  assert.equal(
    accuracyShort(
      'accuracy: 14 of 14 rows within ±10% of the steady-state reference `R1` + `R2` + `R3`; no row beyond both intervals (mean of 3 bake-offs; targets not met)',
    ),
    '14 of 14 rows within ±10%; no row beyond both intervals',
    'several records read together drop from the short form too',
  );
});

test('a line stays short: at most three tied names, and no repeated "beside other work" when every table was', () => {
  const busy = [answer('ping', ['a', 'b', 'c', 'd', 'e'], ['a']), answer('json', ['b'], ['b'])];
  const marked = markedAnswers(busy.map((x) => ({ ...x, text: 'x (measured beside other work)' })));
  assert.equal(marked[0]?.text, 'a ≈ b ≈ c ≈ 2 more');
  assert.equal(marked[1]?.text, 'b');
  assert.match(
    confidenceLine({ medianMdd: 0.2, answers: busy, accuracy: null, selftest: 'not run' }),
    /· all 2 tables measured beside other work \(figures may be biased\) ·/,
  );
  // One table quiet: each busy line keeps its mark.
  const some = [...busy, answer('echo', ['a'])].map((x) => ({ ...x, text: 'kept' }));
  assert.deepEqual(
    markedAnswers(some).map((x) => x.text),
    ['kept', 'kept', 'kept'],
  );
});

test('one headline measure, one name: the overview, the heatmap legend, the charts, the tables and the export', (t) => {
  if (!committed.runs.length) return t.skip('no committed results');
  const term = EXPORTERS.terminal.render(committed, { now: NOW, width: 100 });
  assert.match(term.split('\n')[0] ?? '', new RegExp(`ranked by ${HEADLINE_MEASURE}`));
  const md = EXPORTERS.md.render(committed, { now: NOW });
  assert.match(md, new RegExp(`one table per baseline \\(${HEADLINE_MEASURE};`));
  const html = EXPORTERS.html.render(committed, { now: NOW });
  assert.match(
    html,
    new RegExp(`<div class="legend-scale"><span>% of each scenario’s baseline \\(${HEADLINE_MEASURE}\\)`),
  );
  const charts = [...html.matchAll(/<h4>([^<]*)<\/h4><div class="chart" data-chart="(\w+)"/g)].map((m) => [m[2], m[1]]);
  const measure = charts.filter(([k]) => k === 'measure');
  assert.ok(measure.length > 0, 'the ranking measure is charted');
  for (const [, title] of measure)
    assert.match(title ?? '', new RegExp(`in ${HEADLINE_MEASURE}, the ranking measure \\(95% CI`));
  // A table charted by its ranking measure labels its requests/s chart as what it is.
  const tables = html.split('<section class="card group').slice(1);
  for (const sec of tables.filter((s) => s.includes('data-chart="measure"')))
    assert.match(sec, new RegExp(`<h4>${SOLO_RPS} \\(`), 'the solo chart is named so');
  const doc = JSON.parse(EXPORTERS.json.render(committed, { now: NOW }));
  const paired = doc.rows.filter(
    (r: { rounds: number | null; slo_p99_ms: number | null }) => r.rounds !== null && r.slo_p99_ms === null,
  );
  assert.ok(paired.length > 0);
  assert.deepEqual([...new Set(paired.map((r: { rank_measure: string }) => r.rank_measure))], [HEADLINE_MEASURE]);
  assert.ok(EXPORTERS.csv.render(committed, { now: NOW }).split('\n')[0]?.includes('rank_measure'));
});
