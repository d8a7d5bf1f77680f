/**
 * The flags of `bench` and `bench-all`, each declared once in BENCH_FLAGS (cli/flag-table.ts): its
 * commander spec and help line, the zod schema of its raw value and the BenchOpts field it fills.
 * The commands' options (`benchFlags`), the parse (`parseBenchOptions`) and the type (BenchOpts)
 * are derived from the table; the one rule between two flags (`--interval` needs `--profile-cpu`,
 * and the two become `cpuProfile`) is checked before the table's own checks.
 *
 * Defaults: a value that depends on the profile (rounds, window seconds, VUs, arrival rate, the
 * fidelity check's seconds, the p99 objective) stays absent, and the run takes it from the profile
 * (core/profiles.ts). `--trials` and `--cross-check` are the hidden old names of `--rounds` and
 * `--fidelity`: they fill the same field, the new name winning when both are given.
 */
import type { Command } from 'commander';
import { z } from 'zod';
import { UserError } from '../core/errors.ts';
import { numeric, parseWith } from '../core/option-values.ts';
import { OVERRIDES } from '../core/profile-overrides.ts';
import { CONNECTION_DRIVERS, DEFAULT_PROFILE, PROFILES } from '../core/profiles.ts';
import { WAIT_HELP } from './command-kit.ts';
import { addFlags, flag, flagSchema } from './flag-table.ts';
import {
  fidelitySeconds,
  INTERVAL,
  list,
  NODE_MAJORS,
  OPTION_DEFAULTS,
  parseHost,
  parsePort,
  parseUrl,
  roundsRule,
  SEED,
  UPSTREAM_DELAY,
} from './option-rules.ts';

const SWITCH = z.boolean().optional();

/** The flags of bench and bench-all, in their help's order (`--wait` last, as in every command that takes the machine lock). */
export const BENCH_FLAGS = [
  flag({
    flags: '-s, --scenario <names>',
    help: 'scenario(s), comma-separated or repeated',
    parse: list,
    schema: z.array(z.string()).optional(),
    field: 'scenario',
  }),
  flag({
    flags: '-p, --profile <name>',
    help: `load profile (${PROFILES.map((p) => p.name).join(', ')})`,
    default: DEFAULT_PROFILE,
    schema: z.string(),
    field: 'profile',
  }),
  flag({
    flags: '--port <port>',
    help: 'fixed server port (default: a free port per cell)',
    parse: parsePort,
    schema: z.number().optional(),
    field: 'port',
  }),
  flag({
    flags: '--host <host>',
    help: 'loopback address the contenders listen on (127.0.0.1 or ::1)',
    parse: parseHost,
    default: '127.0.0.1',
    schema: z.string(),
    field: 'host',
  }),
  flag({
    flags: '--upstream-delay <ms>',
    help: 'UPSTREAM_DELAY_MS of the upstream mock',
    default: String(OPTION_DEFAULTS.upstreamDelayMs),
    schema: UPSTREAM_DELAY,
    field: 'upstreamDelayMs',
  }),
  flag({ flags: '--no-variants', help: 'skip manifest variants', schema: z.boolean(), field: 'variants' }),
  flag({
    flags: '--driver <name>',
    help: `connection profiles: the load driver (${CONNECTION_DRIVERS.join(', ')}; default: the profile's, quick: native = wrk, installed as root when missing)`,
    schema: OVERRIDES.shape.driver,
    field: 'driver',
  }),
  flag({
    flags: '--node <majors>',
    help: 'Node.js majors to run the contenders on, e.g. 22,24,26 (default: the pinned 24)',
    schema: NODE_MAJORS,
    field: 'nodeMajors',
  }),
  flag({
    flags: '--duration <s>',
    help: "override the profile's window seconds (one measured trial)",
    schema: OVERRIDES.shape.duration,
    field: 'durationS',
  }),
  flag({
    flags: '--warmup <s>',
    help: "override the profile's warm-up seconds per server process (quick: 1)",
    schema: OVERRIDES.shape.warmup,
    field: 'warmupS',
  }),
  flag({
    flags: '--slice <ms>',
    help: "override the interleaved rounds' slice, ms (quick: 100)",
    schema: OVERRIDES.shape.slice,
    field: 'sliceMs',
  }),
  flag({
    flags: '--paired-rounds <n>',
    help: 'override the number of interleaved rounds per cell (quick: 6; the same shape, more data)',
    schema: OVERRIDES.shape.pairedRounds,
    field: 'pairedRounds',
  }),
  flag({
    flags: '--vus <n>',
    help: 'k6 profiles: VUs (k6-vus default 1000)',
    schema: OVERRIDES.shape.vus,
    field: 'vus',
  }),
  flag({
    flags: '--slo-p99 <ms>',
    help: "capacity profile: the p99 objective in ms (default: each scenario's sloP99Ms)",
    schema: OVERRIDES.shape.sloP99,
    field: 'sloP99Ms',
  }),
  flag({
    flags: '--rate <rps>',
    help: "k6-rate profile: the constant arrival rate in requests/s (k6 constant-arrival-rate; default: half the cell's latest quick requests/s)",
    schema: OVERRIDES.shape.rate,
    field: 'rate',
  }),
  flag({
    flags: '--rounds <n>',
    help: "rounds: solo measured windows per cell (one trial each), in a shuffled order per round (default: the profile's; quick: 2)",
    schema: numeric([roundsRule('--rounds')]),
    field: 'rounds',
  }),
  flag({
    flags: '--trials <n>',
    help: 'old name of --rounds',
    hidden: true,
    schema: numeric([roundsRule('--trials')]),
    field: 'rounds',
  }),
  flag({
    flags: '--seed <n>',
    help: 'shuffle seed: fixes the per-round order of the contenders (recorded; random by default)',
    schema: SEED,
    field: 'seed',
  }),
  flag({
    flags: '--fidelity <s>',
    help: "seconds per run of the once-per-run driver fidelity check on the fastest cell (default: the profile's; 0 = off; needs wrk)",
    negate: 'skip the driver fidelity check',
    schema: fidelitySeconds('--fidelity'),
    field: 'fidelityS',
  }),
  flag({
    flags: '--cross-check <s>',
    help: 'old name of --fidelity',
    hidden: true,
    negate: 'old name of --no-fidelity',
    schema: fidelitySeconds('--cross-check'),
    field: 'fidelityS',
  }),
  flag({
    flags: '--no-baseline',
    help: "do not add each scenario's baseline contender (node-http for REST) to the run",
    schema: SWITCH,
    field: 'baseline',
  }),
  flag({
    flags: '--url <url>',
    help: 'bench a server already running on this machine, http(s)://127.0.0.1|localhost|[::1]:PORT (external target: no start, stop or pinning)',
    parse: parseUrl,
    schema: z.string().optional(),
    field: 'url',
  }),
  flag({
    flags: '--leaderboard',
    help: "after the run, write results/LEADERBOARD.md and results/leaderboard.html and print their overview instead of the run's own table (`just bake-off`)",
    schema: SWITCH,
    field: 'leaderboard',
  }),
  flag({
    flags: '-q, --quiet',
    help: 'no progress lines or notes: only the final table (stdout) and errors (stderr)',
    schema: SWITCH,
    field: 'quiet',
  }),
  flag({
    flags: '--profile-cpu',
    help: "after the ranked windows, one more window per cell under V8's CPU profiler: CPU per request by package, stored as a why run (results/why/; never ranked)",
    schema: SWITCH,
    field: 'profileCpu',
  }),
  flag({
    flags: '--interval <us>',
    help: "with --profile-cpu: V8's sampling interval, µs (default 5000: docs/why.md)",
    schema: numeric([INTERVAL]),
    field: 'intervalUs',
  }),
  flag({
    flags: '--footprint',
    help: 'after the ranked windows, per contender: a first start after evicting its files from the page cache, 3 repeated starts with the first response, and CPU per request at 200 requests/s for 5 s (docs/footprint.md)',
    schema: SWITCH,
    field: 'footprint',
  }),
  flag({
    flags: '--json',
    help: 'progress as NDJSON events on stdout (run-start … run-end; schema in harness/scheduler/progress-sink.ts); the final table goes to stderr',
    schema: SWITCH,
    field: 'json',
  }),
  flag({ flags: '--wait', help: WAIT_HELP, schema: SWITCH, field: 'wait' }),
] as const;

/**
 * `bench-all`'s one flag of its own, registered just before `--wait`: the A/A control
 * (scheduler/plan.ts `withControls`) is on by default for the bake-off, off with `--no-control`,
 * and absent (off) for `bench` and for the commands that pass BenchOpts themselves.
 */
const CONTROL_FLAG = flag({
  flags: '--no-control',
  help: "no A/A control: by default a second process of each scenario's baseline runs beside the others, never ranked, and the report's how-sure line compares it with the baseline",
  schema: SWITCH,
  field: 'control',
});

/** The table's own parse: commander's raw values → one typed field per flag. */
const BENCH_VALUES = flagSchema([...BENCH_FLAGS, CONTROL_FLAG] as const);

/**
 * The options of `bench` and `bench-all`, typed: what bench() (cli/bench.ts) runs, also as why,
 * selftest, ab and claims pass them. The table's fields, with `--profile-cpu` and `--interval` as
 * `cpuProfile` (V8's sampling interval, µs, default OPTION_DEFAULTS.intervalUs), and `overview`:
 * false when the command prints its own answer instead of the run's overview (`ab`'s verdict,
 * `claims`' verdicts).
 */
export type BenchOpts = Omit<z.infer<typeof BENCH_VALUES>, 'profileCpu' | 'intervalUs'> & {
  cpuProfile?: { intervalUs: number };
  overview?: boolean;
};

const BENCH = BENCH_VALUES.transform((v): BenchOpts => {
  const { profileCpu, intervalUs, ...rest } = v;
  return profileCpu ? { ...rest, cpuProfile: { intervalUs: intervalUs ?? OPTION_DEFAULTS.intervalUs } } : rest;
});

/** Registers the flags of bench (`control` false) or bench-all (`control` true: with `--no-control`) on `c`, in their help's order. Returns `c`. */
export function benchFlags(c: Command, control = false): Command {
  return addFlags(c, control ? [...BENCH_FLAGS.slice(0, -1), CONTROL_FLAG, ...BENCH_FLAGS.slice(-1)] : BENCH_FLAGS);
}

/**
 * The options of `bench` / `bench-all` from commander's raw values. `note` gets the one note of
 * the parse (`--trials` is the old name of `--rounds`, read only without `--rounds`). Throws
 * UserError naming the first bad option: `--interval` without `--profile-cpu` first, then the
 * table's flags in its order.
 */
export function parseBenchOptions(raw: Record<string, unknown>, note: (l: string) => void = () => {}): BenchOpts {
  if (raw.interval !== undefined && raw.profileCpu !== true)
    throw new UserError('--interval sets the sampling of --profile-cpu: add --profile-cpu (or use `just why`)');
  if (raw.rounds !== undefined) return parseWith(BENCH, { ...raw, trials: undefined });
  if (raw.trials !== undefined) note('--trials is the old name of --rounds (measured windows per cell): use --rounds');
  return parseWith(BENCH, raw);
}
