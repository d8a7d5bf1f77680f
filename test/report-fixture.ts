/**
 * A report snapshot for the exporter tests (report, export, html): two runs of one machine built
 * with the shared fixtures (real types, real trialStats) and the real scenario contract.
 *
 * Run `r2` (newest): ping, json and post with node-http (the baseline), fastify (client-bound),
 * express (about 45%), hono (3 trials: a range, not ranked), `broken` on post (9% failed
 * requests: failed, not ranked); echo and users where hono (5 trials) wins alone; ping also on Node 22 (the Node version matrix); node-http's CPU
 * peak is 112% of one pinned core (the chart must clamp it); `express +interceptor` on ping costs 12% more
 * time per request than express. Run `r1` (older): ping with
 * node-http, fastify and koa (koa appears in r2's ping table only as a ratio marked with r1).
 */
import { loadScenarios } from '../harness/contract/scenarios.ts';
import { SCENARIOS_DIR } from '../harness/core/paths.ts';
import type { ReportSnapshot } from '../harness/report/snapshot.ts';
import type { CellResult } from '../harness/store/results.ts';
import { makeCell, makeMeta } from './fixtures.ts';

/** Five trials around `x` (±2%), a 95% CI. */
export const five = (x: number): number[] => [x * 0.98, x, x * 1.012, x * 0.991, x * 1.02];

export function reportSnapshot(): ReportSnapshot {
  const r2: CellResult[] = [];
  for (const [scenario, m] of [
    ['ping', 1],
    ['json', 0.9],
    ['post', 0.7],
  ] as const) {
    const common = { runId: 'r2', scenario };
    r2.push(
      makeCell({
        ...common,
        label: 'node-http',
        trials: five(20_000 * m),
        resources: { server: { cpuPctAvg: 97, cpuPctPeak: 112 } },
      }),
      makeCell({
        ...common,
        label: 'fastify',
        trials: five(19_700 * m).map((x, i) => x * [1.04, 0.96, 1.03, 0.97, 1.0][i]!),
        resources: { clientBound: true, client: { cpuPctAvg: 97 } },
      }),
      makeCell({ ...common, label: 'express', trials: five(9_000 * m), resources: { server: { cpuPctAvg: 99 } } }),
      makeCell({ ...common, label: 'hono', trials: [15_000 * m, 16_000 * m, 15_500 * m] }),
    );
  }
  r2.push(
    makeCell({ runId: 'r2', label: 'broken', scenario: 'post', trials: five(5_000), load: { errors: 500 } }),
    // echo and users: hono measured with 5 trials wins alone (6% ahead of node-http); fastify close behind.
    ...(['echo', 'users'] as const).flatMap((scenario, k) => [
      makeCell({ runId: 'r2', scenario, label: 'node-http', trials: five(16_000 - 4_000 * k) }),
      makeCell({
        runId: 'r2',
        scenario,
        label: 'hono',
        trials: five((16_000 - 4_000 * k) * 1.06).map((x, i) => x * [1, 1.004, 0.997, 1.002, 0.998][i]!),
      }),
      makeCell({ runId: 'r2', scenario, label: 'fastify', trials: five((16_000 - 4_000 * k) * 0.97) }),
      makeCell({ runId: 'r2', scenario, label: 'express', trials: five((16_000 - 4_000 * k) * 0.5) }),
    ]),
    makeCell({ runId: 'r2', label: 'express +interceptor', scenario: 'ping', trials: five(9_000 / 1.12) }),
    makeCell({
      runId: 'r2',
      label: 'node-http',
      scenario: 'ping',
      node: { version: 'v22.0.0', major: 22 },
      trials: five(18_000),
    }),
    makeCell({
      runId: 'r2',
      label: 'fastify',
      scenario: 'ping',
      node: { version: 'v22.0.0', major: 22 },
      trials: five(17_000),
    }),
  );
  const r1 = [
    makeCell({ runId: 'r1', label: 'node-http', scenario: 'ping', trials: five(21_000) }),
    makeCell({ runId: 'r1', label: 'fastify', scenario: 'ping', trials: five(20_000) }),
    makeCell({ runId: 'r1', label: 'koa', scenario: 'ping', trials: five(12_000) }),
  ];
  return {
    runs: [
      {
        meta: makeMeta({
          runId: 'r1',
          startedAt: '2026-11-21T00:00:00.000Z',
          git: { commit: 'aaaaaaa1111', dirty: false },
        }),
        cells: r1,
      },
      {
        meta: makeMeta({
          runId: 'r2',
          startedAt: '2026-11-22T00:00:00.000Z',
          git: { commit: 'bbbbbbb2222', dirty: true },
        }),
        cells: r2,
      },
    ],
    scenarios: loadScenarios(SCENARIOS_DIR),
  };
}

/**
 * After the bake-off (`reportSnapshot`), what a user does next (issue 26): run `r3`
 * (2026-11-23) benches one new contender, `newbie`, on ping and json with the baseline that the
 * harness adds unasked (newbie at 60% of r3's node-http, which runs 10% faster than in r2); run
 * `r4` (2026-11-24) measures six contenders on ping in the `stress` profile (more ranked rows
 * than the quick ping table, which must still answer the overview).
 */
export function joinedSnapshot(): ReportSnapshot {
  const s = reportSnapshot();
  const r3 = (['ping', 'json'] as const).flatMap((scenario) => [
    makeCell({ runId: 'r3', scenario, label: 'node-http', trials: five(22_000) }),
    makeCell({ runId: 'r3', scenario, label: 'newbie', trials: five(22_000 * 0.6) }),
  ]);
  const r4 = ['node-http', 'fastify', 'express', 'hono', 'a', 'b'].map((label, i) =>
    makeCell({ runId: 'r4', scenario: 'ping', profile: 'stress', label, trials: five(20_000 - 2_000 * i) }),
  );
  return {
    ...s,
    runs: [
      ...s.runs,
      { meta: makeMeta({ runId: 'r3', startedAt: '2026-11-23T00:00:00.000Z' }), cells: r3 },
      { meta: makeMeta({ runId: 'r4', startedAt: '2026-11-24T00:00:00.000Z', profile: 'stress' }), cells: r4 },
    ],
  };
}

/**
 * Every "figure (kind lo–hi)" a text prints, for the containment check: `12,345 (95% CI
 * 12,001–12,600)`, `97% (95% CI 95–100%)`, `1.24× (95% CI 1.20–1.28)`, `range (3 trials) a–b`.
 */
export function printedIntervals(text: string): { figure: number; lo: number; hi: number; at: string }[] {
  const num = (s: string) => Number(s.replace(/,/g, ''));
  const out: { figure: number; lo: number; hi: number; at: string }[] = [];
  const re =
    /(?<![\w.,])([\d,]+(?:\.\d+)?)[%×]? \((?:95% CI|range \(\d+ trials\)) ([\d,]+(?:\.\d+)?)–([\d,]+(?:\.\d+)?)%?\)/g;
  for (const m of text.matchAll(re)) out.push({ figure: num(m[1]!), lo: num(m[2]!), hi: num(m[3]!), at: m[0] });
  return out;
}
