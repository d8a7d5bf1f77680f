/**
 * The bake-off's reference run (report/snapshot.ts `referenceRunOf`, report/reference-run.ts): the
 * older complete run of the same profile that measured the most of this run's cells, shown beside
 * it "there → here", never in its tables.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { referenceRunOf, type SnapshotRun } from '../../harness/report/snapshot.ts';
import { referenceOf, pairText } from '../../harness/report/reference-run.ts';
import type { MatrixView } from '../../harness/report/view.ts';
import { makeCell, makeMeta } from '../fixtures.ts';

/** A run `id` started at `day` with one cell per label × scenario. */
function run(
  id: string,
  day: string,
  labels: string[],
  o: { profile?: string; state?: 'complete' | 'interrupted'; cpu?: string } = {},
): SnapshotRun {
  return {
    meta: makeMeta({
      runId: id,
      startedAt: `${day}T00:00:00.000Z`,
      profile: o.profile ?? 'quick',
      state: o.state ?? 'complete',
      machine: { cpuModel: o.cpu ?? 'AMD EPYC', cores: 2, memoryBytes: 1, os: 'Linux', arch: 'x64' },
    }),
    cells: labels.flatMap((label) => ['ping', 'json'].map((scenario) => makeCell({ label, scenario, runId: id }))),
  };
}

test('the reference is the older complete run of the profile that shares the most cells, the newest on a tie', () => {
  const mine = run('mine', '2026-11-27', ['node-http', 'fastify', 'nest']);
  const big = run('big', '2026-11-24', ['node-http', 'fastify', 'a', 'b', 'c', 'd']); // more cells, fewer shared
  const full = run('full', '2026-11-25', ['node-http', 'fastify', 'nest']);
  const fullLater = run('full-later', '2026-11-26', ['node-http', 'fastify', 'nest']);
  const otherProfile = run('stress', '2026-11-26', ['node-http', 'fastify', 'nest'], { profile: 'stress' });
  const interrupted = run('cut', '2026-11-26', ['node-http', 'fastify', 'nest'], { state: 'interrupted' });
  const newer = run('newer', '2026-11-28', ['node-http', 'fastify', 'nest']);
  assert.equal(referenceRunOf([big, full, mine], mine)?.meta.runId, 'full');
  assert.equal(
    referenceRunOf([big, full, fullLater, otherProfile, interrupted, mine, newer], mine)?.meta.runId,
    'full-later',
  );
  assert.equal(referenceRunOf([otherProfile, newer, mine], mine), null);
  assert.equal(referenceRunOf([run('none', '2026-11-20', ['x']), mine], mine), null, 'no shared cell: no reference');
});

test('the reference view pairs "there → here" for this run’s contenders only, and says which machine', () => {
  const cell = (figure: number | null, isBaseline = false) => ({
    ratio: figure === null ? null : { figure, interval: null, kind: 'none' as const, n: 0 },
    rank: null,
    status: 'ok',
    flags: [],
    isBaseline,
  });
  const matrix = (contenders: string[], cells: MatrixView['cells']): MatrixView => ({
    scenarios: ['ping'],
    contenders,
    families: [{ baseline: 'node-http', scenarios: ['ping'], contenders }],
    cells,
    noisy: {},
    joined: [],
    profile: 'quick',
    joinedNote: null,
  });
  const yours = matrix(['node-http', 'fastify', 'nest'], {
    ping: { 'node-http': cell(1, true), fastify: cell(0.71), nest: cell(0.5) },
  });
  const theirs = matrix(['node-http', 'fastify', 'koa'], {
    ping: { 'node-http': cell(1, true), fastify: cell(0.97), koa: cell(0.6) },
  });
  const ref = run('d078', '2026-11-26', ['node-http'], { cpu: 'Intel Xeon' });
  const v = referenceOf({
    meta: ref.meta,
    matrix: theirs,
    yours: run('mine', '2026-11-27', []).meta,
    yourMatrix: yours,
    driver: 'wrk',
    cells: 92,
  });
  assert.ok(v);
  assert.deepEqual(
    v.families[0]?.contenders,
    ['fastify', 'nest'],
    'no baseline row, no contender of the reference alone',
  );
  assert.equal(pairText(v.pairs.ping?.fastify), '97 → 71');
  assert.equal(pairText(v.pairs.ping?.nest), '– → 50');
  assert.equal(v.sameHost, false);
  assert.match(v.note, /Reference, not this run: `d078` \(another machine: Intel Xeon, 2026-11-26, wrk, 92 cells\)/);
});
