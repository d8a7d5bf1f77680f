// The requests/s column against the ranks (harness/report/rps-order.ts): two ranked rows whose
// requests/s ranges do not overlap and whose order is opposite to their rank order are marked (§)
// with one line in the table's notes; overlapping ranges are not. Fixture cells through the real
// analysis and view builder; nothing starts a server.
import assert from 'node:assert/strict';
import test from 'node:test';
import { mulberry32 } from '../../harness/core/prng.ts';
import { buildTables } from '../../harness/analysis/tables.ts';
import { RPS_ORDER_MARK, rpsOrderInversions } from '../../harness/report/rps-order.ts';
import type { ReportSnapshot } from '../../harness/report/snapshot.ts';
import { buildView } from '../../harness/report/view-build.ts';
import { EXPORTERS } from '../../harness/report/exporters/exporter-registry.ts';
import type { CellResult } from '../../harness/store/results.ts';
import { makeCell, makeMeta } from '../fixtures.ts';

/** A cell with 2 solo windows `solo` (requests/s) and 6 interleaved rounds of efficiency `eff` (seeded noise, σ about 2%). */
function cell(label: string, solo: [number, number], eff: number, seed: number): CellResult {
  const speed = [1, 0.8, 1.2, 0.9, 1.1, 1];
  const rnd = mulberry32(seed);
  const efficiency = speed.map((s) => eff * s * Math.exp(0.04 * (rnd() + rnd() + rnd() - 1.5)));
  const c = makeCell({ runId: 'ra', label, scenario: 'users', trials: solo, rounds: [1, 2] });
  return c.stats ? { ...c, stats: { ...c.stats, paired: { rounds: [1, 2, 3, 4, 5, 6], efficiency } } } : c;
}

const snapshot = (cells: CellResult[]) =>
  ({ runs: [{ meta: makeMeta({ runId: 'ra' }), cells }], scenarios: [] }) as unknown as ReportSnapshot;

test('a row ranked above another whose requests/s range lies wholly below it is marked, with one note', () => {
  // undici ranks above axios +interceptor (more requests per CPU-second) but serves fewer requests/s alone.
  const cells = [
    cell('node-http', [30_000, 30_500], 10_000, 1),
    cell('undici', [13_200, 13_500], 5_000, 2),
    cell('axios +interceptor', [15_100, 15_400], 3_000, 3),
  ];
  const [t] = buildTables([{ meta: makeMeta({ runId: 'ra' }), cells }]);
  assert.ok(t);
  const order = t.rows.map((r) => r.label);
  assert.ok(order.indexOf('undici') < order.indexOf('axios +interceptor'), order.join(', '));
  assert.deepEqual(
    rpsOrderInversions(t.rows).map((x) => [x.above, x.below]),
    [['undici', 'axios +interceptor']],
  );
  const v = buildView(snapshot(cells));
  const tv = v.tables[0];
  assert.ok(tv);
  const marks = Object.fromEntries(tv.rows.map((r) => [r.label, r.rpsMark ?? null]));
  assert.deepEqual(marks, { 'node-http': null, undici: RPS_ORDER_MARK, 'axios +interceptor': RPS_ORDER_MARK });
  const notes = tv.notes.filter((n) => n.startsWith(RPS_ORDER_MARK));
  assert.equal(notes.length, 1);
  assert.match(
    notes[0] ?? '',
    /^§ requests\/s against rank: `undici` \(13,\d{3} requests\/s\) ranks above `axios \+interceptor` \(15,\d{3}\): their requests\/s ranges do not overlap; ranks come from interleaved requests per CPU-second/,
  );
  // The mark beside the figure in the Markdown table.
  const md = EXPORTERS.md.render(snapshot(cells), {});
  assert.match(md, /\| `undici` \| 13,\d{3} § \|/);
});

test('overlapping requests/s ranges, or an order that agrees with the ranks, are not marked', () => {
  const overlap = [
    cell('node-http', [30_000, 30_500], 10_000, 1),
    cell('undici', [13_200, 15_200], 5_000, 2),
    cell('axios +interceptor', [15_100, 15_400], 3_000, 3),
  ];
  const [t1] = buildTables([{ meta: makeMeta({ runId: 'ra' }), cells: overlap }]);
  assert.deepEqual(rpsOrderInversions(t1?.rows ?? []), []);
  const agree = [
    cell('node-http', [30_000, 30_500], 10_000, 1),
    cell('undici', [15_100, 15_400], 5_000, 2),
    cell('axios +interceptor', [13_200, 13_500], 3_000, 3),
  ];
  const [t2] = buildTables([{ meta: makeMeta({ runId: 'ra' }), cells: agree }]);
  assert.deepEqual(rpsOrderInversions(t2?.rows ?? []), []);
  const v = buildView(snapshot(agree));
  assert.ok(v.tables[0]?.rows.every((r) => r.rpsMark === undefined));
  assert.ok(!v.tables[0]?.notes.some((n) => n.startsWith(RPS_ORDER_MARK)));
});
