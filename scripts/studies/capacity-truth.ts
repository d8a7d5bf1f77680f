/**
 * Capacity truth with the real drivers (issue 23): does the capacity search recover a capacity we
 * know? A benchmark of the harness, not a test; its record goes to
 * `results/capacity-truth/<run id>.json` and the README quotes it.
 *
 * The fixture is the self-test's `selftest-burn` (contenders/_selftest): node:http that spins for
 * a fixed wall time per request (BURN_US_PING µs, default 2000), so its service rate is ~1/burn
 * whatever the host's speed, and its latency at a rate shows only queueing and the host's stalls.
 *
 * 1. Calibration (the truth): one copy of the fixture on the server core, the real open-loop
 *    driver (oha, else k6) on the client core, `--cal-steps` 1 s steps at each of 11 rates from
 *    0.70 to 1.15 × 1/burn, in a shuffled order; each step judged by the search's own rule
 *    (scheduler/capacity-search.ts `judgeStep`: p99 ≤ the scenario's SLO, failed ≤ 0.1%, achieved
 *    ≥ 95%). The truth is the rate a step holds with probability ½ — the rate the search’s
 *    rules converge to (one step and the majority of 3 both pass with ½ there: capacity-search.ts) — from a logistic fit of hold on
 *    log(rate) (maximum likelihood), with a bootstrap 95% interval over the steps. Once before
 *    and once after the searches: the host drifts, and the record keeps both.
 * 2. The searches: `just bench`'s own code path (cli/bench.ts `bench`, the `capacity` profile:
 *    closed-loop peak, settle, start, cap, bisection of 1 s steps) over `--copies` identical
 *    copies of the fixture (manifest variants) × `--rounds` rounds = 50 searches by default, in
 *    interleaved rounds, to `results/capacity-truth/runs/`.
 * 3. Against the truth (the mean of the two calibrations' log truths): each bracketed search's
 *    error (figure ÷ truth − 1), their median and the share within ±10% (issue 23's targets:
 *    median within ±3%, ≥ 90% within ±10%), and how many cells' 95% intervals contain the truth
 *    (nominal 95%). Searches that did not bracket (a lower bound) are counted apart.
 *
 * Run: `node scripts/studies/capacity-truth.ts [--burn-us 2000] [--copies 10] [--rounds 5] [--cal-steps 8]`
 * (about 20 min at the defaults). Rates in requests/s, latencies in ms. Needs oha (or k6) and wrk.
 */
import { spawn } from 'node:child_process';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { halfHoldRate } from '../../harness/analysis/capacity.ts';
import { geometricEstimate, median } from '../../harness/analysis/stats.ts';
import { bench } from '../../harness/cli/bench.ts';
import { buildRequest, loadParams, loadScenarios } from '../../harness/contract/scenarios.ts';
import { loadManifest, type Manifest } from '../../harness/core/manifest.ts';
import { CONTENDERS_DIR, RESULTS_DIR, SCENARIOS_DIR } from '../../harness/core/paths.ts';
import { mulberry32 } from '../../harness/core/prng.ts';
import { getProfile } from '../../harness/core/profiles.ts';
import { resolveOpenLoop } from '../../harness/drivers/open-loop.ts';
import { makeCpuPlan } from '../../harness/lifecycle/cpu-plan.ts';
import { freePort } from '../../harness/lifecycle/ports.ts';
import { readRun, readTrials, writeCapacityTruth } from '../../harness/store/runs.ts';
import { SELFTEST_FIXTURE, SELFTEST_FIXTURES } from '../../harness/cli/selftest.ts';
import { stepConnections, STOP_ALLOWANCE_S } from '../../harness/scheduler/capacity-round.ts';
import { judgeStep } from '../../harness/scheduler/capacity-search.ts';

const { values: o } = parseArgs({
  options: {
    'burn-us': { type: 'string', default: '2000' },
    copies: { type: 'string', default: '10' },
    rounds: { type: 'string', default: '5' },
    'cal-steps': { type: 'string', default: '8' },
    seed: { type: 'string', default: String(Date.now() % 1e9) },
  },
});
const BURN_US = Number(o['burn-us']);
const COPIES = Number(o.copies);
const ROUNDS = Number(o.rounds);
const CAL_STEPS = Number(o['cal-steps']);
const SEED = Number(o.seed);
const SCENARIO = 'ping';
const OUT_DIR = path.join(RESULTS_DIR, 'capacity-truth');
const log = (l: string) => process.stderr.write(`capacity-truth: ${l}\n`);

/** `x`, or an Error saying what is missing. */
function must<T>(x: T | null | undefined, what: string): T {
  if (x === null || x === undefined) throw new Error(what);
  return x;
}
const allScenarios = loadScenarios(SCENARIOS_DIR);
const scenario = must(
  allScenarios.find((s) => s.name === SCENARIO),
  `no scenario ${SCENARIO}`,
);
const SLO = must(scenario.sloP99Ms, `scenario ${SCENARIO} has no sloP99Ms`);
const fixture: Manifest = loadManifest(
  path.join(SELFTEST_FIXTURES, SELFTEST_FIXTURE),
  allScenarios.map((s) => s.name),
);
const resolved = resolveOpenLoop();
const openLoop = must(resolved.driver, `no open-loop driver: ${resolved.note}`);
const cpu = makeCpuPlan();

/** One copy of the fixture on the server core; resolves once it answers, with a stop function. */
async function startFixture(): Promise<{ url: string; stop: () => Promise<void> }> {
  const port = await freePort();
  const argv = ['node', 'server.js'];
  const [cmd = 'node', ...args] = cpu.server ? ['taskset', '-c', cpu.server, ...argv] : argv;
  const child = spawn(cmd, args, {
    cwd: fixture.dir,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', BURN_US_PING: String(BURN_US) },
    stdio: 'ignore',
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 100; i++) {
    if (child.exitCode !== null) throw new Error(`the fixture exited with ${child.exitCode}`);
    const ok = await fetch(`${url}/ping`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  return {
    url,
    stop: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

type CalStep = { rate: number; hold: boolean; p99Ms: number; achievedRps: number };

/** `CAL_STEPS` judged 1 s steps at each rate of the grid around 1/burn, in a seeded shuffled order. */
async function calibrate(label: string, seed: number): Promise<CalStep[]> {
  const mu0 = 1e6 / BURN_US;
  const grid = [0.7, 0.8, 0.85, 0.9, 0.93, 0.96, 0.99, 1.02, 1.05, 1.1, 1.15].map((f) => Math.round(f * mu0));
  const order = grid.flatMap((r) => Array.from({ length: CAL_STEPS }, () => r));
  const rand = mulberry32(seed);
  for (let i = order.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [order[i], order[j]] = [order[j] ?? 0, order[i] ?? 0];
  }
  const f = await startFixture();
  const base = buildRequest(scenario, loadParams(scenario), fixture.paths);
  const job = {
    url: f.url,
    scenario: SCENARIO,
    scenariosDir: SCENARIOS_DIR,
    params: {},
    request: base,
    sampleEvery: 50,
  };
  const steps: CalStep[] = [];
  try {
    // A warm-up at the grid's lowest rate (not kept).
    await openLoop.step(job, stepOpts(grid[0] ?? mu0));
    for (const [i, rate] of order.entries()) {
      const m = await openLoop.step(job, stepOpts(rate));
      const failed = m.errors + m.non2xx + Math.max(0, m.dropped - Math.ceil(rate * STOP_ALLOWANCE_S));
      const s = judgeStep(0, rate, { ...m, failed, clientBound: false }, SLO);
      steps.push({ rate, hold: s.pass, p99Ms: m.latencyMs.p99, achievedRps: m.achievedRps });
      if ((i + 1) % 20 === 0) log(`${label}: ${i + 1} of ${order.length} steps`);
    }
  } finally {
    await f.stop();
  }
  return steps;
}

function stepOpts(rate: number) {
  return {
    rate,
    durationS: 1,
    connections: stepConnections(rate, SLO, 200),
    timeoutS: 10,
    cpus: cpu.client,
    signal: new AbortController().signal,
  };
}

/** The half rate with a bootstrap 95% interval over the steps (`n` resamples). */
function truthOf(steps: readonly CalStep[], seed: number, n = 1000) {
  const rand = mulberry32(seed);
  const boot: number[] = [];
  for (let i = 0; i < n; i++) {
    const r = halfHoldRate(steps.flatMap(() => steps[Math.floor(rand() * steps.length)] ?? []));
    if (r !== null) boot.push(r);
  }
  boot.sort((x, y) => x - y);
  const q = (p: number) => boot[Math.min(boot.length - 1, Math.floor(p * boot.length))] ?? null;
  const byRate = [...new Set(steps.map((s) => s.rate))].map((rate) => {
    const at = steps.filter((s) => s.rate === rate);
    return {
      rate,
      held: at.filter((s) => s.hold).length,
      steps: at.length,
      medianP99Ms: median(at.map((s) => s.p99Ms)),
    };
  });
  return { rps: halfHoldRate(steps), ci95: [q(0.025), q(0.975)], byRate };
}

/** The fixture with COPIES − 1 identical copies (manifest variants), all burning BURN_US per request. */
function copies(): Manifest {
  const variants: Manifest['variants'] = {};
  for (let i = 2; i <= COPIES; i++) variants[`copy-${i}`] = { description: 'an identical copy', env: {} };
  return { ...fixture, env: { ...fixture.env, BURN_US_PING: String(BURN_US) }, variants };
}

async function main() {
  const t0 = performance.now();
  const profile = getProfile('capacity');
  log(
    `fixture ${SELFTEST_FIXTURE} burning ${BURN_US} µs/request (1/burn = ${Math.round(1e6 / BURN_US)} req/s), ${SCENARIO} SLO p99 ≤ ${SLO} ms, open-loop driver ${openLoop.name}; server CPU ${cpu.server ?? 'unpinned'}, client CPU ${cpu.client ?? 'unpinned'}`,
  );
  log(`calibration before: ${11 * CAL_STEPS} steps`);
  const before = await calibrate('before', SEED);
  log(`searches: ${COPIES} copies × ${ROUNDS} rounds of the ${profile.name} profile`);
  const signal = new AbortController().signal;
  const own = { contendersDir: CONTENDERS_DIR, resultsDir: OUT_DIR, scenariosDir: SCENARIOS_DIR };
  const summary = await bench(
    own,
    [SELFTEST_FIXTURE],
    {
      scenario: [SCENARIO],
      profile: 'capacity',
      host: '127.0.0.1',
      upstreamDelayMs: 0,
      variants: true,
      fidelityS: 0,
      baseline: false,
      rounds: ROUNDS,
      seed: SEED,
    },
    ['capacity-truth'],
    signal,
    [copies()],
  );
  log(`calibration after: ${11 * CAL_STEPS} steps`);
  const after = await calibrate('after', SEED + 1);
  const tb = truthOf(before, SEED);
  const ta = truthOf(after, SEED + 1);
  if (tb.rps === null || ta.rps === null) throw new Error('a calibration found no rate that holds half the time');
  const truth = Math.sqrt(tb.rps * ta.rps);
  const { cells, dir: runDir } = readRun(OUT_DIR, summary.runId);
  const searches = readTrials(runDir).trials.flatMap((t) => (t.capacitySearch ? [t.capacitySearch] : []));
  const bracketed = searches.filter((s) => s.bound === 'bracketed' && s.rps !== null);
  const errors = bracketed.map((s) => (s.rps ?? 0) / truth - 1);
  const intervals = cells.flatMap((c) => (c.capacity?.rps?.interval ? [c.capacity.rps.interval] : []));
  const covered = intervals.filter(([lo, hi]) => lo <= truth && truth <= hi).length;
  // The cells' figures as one more estimate: their geometric mean over all bracketed searches.
  const pooled = geometricEstimate(bracketed.map((s) => s.rps ?? 0));
  const record = {
    kind: 'capacity-truth',
    at: new Date().toISOString(),
    runId: summary.runId,
    fixture: SELFTEST_FIXTURE,
    burnUs: BURN_US,
    scenario: SCENARIO,
    sloP99Ms: SLO,
    openLoop: openLoop.name,
    cpu: { server: cpu.server, client: cpu.client },
    seed: SEED,
    calibration: { stepsPerRate: CAL_STEPS, before: tb, after: ta, truthRps: truth },
    searches: {
      total: searches.length,
      bracketed: bracketed.length,
      bounds: Object.fromEntries(
        ['bracketed', 'no-failure', 'driver-limit', 'none'].map((b) => [
          b,
          searches.filter((s) => (s.bound ?? 'none') === b).length,
        ]),
      ),
      medianError: errors.length ? median(errors) : null,
      within10: errors.length ? errors.filter((e) => Math.abs(e) <= 0.1).length / errors.length : null,
      errors,
      medianSteps: median(searches.map((s) => s.steps.length)),
      pooledRps: pooled,
    },
    cells: { withInterval: intervals.length, covering: covered },
    targets: { medianError: 0.03, within10: 0.9, coverage: 0.95 },
    wallMs: Math.round(performance.now() - t0),
  };
  const file = writeCapacityTruth(RESULTS_DIR, summary.runId, record);
  const pct = (x: number | null) => (x === null ? 'n/a' : `${(x * 100).toFixed(1)}%`);
  process.stdout.write(
    [
      '',
      `truth: ${Math.round(truth)} req/s (before ${Math.round(tb.rps)} [${tb.ci95.map((x) => Math.round(x ?? 0)).join('–')}], after ${Math.round(ta.rps)} [${ta.ci95.map((x) => Math.round(x ?? 0)).join('–')}])`,
      `searches: ${bracketed.length} of ${searches.length} bracketed; median error ${pct(record.searches.medianError)} (target ±3%); within ±10%: ${pct(record.searches.within10)} (target ≥ 90%)`,
      `cells: ${covered} of ${intervals.length} 95% intervals contain the truth (nominal 95%)`,
      `run ${summary.runId}; wall time ${Math.round(record.wallMs / 1000)} s; record: ${path.relative(process.cwd(), file)}`,
      '',
    ].join('\n'),
  );
}

await main();
