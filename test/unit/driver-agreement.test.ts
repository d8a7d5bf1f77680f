// Do the drivers agree? (issue 24): per scenario measured by two or more load drivers, Spearman's ρ
// between the orders of the same contenders and the contenders that move; a driver that was the
// bottleneck says so; in the Markdown, HTML and terminal reports. Fixture cells (test/fixtures.ts)
// through the real view builder; nothing starts a server.
import assert from 'node:assert/strict';
import test from 'node:test';
import { EXPORTERS } from '../../harness/report/exporters/exporter-registry.ts';
import { buildView } from '../../harness/report/view-build.ts';
import type { ReportSnapshot } from '../../harness/report/snapshot.ts';
import { makeCell, makeMeta } from '../fixtures.ts';
import { five, reportSnapshot } from '../report-fixture.ts';

const NOW = new Date('2026-11-25T10:00:00Z');

/**
 * `reportSnapshot` (run r2, autocannon: ping node-http 20,000, fastify 19,700 client-bound,
 * express ~9,000, hono 3 trials) plus run `rk` (k6, quick-k6): ping with node-http 10,000,
 * express 9,500, fastify 4,000 (fastify and express swap places) and json with node-http and
 * express in r2's order.
 */
function twoDrivers(): ReportSnapshot {
  const s = reportSnapshot();
  const k6 = (scenario: string, label: string, x: number) =>
    makeCell({ runId: 'rk', driver: 'k6', profile: 'quick-k6', scenario, label, trials: five(x) });
  const rk = [
    k6('ping', 'node-http', 10_000),
    k6('ping', 'express', 9_500),
    k6('ping', 'fastify', 4_000),
    k6('json', 'node-http', 9_000),
    k6('json', 'express', 4_000),
  ];
  return {
    ...s,
    runs: [
      ...s.runs,
      { meta: makeMeta({ runId: 'rk', startedAt: '2026-11-24T00:00:00.000Z', profile: 'quick-k6' }), cells: rk },
    ],
  };
}

test('driver agreement: ρ over the contenders both drivers measured, the movers, the bottleneck; none with one driver', () => {
  const v = buildView(twoDrivers(), { now: NOW });
  const ping = v.driverAgreement.find((d) => d.scenario === 'ping' && d.nodeMajor === 24);
  assert.ok(ping, JSON.stringify(v.driverAgreement));
  assert.equal(ping.pairs.length, 1);
  const p = ping.pairs[0]!;
  assert.deepEqual([p.a, p.b].sort(), ['autocannon', 'k6']);
  // Three contenders in common (hono is only in r2): autocannon 1 node-http, 2 fastify, 3 express;
  // k6 1 node-http, 2 express, 3 fastify: Σd² = 2, ρ = 1 − 6·2 / (3·8) = 0.5.
  assert.equal(p.n, 3);
  assert.ok(Math.abs((p.rho ?? Number.NaN) - 0.5) < 1e-12, String(p.rho));
  assert.match(ping.text, /Spearman’s ρ = 0\.50/);
  assert.match(ping.text, /`express` 3rd by autocannon, 2nd by k6/);
  assert.match(ping.text, /`fastify` 2nd by autocannon, 3rd by k6/);
  assert.match(ping.text, /run `r2`.*run `rk`/);
  assert.match(ping.text, /autocannon was the bottleneck for 1 row \(`fastify`: lower bounds\)/);
  const json = v.driverAgreement.find((d) => d.scenario === 'json');
  assert.match(json?.text ?? '', /over 2 contenders: the same order/);
  assert.equal(json?.pairs[0]?.rho, 1);
  // post has one driver only; so does the plain fixture everywhere.
  assert.ok(!v.driverAgreement.some((d) => d.scenario === 'post'));
  assert.deepEqual(buildView(reportSnapshot(), { now: NOW }).driverAgreement, []);
});

test('driver agreement in the reports: a Markdown section, an HTML section, the terminal sentences with --details', () => {
  const md = EXPORTERS.md.render(twoDrivers(), { now: NOW });
  const section = md.slice(md.indexOf('## Do the drivers agree?'), md.indexOf('## Method'));
  assert.match(
    section,
    /- \*\*ping\*\* \(Node 24\): autocannon \(quick, run `r2`\) and k6 \(quick-k6, run `rk`\) over 3 contenders: Spearman’s ρ = 0\.50/,
  );
  assert.match(md, /\[Do the drivers agree\?\]\(#do-the-drivers-agree\)/);
  assert.match(EXPORTERS.md.render(reportSnapshot(), { now: NOW }), /No scenario was measured by two load drivers/);
  const html = EXPORTERS.html.render(twoDrivers(), { now: NOW });
  assert.match(
    html,
    /<section id="drivers" class="card"><h2>Do the drivers agree\?<\/h2>[\s\S]*<li data-scenario="ping"><strong>ping<\/strong> \(Node 24\)/,
  );
  // The overview is the answer; the drivers' agreement is a detail (--details).
  const term = EXPORTERS.terminal.render(twoDrivers(), { now: NOW, width: 100 });
  assert.doesNotMatch(term, /Drivers: /);
  const detail = EXPORTERS.terminal.render(twoDrivers(), { now: NOW, width: 100, details: true });
  assert.match(detail.replace(/\s+/g, ' '), /Drivers: ping \(Node 24\): autocannon \(quick, run r2\) and k6/);
  for (const line of detail.split('\n')) assert.ok([...line].length <= 100, line);
});
