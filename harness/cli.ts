/**
 * The harness CLI (the justfile calls it; it also works on its own):
 *   node harness/cli.ts bench <contender...> [--scenario s] [--profile p]
 *   node harness/cli.ts bench-all [--profile p]
 *   node harness/cli.ts leaderboard | verify [contender...] | list | new <name>
 * Run it with the pinned Node from node_modules (`npx just …` does). Exit codes (core/exit-codes.ts):
 * 0 ok, 1 a verification failed or a regression, 2 usage or bad input (every option-parser error
 * included), 3 cells failed to build or start or crashed, 130 interrupted.
 *
 * This module is the entry: the signals, the program with its global options (the folders), one
 * command per module under cli/ (each registers itself: its options, help and action; the
 * options are parsed into typed values by cli/options.ts, and a command that starts servers
 * takes the machine lock through cli/command-kit.ts), the results folder checked before every
 * command, and the mapping of every error to its exit code.
 */
import { checkEnvironment } from './core/env.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { Command, CommanderError, Option } from 'commander';
import { CONTENDERS_DIR, RESULTS_DIR, ROOT, SCENARIOS_DIR } from './core/paths.ts';
import { asStorageError, UserError } from './core/errors.ts';
import { EXIT, EXIT_HELP } from './core/exit-codes.ts';
import { releaseAllLocks } from './lifecycle/lock.ts';
import { killAllSync, stopAll, watchLauncher } from './lifecycle/processes.ts';
import { checkResultsDir } from './store/runs.ts';
import type { CliContext, Globals } from './cli/command-kit.ts';
import { registerAb } from './cli/ab.ts';
import { registerBench, registerBenchAll } from './cli/bench-command.ts';
import { registerClaims } from './cli/claims-command.ts';
import { registerBaseline, registerCompare } from './cli/compare-command.ts';
import { registerList } from './cli/list-command.ts';
import { registerNew } from './cli/new-contender.ts';
import { registerReference, registerReferenceCompare } from './cli/reference.ts';
import { registerExport, registerLeaderboard } from './cli/report.ts';
import { registerSelftest } from './cli/selftest.ts';
import { registerDoctor, registerTools } from './cli/tools-command.ts';
import { registerVerify } from './cli/verify-command.ts';
import { registerWhy } from './cli/why.ts';

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
const ctx: CliContext = { globals, signal: interrupt.signal, argv: process.argv.slice(2) };

// The commands, in the order of the help's list.
registerBench(program, ctx);
registerBenchAll(program, ctx);
registerLeaderboard(program, ctx);
registerVerify(program, ctx);
registerTools(program);
registerDoctor(program);
registerCompare(program, ctx);
registerBaseline(program, ctx);
registerExport(program, ctx);
registerList(program, ctx);
registerNew(program, ctx);
registerSelftest(program, ctx);
registerAb(program, ctx);
registerClaims(program, ctx);
registerWhy(program, ctx);
registerReference(program, ctx);
registerReferenceCompare(program, ctx);

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
// Every command: bad environment values (core/env.ts), then a --results-dir that is not a folder (a file, /dev/null), or one a writer cannot
// write, is exit 2 in one line before anything runs (store/runs.ts `checkResultsDir`).
program.hook('preAction', (_root, cmd) => {
  checkEnvironment(); // every BENCH_* value, before any lock, run folder or process (core/env.ts)
  const opts = cmd.opts();
  const reportElsewhere = cmd.name() === 'leaderboard' && opts.out !== undefined;
  const writes = WRITES_RESULTS.has(cmd.name()) && !reportElsewhere && !opts.dryRun;
  checkResultsDir(globals().resultsDir, writes);
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
