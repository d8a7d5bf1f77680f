/**
 * `just selftest`: a benchmark of the harness itself (not a test), reporting two figures
 * (issue 11, item 7):
 *
 * - False-change rate: two back-to-back runs (A, B) of the same contenders in the same profile
 *   (default: node-http, express, fastify, hono and the fixture over the simple REST scenarios,
 *   those whose file says `"reference": true`; profile `quick`), then `compare` (report/compare-runs.ts)
 *   → the share of matched cells it calls improved or regressed. Target ≤ 5%.
 * - Detection power: the fixture `selftest-burn` (contenders/_selftest/: node:http that spins the
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
import { CONTENDERS_DIR } from '../core/paths.ts';
import { UserError } from '../core/errors.ts';
import { EXIT } from '../core/exit-codes.ts';
import { readRun, writeSelftest } from '../store/runs.ts';
import type { CellResult } from '../store/results.ts';
import { compareRuns } from '../report/compare-runs.ts';
import { bench, type BenchOpts, type Globals } from './bench.ts';

/**
 * The folder holding the self-test's fixture contender (`<folder>/selftest-burn`). A `_` folder
 * under contenders/ is not a contender (core/manifest.ts `loadManifests` skips it, so the fixture
 * is never benchmarked by `bench-all`) and, having no package.json, not an npm workspace.
 */
export const SELFTEST_FIXTURES = path.join(CONTENDERS_DIR, '_selftest');
export const SELFTEST_FIXTURE = 'selftest-burn';
const DEFAULT_CONTENDERS = ['node-http', 'express', 'fastify', 'hono'];

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

/**
 * The self-test's validated inputs: `--slowdown` (a fraction in (0, 0.5)), `--seed` (an integer;
 * random when absent), the fixture's manifest, the contenders (default DEFAULT_CONTENDERS) and the
 * scenarios (default: the contract's simple REST routes, scenario files with `"reference": true`),
 * kept to those the fixture serves. Throws UserError on a bad value or a missing fixture.
 */
function selftestInputs(g: Globals, o: SelftestOpts) {
  const slowdown = Number(o.slowdown);
  if (!(slowdown > 0 && slowdown < 0.5))
    throw new UserError(`--slowdown must be a fraction such as 0.1, got '${o.slowdown}'`);
  const seed = o.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(o.seed);
  if (!Number.isInteger(seed)) throw new UserError(`--seed must be an integer, got '${o.seed}'`);
  const all = loadScenarios(g.scenariosDir);
  const fixture = loadManifests(
    SELFTEST_FIXTURES,
    all.map((s) => s.name),
  ).find((m) => m.name === SELFTEST_FIXTURE);
  if (!fixture) throw new UserError(`the self-test fixture ${SELFTEST_FIXTURE} is missing from ${SELFTEST_FIXTURES}`);
  const contenders = o.contenders?.length ? o.contenders : DEFAULT_CONTENDERS;
  const wanted = o.scenario?.length ? o.scenario : all.filter((s) => s.reference).map((s) => s.name);
  const scenarios = wanted.filter((s) => fixture.scenarios.includes(s));
  if (!scenarios.length) throw new UserError(`the fixture supports ${fixture.scenarios.join(', ')} only`);
  return { slowdown, seed, fixture, contenders, scenarios };
}

/**
 * The burn per request (µs, per scenario) that costs `slowdown` of the fixture's requests/s,
 * calibrated from the faster of runs A and B per scenario: the least disturbed measurement of the
 * server's capacity (a busy host lowers R, which would make the burn too large).
 */
function calibrateBurns(cells: CellResult[], slowdown: number): Record<string, number> {
  const fastest = new Map<string, number>();
  for (const c of cells.filter((x) => x.contender === SELFTEST_FIXTURE && x.status === 'ok'))
    fastest.set(c.scenario, Math.max(fastest.get(c.scenario) ?? 0, figure(c)));
  const burns: Record<string, number> = {};
  for (const [scenario, rps] of fastest) burns[scenario] = Math.round(burnMicros(rps, slowdown) * 100) / 100;
  return burns;
}

/** Runs the self-test; returns the exit code. */
export async function selftest(g: Globals, o: SelftestOpts, signal: AbortSignal): Promise<number> {
  const { slowdown, seed, fixture, contenders, scenarios } = selftestInputs(g, o);
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
  const burns = calibrateBurns([...a.cells, ...b.cells], slowdown);
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
  process.stdout.write(summaryText(record, file));
  return signal.aborted ? EXIT.interrupted : EXIT.ok;
}

/** A share of cells with its counts; `rate` null when there were no cells. */
interface Share {
  rate: number | null;
  changed: number;
  cells: number;
}

/** What the printed summary reads of the self-test's record. */
interface SelftestRecord {
  runs: { a: string; b: string; c: string };
  slowdown: number;
  wallMs: number;
  falseChange: Share & { ratioToBaseline: Share; secondSample: Share };
  power: { rate: number | null; regressed: number; cells: number };
}

/** The figures printed at the end of a self-test, from its record (the file `writeSelftest` wrote). */
function summaryText(r: SelftestRecord, file: string): string {
  const pct = (x: number | null) => (x === null ? 'n/a' : `${(x * 100).toFixed(1)}%`);
  const f = r.falseChange;
  return [
    '',
    `false-change rate: ${pct(f.rate)} (${f.changed} of ${f.cells} cells called changed; runs ${r.runs.a} → ${r.runs.b}; target ≤ 5%)`,
    `  of which cells compared by their ratio to the baseline: ${pct(f.ratioToBaseline.rate)} (${f.ratioToBaseline.changed} of ${f.ratioToBaseline.cells}); the rest are the baseline's own host-sensitive absolute comparisons`,
    `  second sample:   ${pct(f.secondSample.rate)} (${f.secondSample.changed} of ${f.secondSample.cells} non-fixture cells; ${r.runs.b} → ${r.runs.c})`,
    `detection power:   ${pct(r.power.rate)} (${r.power.regressed} of ${r.power.cells} ${SELFTEST_FIXTURE} cells called regressed at a ${r.slowdown * 100}% injected cost; ${r.runs.b} → ${r.runs.c}; target ≥ 90%)`,
    `wall time ${Math.round(r.wallMs / 1000)} s; record: ${file}`,
    '',
  ].join('\n');
}
