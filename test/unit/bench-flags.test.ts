// The flag table of bench and bench-all (harness/cli/bench-flags.ts): a command line goes through
// the commander options and the zod schema derived from the one table, and every flag reaches its
// typed field; with no flag, the help's defaults.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Command } from 'commander';
import { BENCH_FLAGS, benchFlags, parseBenchOptions } from '../../harness/cli/bench-flags.ts';

/** `bench`'s options parsed by commander from `args`, then typed by the table's schema. */
function parsed(args: string[]) {
  const c = benchFlags(new Command('bench').exitOverride());
  c.parse(args, { from: 'user' });
  return parseBenchOptions(c.opts());
}

test('bench flags: every flag of a command line reaches its typed field', () => {
  const args = [
    ['--scenario', 'json,echo'],
    ['-p', 'quick'],
    ['--port', '18080'],
    ['--host', '::1'],
    ['--upstream-delay', '5'],
    ['--no-variants'],
    ['--driver', 'wrk'],
    ['--node', '22,24'],
    ['--duration', '3'],
    ['--warmup', '1'],
    ['--slice', '50'],
    ['--paired-rounds', '16'],
    ['--vus', '10'],
    ['--slo-p99', '20'],
    ['--rate', '100'],
    ['--rounds', '3'],
    ['--seed', '7'],
    ['--fidelity', '2'],
    ['--no-baseline'],
    ['--url', 'http://127.0.0.1:18090'],
    ['--leaderboard'],
    ['-q'],
    ['--profile-cpu'],
    ['--interval', '250'],
    ['--footprint'],
    ['--json'],
    ['--wait'],
  ];
  const shown = BENCH_FLAGS.filter((f) => !('hidden' in f && f.hidden));
  assert.equal(args.length, shown.length, 'one argument per flag the help shows');
  assert.deepEqual(parsed(args.flat()), {
    scenario: ['json', 'echo'],
    profile: 'quick',
    port: 18080,
    host: '::1',
    upstreamDelayMs: 5,
    variants: false,
    driver: 'wrk',
    nodeMajors: [22, 24],
    durationS: 3,
    warmupS: 1,
    sliceMs: 50,
    pairedRounds: 16,
    vus: 10,
    sloP99Ms: 20,
    rate: 100,
    rounds: 3,
    seed: 7,
    fidelityS: 2,
    baseline: false,
    url: 'http://127.0.0.1:18090',
    leaderboard: true,
    quiet: true,
    cpuProfile: { intervalUs: 250 },
    footprint: true,
    json: true,
    wait: true,
  });
});

test('bench flags: no flag is the defaults the help shows; the old names fill their new fields', () => {
  assert.deepEqual(parsed([]), {
    profile: 'quick',
    host: '127.0.0.1',
    upstreamDelayMs: 0,
    variants: true,
    baseline: true,
  });
  assert.equal(parsed(['--trials', '4']).rounds, 4, '--trials, the old name of --rounds');
  assert.equal(parsed(['--rounds', '3', '--trials', '0']).rounds, 3, '--rounds wins; --trials is not read');
  assert.equal(parsed(['--cross-check', '4']).fidelityS, 4, '--cross-check, the old name of --fidelity');
  assert.equal(parsed(['--no-fidelity']).fidelityS, 0, '--no-fidelity = 0 s');
  assert.equal(parsed(['--no-cross-check']).fidelityS, 0, '--no-cross-check, the old name of --no-fidelity');
});
