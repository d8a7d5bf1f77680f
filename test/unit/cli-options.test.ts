// The CLI's options parsed once, at the edge (harness/cli/options.ts): every option that is a
// number or a duration parses a good value to its typed value and refuses a bad one (0 where not
// allowed, negative, non-numeric, "10x") with a UserError (exit 2) naming the flag and the value;
// the real CLI exits 2 with that message, and with a run holding the machine lock it does so at
// once, never waiting with --wait; what `bench --url` runs (the profile's default rounds for an
// external target). No server is started and no load is sent.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { UserError } from '../../harness/core/errors.ts';
import { defaultRounds, getProfile, interleaveOf } from '../../harness/core/profiles.ts';
import { EXIT } from '../../harness/core/exit-codes.ts';
import { acquireRunLock } from '../../harness/lifecycle/lock.ts';
import {
  OPTION_DEFAULTS,
  parseAbOptions,
  parseBenchOptions,
  parseClaimsOptions,
  parseCompareOptions,
  parseSelftestOptions,
  parseWhyOptions,
  referenceDesign,
} from '../../harness/cli/options.ts';
import { parsePort } from '../../harness/cli/option-rules.ts';
import { parseProfileOverrides, withOverrides } from '../../harness/core/profile-overrides.ts';
import { runCli, tmpDir } from '../helpers.ts';

/** Commander's raw values of `bench` with no option given (its defaults, as strings). */
const BENCH_RAW = { profile: 'quick', host: '127.0.0.1', upstreamDelay: '0', variants: true };
const WHY_RAW = { ...BENCH_RAW, interval: '5000', top: '12' };

/** Asserts that `fn` throws a UserError with exit code 2 whose message matches `message`. */
function refuses(fn: () => unknown, message: RegExp, what: string): void {
  assert.throws(
    fn,
    (e: unknown) => {
      assert.ok(e instanceof UserError, `${what}: a UserError, got ${(e as Error)?.name}`);
      assert.equal(e.exitCode, EXIT.usage, what);
      assert.match(e.message, message, what);
      return true;
    },
    what,
  );
}

/** For each bad raw value: the parse refuses it, naming `flag` and the value. */
function refusesAll(flag: string, bad: string[], parse: (v: string) => unknown, rule = /must be|is a whole number/) {
  for (const v of bad) {
    const quoted = v.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    refuses(() => parse(v), new RegExp(`^${flag} .*${rule.source}.*got '${quoted}'`), `${flag} ${v}`);
  }
}

const NOT_NUMBERS = ['abc', '10x', '', ' '];

test('bench: every numeric option parses to its typed value, the absent ones stay absent', () => {
  const o = parseBenchOptions({
    ...BENCH_RAW,
    upstreamDelay: '2.5',
    duration: '3',
    rounds: '7',
    seed: '-12',
    fidelity: '0',
    port: 18080,
  });
  assert.equal(o.upstreamDelayMs, 2.5);
  assert.equal(o.durationS, 3);
  assert.equal(o.rounds, 7);
  assert.equal(o.seed, -12);
  assert.equal(o.fidelityS, 0);
  assert.equal(o.port, 18080);
  const none = parseBenchOptions(BENCH_RAW);
  assert.equal(none.upstreamDelayMs, OPTION_DEFAULTS.upstreamDelayMs);
  for (const k of ['rounds', 'seed', 'durationS', 'vus', 'rate', 'sloP99Ms', 'fidelityS', 'cpuProfile', 'nodeMajors'])
    assert.equal(k in none, false, `${k} absent: the profile's (or random) at run time`);
  assert.equal(parseBenchOptions({ ...BENCH_RAW, fidelity: false }).fidelityS, 0, '--no-fidelity = 0 s');
  assert.equal(parseBenchOptions({ ...BENCH_RAW, crossCheck: '4' }).fidelityS, 4, '--cross-check, the old name');
  assert.deepEqual(parseBenchOptions({ ...BENCH_RAW, profileCpu: true }).cpuProfile, {
    intervalUs: OPTION_DEFAULTS.intervalUs,
  });
  assert.deepEqual(parseBenchOptions({ ...BENCH_RAW, profileCpu: true, interval: '250' }).cpuProfile, {
    intervalUs: 250,
  });
  assert.deepEqual(parseBenchOptions({ ...BENCH_RAW, node: '22,24' }).nodeMajors, [22, 24]);
});

test('bench: a bad number is a UserError (exit 2) naming the flag and the value', () => {
  const bench = (k: string) => (v: string) => parseBenchOptions({ ...BENCH_RAW, [k]: v });
  refusesAll('--rounds', ['0', '-1', '51', '2.5', ...NOT_NUMBERS], bench('rounds'), /must be an integer from 1 to 50/);
  refusesAll('--duration', ['0', '-1', ...NOT_NUMBERS], bench('duration'), /must be a positive number/);
  refusesAll('--duration', ['0.5', '2.5'], bench('duration'), /is a whole number of seconds/);
  refusesAll('--vus', ['0', '-5', ...NOT_NUMBERS], bench('vus'), /must be a positive number/);
  refusesAll('--vus', ['2.5'], bench('vus'), /is a whole number of VUs/);
  refusesAll('--rate', ['0', '-5', ...NOT_NUMBERS], bench('rate'), /must be a positive number/);
  refusesAll('--slo-p99', ['0', '-1', ...NOT_NUMBERS], bench('sloP99'), /must be a positive number/);
  refusesAll('--slo-p99', ['60001'], bench('sloP99'), /is in ms and at most 60000/);
  refusesAll('--upstream-delay', ['-1', ...NOT_NUMBERS], bench('upstreamDelay'), /must be a number of ms ≥ 0/);
  refusesAll('--seed', ['1.5', ...NOT_NUMBERS], bench('seed'), /must be an integer/);
  refusesAll('--fidelity', ['-1', '61', ...NOT_NUMBERS], bench('fidelity'), /must be seconds from 0 to 60/);
  refusesAll('--cross-check', ['61', '10x'], bench('crossCheck'), /must be seconds from 0 to 60/);
  const cpu = (v: string) => parseBenchOptions({ ...BENCH_RAW, profileCpu: true, interval: v });
  refusesAll(
    '--interval',
    ['0', '-1', '100001', '2.5', ...NOT_NUMBERS],
    cpu,
    /must be a whole number from 1 to 100000/,
  );
  refuses(
    () => parseBenchOptions({ ...BENCH_RAW, interval: '100' }),
    /--interval sets the sampling of --profile-cpu/,
    '--interval without --profile-cpu',
  );
  refuses(() => bench('driver')('ab'), /^--driver must be one of native, wrk, autocannon, got 'ab'/, '--driver ab');
  refuses(() => bench('node')('abc'), /^--node takes Node\.js majors/, '--node abc');
  for (const v of ['0', '-1', '65536', '1.5', 'abc', '10x'])
    assert.throws(() => parsePort(v), /--port must be an integer from 1 to 65535/, `--port ${v}`);
  assert.equal(parsePort('18080'), 18080);
});

test('--trials, the old name of --rounds: its own name in the message, and a note', () => {
  const notes: string[] = [];
  assert.equal(parseBenchOptions({ ...BENCH_RAW, trials: '4' }, (l) => notes.push(l)).rounds, 4);
  assert.match(notes.join('\n'), /--trials is the old name of --rounds/);
  refuses(
    () => parseBenchOptions({ ...BENCH_RAW, trials: '0' }),
    /^--trials must be an integer from 1 to 50, got '0'/,
    '--trials 0',
  );
});

test('the profile overrides are typed before the profile sees them; the profile checks only that they fit', () => {
  const o = parseProfileOverrides({ duration: '4', vus: '200', rate: '1500', sloP99: '25', driver: 'wrk' });
  assert.deepEqual(o, { driver: 'wrk', durationS: 4, vus: 200, rate: 1500, sloP99Ms: 25 });
  assert.deepEqual(parseProfileOverrides({}), {});
  const vus = withOverrides(getProfile('k6-vus'), { vus: 200, durationS: 4 });
  assert.ok(vus.driver === 'k6' && vus.vus === 200 && vus.durationS === 4);
  refuses(() => withOverrides(getProfile('quick'), { vus: 200 }), /^--vus applies to the k6 profiles/, 'vus on quick');
  assert.equal(
    withOverrides(getProfile('quick'), { warmupS: 20 }).warmupS,
    20,
    '--warmup replaces the warm-up per server process',
  );
  refuses(
    () => withOverrides(getProfile('k6-ramp'), { durationS: 5 }),
    /^--duration does not apply to k6-ramp/,
    'duration on k6-ramp',
  );
  refuses(() => withOverrides(getProfile('quick'), { rate: 10 }), /^--rate applies to k6-rate only/, 'rate on quick');
});

test('why: --duration, --interval, --top, --seed and --upstream-delay', () => {
  const o = parseWhyOptions({ ...WHY_RAW, duration: '5', interval: '1000', top: '20', seed: '3' });
  assert.deepEqual([o.durationS, o.intervalUs, o.top, o.seed, o.upstreamDelayMs], [5, 1000, 20, 3, 0]);
  const d = parseWhyOptions({ profile: 'quick', host: '127.0.0.1', variants: true });
  assert.deepEqual([d.intervalUs, d.top, d.upstreamDelayMs], [OPTION_DEFAULTS.intervalUs, OPTION_DEFAULTS.top, 0]);
  const why = (k: string) => (v: string) => parseWhyOptions({ ...WHY_RAW, [k]: v });
  refusesAll('--duration', ['0', '-1', ...NOT_NUMBERS], why('duration'), /must be a positive number/);
  refusesAll('--interval', ['0', '-1', '200000', ...NOT_NUMBERS], why('interval'), /must be a whole number from 1/);
  refusesAll('--top', ['0', '-1', '1001', '1.5', ...NOT_NUMBERS], why('top'), /must be a whole number from 1 to 1000/);
  refusesAll('--seed', ['0.5', ...NOT_NUMBERS], why('seed'), /must be an integer/);
  refusesAll('--upstream-delay', ['-3', ...NOT_NUMBERS], why('upstreamDelay'), /must be a number of ms ≥ 0/);
});

test('selftest, ab, claims, reference and compare: their numbers', () => {
  const st = (v: string) => parseSelftestOptions({ profile: 'quick', copies: v });
  assert.equal(st('6').copies, 6);
  assert.equal(parseSelftestOptions({ profile: 'quick' }).copies, OPTION_DEFAULTS.copies);
  refusesAll('--copies', ['0', '1', '-2', '31', '2.5', ...NOT_NUMBERS], st, /must be a whole number from 2 to 30/);
  refusesAll('--seed', ['x', '1.5'], (v) => parseSelftestOptions({ profile: 'quick', seed: v }), /must be an integer/);
  assert.equal(parseAbOptions({ ref: 'HEAD', profile: 'ab', seed: '9' }).seed, 9);
  refusesAll('--seed', ['10x'], (v) => parseAbOptions({ ref: 'HEAD', profile: 'ab', seed: v }), /must be an integer/);

  const claims = (k: string) => (v: string) => parseClaimsOptions({ host: '127.0.0.1', [k]: v });
  assert.equal(claims('rounds')('8').rounds, 8);
  assert.equal(claims('duration')('3').durationS, 3);
  refusesAll('--rounds', ['0', '-1', '4', ...NOT_NUMBERS], claims('rounds'), /must be at least 5 for a verdict/);
  refusesAll('--rounds', ['51', '5.5'], claims('rounds'), /must be an integer from 5 to 50/);
  refusesAll('--duration', ['0', '-2', '10x'], claims('duration'), /must be a positive number/);
  refusesAll('--seed', ['abc'], claims('seed'), /must be an integer/);

  assert.deepEqual(
    referenceDesign({ design: 'solo', warmup: '2.5', windows: '2', window: '1', processes: '2', connections: '50' }),
    { warmupS: 2.5, windows: 2, windowS: 1, processes: 2, connections: 50, order: 'ABBA' },
  );
  assert.deepEqual(
    { ...referenceDesign({}), connections: 0 },
    { warmupS: 20, windows: 6, windowS: 5, processes: 3, connections: 0, order: 'rotation' },
    'the default design: rotation blocks, 6 × 5 s windows',
  );
  assert.equal(referenceDesign({ design: 'solo' }).windowS, 10, "solo's own defaults");
  refuses(
    () => referenceDesign({ design: 'abba' }),
    /^--design must be rotation or solo, got 'abba'/,
    'reference --design',
  );
  refusesAll(
    '--warmup',
    ['3x'],
    (v) => parseBenchOptions({ ...BENCH_RAW, warmup: v }),
    /must be a whole number of seconds from 0 to 600/,
  );
  refusesAll(
    '--slice',
    ['5', '5001', '1.5'],
    (v) => parseBenchOptions({ ...BENCH_RAW, slice: v }),
    /must be a whole number of ms from 10 to 5000/,
  );
  assert.equal(interleaveOf(withOverrides(getProfile('quick'), { sliceMs: 500 }))?.sliceMs, 500, '--slice');
  refuses(
    () => withOverrides(getProfile('k6-vus'), { sliceMs: 500 }),
    /^--slice applies to the profiles with interleaved rounds/,
    'slice on k6',
  );
  refusesAll(
    '--paired-rounds',
    ['1', '201', '2.5'],
    (v) => parseBenchOptions({ ...BENCH_RAW, pairedRounds: v }),
    /must be a whole number of interleaved rounds from 2 to 200/,
  );
  const stress16 = interleaveOf(withOverrides(getProfile('stress'), { pairedRounds: 16 }));
  assert.deepEqual([stress16?.rounds, stress16?.sliceMs], [16, 100], '--paired-rounds keeps the slice');
  refuses(
    () => withOverrides(getProfile('k6-ramp'), { pairedRounds: 16 }),
    /^--paired-rounds applies to the profiles with interleaved rounds/,
    'paired rounds on k6',
  );
  assert.equal(parseBenchOptions({ ...BENCH_RAW, warmup: '20' }).warmupS, 20, 'bench --warmup');
  const ref = (k: string) => (v: string) => referenceDesign({ [k]: v });
  refusesAll('--warmup', ['-1', '601', ...NOT_NUMBERS], ref('warmup'), /must be a number from 0 to 600/);
  refusesAll('--windows', ['0', '-1', '51', '1.5', ...NOT_NUMBERS], ref('windows'), /must be a whole number from 1/);
  refusesAll('--window', ['0', '601', '10x'], ref('window'), /must be a whole number from 1 to 600/);
  refusesAll('--processes', ['0', '21', 'abc'], ref('processes'), /must be a whole number from 1 to 20/);
  refusesAll('--connections', ['0', '10001', '10x'], ref('connections'), /must be a whole number from 1 to 10000/);

  const cmp = (v: string) => parseCompareOptions({ threshold: v, format: 'md' });
  assert.equal(cmp('0.1').threshold, 0.1);
  assert.equal(parseCompareOptions({}).threshold, OPTION_DEFAULTS.threshold);
  refusesAll('--threshold', ['-0.1', '1', '2', ...NOT_NUMBERS], cmp, /must be a fraction such as 0\.05/);
  refuses(() => parseCompareOptions({ format: 'xml' }), /^--format must be md or json, got 'xml'/, 'compare --format');
});

test('the real CLI: a bad number is exit 2 with its message, before anything is loaded or run', async () => {
  const cases: [string[], RegExp][] = [
    [['bench', 'fastify', '--rounds', '0'], /error: --rounds must be an integer from 1 to 50, got '0'/],
    [['bench-all', '--duration', '10x'], /error: --duration must be a positive number, got '10x'/],
    [['bench', 'fastify', '--seed', '1.5'], /error: --seed must be an integer, got '1\.5'/],
    [['why', 'fastify', '--top', '-1'], /error: --top must be a whole number from 1 to 1000, got '-1'/],
    [['selftest', '--copies', 'abc'], /error: --copies must be a whole number from 2 to 30, got 'abc'/],
    [['reference', 'fastify', '--windows', '0'], /error: --windows must be a whole number from 1 to 50, got '0'/],
    [['claims', '--rounds', '3', '--dry-run'], /error: --rounds must be at least 5 for a verdict, got '3'/],
    [['compare', 'a', '--threshold', '2'], /error: --threshold must be a fraction such as 0\.05, got '2'/],
  ];
  const results = tmpDir('cli-options');
  for (const [args, message] of cases) {
    const r = await runCli(['--results-dir', results, ...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: exit ${r.code}\n${r.stderr}`);
    assert.match(r.stderr, message, args.join(' '));
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    // Parsed before the plan: no note about the baseline contenders, nothing written.
    assert.doesNotMatch(r.stderr, /also measuring/, args.join(' '));
  }
  const json = await runCli(['--results-dir', results, 'bench', 'fastify', '--rounds', '0', '--json']);
  assert.equal(json.code, 2, json.stderr);
  const end = JSON.parse(json.stdout.trim().split('\n').at(-1) ?? '{}');
  assert.equal(end.event, 'run-end', '--json: the run-end event also for a bad option');
  assert.match(end.error, /--rounds must be an integer from 1 to 50, got '0'/);
});

test('with a run holding the machine lock, a bad number is exit 2 at once: --wait does not wait', async () => {
  const file = path.join(tmpDir('lock-options'), 'run.lock');
  const held = await acquireRunLock({ runId: 'test-holder', file, command: ['bench-all'] });
  // Safety net only: if the CLI waited for the lock, release it after 60 s so the test ends (and fails below).
  const safety = setTimeout(() => held.release(), 60_000);
  try {
    const cases: [string[], RegExp][] = [
      [['bench', 'fastify', '--rounds', '0'], /--rounds must be an integer from 1 to 50, got '0'/],
      [['bench-all', '--fidelity', '-1'], /--fidelity must be seconds from 0 to 60 \(0 = off\), got '-1'/],
      [['why', 'fastify', '--duration', '0'], /--duration must be a positive number, got '0'/],
      [['selftest', '--copies', '1'], /--copies must be a whole number from 2 to 30, got '1'/],
      [['ab', 'fastify', '--ref', 'HEAD', '--seed', 'x'], /--seed must be an integer, got 'x'/],
      [['claims', '--rounds', '4'], /--rounds must be at least 5 for a verdict, got '4'/],
      [['reference', 'fastify', '--processes', '0'], /--processes must be a whole number from 1 to 20, got '0'/],
    ];
    for (const [args, message] of cases) {
      const t0 = performance.now();
      const r = await runCli([...args, '--wait'], { BENCH_LOCK_FILE: file });
      const s = (performance.now() - t0) / 1000;
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, message, args.join(' '));
      assert.doesNotMatch(r.stderr, /another bake-off run holds this machine|waiting for the run lock/);
      assert.ok(s < 45, `${args.join(' ')}: answered in ${s.toFixed(1)} s, not after the lock`);
    }
  } finally {
    clearTimeout(safety);
    held.release();
  }
});

test('bench --url: no --rounds is no CLI default; the run takes the profile default for an external target', () => {
  const o = parseBenchOptions({ ...BENCH_RAW, url: 'http://127.0.0.1:18090' });
  assert.equal(o.rounds, undefined, 'the CLI sets no rounds: the scheduler applies defaultRounds');
  assert.equal(parseBenchOptions({ ...BENCH_RAW, url: 'http://127.0.0.1:18090', rounds: '3' }).rounds, 3);
  // quick: 2 solo rounds, then 6 interleaved ones; an external target cannot be paused or its CPU
  // read, so its run has the 6 as solo rounds too: 8 windows per cell.
  const quick = getProfile('quick');
  assert.equal(defaultRounds(quick, true), 2);
  assert.equal(defaultRounds(quick, false), 8);
  assert.equal(defaultRounds(getProfile('ab'), false), 25);
  // pipelined: 2 solo rounds, then 16 interleaved ones; stress: 5, then 8.
  assert.equal(defaultRounds(getProfile('pipelined'), true), 2);
  assert.equal(defaultRounds(getProfile('pipelined'), false), 18);
  assert.equal(defaultRounds(getProfile('stress'), false), 13);
  // No interleaved rounds to fold in: k6, capacity and the solo-only profiles are unchanged.
  for (const name of ['smoke', 'standard', 'capacity', 'k6-vus', 'k6-rate', 'quick-k6']) {
    const p = getProfile(name);
    assert.equal(defaultRounds(p, false), p.rounds, name);
    assert.equal(defaultRounds(p, true), p.rounds, name);
  }
});
