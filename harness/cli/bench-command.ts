/**
 * The `bench` and `bench-all` commands: their options and help, and their action: the options
 * parsed (cli/options.ts `parseBenchOptions`), the names, profile and `--profile-cpu` checked
 * (cli/bench.ts `precheckBench`, cli/why.ts `precheckCpuProfile`), all before the machine lock
 * (cli/command-kit.ts `takeMachine`); then the run (cli/bench.ts `bench`) and, with
 * `--profile-cpu`, the attribution of its profiled windows (cli/why.ts `recordProfiled`).
 */
import { type Command, Option } from 'commander';
import { EXIT_HELP } from '../core/exit-codes.ts';
import { CONNECTION_DRIVERS, DEFAULT_PROFILE, PROFILES } from '../core/profiles.ts';
import { bench, precheckBench, withRunEnd } from './bench.ts';
import { type CliContext, helpFooter, takeMachine, waitOption } from './command-kit.ts';
import { list, OPTION_DEFAULTS, parseBenchOptions, parseHost, parsePort, parseUrl } from './options.ts';
import { precheckCpuProfile, recordProfiled } from './why.ts';

/** The options of bench and bench-all, in their help's order. */
function benchOptions(c: Command): Command {
  return c
    .option('-s, --scenario <names>', 'scenario(s), comma-separated or repeated', list)
    .option('-p, --profile <name>', `load profile (${PROFILES.map((p) => p.name).join(', ')})`, DEFAULT_PROFILE)
    .option('--port <port>', 'fixed server port (default: a free port per cell)', parsePort)
    .option('--host <host>', 'loopback address the contenders listen on (127.0.0.1 or ::1)', parseHost, '127.0.0.1')
    .option('--upstream-delay <ms>', 'UPSTREAM_DELAY_MS of the upstream mock', String(OPTION_DEFAULTS.upstreamDelayMs))
    .option('--no-variants', 'skip manifest variants')
    .option(
      '--driver <name>',
      `connection profiles: the load driver (${CONNECTION_DRIVERS.join(', ')}; default: the profile's, quick: native = wrk, installed as root when missing)`,
    )
    .option('--node <majors>', 'Node.js majors to run the contenders on, e.g. 22,24,26 (default: the pinned 24)')
    .option('--duration <s>', "override the profile's window seconds (one measured trial)")
    .option('--warmup <s>', "override the profile's warm-up seconds per server process (quick: 1)")
    .option('--slice <ms>', "override the interleaved rounds' slice, ms (quick: 100)")
    .option('--vus <n>', 'k6 profiles: VUs (k6-vus default 1000)')
    .option('--slo-p99 <ms>', "capacity profile: the p99 objective in ms (default: each scenario's sloP99Ms)")
    .option(
      '--rate <rps>',
      "k6-rate profile: the constant arrival rate in requests/s (k6 constant-arrival-rate; default: half the cell's latest quick requests/s)",
    )
    .option(
      '--rounds <n>',
      "rounds: solo measured windows per cell (one trial each), in a shuffled order per round (default: the profile's; quick: 2)",
    )
    .addOption(new Option('--trials <n>', 'old name of --rounds').hideHelp())
    .option('--seed <n>', 'shuffle seed: fixes the per-round order of the contenders (recorded; random by default)')
    .option(
      '--fidelity <s>',
      "seconds per run of the once-per-run driver fidelity check on the fastest cell (default: the profile's; 0 = off; needs wrk)",
    )
    .option('--no-fidelity', 'skip the driver fidelity check')
    .addOption(new Option('--cross-check <s>', 'old name of --fidelity').hideHelp())
    .addOption(new Option('--no-cross-check', 'old name of --no-fidelity').hideHelp())
    .option('--no-baseline', "do not add each scenario's baseline contender (node-http for REST) to the run")
    .option(
      '--url <url>',
      'bench a server already running on this machine, http(s)://127.0.0.1|localhost|[::1]:PORT (external target: no start, stop or pinning)',
      parseUrl,
    )
    .option(
      '--leaderboard',
      "after the run, write results/LEADERBOARD.md and results/leaderboard.html and print their overview instead of the run's own table (`just bake-off`)",
    )
    .option('-q, --quiet', 'no progress lines or notes: only the final table (stdout) and errors (stderr)')
    .option(
      '--profile-cpu',
      "after the ranked windows, one more window per cell under V8's CPU profiler: CPU per request by package, stored as a why run (results/why/; never ranked)",
    )
    .option('--interval <us>', "with --profile-cpu: V8's sampling interval, µs (default 5000: docs/why.md)")
    .option(
      '--footprint',
      'after the ranked windows, per contender: a first start after evicting its files from the page cache, 3 repeated starts with the first response, and CPU per request at 200 requests/s for 5 s (docs/footprint.md)',
    )
    .option(
      '--json',
      'progress as NDJSON events on stdout (run-start … run-end; schema in harness/scheduler/progress-sink.ts); the final table goes to stderr',
    );
}

/**
 * The action of bench (`names`: the contenders) and bench-all (`names` empty: every one): see the
 * module comment. Every check before the lock is exit 2 at once; with --json its run-end event too.
 */
async function benchAction(ctx: CliContext, names: string[], raw: Record<string, unknown>): Promise<void> {
  const g = ctx.globals();
  const note = (l: string) => {
    if (raw.quiet !== true) process.stderr.write(`${l}\n`);
  };
  const { opts, profile } = withRunEnd({ json: raw.json === true, quiet: raw.quiet === true }, () => {
    const o = parseBenchOptions(raw, note);
    const p = precheckBench(g, names, o);
    precheckCpuProfile(o);
    return { opts: o, profile: p };
  });
  await takeMachine({
    driverProfile: profile,
    port: opts.port,
    host: opts.host,
    url: opts.url,
    wait: opts.wait,
    command: ctx.argv,
  });
  const ranked = await bench(g, names, opts, ctx.argv, ctx.signal);
  await recordProfiled(g, opts, ranked, ctx.signal);
}

/** Registers `bench <contender...>` on `program`. */
export function registerBench(program: Command, ctx: CliContext): void {
  const c = benchOptions(
    program.command('bench').description('verify and measure one or more contenders').argument('<contender...>'),
  );
  waitOption(c).action((names: string[], raw: Record<string, unknown>) => benchAction(ctx, names, raw));
  helpFooter(
    c,
    [
      'npx just bench fastify',
      'npx just bench node-http express --scenario json,echo --profile quick',
      'npx just bench postgraphile-express --scenario graphql-users --rounds 5',
      'npx just bench hasura --url http://127.0.0.1:18090',
    ],
    EXIT_HELP,
  );
}

/** Registers `bench-all` on `program`. */
export function registerBenchAll(program: Command, ctx: CliContext): void {
  const c = benchOptions(program.command('bench-all').description('verify and measure every contender')).option(
    '--no-control',
    "no A/A control: by default a second process of each scenario's baseline runs beside the others, never ranked, and the report's how-sure line compares it with the baseline",
  );
  waitOption(c).action((raw: Record<string, unknown>) => benchAction(ctx, [], raw));
  helpFooter(c, ['npx just bench-all', 'npx just bench-all --profile pipelined --wait'], EXIT_HELP);
}
