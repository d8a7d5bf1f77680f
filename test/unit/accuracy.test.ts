// Accuracy rules of the report: derived notes from the table model (variant overhead), one
// estimator per table (solo requests/s against interleaved efficiency), capacity cells whose
// searches disagree, the rank-rule text. Fixture cells (test/fixtures.ts) through the real
// analysis and view builder; nothing starts a server.
import assert from 'node:assert/strict';
import test from 'node:test';
import { mulberry32 } from '../../harness/core/prng.ts';
import { buildTables } from '../../harness/analysis/tables.ts';
import { compareRankings, reconcileCapacity } from '../../harness/analysis/capacity.ts';
import { cellEstimate } from '../../harness/analysis/stats.ts';
import { estimatorGaps } from '../../harness/analysis/estimator-agreement.ts';
import { CSV_COLUMNS } from '../../harness/report/exporters/csv.ts';
import { EXPORTERS } from '../../harness/report/exporters/exporter-registry.ts';
import { exportRows } from '../../harness/report/exporters/rows.ts';
import { describeOverhead, variantOverheads } from '../../harness/report/variant-overhead.ts';
import type { ReportSnapshot } from '../../harness/report/snapshot.ts';
import { buildView, RANK_RULE } from '../../harness/report/view-build.ts';
import type { CellResult } from '../../harness/store/results.ts';
import { makeCell, makeMeta, makeResources } from '../fixtures.ts';
import { capacityCell, step } from '../report-capacity-fixture.ts';

/**
 * A cell of run `ra` on `scenario` with solo trials `solo` (requests/s) and 6 interleaved rounds
 * of efficiency `eff` × the round's host speed × seeded noise (σ about 2%).
 */
function cell(label: string, solo: number[], eff: number, seed: number, scenario = 'fanout'): CellResult {
  const speed = [1, 0.8, 1.2, 0.9, 1.1, 1];
  const rnd = mulberry32(seed);
  const efficiency = speed.map((s) => eff * s * Math.exp(0.04 * (rnd() + rnd() + rnd() - 1.5)));
  const c = makeCell({ runId: 'ra', label, scenario, trials: solo, rounds: solo.map((_, i) => i + 1) });
  return c.stats ? { ...c, stats: { ...c.stats, paired: { rounds: [1, 2, 3, 4, 5, 6], efficiency } } } : c;
}

function snapshot(cells: CellResult[]): ReportSnapshot {
  return { runs: [{ meta: makeMeta({ runId: 'ra' }), cells }], scenarios: [] } as unknown as ReportSnapshot;
}

test('variant overhead comes from the table model with its 95% CI: a significant overhead is said, never "no measurable overhead" from 2 solo trials', () => {
  // Two solo trials each (no 95% CI from them); interleaved: the variant is 16% less efficient.
  const cells = [
    cell('node-http', [20_000, 20_400], 10_000, 1),
    cell('nest', [5_000, 5_300], 4_000, 2),
    cell('nest +interceptor', [4_900, 5_200], 4_000 * 0.84, 3),
    cell('nest +log', [5_050, 5_150], 4_000 * 1.001, 4),
  ];
  const [t] = buildTables([{ meta: makeMeta({ runId: 'ra' }), cells }]);
  assert.ok(t?.fit, 'the table has a model');
  const by = Object.fromEntries(variantOverheads(cells, t.fit).map((o) => [o.label, o]));
  const ic = by['nest +interceptor'];
  assert.ok(ic);
  assert.equal(ic.source, 'model');
  assert.equal(ic.verdict, 'overhead');
  assert.ok(ic.interval && ic.interval[0] > 0.1 && ic.overhead > 0.15 && ic.overhead < 0.25, JSON.stringify(ic));
  assert.match(describeOverhead(ic), /^\+\d\d\.\d% time per request \(95% interval \+\d+\.\d% … \+\d+\.\d%\)$/);
  // The same cells without the model: 2 solo trials never give "no measurable overhead".
  for (const o of variantOverheads(cells)) {
    assert.equal(o.source, 'trials');
    assert.equal(o.verdict, 'not resolved');
    assert.doesNotMatch(describeOverhead(o), /no measurable/);
  }
  // "equal within 5%" only when the model's TOST interval says so.
  const log = by['nest +log'];
  assert.ok(log);
  assert.ok(log.verdict === 'equal within 5%' || log.verdict === 'not resolved', log.verdict);
  if (log.verdict === 'equal within 5%') assert.ok(log.tost && log.tost[0] > -0.05 && log.tost[1] < 0.05);
  // The report's lines say the model's verdict.
  const view = buildView(snapshot(cells), { now: new Date('2026-11-27T00:00:00Z') });
  const lines = view.tables.flatMap((x) => x.variants);
  assert.ok(
    lines.some((l) =>
      /^`nest \+interceptor` vs `nest`: \+\d\d\.\d% CPU time per request \(95% CI, table model \+\d+\.\d% … \+\d+\.\d%\)\.$/.test(
        l,
      ),
    ),
    lines.join('\n'),
  );
  assert.ok(!lines.some((l) => /no measurable overhead/.test(l)), lines.join('\n'));
});

test('the rank-rule text describes the two-way model the tables use', () => {
  assert.match(RANK_RULE, /two-way model/);
  assert.match(RANK_RULE, /round effect/);
  assert.match(RANK_RULE, /baseline a noisy row like the others/);
  assert.doesNotMatch(
    RANK_RULE,
    /^[^.]*each row's per-round log-ratio to the baseline of the same round, noise pooled over the table;/,
  );
});

test('one estimator per table: a row whose solo requests/s ratio and interleaved ratio disagree beyond their intervals is flagged in the terminal, Markdown and HTML', () => {
  // Solo windows: lb4 serves 6% of node-http's requests/s; interleaved rounds: 9% of its efficiency.
  const cells = [
    cell('node-http', [60_000, 61_000], 10_000, 11, 'json'),
    cell('fastify', [45_000, 45_600], 7_500, 12, 'json'),
    cell('express', [20_000, 20_500], 3_330, 13, 'json'),
    cell('hono', [30_000, 30_200], 5_000, 14, 'json'),
    cell('lb4', [3_600, 3_650], 900, 15, 'json'),
  ];
  const [t] = buildTables([{ meta: makeMeta({ runId: 'ra' }), cells }]);
  assert.equal(t?.fit?.kind, 'two-way');
  const flagged = t.rows.filter((r) => r.flags.estimatorGap).map((r) => r.label);
  assert.deepEqual(flagged, ['lb4'], 'only the row whose two ratios disagree');
  const g = t.rows.find((r) => r.label === 'lb4')?.flags.estimatorGap;
  assert.ok(g && g.solo.ratio < 0.065 && g.interleaved.ratio > 0.08 && g.factor < 0.75, JSON.stringify(g));
  // The agreeing rows carry a gap that is not flagged (and would be, planted as lb4's).
  const gaps = estimatorGaps(
    t.fit!,
    cells.map((c) => ({ label: c.label, rounds: c.stats?.rounds ?? [], rps: c.stats?.trialRps ?? [] })),
  );
  assert.equal(gaps.length, 4);
  assert.ok(gaps.filter((x) => x.label !== 'lb4').every((x) => !x.disagree && Math.abs(Math.log(x.factor)) < 0.05));
  const snap = snapshot(cells);
  const now = new Date('2026-11-27T00:00:00Z');
  const term = EXPORTERS.terminal.render(snap, { now, details: true, width: 200 });
  const md = EXPORTERS.md.render(snap, { now });
  const html = EXPORTERS.html.render(snap, { now });
  for (const [name, out] of [
    ['terminal', term],
    ['markdown', md],
    ['html', html],
  ] as const) {
    assert.match(
      out,
      /solo requests\/s 6\.\d% of baseline \(95% CI [\d.]+–[\d.]+%\) ≠ interleaved [89]\.\d%/,
      `${name}: the row's flag`,
    );
    assert.match(out, /estimators disagree/, `${name}: the table's note`);
  }
});

test('a client-bound mark from a solo window never lands on an interleaved requests-per-CPU-second ratio', () => {
  // fastify's solo windows were client-bound (its requests/s a lower bound); its ratio comes from interleaved rounds.
  const bound = (c: CellResult): CellResult => ({ ...c, resources: makeResources({ clientBound: true }) });
  const cells = [
    cell('node-http', [60_000, 61_000], 10_000, 21, 'json'),
    bound(cell('fastify', [45_000, 45_600], 7_500, 22, 'json')),
    cell('express', [20_000, 20_500], 3_330, 23, 'json'),
  ];
  const v = buildView(snapshot(cells), { now: new Date('2026-11-27T00:00:00Z') });
  const m = v.matrix.cells.json?.fastify;
  assert.ok(m?.ratio, 'a ratio from the interleaved rounds');
  assert.deepEqual(m.flags, [], 'no "≥" on the interleaved ratio');
  const row = v.tables[0]?.rows.find((r) => r.label === 'fastify');
  assert.ok(row?.clientBound && row.paired > 0, 'the row still says its solo requests/s are a lower bound');
  // The same cell without interleaved rounds: its ratio is of solo requests/s, and keeps the mark.
  const solo = cells.map((c) => (c.stats ? { ...c, stats: { ...c.stats, paired: undefined } } : c));
  const w = buildView(snapshot(solo), { now: new Date('2026-11-27T00:00:00Z') });
  assert.ok(w.matrix.cells.json?.fastify?.flags.includes('≥'), JSON.stringify(w.matrix.cells.json?.fastify));
});

test('the export counts the rounds and processes a ratio and rank rest on, beside the solo windows of requests/s', () => {
  // 6 interleaved rounds in 3 server processes (2 rounds each), 2 solo windows per cell.
  const inThree = (c: CellResult): CellResult =>
    c.stats?.paired ? { ...c, stats: { ...c.stats, paired: { ...c.stats.paired, instances: [1, 1, 2, 2, 3, 3] } } } : c;
  const cells = [
    cell('node-http', [60_000, 61_000], 10_000, 31, 'json'),
    cell('fastify', [45_000, 45_600], 7_500, 32, 'json'),
    cell('express', [20_000, 20_500], 3_330, 33, 'json'),
  ].map(inThree);
  const snap = snapshot(cells);
  const rows = exportRows(snap, buildView(snap, { now: new Date('2026-11-27T00:00:00Z') }));
  const f = rows.find((r) => r.label === 'fastify') ?? assert.fail('no row');
  assert.deepEqual([f.trials, f.rounds, f.processes], [2, 6, 3]);
  assert.ok(f.pct_of_baseline !== null && f.rank !== null);
  assert.ok(CSV_COLUMNS.includes('rounds') && CSV_COLUMNS.includes('processes'));
  // Solo rounds only: no interleaved rounds to count.
  const solo = cells.map((c) => (c.stats ? { ...c, stats: { ...c.stats, paired: undefined } } : c));
  const s = exportRows(snapshot(solo), buildView(snapshot(solo), { now: new Date('2026-11-27T00:00:00Z') }));
  assert.deepEqual(
    s.filter((r) => r.label === 'fastify').map((r) => [r.trials, r.rounds, r.processes]),
    [[2, null, null]],
  );
});

test('a capacity ratio whose baseline is a lower bound prints as a bound, not a CI', () => {
  const five = (x: number) => [1, 1.02, 0.98, 1.01, 0.99].map((w) => x * w);
  const cap = (label: string, rate: number, verdict: 'met' | 'at-least') =>
    capacityCell(label, 'ping', {
      caps: five(rate),
      peaks: five(2 * rate),
      verdict,
      bracketed: verdict === 'met' ? 5 : 0,
    });
  const cells = [cap('node-http', 12_000, 'at-least'), cap('express', 8_000, 'met'), cap('hono', 13_000, 'at-least')];
  const snap = snapshot(cells.map((c) => ({ ...c, runId: 'ra' })));
  const v = buildView(snap, { now: new Date('2026-11-27T00:00:00Z') });
  const t = v.tables.find((x) => x.capacity) ?? assert.fail('no capacity table');
  const row = (l: string) => t.rows.find((r) => r.label === l) ?? assert.fail(l);
  assert.ok(row('express').ratio && row('express').ratio?.interval === null && row('express').ratio?.kind === 'none');
  assert.ok(
    row('express').flags.includes('% of node-http: at most 67% (its sustainable rate is a lower bound)'),
    row('express').flags.join('; '),
  );
  assert.ok(row('hono').flags.includes('% of node-http: no bound (both sustainable rates are lower bounds)'));
  const md = EXPORTERS.md.render(snap, { now: new Date('2026-11-27T00:00:00Z') });
  assert.doesNotMatch(md, /\| `express` \|[^\n]*\| 67% \(95% CI/);
  assert.match(md, /\| `express` \|[^\n]*\| 67% \(no interval\) \|[^\n]*at most 67%/);
  // With a baseline that bracketed its capacity, the ratio keeps its interval.
  const exact = [cap('node-http', 12_000, 'met'), cap('express', 8_000, 'met')].map((c) => ({ ...c, runId: 'ra' }));
  const w = buildView(snapshot(exact), { now: new Date('2026-11-27T00:00:00Z') });
  const e = w.tables.find((x) => x.capacity)?.rows.find((r) => r.label === 'express');
  assert.equal(e?.ratio?.kind, 'ci95');
});

/**
 * A capacity cell of 5 searches whose 2 bracketed searches found about 14,500 req/s while its 3
 * other searches held 50,151–54,217 req/s without bracketing (a run's nestjs-fastify-undici on ping).
 */
function disagreeing(): CellResult {
  const base = capacityCell('nfu', 'ping', {
    caps: [14_742, 14_268],
    peaks: [60_000, 61_000, 59_000, 60_500, 60_200],
    verdict: 'met',
    bracketed: 2,
  });
  const k = base.capacity!;
  const held = [
    [3, 54_217],
    [4, 50_310],
    [5, 50_151],
  ].flatMap(([s = 0, r = 0]) => [step(s, Math.round(r / 2), 2), step(s, r, 4)]);
  return { ...base, capacity: { ...k, searches: 5, boundsAbove: 3, steps: [...k.steps, ...held] } };
}

test('capacity: a cell whose other searches held more than its bracketed figure is "≥" over every search, with a range that includes them; ρ follows the new figure', () => {
  const c = disagreeing();
  assert.equal(cellEstimate(c).figure < 14_800, true, 'as stored: the bracketed searches only');
  const r = reconcileCapacity(c);
  const k = r.capacity!;
  assert.equal(k.verdict, 'at-least');
  assert.equal(k.heldAbove, 3);
  assert.deepEqual(k.rps?.interval, [14_268, 54_217], 'the range includes every held rate');
  const gm = Math.exp([14_742, 14_268, 54_217, 50_310, 50_151].reduce((a, x) => a + Math.log(x), 0) / 5);
  assert.ok(Math.abs(k.rps!.figure - gm) < 1e-6);
  assert.equal(cellEstimate(r).figure, k.rps!.figure, 'the table, ranks and ρ read the new figure');
  assert.equal(cellEstimate(r).kind, 'range');
  assert.equal(reconcileCapacity(r), r, 'idempotent');
  // A cell whose searches agree keeps "met" and its figure.
  const ok = capacityCell('node-http', 'ping', {
    caps: [30_000, 31_000, 29_500],
    peaks: [40_000, 41_000, 39_000],
    verdict: 'met',
    bracketed: 3,
  });
  assert.equal(reconcileCapacity(ok), ok);
  // In a table: the row shows ≥ and the flag; Spearman's ρ is computed from the new figure.
  const peers = [
    ok,
    capacityCell('express', 'ping', {
      caps: [20_000, 20_500, 19_800],
      peaks: [22_000, 22_500, 21_900],
      verdict: 'met',
      bracketed: 3,
    }),
    capacityCell('fastify', 'ping', {
      caps: [40_000, 41_000, 39_000],
      peaks: [45_000, 46_000, 44_000],
      verdict: 'met',
      bracketed: 3,
    }),
  ];
  const before = compareRankings([c, ...peers]);
  const after = compareRankings([r, ...peers]);
  assert.notEqual(before.rho, after.rho, 'the figure moves nfu from last to second by capacity');
  const view = buildView(
    {
      runs: [{ meta: makeMeta({ runId: 'rc', profile: 'capacity' }), cells: [c, ...peers] }],
      scenarios: [],
    } as unknown as ReportSnapshot,
    { now: new Date('2026-11-27T00:00:00Z') },
  );
  const line = view.capacity?.rankings.find((x) => x.scenario === 'ping');
  assert.equal(line?.rho, after.rho);
  const row = view.tables.flatMap((t) => t.rows).find((x) => x.label === 'nfu');
  assert.equal(row?.capacity?.verdict, 'at-least');
  assert.ok(
    row?.flags.some((f) => /3 of 5 searches held more than the bracketed figure/.test(f)),
    row?.flags.join('; '),
  );
  assert.ok(row?.rps?.interval && row.rps.interval[1] >= 54_217);
});
