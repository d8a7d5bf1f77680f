/**
 * The CLI's options, parsed once at the edge: each command's raw commander values (the strings
 * typed on the command line, or the string defaults its help shows) become the typed values
 * below, before any server, run folder or machine lock; nothing after this module sees a string
 * where a number is meant. A bad value is a UserError (exit 2) that names the flag, what it takes
 * and what was given, e.g. "--rounds must be an integer from 1 to 50, got '0'"; the first bad
 * option (in the order of the command's fields here) is the one reported.
 *
 * Defaults: a value that depends on the profile (rounds, window seconds, VUs, arrival rate, the
 * fidelity check's seconds, the p99 objective) stays absent here, and the run takes it from the
 * profile (core/profiles.ts). Every other default is a constant (OPTION_DEFAULTS, REFERENCE_DEFAULTS),
 * which the commands' help shows as its string and which applies here when a field is absent.
 *
 * The rules of each flag's value and commander's parsers of --port, --host and --url are in
 * cli/option-rules.ts; the parsers, the list collector and OPTION_DEFAULTS are re-exported here.
 */
import { z } from 'zod';
import { fidelitySeconds, INTERVAL, OPTION_DEFAULTS, roundsRule, SEED, UPSTREAM_DELAY } from './option-rules.ts';
import { checkNumber, defined, numeric, numericOr, parseWith, range } from '../core/option-values.ts';
import type { ProfileOverrides } from '../core/profiles.ts';
import { DURATION, OVERRIDES, overridesOf } from '../core/profile-overrides.ts';
import { parseMajors } from '../lifecycle/node-runtime.ts';
import { MIN_CI_TRIALS } from '../analysis/stats.ts';

export { list, OPTION_DEFAULTS, parseHost, parsePort, parseUrl } from './option-rules.ts';

// --- bench and bench-all ---

/**
 * The options of `bench` and `bench-all`, typed: what bench() (cli/bench.ts) runs, also as why,
 * selftest, ab and claims pass them; with the profile's overrides (`--driver`, `--duration` …,
 * ProfileOverrides). Absent numbers take the profile's value.
 */
export interface BenchOpts extends ProfileOverrides {
  scenario?: string[];
  profile: string;
  /** `--port`: one fixed server port. */
  port?: number;
  /** `--host`: the loopback address the servers listen on. */
  host: string;
  /** `--upstream-delay`: the upstream mock's delay per response, ms ≥ 0. */
  upstreamDelayMs: number;
  /** False with `--no-variants`. */
  variants: boolean;
  /** `--node`: the Node.js majors to run the contenders on (absent: this process's, the pinned one). */
  nodeMajors?: number[];
  /** `--url`: the external target (http(s) on a loopback host). */
  url?: string;
  /**
   * `--rounds N` (1–50; its old name `--trials`): solo rounds per cell. Absent: the profile's
   * default for the run (core/profiles.ts `defaultRounds`, applied by the scheduler; with `--url`
   * the profile's interleaved rounds as solo rounds too).
   */
  rounds?: number;
  /** `--seed`: the shuffle seed, an integer (absent: random, recorded). */
  seed?: number;
  /** Seconds of the driver fidelity check, 0–60, 0 = off (`--fidelity`, `--no-fidelity`); absent: the profile's. */
  fidelityS?: number;
  /** False with `--no-baseline`: no baseline contenders added (tests, external targets). */
  baseline?: boolean;
  /**
   * The A/A control (scheduler/plan.ts `withControls`): true by default for `bench-all` (the
   * bake-off), false with its `--no-control`; absent (off) for `bench` and for the commands that
   * pass BenchOpts themselves (claims, selftest, ab, why).
   */
  control?: boolean;
  /** `--quiet`: no progress lines and notes; the final table and errors only. */
  quiet?: boolean;
  /** `--json`: NDJSON progress events on stdout (the table to stderr). */
  json?: boolean;
  /**
   * `--leaderboard`: after the run, write results/LEADERBOARD.md and results/leaderboard.html
   * (cli/report.ts `leaderboardCommand`) and print their terminal overview instead of the run's own
   * table, also with `--quiet` (to stderr with `--json`). `just bake-off` passes it: one overview.
   */
  leaderboard?: boolean;
  /**
   * False: bench() prints no report after the run, because its command prints its own answer
   * (`ab`'s verdict, `claims`' verdicts); absent or true: the run's overview as usual.
   */
  overview?: boolean;
  /**
   * `--profile-cpu`, with V8's sampling interval (`--interval`, µs 1–100000, default
   * OPTION_DEFAULTS.intervalUs): after each group's ranked windows, one profiled window per cell
   * (scheduler/run.ts `cpuProfile`).
   */
  cpuProfile?: { intervalUs: number };
  /** `--footprint`: after the groups, the footprint probes of every contender (scheduler/footprint-probes.ts). */
  footprint?: boolean;
  /** `--wait`: queue for the machine lock instead of refusing. */
  wait?: boolean;
}

const BENCH_RAW = z.object({
  scenario: z.array(z.string()).optional(),
  profile: z.string(),
  port: z.number().optional(),
  host: z.string(),
  upstreamDelay: UPSTREAM_DELAY,
  variants: z.boolean(),
  node: z
    .string()
    .optional()
    .transform((v, ctx) => {
      try {
        return v === undefined ? undefined : parseMajors(v);
      } catch (e) {
        ctx.addIssue({ code: 'custom', message: (e as Error).message });
        return z.NEVER;
      }
    }),
  ...OVERRIDES.shape,
  url: z.string().optional(),
  rounds: z.string().optional(),
  trials: z.string().optional(),
  seed: SEED,
  fidelity: fidelitySeconds('--fidelity'),
  crossCheck: fidelitySeconds('--cross-check'),
  baseline: z.boolean().optional(),
  control: z.boolean().optional(),
  quiet: z.boolean().optional(),
  json: z.boolean().optional(),
  leaderboard: z.boolean().optional(),
  profileCpu: z.boolean().optional(),
  interval: z.string().optional(),
  footprint: z.boolean().optional(),
  wait: z.boolean().optional(),
});

const BENCH = BENCH_RAW.transform((o, ctx): BenchOpts => {
  const [roundsFlag, roundsRaw] = o.rounds !== undefined ? ['--rounds', o.rounds] : ['--trials', o.trials];
  const rounds = roundsRaw === undefined ? undefined : checkNumber(roundsRaw, [roundsRule(roundsFlag)], ctx);
  if (o.interval !== undefined && !o.profileCpu)
    ctx.addIssue({
      code: 'custom',
      message: '--interval sets the sampling of --profile-cpu: add --profile-cpu (or use `just why`)',
    });
  const intervalUs = o.interval === undefined ? OPTION_DEFAULTS.intervalUs : checkNumber(o.interval, [INTERVAL], ctx);
  const fidelityS = o.fidelity ?? o.crossCheck;
  return {
    scenario: o.scenario,
    profile: o.profile,
    host: o.host,
    upstreamDelayMs: o.upstreamDelay,
    variants: o.variants,
    ...overridesOf(o),
    ...defined({
      port: o.port,
      nodeMajors: o.node,
      url: o.url,
      rounds,
      seed: o.seed,
      fidelityS,
      baseline: o.baseline,
      control: o.control,
      quiet: o.quiet,
      json: o.json,
      leaderboard: o.leaderboard,
      cpuProfile: o.profileCpu ? { intervalUs } : undefined,
      footprint: o.footprint,
      wait: o.wait,
    }),
  };
});

/**
 * The options of `bench` / `bench-all` from commander's raw values. `note` gets the one note of
 * the parse (`--trials` is the old name of `--rounds`). Throws UserError naming the first bad option.
 */
export function parseBenchOptions(raw: Record<string, unknown>, note: (l: string) => void = () => {}): BenchOpts {
  if (raw.trials !== undefined && raw.rounds === undefined)
    note('--trials is the old name of --rounds (measured windows per cell): use --rounds');
  return parseWith(BENCH, raw);
}

// --- why ---

/** The options of `why`, typed. */
export interface WhyOpts {
  scenario?: string[];
  profile: string;
  host: string;
  /** `--upstream-delay`, ms ≥ 0. */
  upstreamDelayMs: number;
  variants: boolean;
  baseline?: boolean;
  /** `--duration`: the profiled window, whole seconds ≥ 1 (absent: the profile's). */
  durationS?: number;
  /** `--interval`: V8's sampling interval, µs 1–100000. */
  intervalUs: number;
  /** `--against`: the contender every other one is compared with (absent: each scenario's baseline). */
  against?: string;
  /** `--top`: buckets shown per table, 1–1000. */
  top: number;
  seed?: number;
  quiet?: boolean;
  wait?: boolean;
}

const WHY = z
  .object({
    scenario: z.array(z.string()).optional(),
    profile: z.string(),
    host: z.string(),
    upstreamDelay: UPSTREAM_DELAY,
    variants: z.boolean(),
    baseline: z.boolean().optional(),
    duration: numeric(DURATION),
    interval: numericOr([INTERVAL], OPTION_DEFAULTS.intervalUs),
    against: z.string().optional(),
    top: numericOr([range('--top', 1, 1000)], OPTION_DEFAULTS.top),
    seed: SEED,
    quiet: z.boolean().optional(),
    wait: z.boolean().optional(),
  })
  .transform(
    (o): WhyOpts => ({
      scenario: o.scenario,
      profile: o.profile,
      host: o.host,
      upstreamDelayMs: o.upstreamDelay,
      variants: o.variants,
      intervalUs: o.interval,
      top: o.top,
      ...defined({
        baseline: o.baseline,
        durationS: o.duration,
        against: o.against,
        seed: o.seed,
        quiet: o.quiet,
        wait: o.wait,
      }),
    }),
  );

/** The options of `why` from commander's raw values; throws UserError naming the first bad option. */
export function parseWhyOptions(raw: Record<string, unknown>): WhyOpts {
  return parseWith(WHY, raw);
}

// --- selftest and ab ---

/** The options of `selftest`, typed. */
export interface SelftestOpts {
  scenario?: string[];
  profile: string;
  /** `--copies` K: identical copies of the fixture, 2–30 (K(K−1)/2 null pairs per scenario). */
  copies: number;
  /** `--seed` of the pilot run (the main run uses seed + 1); absent: random. */
  seed?: number;
  wait?: boolean;
}

const SELFTEST = z.object({
  scenario: z.array(z.string()).optional(),
  profile: z.string(),
  copies: numericOr([range('--copies', 2, 30)], OPTION_DEFAULTS.copies),
  seed: SEED,
  wait: z.boolean().optional(),
});

/** The options of `selftest` from commander's raw values; throws UserError naming the first bad option. */
export function parseSelftestOptions(raw: Record<string, unknown>): SelftestOpts {
  const o = parseWith(SELFTEST, raw);
  return { profile: o.profile, copies: o.copies, ...defined({ scenario: o.scenario, seed: o.seed, wait: o.wait }) };
}

/** The options of `ab`, typed. */
export interface AbOpts {
  /** `--ref`: the git revision of B. */
  ref: string;
  scenario?: string[];
  profile: string;
  /** `--env`: KEY=VALUE pairs added to A's environment (cli/ab.ts parseEnvPairs). */
  env?: string[];
  seed?: number;
  quiet?: boolean;
  wait?: boolean;
}

const AB = z.object({
  ref: z.string(),
  scenario: z.array(z.string()).optional(),
  profile: z.string(),
  env: z.array(z.string()).optional(),
  seed: SEED,
  quiet: z.boolean().optional(),
  wait: z.boolean().optional(),
});

/** The options of `ab` from commander's raw values; throws UserError naming the first bad option. */
export function parseAbOptions(raw: Record<string, unknown>): AbOpts {
  const o = parseWith(AB, raw);
  const { ref, profile, ...rest } = o;
  return { ref, profile, ...defined(rest) };
}

// --- claims ---

/** The options of `claims`, typed. */
export interface ClaimsOpts {
  /** `--source <name>`: only this docs/sources.md entry (exact name, case-insensitive). */
  source?: string;
  /** `--claim <ids>`: only these claim ids. */
  claim?: string[];
  /** `--dry-run`: print the plan and the expected duration; measure nothing. */
  dryRun?: boolean;
  /** `--rounds N`: rounds per cell, 5–50 (absent: max(the profile's rounds, 5)). */
  rounds?: number;
  /** `--duration s`: shortens the windows (verdicts then provisional); whole seconds ≥ 1. */
  durationS?: number;
  /**
   * `--with-baselines`: add each scenario's baseline contender, as bench does (about 10 min more).
   * Off by default, to keep every claim within the hour: each claim compares a with its own
   * reference b, and the table model then takes b as its reference row (report/claims.ts).
   */
  withBaselines?: boolean;
  seed?: number;
  quiet?: boolean;
  host: string;
  wait?: boolean;
}

const CLAIMS = z.object({
  source: z.string().optional(),
  claim: z.array(z.string()).optional(),
  dryRun: z.boolean().optional(),
  rounds: numeric([
    [(n) => n >= MIN_CI_TRIALS, (v) => `--rounds must be at least ${MIN_CI_TRIALS} for a verdict, got '${v}'`],
    range('--rounds', MIN_CI_TRIALS, 50, true, 'an integer'),
  ]),
  duration: numeric(DURATION),
  withBaselines: z.boolean().optional(),
  seed: SEED,
  quiet: z.boolean().optional(),
  host: z.string(),
  wait: z.boolean().optional(),
});

/** The options of `claims` from commander's raw values; throws UserError naming the first bad option. */
export function parseClaimsOptions(raw: Record<string, unknown>): ClaimsOpts {
  const { duration, host, ...rest } = parseWith(CLAIMS, raw);
  return { host, ...defined({ ...rest, durationS: duration }) };
}

// --- reference: cli/reference-options.ts ---

export {
  parseReferenceOptions,
  type ReferenceDesign,
  referenceDesign,
  type ReferenceOpts,
} from './reference-options.ts';

// --- compare ---

/** The options of `compare`, typed. */
export interface CompareOpts {
  baseline?: string;
  /** `--threshold`: the noise threshold, a fraction in [0, 1). */
  threshold: number;
  failOnRegression?: boolean;
  format: 'md' | 'json';
  out?: string;
  verbose?: boolean;
}

const COMPARE = z.object({
  baseline: z.string().optional(),
  threshold: numericOr(
    [[(n) => n >= 0 && n < 1, (v) => `--threshold must be a fraction such as 0.05, got '${v}'`]],
    OPTION_DEFAULTS.threshold,
  ),
  failOnRegression: z.boolean().optional(),
  format: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === 'md' || v === 'json') return v ?? 'md';
      ctx.addIssue({ code: 'custom', message: `--format must be md or json, got '${v}'` });
      return z.NEVER;
    }),
  out: z.string().optional(),
  verbose: z.boolean().optional(),
});

/** The options of `compare` from commander's raw values; throws UserError naming the first bad option. */
export function parseCompareOptions(raw: Record<string, unknown>): CompareOpts {
  const { threshold, format, ...rest } = parseWith(COMPARE, raw);
  return { threshold, format, ...defined(rest) };
}
