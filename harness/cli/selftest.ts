/**
 * `just selftest`: a benchmark of the harness itself (not a test), reporting two figures
 * (issue 11, item 7):
 *
 * - False-change rate: two back-to-back runs (A, B) of the same contenders in the same profile
 *   (default: node-http, express, fastify, hono and the fixture over the REST scenarios without
 *   fanout, profile `quick`), then `compare` (report/compare.ts) → the share of matched cells it
 *   calls improved or regressed. Target ≤ 5%.
 * - Detection power: the fixture `selftest-burn` (test/fixtures/sched/: node:http that spins the
 *   CPU for BURN_US_<SCENARIO> µs per request) is calibrated from the faster of runs A and B (its
 *   requests/s R per scenario) so that
 *   the burn costs `slowdown` (default 10%) of them: burn = (1/(1 − slowdown) − 1) / R seconds.
 *   A third run (C) measures it with the burn; the share of its cells that `compare` B → C calls
 *   regressed is the power. Target ≥ 90%. B → C's other cells give a second false-change sample.
 *
 * Both figures, the run ids and the burns are printed and written to results/selftest/<run C>.json
 * through the store. Exit 0 unless a run fails or is interrupted.
 */
import path from 'node:path';
import { loadManifests } from '../core/manifest.ts';
import { loadScenarios } from '../contract/scenarios.ts';
import { ROOT } from '../core/paths.ts';
import { UserError } from '../core/errors.ts';
import { EXIT } from '../core/exit-codes.ts';
import { readRun, writeSelftest } from '../store/runs.ts';
import type { CellResult } from '../store/results.ts';
import { compareRuns } from '../report/compare.ts';
import { bench, type BenchOpts, type Globals } from './bench.ts';

/** Where the self-test's fixture contender lives. */
export const SELFTEST_FIXTURES = path.join(ROOT, 'test', 'fixtures', 'sched');
export const SELFTEST_FIXTURE = 'selftest-burn';
const DEFAULT_CONTENDERS = ['node-http', 'express', 'fastify', 'hono'];
const DEFAULT_SCENARIOS = ['ping', 'json', 'echo', 'users', 'post'];

export interface SelftestOpts {
  contenders?: string[];
  scenario?: string[];
  profile: string;
  slowdown: string;
  seed?: string;
}

/** The burn per request, µs, that costs `slowdown` of `rps` requests/s on a saturated server. */
export function burnMicros(rps: number, slowdown: number): number {
  return ((1 / (1 - slowdown) - 1) / rps) * 1e6;
}

const figure = (c: CellResult) => c.stats?.rps.figure ?? c.load?.requestsPerSec.mean ?? 0;

/** Runs the self-test; returns the exit code. */
export async function selftest(g: Globals, o: SelftestOpts, signal: AbortSignal): Promise<number> {
  const slowdown = Number(o.slowdown);
  if (!(slowdown > 0 && slowdown < 0.5))
    throw new UserError(`--slowdown must be a fraction such as 0.1, got '${o.slowdown}'`);
  const seed = o.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(o.seed);
  if (!Number.isInteger(seed)) throw new UserError(`--seed must be an integer, got '${o.seed}'`);
  const scenarioNames = loadScenarios(g.scenariosDir).map((s) => s.name);
  const fixture = loadManifests(SELFTEST_FIXTURES, scenarioNames).find((m) => m.name === SELFTEST_FIXTURE);
  if (!fixture) throw new UserError(`the self-test fixture ${SELFTEST_FIXTURE} is missing from ${SELFTEST_FIXTURES}`);
  const contenders = o.contenders?.length ? o.contenders : DEFAULT_CONTENDERS;
  const scenarios = (o.scenario?.length ? o.scenario : DEFAULT_SCENARIOS).filter((s) => fixture.scenarios.includes(s));
  if (!scenarios.length) throw new UserError(`the fixture supports ${fixture.scenarios.join(', ')} only`);
  const log = (l: string) => process.stderr.write(`selftest: ${l}\n`);
  const t0 = performance.now();
  const common: BenchOpts = {
    scenario: scenarios,
    profile: o.profile,
    host: '127.0.0.1',
    upstreamDelay: '0',
    variants: false,
    fidelity: false,
  };
  const names = [...contenders, SELFTEST_FIXTURE];
  const run = async (label: string, s: number, extra = fixture) => {
    log(`run ${label} of 3 (${names.join(', ')} × ${scenarios.join(', ')}, profile ${o.profile}, shuffle seed ${s})`);
    const summary = await bench(g, names, { ...common, seed: String(s) }, ['selftest', `run-${label}`], signal, [
      extra,
    ]);
    return readRun(g.resultsDir, summary.runId, 'run', true);
  };
  const a = await run('A', seed);
  const b = await run('B', seed + 1);
  const burns: Record<string, number> = {};
  // Calibrated from the faster of runs A and B per scenario: the least disturbed measurement of
  // the server's capacity (a busy host lowers R, which would make the burn too large).
  const fastest = new Map<string, number>();
  for (const c of [...a.cells, ...b.cells].filter((x) => x.contender === SELFTEST_FIXTURE && x.status === 'ok'))
    fastest.set(c.scenario, Math.max(fastest.get(c.scenario) ?? 0, figure(c)));
  for (const [scenario, rps] of fastest) burns[scenario] = Math.round(burnMicros(rps, slowdown) * 100) / 100;
  log(`burn per request (µs) for a ${slowdown * 100}% cost: ${JSON.stringify(burns)}`);
  const env = Object.fromEntries(Object.entries(burns).map(([s, us]) => [`BURN_US_${s.toUpperCase()}`, String(us)]));
  const c = await run('C', seed + 2, { ...fixture, env: { ...fixture.env, ...env } });

  const scen = loadScenarios(g.scenariosDir).map((x) => ({ name: x.name, baseline: x.baseline }));
  const ab = compareRuns(a, b, undefined, { scenarios: scen });
  const bc = compareRuns(b, c, undefined, { scenarios: scen });
  const changed = ab.changes.filter((x) => x.verdict !== 'no change');
  // Cells compared by their ratio to the run's baseline (drift cancels) vs the baseline's own
  // cells, compared by absolute requests/s (host-sensitive: a busier host moves them).
  const ratioCells = ab.changes.filter((x) => x.basis === 'ratio-to-baseline');
  const ratioChanged = ratioCells.filter((x) => x.verdict !== 'no change');
  const others = bc.changes.filter((x) => !x.cellId.startsWith(`${SELFTEST_FIXTURE}__`));
  const othersChanged = others.filter((x) => x.verdict !== 'no change');
  const burned = bc.changes.filter((x) => x.cellId.startsWith(`${SELFTEST_FIXTURE}__`));
  const regressed = burned.filter((x) => x.verdict === 'regressed');
  const rate = (n: number, d: number) => (d ? n / d : null);
  const record = {
    kind: 'bakeoff-selftest',
    at: new Date().toISOString(),
    profile: o.profile,
    contenders,
    fixture: SELFTEST_FIXTURE,
    scenarios,
    seed,
    runs: { a: a.meta.runId, b: b.meta.runId, c: c.meta.runId },
    slowdown,
    burnUs: burns,
    falseChange: {
      compare: `${a.meta.runId} → ${b.meta.runId}`,
      cells: ab.changes.length,
      changed: changed.length,
      rate: rate(changed.length, ab.changes.length),
      changedCells: changed.map((x) => ({ cellId: x.cellId, change: x.change, verdict: x.verdict, basis: x.basis })),
      ratioToBaseline: {
        cells: ratioCells.length,
        changed: ratioChanged.length,
        rate: rate(ratioChanged.length, ratioCells.length),
      },
      target: 0.05,
      secondSample: {
        compare: `${b.meta.runId} → ${c.meta.runId} (cells other than the fixture)`,
        cells: others.length,
        changed: othersChanged.length,
        rate: rate(othersChanged.length, others.length),
      },
    },
    power: {
      compare: `${b.meta.runId} → ${c.meta.runId} (the fixture's cells)`,
      cells: burned.length,
      regressed: regressed.length,
      rate: rate(regressed.length, burned.length),
      perCell: burned.map((x) => ({ cellId: x.cellId, change: x.change, verdict: x.verdict })),
      target: 0.9,
    },
    wallMs: performance.now() - t0,
  };
  const file = writeSelftest(g.resultsDir, c.meta.runId, record);
  const pct = (x: number | null) => (x === null ? 'n/a' : `${(x * 100).toFixed(1)}%`);
  process.stdout.write(
    [
      '',
      `false-change rate: ${pct(record.falseChange.rate)} (${changed.length} of ${ab.changes.length} cells called changed; runs ${a.meta.runId} → ${b.meta.runId}; target ≤ 5%)`,
      `  of which cells compared by their ratio to the baseline: ${pct(record.falseChange.ratioToBaseline.rate)} (${ratioChanged.length} of ${ratioCells.length}); the rest are the baseline's own host-sensitive absolute comparisons`,
      `  second sample:   ${pct(record.falseChange.secondSample.rate)} (${othersChanged.length} of ${others.length} non-fixture cells; ${b.meta.runId} → ${c.meta.runId})`,
      `detection power:   ${pct(record.power.rate)} (${regressed.length} of ${burned.length} ${SELFTEST_FIXTURE} cells called regressed at a ${slowdown * 100}% injected cost; ${b.meta.runId} → ${c.meta.runId}; target ≥ 90%)`,
      `wall time ${Math.round(record.wallMs / 1000)} s; record: ${file}`,
      '',
    ].join('\n'),
  );
  return signal.aborted ? EXIT.interrupted : EXIT.ok;
}
