// The Node.js version matrix (issue 24): each major as a % of the same contender on Node 24 in the
// same run, with a 95% CI and verdict from one model over the interleaved cells of a scenario;
// an unpaired fallback for cells without interleaved rounds; an unsupported cell says why.
// Fixture cells (test/fixtures.ts) through the real view builder; nothing starts a server.
import assert from 'node:assert/strict';
import test from 'node:test';
import { mulberry32 } from '../../harness/core/prng.ts';
import { EXPORTERS } from '../../harness/report/exporters/exporter-registry.ts';
import type { ReportSnapshot } from '../../harness/report/snapshot.ts';
import { buildView } from '../../harness/report/view-build.ts';
import type { CellResult } from '../../harness/store/results.ts';
import { makeCell, makeMeta } from '../fixtures.ts';
import { five } from '../report-fixture.ts';

const NOW = new Date('2026-11-25T10:00:00Z');

/**
 * One cell measured in 6 interleaved rounds of 3 server processes: efficiency `eff` × the
 * round's host speed `speed[i]` × seeded noise (σ 2%).
 */
function interleaved(label: string, major: number, eff: number, speed: number[], seed: number): CellResult {
  const rnd = mulberry32(seed);
  const efficiency = speed.map((s) => eff * s * Math.exp(0.02 * (rnd() + rnd() + rnd() - 1.5) * 2));
  const c = makeCell({
    runId: 'rn',
    label,
    scenario: 'json',
    node: { version: `v${major}.0.0`, major },
    trials: five(eff),
  });
  return {
    ...c,
    stats: c.stats
      ? { ...c.stats, paired: { rounds: [1, 2, 3, 4, 5, 6], efficiency, instances: [1, 1, 2, 2, 3, 3] } }
      : c.stats,
  };
}

function matrixSnapshot(): ReportSnapshot {
  // The host's speed swings ±30% between rounds: paired by round, the ratios still resolve.
  const speed = [1, 0.7, 1.3, 0.8, 1.2, 1];
  const cells = [
    interleaved('node-http', 22, 9_000, speed, 1),
    interleaved('node-http', 24, 10_000, speed, 2),
    interleaved('fastify', 22, 10_000, speed, 3),
    interleaved('fastify', 24, 10_000, speed, 4),
    makeCell({
      runId: 'rn',
      label: 'fastify',
      scenario: 'json',
      node: { version: 'v20.0.0', major: 20 },
      status: 'unsupported',
      load: null,
      failure: { reason: 'unsupported on Node 20: undici@8.0.0 requires node >=22', logTail: '' },
    }),
  ];
  return {
    runs: [{ meta: makeMeta({ runId: 'rn', nodes: [] }), cells }],
    scenarios: [],
  } as unknown as ReportSnapshot;
}

test('Node matrix: % of the same contender on Node 24 from one model over the interleaved majors; unsupported says why', () => {
  const v = buildView(matrixSnapshot(), { now: NOW });
  assert.equal(v.nodeMatrix.length, 1, JSON.stringify(v.nodeMatrix));
  const m = v.nodeMatrix[0]!;
  assert.equal(m.reference, 24);
  assert.equal(m.runId, 'rn');
  assert.deepEqual(m.majors, [20, 22, 24]);
  const row = (label: string) => m.rows.find((r) => r.label === label && r.scenario === 'json')?.cols ?? [];
  const [f20, f22, f24] = row('fastify');
  assert.match(f20 ?? '', /^unsupported on Node 20: undici@8\.0\.0 requires node >=22$/);
  assert.match(f24 ?? '', /^100% · [\d,]+ req\/s$/);
  // fastify: the same efficiency on both majors → about 100%, its CI around 1.
  const ci = (s: string) => /^(\d+)% \(95% CI (\d+)%–(\d+)%\) (.+)$/.exec(s);
  const f = ci(f22 ?? '');
  assert.ok(f, f22 ?? '');
  assert.ok(Number(f[2]) <= 100 && Number(f[3]) >= 100, f22 ?? '');
  // node-http on 22: 90% of 24, resolved despite the ±30% host swings (paired by round).
  const n = ci(row('node-http')[1] ?? '');
  assert.ok(n, row('node-http')[1] ?? '');
  assert.ok(Math.abs(Number(n[1]) - 90) <= 2, n[0]);
  assert.ok(Number(n[3]) < 100, `resolved: ${n[0]}`);
  assert.equal(n[4], 'slower');
  const md = EXPORTERS.md.render(matrixSnapshot(), { now: NOW });
  assert.match(
    md,
    /\| contender \| scenario \| Node 20 \(% of Node 24\) \| Node 22 \(% of Node 24\) \| Node 24 \(reference\) \|/,
  );
  assert.match(
    md,
    /\| `fastify` \| json \| unsupported on Node 20: undici@8\.0\.0 requires node >=22 \| \d+% \(95% CI/,
  );
});
