/**
 * The report commands of the CLI, their registration and actions: `leaderboard [--run ID [--out
 * DIR]]` (writes LEADERBOARD.md and leaderboard.html, prints the terminal report) and `export
 * --format json|csv|md|html|terminal [--run ID] [--out FILE]`, both through the exporter registry
 * (report/exporters/exporter-registry.ts) over one snapshot read from the store.
 *
 * Output paths: results/LEADERBOARD.md and results/leaderboard.html, or for one run
 * results/reports/<run-id>/ (or --out DIR), from the store (store/runs.ts `reportFiles`, `runReportDir`).
 */
import { refuseLinks } from '../store/links.ts';
import path from 'node:path';
import type { Command } from 'commander';
import writeFileAtomic from 'write-file-atomic';
import { fileKind, outputError, writeOutputFile } from '../core/output-file.ts';
import { loadScenarios } from '../contract/scenarios.ts';
import { asStorageError, UserError } from '../core/errors.ts';
import { mkdirp, readAllResults } from '../store/result-files.ts';
import { listRuns, readTrials, reportFiles, runReportDir } from '../store/runs.ts';
import { readNewestSelftest } from '../store/selftest-store.ts';
import { readReferences } from '../store/reference-store.ts';
import { withClusteredInterval } from '../analysis/selftest-judge.ts';
import { readAllWhy } from '../store/why-store.ts';
import type { CellResult } from '../store/results.ts';
import { getExporter, EXPORTERS, type ExportOptions } from '../report/exporters/exporter-registry.ts';
import { type ReportSnapshot, selectRun } from '../report/snapshot.ts';
import { buildView } from '../report/view-build.ts';
import type { ReportView } from '../report/view.ts';
import { DEFAULT_WIDTH, terminalSettings } from '../report/exporters/terminal.ts';
import { type CliContext, helpFooter, SHORT_EXIT_HELP } from './command-kit.ts';

/** Every run of the store with its cells and trial files, the scenario contract, the `just why` records and the newest self-test record; warnings for skipped files. */
export function readSnapshot(
  resultsDir: string,
  scenariosDir: string,
): { snapshot: ReportSnapshot; warnings: string[] } {
  const all = readAllResults(resultsDir);
  const byRun = new Map<string, CellResult[]>();
  for (const c of all.cells) byRun.set(c.runId, [...(byRun.get(c.runId) ?? []), c]);
  const dirs = new Map(listRuns(resultsDir).map((r) => [r.runId, r.dir]));
  const warnings = [...(all.warnings ?? all.skipped)];
  const runs = [...all.runs]
    .sort((a, b) => a.startedAt.localeCompare(b.startedAt) || a.runId.localeCompare(b.runId))
    .map((meta) => {
      const dir = dirs.get(meta.runId);
      const t = dir ? readTrials(dir) : { trials: [], warnings: [] };
      warnings.push(...t.warnings);
      return { meta, cells: byRun.get(meta.runId) ?? [], trials: t.trials };
    });
  const why = readAllWhy(resultsDir);
  warnings.push(...why.warnings);
  const self = readNewestSelftest(resultsDir);
  warnings.push(...self.warnings);
  const ref = readReferences(resultsDir);
  warnings.push(...ref.warnings);
  const scenarios = loadScenarios(scenariosDir);
  const baselines = scenarios.map((x) => ({ name: x.name, baseline: x.baseline }));
  return {
    snapshot: {
      runs,
      scenarios,
      why: why.records,
      flames: why.flames,
      selftest: withClusteredInterval(resultsDir, baselines, self.selftest),
      references: ref.references,
    },
    warnings,
  };
}

interface Dirs {
  resultsDir: string;
  scenariosDir: string;
}

function snapshotFor(
  g: Dirs,
  run: string | undefined,
  log: (l: string) => void,
  withReferenceRun = false,
): ReportSnapshot {
  const { snapshot, warnings } = readSnapshot(g.resultsDir, g.scenariosDir);
  for (const w of warnings) log(`warning: ${w}`);
  return run ? selectRun(snapshot, run, { withReferenceRun }) : snapshot;
}

/**
 * `leaderboard [--run ID [--out DIR]]`: writes the Markdown and HTML reports, returns the terminal report.
 * Plain `leaderboard` writes results/LEADERBOARD.md and results/leaderboard.html; with `--run` the
 * files go to `out` (default results/reports/<run-id>/, created), never over the committed report.
 * UserError (exit 2) for `--out` without `--run`; StorageError (exit 2) when the folder refuses the write.
 * `referenceRun` (with `run`; the bake-off's own report): an older run beside it as a reference.
 * `onView` gets the report's view and files (the bake-off's closing line reads its median MDD).
 */
export function leaderboardCommand(
  g: Dirs,
  opts: { run?: string; out?: string; referenceRun?: boolean } & Pick<ExportOptions, 'details' | 'width' | 'color'>,
  log: (l: string) => void,
  onView?: (v: ReportView, files: { markdown: string; html: string }) => void,
): string {
  if (opts.out !== undefined && !opts.run)
    throw new UserError(
      '--out is for a one-run report (--run ID); plain `leaderboard` writes results/LEADERBOARD.md and results/leaderboard.html',
    );
  const snapshot = snapshotFor(g, opts.run, log, opts.referenceRun);
  const runId = opts.run ? snapshot.runs[0]?.meta.runId : undefined;
  const dir = runId ? path.resolve(opts.out ?? runReportDir(g.resultsDir, runId)) : g.resultsDir;
  const out = reportFiles(dir);
  if (!(runId && opts.out)) for (const f of [out.markdown, out.html]) refuseLinks(g.resultsDir, f);
  const md = EXPORTERS.md.render(snapshot, { runId });
  const html = EXPORTERS.html.render(snapshot, { runId });
  if (runId && opts.out) writeReportFolder(opts.out, dir, { [out.markdown]: md, [out.html]: html });
  else
    try {
      mkdirp(dir);
      writeFileAtomic.sync(out.markdown, md);
      writeFileAtomic.sync(out.html, html);
    } catch (e) {
      throw asStorageError(e, 'results', g.resultsDir) ?? e;
    }
  onView?.(buildView(snapshot, { runId }), out);
  const term = { runId, details: opts.details, width: opts.width, color: opts.color };
  return `${EXPORTERS.terminal.render(snapshot, term)}${wroteText(out, opts.width)}`;
}

/**
 * "wrote A and B" for the report's two files, one line when it fits `width` (default
 * DEFAULT_WIDTH), else "wrote A" and "  and B"; a file inside the working folder is named
 * relative to it (results/LEADERBOARD.md), any other by its absolute path.
 */
export function wroteText(files: { markdown: string; html: string }, width = DEFAULT_WIDTH): string {
  const shown = (f: string) => {
    const r = path.relative(process.cwd(), f);
    return r && !r.startsWith('..') && !path.isAbsolute(r) ? r : f;
  };
  const [md, html] = [shown(files.markdown), shown(files.html)];
  const one = `wrote ${md} and ${html}`;
  return [...one].length <= width ? `${one}\n` : `wrote ${md}\n  and ${html}\n`;
}

/**
 * Writes `files` (path → text) into the user's `--out` folder `dir` (created), each through
 * core/output-file.ts. UserError (exit 2) when `dir` is not a folder (a file, /dev/null) or
 * cannot be created; StorageError naming it when it refuses the write.
 */
function writeReportFolder(out: string, dir: string, files: Record<string, string>): void {
  const what = fileKind(dir);
  if (what && what.kind !== 'a folder')
    throw new UserError(
      `--out ${out} is ${what.kind}: with --run, --out names a folder for LEADERBOARD.md and leaderboard.html. Choose a folder.`,
    );
  try {
    mkdirp(dir);
  } catch (e) {
    throw outputError(e, dir, '--out');
  }
  for (const [file, text] of Object.entries(files)) writeOutputFile(file, text);
}

/**
 * `export --format F [--run ID] [--out FILE] [--summary] [--details]`: the text (also written to
 * `out` when given; StorageError naming out's folder when it refuses the write). UserError (exit 2)
 * for `--summary` without `--format md` or `--details` without `--format terminal`.
 */
export function exportCommand(
  g: Dirs,
  opts: { format: string; run?: string; out?: string } & Pick<ExportOptions, 'details' | 'width' | 'color' | 'summary'>,
  log: (l: string) => void,
): string {
  const exporter = getExporter(opts.format);
  if (opts.summary && exporter.format !== 'md')
    throw new UserError(`--summary is a Markdown table: use it with --format md (got --format ${opts.format})`);
  if (opts.details && exporter.format !== 'terminal')
    throw new UserError(
      `--details is for the terminal report: use it with --format terminal (got --format ${opts.format})`,
    );
  const snapshot = snapshotFor(g, opts.run, log);
  const { details, width, color, summary } = opts;
  const text = exporter.render(snapshot, {
    runId: opts.run ? snapshot.runs[0]?.meta.runId : undefined,
    details,
    width,
    color,
    summary,
  });
  if (opts.out) writeOutputFile(opts.out, text);
  return text;
}

const stderrLine = (l: string) => process.stderr.write(`${l}\n`);

/** Registers `leaderboard` on `program`: leaderboardCommand() with the terminal's width and colours, its text on stdout. */
export function registerLeaderboard(program: Command, ctx: CliContext): void {
  const c = program
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
    .action((opts: { run?: string; out?: string; details?: boolean }) => {
      const term = terminalSettings(process.stdout, process.env);
      process.stdout.write(leaderboardCommand(ctx.globals(), { ...opts, ...term }, stderrLine));
    });
  helpFooter(
    c,
    [
      'npx just leaderboard',
      'npx just leaderboard --run 2026-01-01T00-00-00Z',
      'npx just leaderboard --run 2026-01-01T00-00-00Z --out /tmp/one-run',
      'npx just leaderboard --details',
    ],
    SHORT_EXIT_HELP,
  );
}

/** Registers `export` on `program`: exportCommand(), its text on stdout unless --out. */
export function registerExport(program: Command, ctx: CliContext): void {
  const c = program
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
      const text = exportCommand(ctx.globals(), { ...opts, ...term }, stderrLine);
      if (!opts.out) process.stdout.write(text);
    });
  helpFooter(
    c,
    [
      'npx just export --format csv --out results.csv',
      'npx just export --format json --run 2026-01-01T00-00-00Z',
      'npx just export --format md --summary',
    ],
    SHORT_EXIT_HELP,
  );
}
