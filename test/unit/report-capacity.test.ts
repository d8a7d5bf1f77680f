// The capacity report (issue 15): the rank correlation and the p99 at the capacity
// (analysis/capacity.ts), the capacity column set of the Markdown, terminal and HTML tables, the
// overview's capacity matrix with the sentence comparing the capacity ranking to the closed-loop
// one, the early-knee and never findings, the driver-limit note, and the export fields.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  averageRanks,
  compareRankings,
  driverCeilings,
  firstBreak,
  medianCurve,
  orderRanks,
  p99AtCapacity,
  spearman,
} from '../../harness/analysis/capacity.ts';
import { EXPORTERS } from '../../harness/report/exporters/exporter-registry.ts';
import { renderHtmlView } from '../../harness/report/exporters/html.ts';
import { buildView } from '../../harness/report/view-build.ts';
import { findIssues } from '../../harness/report/issues.ts';
import { capacityCell, capacitySnapshot, step } from '../report-capacity-fixture.ts';
import { five } from '../report-fixture.ts';
import { reportSnapshot } from '../report-fixture.ts';

const NOW = new Date('2026-11-22T01:00:00Z');

test('medianCurve: the steps of all searches binned by rate (15% wide on a log scale), median rate and p99 per bin, held counted', () => {
  const pt = (rate: number, p99: number, pass = p99 <= 10) => ({ rate, p99, pass });
  const curve = medianCurve([
    pt(1_000, 2),
    pt(1_010, 4),
    pt(1_020, 3), // one bin: 1,000 and 1,020 are within 15%
    pt(2_000, 8),
    pt(2_030, 30, false), // another bin
    pt(0, 1), // no rate: left out
  ]);
  assert.deepEqual(
    curve.map((p) => [p.rate, p.p99, p.steps, p.held]),
    [
      [1_010, 3, 3, 3],
      [2_015, 19, 2, 1],
    ],
  );
  // The grid is shared by every cell: rates a factor of 1.15² apart never share a bin.
  assert.equal(medianCurve([pt(500, 1), pt(500 * 1.15 ** 2, 1)]).length, 2);
  assert.deepEqual(medianCurve([]), []);
});

test('driverCeilings: per run the highest clean delivered rate (a lower bound on the driver’s ceiling) and the steps at its limit; in every report', () => {
  const ping = capacitySnapshot().runs[0]!.cells.filter((c) => c.scenario === 'ping' && c.capacity);
  const [oha] = driverCeilings(ping);
  // hono's failing steps (1.05 × its caps 14,700–15,300) had the driver at its limit, so they are
  // not clean; its clean 15,300 beats node-http's clean 12,852 (a step that failed the SLO, yet
  // delivered).
  assert.deepEqual(oha, {
    driver: 'oha',
    steps: 5 * 3 * 4 + 40,
    clean: { rps: 15_300, label: 'hono', scenario: 'ping' },
    atLimit: 5,
    lowestAtLimit: { rate: 15_435, label: 'hono', scenario: 'ping' },
  });
  // A step that delivered < 95% of its rate, or failed > 0.1%, is not clean.
  const short = capacityCell('solo', 'ping', { caps: five(1_000), peaks: five(2_000), verdict: 'met' });
  for (const st of short.capacity!.steps) {
    const cap = st.rate > 900 && st.rate <= 1_020;
    st.achievedRps = cap ? st.rate * 0.9 : st.achievedRps;
    st.failed = st.rate > 1_020 ? st.scheduled : 0;
  }
  // Its caps are 980–1,020: the clean steps left are the half-rate ones (490–510).
  assert.deepEqual(driverCeilings([short])[0]?.clean, { rps: 510, label: 'solo', scenario: 'ping' });
  assert.deepEqual(driverCeilings([]), []);
  const md = EXPORTERS.md.render(capacitySnapshot(), { now: NOW });
  assert.match(
    md,
    /- \*\*oha\*\* in run `rc`: it delivered up to 15,300 requests\/s cleanly \(`hono` · ping; [^)]*\), a lower bound on its ceiling; at its limit \(≥ 75% of its core\) in 5 of \d+ steps, the lowest at 15,435 requests\/s offered \(`hono` · ping\)\./,
  );
  const term = EXPORTERS.terminal.render(capacitySnapshot(), { now: NOW, width: 100, details: true });
  assert.match(
    term.replace(/\s+/g, ' '),
    /Driver ceiling: oha in run rc: it delivered up to 15,300 requests\/s cleanly/,
  );
});

test('rank correlation: identical orders give ρ = 1, reversed −1; ties share their average rank; no order gives null', () => {
  assert.equal(spearman([1, 2, 3, 4, 5], [1, 2, 3, 4, 5]), 1);
  assert.equal(spearman([1, 2, 3, 4, 5], [5, 4, 3, 2, 1]), -1);
  // Any numbers whose order is the ranking: figures work as well as ranks.
  assert.equal(spearman([10, 200, 3_000], [1, 2, 3]), 1);
  // Σd² = 6 over 4 items: 1 − 6·6 / (4·15) = 0.4.
  assert.ok(Math.abs((spearman([1, 2, 3, 4], [1, 3, 4, 2]) ?? Number.NaN) - 0.4) < 1e-12);
  assert.deepEqual(averageRanks([10, 20, 20, 30]), [1, 2.5, 2.5, 4]);
  assert.deepEqual(averageRanks([3, 1, 2]), [3, 1, 2]);
  // With a tie: Pearson's r of the average ranks, 4.5 / √22.5.
  assert.ok(Math.abs((spearman([1, 2, 2, 4], [1, 2, 3, 4]) ?? Number.NaN) - 4.5 / Math.sqrt(22.5)) < 1e-12);
  assert.equal(spearman([1, 1, 1], [1, 2, 3]), null, 'all tied: no order to correlate');
  assert.equal(spearman([1], [1]), null);
  assert.throws(() => spearman([1, 2], [1]), RangeError);
  assert.deepEqual(orderRanks([5, 9, 9, 1]), [3, 1, 1, 4]);
});

test('p99 at the capacity: the median of each search’s highest passing step; the step where the SLO breaks', () => {
  const steps = [
    step(1, 1000, 3),
    step(1, 2000, 5),
    step(1, 2100, 20),
    step(2, 1000, 4),
    step(2, 1900, 6),
    step(2, 2000, 15),
    step(3, 500, 30), // a search that never held: no p99 at a capacity
  ];
  assert.equal(p99AtCapacity(steps), 5.5);
  assert.equal(p99AtCapacity([step(1, 100, 50)]), null);
  // A passing step at a rate the majority failed (ratePass false) is not the search's capacity.
  assert.equal(p99AtCapacity([step(1, 1000, 3), { ...step(1, 2000, 5), ratePass: false }]), 3);
  const brk = firstBreak(steps, 10);
  assert.equal(brk?.rate, 500);
  assert.equal(firstBreak(steps.slice(0, 6), 10)?.rate, 2000);
  assert.equal(firstBreak([step(1, 100, 1)], 10), null);
  // A failing step outvoted at a rate that held (issue 23: the majority of its steps) is not the break.
  const outvoted = { ...step(1, 400, 30), ratePass: true };
  assert.equal(firstBreak([outvoted, ...steps.slice(0, 6)], 10)?.rate, 2000);
  assert.equal(firstBreak([{ ...outvoted, ratePass: false }, ...steps.slice(0, 6)], 10)?.rate, 400);
});

test('compareRankings: capacity ranks by the rank rule (5 searches), closed-loop ranks by the peaks, never left out', () => {
  const ping = capacitySnapshot().runs[0]!.cells.filter((c) => c.scenario === 'ping' && c.capacity);
  const cmp = compareRankings(ping);
  assert.equal(cmp.capacityBy, 'rank');
  assert.deepEqual(cmp.excluded, ['slowpoke']);
  const by = Object.fromEntries(cmp.rows.map((r) => [r.label, [r.capacityRank, r.peakRank]]));
  assert.deepEqual(by, { hono: [1, 1], 'node-http': [2, 3], express: [3, 4], fastify: [4, 2] });
  assert.ok(Math.abs((cmp.rho ?? 0) - 0.4) < 1e-12);
  assert.equal(cmp.moves[0]!.label, 'fastify', 'the largest move first');
  // 3 searches per cell: no rank test, the capacity order is the order of the figures.
  const json = capacitySnapshot().runs[0]!.cells.filter((c) => c.scenario === 'json' && c.capacity);
  const j = compareRankings(json);
  assert.equal(j.capacityBy, 'order');
  assert.equal(j.rho, 1);
  assert.deepEqual(j.moves, []);
});

test('markdown: a capacity table has the capacity columns with its SLO, ≥ for a lower bound, and a never cell not ranked with its reason', () => {
  const md = EXPORTERS.md.render(capacitySnapshot(), { now: NOW });
  // The header counts "≥" capacity cells apart from client-bound closed-loop cells (issue 23).
  assert.match(md, /0 client-bound closed-loop \(lower bounds\) · 1 of 6 capacity cells “≥” \(lower bounds\)/);
  const table = md.slice(
    md.indexOf('### <a id="t-ping-capacity-wrk-node24">'),
    md.indexOf('### <a id="t-json-capacity'),
  );
  assert.match(
    table,
    /\| rank \| contender \| sustainable req\/s at p99 ≤ 10 ms \| interval \| % of node-http \| closed-loop peak req\/s \| share of peak at SLO \| p99 at capacity \(ms\) \| searches, steps \| flags \|/,
  );
  assert.match(
    table,
    /\| 1 \| `hono` \| ≥ 15,0\d\d \| 95% CI 14,\d{3}–15,\d{3} \| 12\d% \(95% CI 12\d–12\d%\) \| 31,0\d\d \| 48% \| 4\.00 \| 0 of 5 bracketed, 15 steps \| no search bracketed its capacity \(lower bound\) \|/,
  );
  assert.match(
    table,
    /\| 4 \| `fastify` \| 6,0\d\d \| 95% CI 5,\d{3}–6,\d{3} \| 50% .* \| 21,0\d\d \| 29% \| 4\.00 \| 4 of 5 bracketed, 15 steps \| 1 of 5 searches held more without bracketing \(lower bounds above the figure\) \|/,
  );
  assert.match(table, /\| 2 \| `node-http` \(baseline\) \| 12,0\d\d \|/);
  // never: shown as failed, not ranked, with its reason, never as 0 requests/s.
  assert.doesNotMatch(table, /\| [\d–]+ \| `slowpoke`/);
  assert.match(
    table,
    /Not ranked:\n- `slowpoke`: failed: never held p99 ≤ 10 ms \(lowest rate tried 20 req\/s: p99 40\.0 ms > 10 ms\)/,
  );
  assert.match(table, /`hono` sustained at least 1\.2\d× \(95% CI [\d.–]+\) the rate of `node-http`/);
  assert.match(
    table,
    /- capacity lower bound \(`hono`\): no search bracketed the capacity \(the open-loop driver \(oha\) at its limit, or no failure up to 1\.5 × the median peak\): these capacities are lower bounds\./,
  );
  // 3 searches per cell: the capacity figures are still in the table, unranked.
  const json = md.slice(md.indexOf('### <a id="t-json-capacity'), md.indexOf('## Findings'));
  assert.match(
    json,
    /\| – \| `express` \| 7,1\d\d \| range \(3 trials\) 7,000–7,300 \| 64% .* \| 8,100 \| 88% \| 4\.00 \| 3 searches, 9 steps \| 3 trials \|/,
  );
  assert.match(json, /No contender is ranked in this table: a rank needs 5 searches/);
  assert.doesNotMatch(json, /Not ranked:/);
  // The closed-loop table keeps its columns.
  assert.match(
    md,
    /### <a id="t-ping-quick-wrk-node24"><\/a>ping · quick[\s\S]*?\| rank \| contender \| requests\/s \| interval \|/,
  );
  assert.match(md, /- Capacity \(the `capacity` profile\): per round a closed-loop window gives the peak/);
});

test('markdown overview: the capacity matrix after the % of baseline matrix, and how far the capacity ranking differs from the closed-loop one', () => {
  const md = EXPORTERS.md.render(capacitySnapshot(), { now: NOW });
  const pct = md.indexOf("**% of each scenario's baseline**");
  const cap = md.indexOf('**Sustainable requests/s at p99 ≤ SLO**');
  assert.ok(pct > 0 && cap > pct && cap < md.indexOf('## Details'), 'after the % of baseline matrix, in the overview');
  // The % of baseline matrix answers for ping with the closed-loop table, not the capacity one.
  assert.match(md, /\| \[ping\]\(#t-ping-quick-wrk-node24\) \(quick · wrk · Node 24\) \| `fastify` \|/);
  const block = md.slice(cap, md.indexOf('## Details'));
  assert.match(
    block,
    /\| contender \| \[ping\]\(#t-ping-capacity-wrk-node24\) \(p99 ≤ 10 ms\) \| \[json\]\(#t-json-capacity-wrk-node24\) \(p99 ≤ 10 ms\) \|/,
  );
  assert.match(block, /\| `hono` \| \*\*≥ 15,0\d\d\*\* \(14,\d{3}–15,\d{3}\) · 12\d% \| – \|/);
  assert.match(
    block,
    /\| `node-http` \| 12,0\d\d \(11,\d{3}–12,\d{3}\) · baseline \| 11,2\d\d \(11,000–11,500\) · baseline † \|/,
  );
  assert.match(block, /\| `slowpoke` \| never \| – \|/);
  const rows = block.split('\n').filter((l) => l.startsWith('| `'));
  assert.deepEqual(
    rows.map((l) => l.split('`')[1]),
    ['hono', 'node-http', 'express', 'fastify', 'slowpoke'],
    'contenders by their ratio to the baseline, never last',
  );
  assert.match(
    block,
    /- \*\*ping\*\* \(4 contenders with a capacity; without one: `slowpoke`\): Spearman’s ρ = 0\.40 between the capacity and the closed-loop peak rankings \(capacity ranks: the rank rule\); `fastify` is 2nd by closed-loop peak but 4th at p99 ≤ 10 ms; `express` is 4th by closed-loop peak but 3rd at p99 ≤ 10 ms; `node-http` is 3rd by closed-loop peak but 2nd at p99 ≤ 10 ms\./,
  );
  assert.match(
    block,
    /- \*\*json\*\* .*ρ = 1\.00 .*the order of the figures, as fewer than 5 searches per cell allow no rank test\); no contender changes rank\./,
  );
  assert.match(block, /closed-loop ranks are a plain ordering of the peaks, no significance test/);
  // Without capacity cells there is no capacity block.
  const plain = buildView(reportSnapshot(), { now: NOW });
  assert.equal(plain.capacity, null);
  assert.doesNotMatch(EXPORTERS.md.render(reportSnapshot(), { now: NOW }), /Sustainable requests\/s|Capacity \(the/);
});

test('issues: an early knee with its figures and the step where p99 passes the SLO; none for a lower bound; never is a finding', () => {
  const cells = capacitySnapshot().runs[0]!.cells;
  const found = findIssues([...cells]);
  const knee = found.filter((f) => f.rule === 'early-knee');
  assert.deepEqual(
    knee.map((f) => f.label),
    ['fastify'],
    'hono’s knee is 48% too, but its capacity is a lower bound (the driver’s limit)',
  );
  assert.equal(knee[0]!.severity, 'minor');
  assert.match(
    knee[0]!.title,
    /^low share of peak at SLO: the capacity at p99 ≤ 10 ms is 29% of the closed-loop peak$/,
  );
  assert.match(
    knee[0]!.evidence,
    /^`fastify`'s capacity at p99 ≤ 10 ms is 29% of its closed-loop peak \(6,0\d\d of 21,0\d\d req\/s, run rc\): p99 passes 10 ms from about 6,174 req\/s \(step 6,174 req\/s → p99 25\.0 ms\)/,
  );
  const never = found.find((f) => f.rule === 'capacity-never');
  assert.equal(never?.label, 'slowpoke');
  assert.equal(never?.severity, 'major');
  assert.match(
    never?.evidence ?? '',
    /5 of 5 searches found no open-loop rate with p99 ≤ 10 ms .*lowest step 20 req\/s → p99 40\.0 ms;/,
  );
  // A knee at 50% or more, or a met search without a failing step, is no finding.
  const ok = capacityCell('a', 'ping', { caps: [5_000], peaks: [10_000], verdict: 'met' });
  assert.deepEqual(findIssues([ok]), []);
  const md = EXPORTERS.md.render(capacitySnapshot(), { now: NOW });
  assert.match(
    md,
    /- \*\*minor\*\* · `fastify` · ping \(capacity\): \*\*low share of peak at SLO: the capacity at p99 ≤ 10 ms is 29% of the closed-loop peak\*\*\. `fastify`'s capacity/,
  );
});

test('terminal: the capacity column set and the capacity matrix', () => {
  const text = EXPORTERS.terminal.render(capacitySnapshot(), { now: NOW, details: true, width: 200 });
  const lines = text.split('\n');
  const head = lines.findIndex((l) =>
    l.startsWith('ping · capacity · wrk · Node 24 · run rc · sustainable req/s at p99 ≤ 10 ms'),
  );
  assert.ok(head > 0);
  assert.match(
    lines[head + 1]!,
    /^ {2}#\s+contender\s+sustainable req\/s at p99 ≤ 10 ms\s+(?:interval|95% CI)\s+peak req\/s\s+share of peak\s+p99 at cap ms\s+searches, steps\s+flags$/,
  );
  assert.match(
    lines[head + 2]!,
    /^ {2}1\s+hono\s+≥ 15,0\d\d\s+(?:95% CI )?[\d,–]+\s+31,0\d\d\s+48%\s+4\.00\s+0 of 5 bracketed, 15 steps\s+no search bracketed/,
  );
  assert.match(text, /– slowpoke \(failed\): failed: never held p99 ≤ 10 ms/);
  assert.match(text, /Sustainable requests\/s at p99 ≤ the SLO/);
  // The matrix cell, short: thousands as k, the bounds rounded outward, the % of baseline.
  assert.match(text, /\*≥15\.\dk \(14\.\d–15\.\dk\) 12\d%/);
  assert.match(text, /ping \(4 contenders with a capacity; without one: slowpoke\): Spearman’s ρ = 0\.40/);
});

test('HTML: capacity columns, the overview’s capacity matrix and rankings, and a latency-versus-rate chart per capacity table', () => {
  const page = renderHtmlView(buildView(capacitySnapshot(), { now: NOW }), '/* no charts */');
  const section = page.slice(page.indexOf('id="t-ping-capacity-wrk-node24"'), page.indexOf('id="t-json-capacity'));
  assert.match(section, /<button type="button">sustainable req\/s at p99 ≤ 10 ms<\/button>/);
  assert.match(section, /<button type="button">closed-loop peak req\/s<\/button>/);
  assert.match(section, /data-chart="capacity" data-table="t-ping-capacity-wrk-node24"/);
  assert.match(section, /dashed: the SLO, p99 ≤ 10 ms/);
  assert.match(section, /<tr data-label="hono"><td class="num" data-v="1">1<\/td>.*≥ 15,0\d\d<\/td>/);
  assert.doesNotMatch(
    page.slice(page.indexOf('id="t-ping-quick'), page.indexOf('id="t-ping-capacity')),
    /data-chart="capacity"/,
  );
  const overview = page.slice(page.indexOf('<section id="overview"'), page.indexOf('<section id="controls"'));
  assert.match(overview, /<table class="heatmap capacity"/);
  assert.match(
    overview,
    /<td data-label="slowpoke" data-scenario="ping" class="cap-none" title="failed: never held p99 ≤ 10 ms[^"]*"><a[^>]*>never<\/a>/,
  );
  assert.match(
    overview,
    /<li><strong>ping<\/strong> \(4 contenders with a capacity; without one: <code>slowpoke<\/code>\): Spearman’s ρ = 0\.40/,
  );
  // The page data carries per contender the median curve of its steps (15 steps of 5 searches:
  // rates 0.5, 1 and 1.05 × its caps, so 3 bins, each holding 5 steps), sorted by rate, and the SLO.
  const json = page.slice(
    page.indexOf('<script type="application/json" id="bench-data">') + 48,
    page.indexOf('</script>'),
  );
  const data = JSON.parse(json) as {
    tables: { id: string; capacity: { slo: number; curves: { label: string; points: number[][] }[] } | null }[];
  };
  const t = data.tables.find((x) => x.id === 't-ping-capacity-wrk-node24');
  assert.equal(t?.capacity?.slo, 10);
  const hono = t?.capacity?.curves.find((c) => c.label === 'hono');
  assert.deepEqual(
    hono?.points.map((p) => [p[2], p[3]]),
    [
      [5, 5],
      [5, 5],
      [5, 0],
    ],
  );
  const rates = hono?.points.map((p) => p[0]) ?? [];
  assert.deepEqual(
    rates,
    [...rates].sort((a, b) => a! - b!),
  );
  assert.ok(
    t?.capacity?.curves.some((c) => c.label === 'slowpoke'),
    'a never cell’s curve is drawn too',
  );
  assert.equal(data.tables.find((x) => x.id === 't-ping-quick-wrk-node24')?.capacity, null);
});

test('export: capacity rows carry the SLO, sustainable rate with its bounds, peak, knee, p99 at capacity, verdict, steps', () => {
  const doc = JSON.parse(EXPORTERS.json.render(capacitySnapshot(), { now: NOW })) as {
    rows: Record<string, unknown>[];
  };
  const hono = doc.rows.find((r) => r.label === 'hono');
  assert.ok(hono);
  assert.equal(hono.slo_p99_ms, 10);
  assert.equal(hono.verdict, 'at-least');
  assert.equal(hono.sustainable_rps, hono.rps);
  assert.ok(Number.isInteger(hono.sustainable_rps) && Number.isInteger(hono.peak_rps));
  assert.ok((hono.sustainable_rps_low as number) <= (hono.sustainable_rps as number));
  assert.ok((hono.sustainable_rps as number) <= (hono.sustainable_rps_high as number));
  assert.equal(hono.knee, 0.484);
  assert.equal(hono.p99_at_capacity_ms, 4);
  assert.equal(hono.searches_bracketed, 0, 'no search bracketed: the lower bound');
  assert.equal(hono.steps, 15);
  assert.equal(hono.searches, 5);
  assert.equal(hono.p99_ms, null, 'a capacity row’s latency is its curve, not the closed-loop window’s');
  const never = doc.rows.find((r) => r.label === 'slowpoke');
  assert.equal(never?.verdict, 'never');
  assert.equal(never?.sustainable_rps, null);
  assert.equal(never?.failed, true);
  const closed = doc.rows.find((r) => r.profile === 'quick');
  assert.equal(closed?.verdict, null);
  assert.equal(closed?.slo_p99_ms, null);
  const csv = EXPORTERS.csv.render(capacitySnapshot(), { now: NOW });
  assert.match(
    csv.split('\n')[0]!,
    /,slo_p99_ms,sustainable_rps,sustainable_rps_low,sustainable_rps_high,peak_rps,knee,p99_at_capacity_ms,verdict,steps,searches,searches_bracketed,/,
  );
  assert.match(csv, /,10,15\d{3},14\d{3},15\d{3},31\d{3},0\.484,4,at-least,15,5,0,/);
});
