// The restart and re-warm-up order of each later server process (scheduler/rounds.ts
// `restartOrder`): a seeded permutation per process block, so a cell's place in the plan does not
// fix its idle time before the next round.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { restartOrder } from '../../harness/scheduler/rounds.ts';
import type { Entry } from '../../harness/scheduler/scheduler-types.ts';

const entries = Array.from({ length: 16 }, (_, i) => ({ id: `cell-${i + 1}` }) as unknown as Entry);
const ids = (xs: Entry[]) => xs.map((e) => e.id);

test('restartOrder: a permutation of the live servers, reproducible from the seed', () => {
  const a = restartOrder(entries, { seed: 42, groupIndex: 0 }, 2);
  assert.deepEqual([...ids(a)].sort(), [...ids(entries)].sort());
  assert.deepEqual(ids(restartOrder(entries, { seed: 42, groupIndex: 0 }, 2)), ids(a));
  assert.deepEqual(ids(entries)[0], 'cell-1', 'the plan order is left as it is');
});

test("restartOrder: each process block and group has its own order, and no place is a cell's own", () => {
  const orders = [2, 3, 4, 5, 6, 7, 8].map((k) => ids(restartOrder(entries, { seed: 7, groupIndex: 1 }, k)));
  assert.equal(new Set(orders.map((o) => o.join())).size, orders.length, 'a new order per block');
  assert.notDeepEqual(
    ids(restartOrder(entries, { seed: 7, groupIndex: 2 }, 2)),
    orders[0],
    'another group, another order',
  );
  // Over the blocks, the first cell of the plan is not always warmed first (its place varies).
  const places = orders.map((o) => o.indexOf('cell-1'));
  assert.ok(new Set(places).size >= 3, `cell-1's places: ${places}`);
  // Mean place over many seeds: about the middle for every cell (no cell kept early or late).
  const sum = new Map<string, number>();
  for (let seed = 0; seed < 400; seed++)
    for (const [i, id] of ids(restartOrder(entries, { seed, groupIndex: 0 }, 2)).entries())
      sum.set(id, (sum.get(id) ?? 0) + i);
  for (const [id, s] of sum) assert.ok(Math.abs(s / 400 - 7.5) < 1.2, `${id}: mean place ${s / 400}`);
});
