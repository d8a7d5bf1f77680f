/**
 * The `compare` and `baseline` commands: per cell improved / regressed / no change between two
 * runs, or between a run and a saved baseline (report/compare-runs.ts, rendered by
 * report/exporters/compare-format.ts); `baseline` saves a complete run under a name for
 * `compare --baseline`. The options are parsed first (cli/options.ts `parseCompareOptions`).
 */
import type { Command } from 'commander';
import { UserError } from '../core/errors.ts';
import { writeOutputFile } from '../core/output-file.ts';
import { loadScenarios } from '../contract/scenarios.ts';
import { latestCompleteRun, readRun, saveBaseline } from '../store/runs.ts';
import { compareRuns, nothingToCompare } from '../report/compare-runs.ts';
import { renderCompare, sameRunText } from '../report/exporters/compare-format.ts';
import { type CliContext, type Globals, helpFooter, SHORT_EXIT_HELP } from './command-kit.ts';
import { type CompareOpts, OPTION_DEFAULTS, parseCompareOptions } from './options.ts';

/** The exit codes compare can return. */
const COMPARE_EXIT_HELP = [
  'Exit codes:',
  '  0    compared (also when cells regressed, unless --fail-on-regression)',
  '  1    --fail-on-regression and a cell regressed',
  '  2    usage or bad input (unknown run or baseline, an incomplete run, no cell shared by the two runs, a full or read-only folder)',
  '  70   internal error of the harness (a bug; please report it with the printed stack)',
].join('\n');

/** The newest complete run's id; UserError when there is none. */
function latest(g: Globals): string {
  const id = latestCompleteRun(g.resultsDir);
  if (!id) throw new UserError('no complete run yet: run `npx just bench-all` first');
  return id;
}

/**
 * `compare [run-a] [run-b]` / `compare --baseline NAME [run]`: the comparison on stdout (and in
 * `--out`); exit 1 with --fail-on-regression when a cell regressed. UserError (exit 2) for an
 * unknown or incomplete run, or no cell shared by the two runs.
 */
function compare(g: Globals, runA: string | undefined, runB: string | undefined, opts: CompareOpts): void {
  const [oldName, oldRun] = opts.baseline
    ? [`baseline ${opts.baseline}`, readRun(g.resultsDir, opts.baseline, 'baseline', true)]
    : [runA ?? '', runA ? readRun(g.resultsDir, runA, 'run', true) : undefined];
  if (!oldRun)
    throw new UserError('name the old run (`just compare <run-a> [run-b]`) or a baseline (`--baseline NAME`)');
  const newRef = opts.baseline ? (runA ?? latest(g)) : (runB ?? latest(g));
  const newRun = readRun(g.resultsDir, newRef, 'run', true);
  for (const w of [...oldRun.warnings, ...newRun.warnings]) process.stderr.write(`warning: ${w}\n`);
  const scenarios = loadScenarios(g.scenariosDir).map((x) => ({ name: x.name, baseline: x.baseline }));
  const cmp = compareRuns(oldRun, newRun, opts.threshold, { scenarios, names: { old: oldName, new: newRef } });
  if (oldRun.meta.runId === newRun.meta.runId) {
    compareSameRun(oldName, newRef, newRun.meta.runId, opts);
    return;
  }
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
}

/**
 * `compare` of a run with itself (or with a baseline copied from it): a warning line on stderr and
 * "both sides are the same run" (report/exporters/compare-format.ts `sameRunText`) instead of a
 * table of "no change"; exit 0, or 2 with --fail-on-regression (nothing was checked: not a pass).
 */
function compareSameRun(oldName: string, newName: string, runId: string, opts: CompareOpts): void {
  const same = `both sides are the same run, ${runId}${opts.baseline ? ` (baseline ${opts.baseline} was saved from it)` : ''}: a run compared with itself shows no change by construction, so nothing was compared. Name two different runs (\`npx just compare <old-run> <new-run>\`).`;
  const text = sameRunText(oldName, newName, runId, opts.format);
  process.stdout.write(text);
  if (opts.out) writeOutputFile(opts.out, text);
  if (opts.failOnRegression)
    throw new UserError(`${same} With --fail-on-regression: nothing was checked, so this is not a pass.`);
  process.stderr.write(`warning: ${same}\n`);
}

/** Registers `compare [run-a] [run-b]` on `program`. */
export function registerCompare(program: Command, ctx: CliContext): void {
  const c = program
    .command('compare')
    .description('per cell: improved / regressed / no change between two runs (criterion-style)')
    .argument('[run-a]', 'the old run (id or folder); with --baseline, omit it')
    .argument('[run-b]', 'the new run (default: the latest run)')
    .option('--baseline <name>', 'compare against a saved baseline (just baseline <name>)')
    .option('--threshold <fraction>', 'noise threshold', String(OPTION_DEFAULTS.threshold))
    .option('--fail-on-regression', 'exit 1 when any cell regressed (for CI)')
    .option('--format <format>', 'md or json (schema bakeoff-compare v1)', 'md')
    .option('--out <file>', 'also write the report to a file (in --format)')
    .option('--verbose', 'list every cell that was not compared (only in one run, or failed in one) by its id')
    .action((runA: string | undefined, runB: string | undefined, raw: Record<string, unknown>) =>
      compare(ctx.globals(), runA, runB, parseCompareOptions(raw)),
    );
  helpFooter(
    c,
    [
      'npx just compare 2026-01-01T00-00-00Z',
      'npx just compare --baseline main --fail-on-regression',
      'npx just compare 2026-01-01T00-00-00Z --format json --out compare.json',
    ],
    COMPARE_EXIT_HELP,
  );
}

/** Registers `baseline <name> [run]` on `program`: saves the run (default: the latest complete one) as a named baseline. */
export function registerBaseline(program: Command, ctx: CliContext): void {
  const c = program
    .command('baseline')
    .description('save a complete run (default: the latest complete one) as a named baseline for `compare --baseline`')
    .argument('<name>')
    .argument('[run]')
    .action((name: string, run: string | undefined) => {
      const g = ctx.globals();
      const ref = run ?? latestCompleteRun(g.resultsDir);
      if (!ref) throw new UserError('no complete run yet: run `npx just bench-all` first');
      process.stdout.write(`saved ${ref} as baseline '${name}': ${saveBaseline(g.resultsDir, ref, name)}\n`);
    });
  helpFooter(c, ['npx just baseline main', 'npx just baseline main 2026-01-01T00-00-00Z'], SHORT_EXIT_HELP);
}
