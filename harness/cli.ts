/**
 * The harness CLI (the justfile calls it; it also works on its own):
 *   node harness/cli.ts bench <contender...> [--scenario s] [--profile p]
 *   node harness/cli.ts bench-all [--profile p]
 *   node harness/cli.ts leaderboard | verify [contender...] | list | new <name>
 * Run it with the pinned Node from node_modules (`npx just …` does). Exit codes (core/exit-codes.ts):
 * 0 ok, 1 a verification failed or a regression, 2 usage or bad input (every option-parser error
 * included), 3 cells failed to build or start or crashed, 130 interrupted.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { CONTENDERS_DIR, RESULTS_DIR, SCENARIOS_DIR } from './core/paths.ts';
import { asStorageError, UserError } from './core/errors.ts';
import { EXIT, EXIT_HELP } from './core/exit-codes.ts';
import { writeOutputFile } from './core/output-file.ts';
import { ROOT } from './core/paths.ts';
import { acquireRunLock, releaseAllLocks } from './lifecycle/lock.ts';
import { MANIFEST_FILE } from './core/manifest.ts';
import { loadScenarios } from './contract/scenarios.ts';
import {
  CONNECTION_DRIVERS,
  DEFAULT_PROFILE,
  getProfile,
  measuredSeconds,
  PROFILES,
  type Profile,
  withOverrides,
} from './core/profiles.ts';
import { K6_VERSION } from './drivers/k6.ts';
import { doctorReport, ensureNativeDriver, installTools } from './drivers/tools.ts';
import { bench, load, precheckCommand, verify } from './cli/bench.ts';
import { selftest } from './cli/selftest.ts';
import { type ClaimsOpts, claimsCommand, planClaims } from './cli/claims-command.ts';
import { precheckProfileCpu, precheckWhy, recordProfiled, why } from './cli/why.ts';
import { ab, type AbOpts } from './cli/ab.ts';
import { precheckReference, reference, referenceCompare } from './cli/reference.ts';
import { checkResultsDir, latestCompleteRun, readRun, saveBaseline } from './store/runs.ts';
import { writeJsonAtomic } from './store/results.ts';
import { compareRuns, nothingToCompare } from './report/compare-runs.ts';
import { exportCommand, leaderboardCommand } from './cli/report.ts';
import { renderCompare, sameRunText } from './report/exporters/compare-format.ts';
import { terminalSettings } from './report/exporters/terminal.ts';
import { describePortHolder, isPortFree } from './lifecycle/ports.ts';
import { killAllSync, stopAll, watchLauncher } from './lifecycle/processes.ts';
import { composePaths, writeGenerated } from '../compose/gen-compose.ts';

const interrupt = new AbortController();
let signals = 0;
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(sig, () => {
    signals++;
    process.stderr.write(`\n${sig}: stopping every process the harness started; finished cells stay saved.\n`);
    interrupt.abort();
    if (signals > 1) {
      killAllSync();
      process.exit(EXIT.interrupted);
    }
    void stopAll(1500).then(() =>
      setTimeout(() => {
        killAllSync();
        process.exit(EXIT.interrupted);
      }, 3000).unref(),
    );
  });
}
// SIGTERM to `npx just …` (a CI cancel) kills npm's `sh -c` but is not passed on by the npm
// wrapper of just: when a process between us and npx dies, stop as on SIGTERM (processes.ts).
watchLauncher(() => process.kill(process.pid, 'SIGTERM'));
process.on('exit', () => {
  killAllSync();
  releaseAllLocks();
});

interface Globals {
  contendersDir: string;
  resultsDir: string;
  scenariosDir: string;
}

function list(v: string, prev: string[] = []): string[] {
  return [
    ...prev,
    ...v
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  ];
}

function parsePort(v: string): number {
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > 65535)
    throw new InvalidArgumentError(`--port must be an integer from 1 to 65535, got '${v}'`);
  return n;
}

const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '::1', '[::1]'];

/** True for a dotted-quad IPv4 literal in 127.0.0.0/8 whose parts are 0–255 without leading zeros. */
function isLoopbackIpv4(v: string): boolean {
  const parts = v.split('.');
  return (
    parts.length === 4 && parts[0] === '127' && parts.every((p) => /^(0|[1-9]\d{0,2})$/.test(p) && Number(p) <= 255)
  );
}

/** `--host`: a loopback address only (load tests never leave this machine); a valid IPv4 literal. */
function parseHost(v: string): string {
  if (!LOOPBACK_HOSTS.includes(v) && !isLoopbackIpv4(v))
    throw new InvalidArgumentError(
      `--host must be a loopback address (127.0.0.1 or ::1, or 127.x.y.z with each part 0–255); servers never listen off this machine. Got '${v}'`,
    );
  return v === '[::1]' ? '::1' : v;
}

/** `--url`: http or https on a loopback host (127.0.0.1, localhost, [::1]). */
function parseUrl(v: string): string {
  let u: URL;
  try {
    u = new URL(v);
  } catch {
    throw new InvalidArgumentError(`--url must be an http URL like http://127.0.0.1:18080, got '${v}'`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:')
    throw new InvalidArgumentError(
      `--url takes http:// or https:// only, got '${u.protocol}' (e.g. http://127.0.0.1:18080)`,
    );
  if (!LOOPBACK_HOSTS.includes(u.hostname))
    throw new InvalidArgumentError(
      `--url must point at this machine (127.0.0.1, localhost or [::1]); load tests never leave it. Got ${u.hostname}`,
    );
  return v;
}

/** "0.1.0 (commit 1a2b3c4d, modified)" from package.json and git (commit 'unknown' outside a checkout). */
function versionString(): string {
  let version = '0.0.0';
  try {
    version = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')).version;
  } catch {
    /* keep 0.0.0 */
  }
  let commit = 'unknown';
  try {
    const git = (args: string[]) =>
      execFileSync('git', args, { cwd: ROOT, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
    commit = git(['rev-parse', '--short=12', 'HEAD']);
    if (git(['status', '--porcelain', '--untracked-files=no']).length) commit += ', modified';
  } catch {
    /* not a git checkout */
  }
  return `${version} (commit ${commit})`;
}

function leaderboard(g: Globals, opts: { run?: string; out?: string; details?: boolean }): void {
  const term = terminalSettings(process.stdout, process.env);
  process.stdout.write(leaderboardCommand(g, { ...opts, ...term }, (l) => process.stderr.write(`${l}\n`)));
}

function newContender(g: Globals, name: string): void {
  if (!/^[a-z0-9][a-z0-9-]*$/.test(name))
    throw new UserError(`contender name '${name}' must be lower-case letters, digits and dashes`);
  const template = path.join(g.contendersDir, '_template');
  const dest = path.join(g.contendersDir, name);
  if (!fs.existsSync(template)) throw new UserError(`no template at ${template}`);
  if (fs.existsSync(dest)) throw new UserError(`${dest} already exists; choose another name`);
  fs.cpSync(template, dest, { recursive: true, filter: (src) => !src.includes(`${path.sep}node_modules`) });
  for (const f of fs.readdirSync(dest, { recursive: true, encoding: 'utf8' })) {
    const file = path.join(dest, f);
    if (fs.statSync(file).isFile()) fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replaceAll('__NAME__', name));
  }
  const manifest = JSON.parse(fs.readFileSync(path.join(dest, MANIFEST_FILE), 'utf8'));
  writeJsonAtomic(path.join(dest, MANIFEST_FILE), manifest);
  process.stdout.write(`created ${dest}\n`);
  // Compose services come from the manifests (compose/gen-compose.ts): regenerate them for this
  // repository's contenders, so the new folder is all a contender needs.
  if (path.resolve(g.contendersDir) === CONTENDERS_DIR) {
    try {
      const { written, ports } = writeGenerated(composePaths());
      process.stdout.write(
        `compose: service ${name} on 127.0.0.1:${ports.get(name)}${written.length ? ` (updated ${written.join(' and ')})` : ''}\n`,
      );
    } catch (e) {
      process.stderr.write(
        `warning: compose files not regenerated (${(e as Error).message}); fix that, then run \`node compose/gen-compose.ts\`\n`,
      );
    }
  }
  process.stdout.write(
    `next: edit server.js and ${MANIFEST_FILE}, then \`npx just verify ${name}\`.\n` +
      `Before committing, run \`npm install\` at the repository root: it adds the new workspace to package-lock.json (\`npm ci\` fails without it).\n`,
  );
}

function describeProfile(p: Profile): string {
  const shape =
    p.driver !== 'k6'
      ? `${p.connections} connections, pipelining ${p.pipelining}`
      : p.executor === 'ramping-vus'
        ? `ramping-vus to ${Math.max(...(p.stages ?? []).map((x) => x.target))} VUs`
        : p.executor === 'constant-vus'
          ? `${p.vus} constant VUs`
          : `constant-arrival-rate (${p.rate}), ≤ ${p.vus} VUs`;
  return `${p.driver}: ${shape}, ${p.warmupS} s warm-up, ${measuredSeconds(p)} s measured`;
}

function listAll(g: Globals): void {
  const { scenarios, manifests } = load(g);
  const out: string[] = ['Contenders:'];
  for (const m of manifests) {
    out.push(
      `  ${m.name.padEnd(24)} ${m.displayName} [${Object.entries(m.tags)
        .map(([k, v]) => `${k}: ${v}`)
        .join(
          ', ',
        )}]${m.composeOnly ? ` — compose-only: \`just compose-up ${m.name}\`, then bench with --url` : ''}${m.requires.length ? ` (requires ${m.requires.join(', ')})` : ''}`,
    );
    for (const [v, spec] of Object.entries(m.variants))
      out.push(`  ${`${m.name} +${v}`.padEnd(24)} variant: ${spec.description}`);
  }
  out.push('', 'Scenarios:');
  for (const s of scenarios)
    out.push(
      `  ${s.name.padEnd(14)} ${s.request.method.padEnd(4)} ${s.request.path.padEnd(24)} ${s.title} (${s.source})`,
    );
  out.push('', 'Profiles:');
  for (const p of PROFILES)
    out.push(
      `  ${p.name.padEnd(14)} ${describeProfile(p)} — ${p.description} (${p.source})${p.name === DEFAULT_PROFILE ? ' [default]' : ''}`,
    );
  process.stdout.write(`${out.join('\n')}\n`);
}

const program = new Command('just')
  .usage('<command> [options]   (or: node harness/cli.ts <command> [options])')
  .description('Node.js HTTP stack bake-off harness: verify, load-test and rank contenders on this machine.')
  .version(
    process.argv.some((a) => a === '--version' || a === '-V') ? versionString() : '',
    '-V, --version',
    'print the harness version (package.json) and git commit',
  )
  .exitOverride()
  .addOption(
    new Option('--contenders-dir <dir>', 'contenders folder').env('BENCH_CONTENDERS_DIR').default(CONTENDERS_DIR),
  )
  .addOption(new Option('--results-dir <dir>', 'results folder').env('BENCH_RESULTS_DIR').default(RESULTS_DIR))
  .addOption(
    new Option('--scenarios-dir <dir>', 'scenario contract folder')
      .env('BENCH_SCENARIOS_DIR')
      .default(SCENARIOS_DIR)
      .hideHelp(),
  )
  .showHelpAfterError('(run with --help for usage, examples and exit codes)');

const globals = (): Globals => {
  const o = program.opts();
  return {
    contendersDir: path.resolve(o.contendersDir),
    resultsDir: path.resolve(o.resultsDir),
    scenariosDir: path.resolve(o.scenariosDir),
  };
};

const benchOptions = (c: Command) =>
  c
    .option('-s, --scenario <names>', 'scenario(s), comma-separated or repeated', list)
    .option('-p, --profile <name>', `load profile (${PROFILES.map((p) => p.name).join(', ')})`, DEFAULT_PROFILE)
    .option('--port <port>', 'fixed server port (default: a free port per cell)', parsePort)
    .option('--host <host>', 'loopback address the contenders listen on (127.0.0.1 or ::1)', parseHost, '127.0.0.1')
    .option('--upstream-delay <ms>', 'UPSTREAM_DELAY_MS of the upstream mock', '0')
    .option('--no-variants', 'skip manifest variants')
    .option(
      '--driver <name>',
      `connection profiles: the load driver (${CONNECTION_DRIVERS.join(', ')}; default: the profile's, quick: native = wrk, installed as root when missing)`,
    )
    .option('--node <majors>', 'Node.js majors to run the contenders on, e.g. 22,24,26 (default: the pinned 24)')
    .option('--duration <s>', "override the profile's window seconds (one measured trial)")
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

benchOptions(
  program.command('bench').description('verify and measure one or more contenders').argument('<contender...>'),
).action(async (names: string[], opts) => {
  const ranked = await bench(globals(), names, opts, process.argv.slice(2), interrupt.signal);
  await recordProfiled(globals(), opts, ranked, interrupt.signal);
});
benchOptions(program.command('bench-all').description('verify and measure every contender')).action(async (opts) => {
  const ranked = await bench(globals(), [], opts, process.argv.slice(2), interrupt.signal);
  await recordProfiled(globals(), opts, ranked, interrupt.signal);
});
program
  .command('leaderboard')
  .description(
    'write results/LEADERBOARD.md and results/leaderboard.html (overview first: winners, % of baseline, how sure) and print the terminal report; with --run, one run into results/reports/<run-id>/ (never over the committed report)',
  )
  .option('--run <id>', 'render one run only (a run id or a unique prefix of one)')
  .option(
    '--out <dir>',
    'with --run: the folder for its LEADERBOARD.md and leaderboard.html (default results/reports/<run-id>/)',
  )
  .option('--details', 'print every table after the overview (the terminal report; the files always have them)')
  .action((opts: { run?: string; out?: string; details?: boolean }) => leaderboard(globals(), opts));
program
  .command('verify')
  .description('contract check only, no load')
  .argument('[contender...]')
  .option('--host <host>', 'loopback listen address (127.0.0.1 or ::1)', parseHost, '127.0.0.1')
  .action(async (names: string[], opts) => {
    process.exitCode = await verify(globals(), names, opts.host, interrupt.signal);
  });
program
  .command('tools')
  .description(
    `install or build every optional tool it can: k6 v${K6_VERSION} (Go build into the tool cache), oha (cargo build into the tool cache; the capacity profile's open-loop driver), and as root Debian's wrk and chromium; otherwise print the command`,
  )
  .option('--check', 'only list the tools and what a missing one costs (= doctor)')
  .action((opts: { check?: boolean }) => {
    if (opts.check) {
      process.stdout.write(doctorReport());
      return;
    }
    const r = installTools({ log: (l) => process.stderr.write(`${l}\n`) });
    process.stdout.write(`${r.lines.join('\n')}\n`);
  });
program
  .command('doctor')
  .description(
    'each optional tool with its version; for a missing one what it costs (skipped or flagged cells) and how to get it',
  )
  .action(() => {
    process.stdout.write(doctorReport());
  });
program
  .command('compare')
  .description('per cell: improved / regressed / no change between two runs (criterion-style)')
  .argument('[run-a]', 'the old run (id or folder); with --baseline, omit it')
  .argument('[run-b]', 'the new run (default: the latest run)')
  .option('--baseline <name>', 'compare against a saved baseline (just baseline <name>)')
  .option('--threshold <fraction>', 'noise threshold', '0.05')
  .option('--fail-on-regression', 'exit 1 when any cell regressed (for CI)')
  .option('--format <format>', 'md or json (schema bakeoff-compare v1)', 'md')
  .option('--out <file>', 'also write the report to a file (in --format)')
  .option('--verbose', 'list every cell that was not compared (only in one run, or failed in one) by its id')
  .action((runA: string | undefined, runB: string | undefined, opts) => {
    const g = globals();
    const threshold = Number(opts.threshold);
    if (!(threshold >= 0 && threshold < 1))
      throw new UserError(`--threshold must be a fraction such as 0.05, got '${opts.threshold}'`);
    const latest = () => {
      const id = latestCompleteRun(g.resultsDir);
      if (!id) throw new UserError('no complete run yet: run `npx just bench-all` first');
      return id;
    };
    const [oldName, oldRun] = opts.baseline
      ? [`baseline ${opts.baseline}`, readRun(g.resultsDir, opts.baseline, 'baseline', true)]
      : [runA ?? '', runA ? readRun(g.resultsDir, runA, 'run', true) : undefined];
    if (!oldRun)
      throw new UserError('name the old run (`just compare <run-a> [run-b]`) or a baseline (`--baseline NAME`)');
    const newRef = opts.baseline ? (runA ?? latest()) : (runB ?? latest());
    const newRun = readRun(g.resultsDir, newRef, 'run', true);
    for (const w of [...oldRun.warnings, ...newRun.warnings]) process.stderr.write(`warning: ${w}\n`);
    const scenarios = loadScenarios(g.scenariosDir).map((x) => ({ name: x.name, baseline: x.baseline }));
    const cmp = compareRuns(oldRun, newRun, threshold, { scenarios, names: { old: oldName, new: newRef } });
    if (opts.format !== 'md' && opts.format !== 'json')
      throw new UserError(`--format must be md or json, got '${opts.format}'`);
    if (oldRun.meta.runId === newRun.meta.runId) return compareSameRun(oldName, newRef, newRun.meta.runId, opts);
    // Nothing shared (e.g. two profiles): say why and exit 2, never "0 cells … no change" with exit 0.
    if (cmp.changes.length === 0) {
      if (opts.verbose) process.stderr.write(renderCompare(cmp, 'md', { verbose: true }));
      throw new UserError(
        `${nothingToCompare(cmp, oldRun, newRun)}${opts.failOnRegression ? ' With --fail-on-regression: nothing was checked, so this is not a pass.' : ''}`,
      );
    }
    const md = renderCompare(cmp, opts.format, { verbose: !!opts.verbose });
    process.stdout.write(md);
    if (opts.out) writeOutputFile(opts.out, md);
    if (opts.failOnRegression && cmp.counts.regressed > 0) process.exitCode = 1;
  });
/**
 * `compare` of a run with itself (or with a baseline copied from it): a warning line on stderr and
 * "both sides are the same run" (report/exporters/compare-format.ts `sameRunText`) instead of a
 * table of "no change"; exit 0, or 2 with --fail-on-regression (nothing was checked: not a pass).
 */
function compareSameRun(
  oldName: string,
  newName: string,
  runId: string,
  opts: { format: 'md' | 'json'; out?: string; failOnRegression?: boolean; baseline?: string },
): void {
  const same = `both sides are the same run, ${runId}${opts.baseline ? ` (baseline ${opts.baseline} was saved from it)` : ''}: a run compared with itself shows no change by construction, so nothing was compared. Name two different runs (\`npx just compare <old-run> <new-run>\`).`;
  const text = sameRunText(oldName, newName, runId, opts.format);
  process.stdout.write(text);
  if (opts.out) writeOutputFile(opts.out, text);
  if (opts.failOnRegression)
    throw new UserError(`${same} With --fail-on-regression: nothing was checked, so this is not a pass.`);
  process.stderr.write(`warning: ${same}\n`);
}
program
  .command('baseline')
  .description('save a complete run (default: the latest complete one) as a named baseline for `compare --baseline`')
  .argument('<name>')
  .argument('[run]')
  .action((name: string, run: string | undefined) => {
    const g = globals();
    const ref = run ?? latestCompleteRun(g.resultsDir);
    if (!ref) throw new UserError('no complete run yet: run `npx just bench-all` first');
    process.stdout.write(`saved ${ref} as baseline '${name}': ${saveBaseline(g.resultsDir, ref, name)}\n`);
  });
program
  .command('export')
  .description('results as JSON (schema bakeoff-export v2), CSV, Markdown, HTML or terminal text')
  .option('--format <format>', 'json, csv, md, html or terminal', 'json')
  .option('--run <id>', 'export one run only (a run id or a unique prefix of one)')
  .option('--out <file>', 'write to a file instead of stdout')
  .option('--summary', 'md: only the paste-able summary table per scenario (requests/s, % of baseline, rank)')
  .option('--details', 'terminal: every table after the overview')
  .action((opts: { format: string; run?: string; out?: string; summary?: boolean; details?: boolean }) => {
    const term = terminalSettings(
      { isTTY: !opts.out && process.stdout.isTTY, columns: process.stdout.columns },
      process.env,
    );
    const text = exportCommand(globals(), { ...opts, ...term }, (l) => process.stderr.write(`${l}\n`));
    if (!opts.out) process.stdout.write(text);
  });
program
  .command('list')
  .description('contenders, scenarios and profiles')
  .action(() => listAll(globals()));
program
  .command('new')
  .description('copy contenders/_template to a new contender')
  .argument('<name>')
  .action((name: string) => newContender(globals(), name));

program
  .command('selftest')
  .description(
    "certify the harness's resolution: K identical copies of a fixture and copies slowed by 10% and 5%, in one run, judged pair by pair (false-difference rate, power at 10% and 5%); a benchmark, ~35 min; its newest record is the report's how-sure line",
  )
  .option('-s, --scenario <names>', 'scenarios (default: the simple REST routes)', list)
  .option('-p, --profile <name>', 'load profile of the runs', DEFAULT_PROFILE)
  .option('--copies <k>', 'identical copies of the fixture (k(k−1)/2 null pairs per scenario)', '10')
  .option('--seed <n>', 'shuffle seed of the pilot run (the main run uses seed+1)')
  .action(async (opts) => {
    process.exitCode = await selftest(globals(), opts, interrupt.signal);
  });

program
  .command('ab')
  .description(
    'an in-run A/B of two builds of one contender: its folder now (A) and at --ref (B, from git) interleaved in one run, A ÷ B per scenario with its 95% CI; exit 1 when A is slower (a regression)',
  )
  .argument('<contender>')
  .requiredOption('--ref <rev>', 'the git revision of B (a commit, tag or branch)')
  .option('-s, --scenario <names>', 'scenarios (default: every scenario the contender supports)', list)
  .option('-p, --profile <name>', 'load profile (default ab: 24 interleaved rounds)', 'ab')
  .option('--env <KEY=VALUE...>', "environment added to A only (e.g. a fixture's planted cost)")
  .option('--seed <n>', 'shuffle seed (recorded)')
  .option('-q, --quiet', 'no progress lines or notes')
  .action(async (name: string, opts) => {
    process.exitCode = await ab(globals(), name, opts as AbOpts, interrupt.signal);
  });

program
  .command('claims')
  .description(
    "measure every source claim (harness/report/claims.json) in its source's own load shape at its own length, ≥ 5 interleaved rounds per cell: one bench run per profile; prints the plan and expected duration first, the verdicts at the end",
  )
  .option(
    '--source <name>',
    'only the claims of this source (a docs/sources.md name, e.g. "Nexus/Express/Fastify report")',
  )
  .option('--claim <ids>', 'only these claim ids, comma-separated or repeated (e.g. s003-json)', list)
  .option('--dry-run', 'print the plan (runs, cells, commands) and the expected duration; measure nothing')
  .option('--rounds <n>', "rounds per cell, at least 5 (default: the profile's, at least 5)")
  .option('--duration <s>', 'shorten the windows (the verdicts are then marked provisional); not for k6-ramp')
  .option(
    '--with-baselines',
    "also measure each scenario's baseline contender, as bench does (about 10 min more; by default each claim's own reference b is the table model's reference row)",
  )
  .option('--seed <n>', 'shuffle seed of every run')
  .option('--host <host>', 'loopback address the contenders listen on (127.0.0.1 or ::1)', parseHost, '127.0.0.1')
  .option('-q, --quiet', 'no progress lines or notes')
  .action(async (opts) => {
    process.exitCode = await claimsCommand(globals(), opts as ClaimsOpts, interrupt.signal);
  });

program
  .command('why')
  .description(
    "why a stack is slow: one window per cell under V8's CPU profiler (plus each scenario's baseline), CPU per request attributed to packages, and each contender's difference from the baseline (results/why/)",
  )
  .argument('<contender...>')
  .option('-s, --scenario <names>', 'scenario(s), comma-separated or repeated', list)
  .option(
    '-p, --profile <name>',
    'load profile whose load shape the profiled window uses (closed-loop)',
    DEFAULT_PROFILE,
  )
  .option('--duration <s>', "the profiled window's seconds (default: the profile's)")
  .option('--interval <us>', "V8's sampling interval, µs (--cpu-prof-interval; 5000: see docs/why.md)", '5000')
  .option('--against <contender>', "compare every other contender with this one (default: each scenario's baseline)")
  .option('--top <n>', 'buckets shown per table', '12')
  .option('--host <host>', 'loopback address the contenders listen on (127.0.0.1 or ::1)', parseHost, '127.0.0.1')
  .option('--upstream-delay <ms>', 'UPSTREAM_DELAY_MS of the upstream mock', '0')
  .option('--no-variants', 'skip manifest variants')
  .option('--no-baseline', "do not add each scenario's baseline contender")
  .option('--seed <n>', 'shuffle seed (recorded)')
  .option('-q, --quiet', 'no progress lines or notes')
  .action(async (names: string[], opts) => {
    await why(globals(), names, opts, process.argv.slice(2), interrupt.signal);
  });

program
  .command('reference')
  .description(
    'the steady-state reference: each contender ALONE on the server core with wrk, a long warm-up, long windows, fresh server processes in ABBA order; requests/s and requests per CPU-second with intervals between processes (results/reference/<run-id>.json)',
  )
  .argument('<contender...>')
  .option('-s, --scenario <names>', 'scenario(s), comma-separated or repeated (default json)', list)
  .option('--warmup <s>', 'warm-up seconds per server process (reference: ≥ 20)', '20')
  .option('--windows <n>', 'measured windows per process (reference: ≥ 3)', '3')
  .option('--window <s>', 'seconds per window (reference: ≥ 10)', '10')
  .option('--processes <n>', 'fresh server processes per contender, ABBA order (reference: ≥ 3)', '3')
  .option('--connections <n>', "wrk connections (default: the quick profile's)")
  .option('-q, --quiet', 'no progress lines')
  .action(async (names: string[], opts) => {
    process.exitCode = await reference(globals(), names, opts, interrupt.signal);
  });

program
  .command('reference-compare')
  .description(
    "a bake-off run's ratios to its baselines against a reference record: per row |bake-off ÷ reference − 1| and whether its 95% CI covers the reference ratio; median and max bias, rows covered",
  )
  .requiredOption('--reference <id|file>', 'the reference record (a run id of results/reference/ or a file)')
  .requiredOption('--run <id>', 'the bake-off run')
  .option(
    '--unit <unit>',
    "the reference's ratio compared: rps (requests/s) or efficiency (requests per CPU-second)",
    'rps',
  )
  .action((opts) => {
    process.exitCode = referenceCompare(globals(), opts);
  });

// Usage line, examples and the exit codes in every command's --help.
const EXAMPLES: Record<string, string[]> = {
  bench: [
    'npx just bench fastify',
    'npx just bench node-http express --scenario json,echo --profile quick',
    'npx just bench postgraphile-express --scenario graphql-users --rounds 5',
    'npx just bench hasura --url http://127.0.0.1:18090',
  ],
  'bench-all': ['npx just bench-all', 'npx just bench-all --profile pipelined --wait'],
  leaderboard: [
    'npx just leaderboard',
    'npx just leaderboard --run 2026-01-01T00-00-00Z',
    'npx just leaderboard --run 2026-01-01T00-00-00Z --out /tmp/one-run',
    'npx just leaderboard --details',
  ],
  verify: ['npx just verify', 'npx just verify fastify hono'],
  tools: ['npx just tools'],
  doctor: ['npx just doctor'],
  selftest: ['npx just selftest', 'npx just selftest --copies 6 --scenario ping,json'],
  ab: [
    'npx just ab fastify --ref HEAD~1',
    'npx just ab express --ref main --scenario json,post',
    'npx just ab selftest-burn --ref HEAD --contenders-dir contenders/_selftest --env BURN_US=1',
  ],
  claims: [
    'npx just claims --dry-run',
    'npx just claims --source "Nexus/Express/Fastify report"',
    'npx just claims --claim s004-postgraphile-live',
  ],
  why: ['npx just why express --scenario json', 'npx just why loopback4 --scenario ping --duration 5'],
  reference: ['npx just reference node-http fastify express --scenario json,users'],
  'reference-compare': [
    'npx just reference-compare --reference 2026-01-01T00-00-00Z-abcd --run 2026-01-02T00-00-00Z-ef01',
  ],
  compare: [
    'npx just compare 2026-01-01T00-00-00Z',
    'npx just compare --baseline main --fail-on-regression',
    'npx just compare 2026-01-01T00-00-00Z --format json --out compare.json',
  ],
  baseline: ['npx just baseline main', 'npx just baseline main 2026-01-01T00-00-00Z'],
  export: [
    'npx just export --format csv --out results.csv',
    'npx just export --format json --run 2026-01-01T00-00-00Z',
    'npx just export --format md --summary',
  ],
  list: ['npx just list'],
  new: ['npx just new my-stack'],
};
/** The exit codes each command can return (bench, bench-all and selftest: all of EXIT_HELP). */
const EXIT_HELP_BY_COMMAND: Record<string, string> = {
  verify: [
    'Exit codes:',
    '  0    every contender passed its contract checks',
    '  1    a verification failed',
    '  2    usage or bad input (unknown option or name, bad manifest, another run holds the lock, a full or read-only folder)',
    '  3    a contender failed to build or start, or crashed',
    '  130  interrupted (Ctrl-C)',
    '  70   internal error of the harness (a bug; please report it with the printed stack)',
  ].join('\n'),
  compare: [
    'Exit codes:',
    '  0    compared (also when cells regressed, unless --fail-on-regression)',
    '  1    --fail-on-regression and a cell regressed',
    '  2    usage or bad input (unknown run or baseline, an incomplete run, no cell shared by the two runs, a full or read-only folder)',
    '  70   internal error of the harness (a bug; please report it with the printed stack)',
  ].join('\n'),
};
const SHORT_EXIT_HELP = [
  'Exit codes:',
  '  0    ok',
  '  2    usage or bad input (unknown option or name, a full or read-only folder)',
  '  70   internal error of the harness (a bug; please report it with the printed stack)',
].join('\n');
const exitHelpFor = (name: string) =>
  EXIT_HELP_BY_COMMAND[name] ??
  (['bench', 'bench-all', 'selftest', 'claims', 'why', 'ab', 'reference'].includes(name) ? EXIT_HELP : SHORT_EXIT_HELP);
for (const c of program.commands) {
  const ex = EXAMPLES[c.name()];
  if (ex) c.addHelpText('after', `\nExamples:\n${ex.map((e) => `  ${e}`).join('\n')}\n\n${exitHelpFor(c.name())}\n`);
}
program.addHelpText(
  'after',
  `\nExamples:\n  npx just list\n  npx just bench fastify --scenario json\n  npx just bake-off\n\n${EXIT_HELP}\n`,
);

/** Commands that write into the results folder (the others read it, or do not use it). */
const WRITES_RESULTS = new Set([
  'bench',
  'bench-all',
  'selftest',
  'claims',
  'why',
  'ab',
  'baseline',
  'leaderboard',
  'reference',
]);
// Every command: a --results-dir that is not a folder (a file, /dev/null), or one a writer cannot
// write, is exit 2 in one line before anything runs (store/runs.ts `checkResultsDir`).
program.hook('preAction', (_root, cmd) => {
  const opts = cmd.opts();
  const reportElsewhere = cmd.name() === 'leaderboard' && opts.out !== undefined;
  const writes = WRITES_RESULTS.has(cmd.name()) && !reportElsewhere && !opts.dryRun;
  checkResultsDir(globals().resultsDir, writes);
});

/** Commands that start servers on the pinned cores: one at a time per machine (lifecycle/lock.ts). */
const LOCKED = new Set(['bench', 'bench-all', 'verify', 'selftest', 'claims', 'why', 'ab', 'reference']);
for (const c of program.commands)
  if (LOCKED.has(c.name()))
    c.option('--wait', 'when another run holds this machine, wait for it to finish instead of refusing');
program.hook('preAction', async (_root, cmd) => {
  if (!LOCKED.has(cmd.name())) return;
  const opts = cmd.opts();
  // Names and options first: a typo is exit 2 with "did you mean" at once, never a wait for the lock.
  if (cmd.name() === 'claims') {
    planClaims(globals(), opts as ClaimsOpts);
    if (opts.dryRun) return; // measures nothing: no lock
  } else if (cmd.name() === 'reference') {
    precheckReference(globals(), (cmd.processedArgs[0] as string[] | undefined) ?? [], opts);
  } else {
    const arg: unknown = cmd.processedArgs[0];
    const names = Array.isArray(arg) ? (arg as string[]) : typeof arg === 'string' ? [arg] : [];
    precheckCommand(globals(), cmd.name(), names, opts);
  }
  if (cmd.name() === 'why') precheckWhy(opts);
  if (cmd.name() === 'bench' || cmd.name() === 'bench-all') precheckProfileCpu(opts);
  // The ranking driver: installed now as root, else demanded (exit 2) unless --driver names one.
  if (['bench', 'bench-all', 'selftest', 'ab'].includes(cmd.name()))
    ensureNativeDriver(
      withOverrides(getProfile(opts.profile ?? (cmd.name() === 'ab' ? 'ab' : DEFAULT_PROFILE)), {
        driver: opts.driver,
      }),
      (l) => process.stderr.write(`${l}\n`),
    );
  // A busy fixed port is bad input: refuse before any run folder exists.
  if (opts.port !== undefined && !opts.url && !(await isPortFree(opts.port, opts.host))) {
    const who = describePortHolder(opts.port);
    throw new UserError(
      `port ${opts.port} on ${opts.host} is already in use${who ? ` by ${who}` : ''}. Stop that process or choose another port (--port).`,
    );
  }
  await acquireRunLock({
    runId: null,
    wait: !!opts.wait,
    command: process.argv.slice(2),
    log: (l) => process.stderr.write(`${l}\n`),
  });
});

/**
 * A raw file-system error (ENOSPC, EDQUOT, EROFS, EACCES, EPERM) that escaped the store, as a
 * StorageError naming the folder it hit: the results folder, the temp folder, or the folder of
 * the file (an --out file); null for any other error.
 */
function storageErrorOf(e: unknown): UserError | null {
  const file = (e as NodeJS.ErrnoException | null)?.path;
  const results = path.resolve(program.opts().resultsDir ?? RESULTS_DIR);
  const inside = (dir: string) => !!file && !path.relative(dir, path.resolve(file)).startsWith('..');
  if (!file || inside(results)) return asStorageError(e, 'results', results);
  if (inside(os.tmpdir())) return asStorageError(e, 'temp', os.tmpdir());
  return asStorageError(e, 'output', path.dirname(path.resolve(file)));
}

try {
  await program.parseAsync(process.argv);
} catch (e) {
  if (e instanceof CommanderError) {
    // Commander has printed its message (and the help); --help and --version exit 0.
    await stopAll(500);
    process.exit(e.exitCode === 0 ? EXIT.ok : EXIT.usage);
  }
  // A write the file system refused (full, read-only, not allowed) is the environment, not a bug.
  const refused = e instanceof UserError ? null : storageErrorOf(e);
  if (refused) {
    process.stderr.write(`error: ${refused.message}\n`);
    await stopAll(500);
    process.exit(refused.exitCode);
  }
  if (e instanceof UserError) {
    process.stderr.write(`error: ${e.message}\n`);
    await stopAll(500);
    process.exit(e.exitCode);
  }
  // An error after Ctrl-C (a driver's aborted run, a closed socket) is the interrupt, not a bug.
  if (interrupt.signal.aborted) {
    process.stderr.write(`interrupted: ${(e as Error)?.message ?? e}\n`);
    await stopAll(500);
    process.exit(EXIT.interrupted);
  }
  // A bug in the harness: never exit 1, which a CI reads as "a verification failed".
  process.stderr.write(`internal error (a bug in the harness; please report it):\n${(e as Error)?.stack ?? e}\n`);
  await stopAll(500);
  process.exit(EXIT.internal);
}
