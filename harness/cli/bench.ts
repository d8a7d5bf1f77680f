/**
 * The `bench`, `bench-all` and `verify` actions of the CLI: the typed options (cli/options.ts) →
 * a plan → the scheduler (scheduler/run.ts); cli/bench-command.ts and cli/verify-command.ts
 * register the commands. `bench` adds each scenario's baseline contender unasked (and says so),
 * and with `control` (bench-all's default, `--no-control` off) a second process of it as the A/A
 * control (scheduler/plan.ts `withControls`, never ranked),
 * marks runs abandoned by a dead harness first (store/runs.ts `sweepAbandoned`), prints the
 * terminal table, the harness overhead per cell and the wall time, and sets the exit code from
 * the cells' statuses (core/exit-codes.ts). `verify` is the scheduler's verify mode.
 *
 * Output of bench (scheduler/progress-sink.ts): by default progress lines on stderr (a live line
 * per measured window on a TTY) and the final table on stdout. `--quiet`: only the final table
 * (stdout) and errors (stderr). `--json`: NDJSON progress events on stdout, ending with run-end
 * (also when the command fails); the final table then goes to stderr (none with --quiet too).
 */
import path from 'node:path';
import { terminalSafe } from '../core/terminal-text.ts';
import { loadManifests, type Manifest } from '../core/manifest.ts';
import { loadScenarios, type Scenario } from '../contract/scenarios.ts';
import { UserError } from '../core/errors.ts';
import { EXIT, exitCodeForStatuses } from '../core/exit-codes.ts';
import { getProfile, type Profile } from '../core/profiles.ts';
import { withOverrides } from '../core/profile-overrides.ts';
import { resolveNode } from '../lifecycle/node-runtime.ts';
import { stopAll } from '../lifecycle/processes.ts';
import { readRun, sweepAbandoned } from '../store/runs.ts';
import type { RunMeta } from '../store/results.ts';
import {
  type CellSpec,
  planCells,
  selectContenders,
  selectScenarios,
  withBaselines,
  withControls,
} from '../scheduler/plan.ts';
import { realDeps } from '../scheduler/real-deps.ts';
import type { RunDeps } from '../scheduler/scheduler-types.ts';
import { runPlan, type RunSummary } from '../scheduler/run.ts';
import { createProgressSink, type ProgressSink } from '../scheduler/progress-sink.ts';
import { renderTerminal } from '../report/leaderboard.ts';
import { leaderboardCommand } from './report.ts';
import type { ReportView } from '../report/view.ts';
import { fmtDuration } from '../core/format.ts';
import { terminalSettings } from '../report/exporters/terminal.ts';
import { wrap } from '../report/term-layout.ts';
import type { Globals } from './command-kit.ts';
import type { BenchOpts } from './options.ts';

const err = (l: string) => process.stderr.write(`${l}\n`);

/** The scenario contract and every manifest under the globals' folders; throws UserError on a bad file. */
export function load(g: Globals): { scenarios: Scenario[]; manifests: Manifest[] } {
  const scenarios = loadScenarios(g.scenariosDir);
  return {
    scenarios,
    manifests: loadManifests(
      g.contendersDir,
      scenarios.map((s) => s.name),
    ),
  };
}

/**
 * The checks of `bench` / `bench-all` that need no server, run BEFORE the machine lock (the
 * bench command's action, cli/bench-command.ts): the profile with its overrides, the contenders
 * and the scenarios, so that `bench fastfy` says "Did you mean 'fastify'" at once instead of
 * "another run holds this machine" or waiting with --wait. Returns the effective profile; throws
 * the UserError (exit 2) bench() itself would.
 */
export function precheckBench(g: Globals, names: string[], opts: BenchOpts): Profile {
  const profile = withOverrides(getProfile(opts.profile), opts);
  const { scenarios, manifests } = load(g);
  selectContenders(manifests, names);
  selectScenarios(scenarios, opts.scenario ?? []);
  return profile;
}

/**
 * `fn()`, and with `json` a UserError it throws also emits the run-end event on stdout first (as
 * bench() does for a failed run), so that an NDJSON reader sees how the command ended.
 */
export function withRunEnd<T>(o: { json?: boolean; quiet?: boolean }, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    if (e instanceof UserError && o.json)
      createProgressSink({ json: true, quiet: o.quiet }).emit({
        event: 'run-end',
        runId: null,
        exitCode: e.exitCode,
        interrupted: false,
        cells: 0,
        wallMs: 0,
        error: e.message,
      });
    throw e;
  }
}

/**
 * `bench <contender…>` / `bench-all`; returns the summary (exit code set on process.exitCode).
 * `sink`: where progress goes (default: from `--quiet`/`--json`, on stderr/stdout). `wrapDeps`:
 * changes the run's real dependencies before the run (`just why` puts the servers under the CPU
 * profiler: scheduler/profiled.ts).
 */
export async function bench(
  g: Globals,
  names: string[],
  opts: BenchOpts,
  command: string[],
  signal: AbortSignal,
  extraManifests: Manifest[] = [],
  sink: ProgressSink = createProgressSink({ json: opts.json, quiet: opts.quiet }),
  wrapDeps: (d: RunDeps) => RunDeps = (d) => d,
): Promise<RunSummary> {
  const t0 = performance.now();
  let runId: string | null = null;
  const progress: ProgressSink = {
    live: sink.live,
    emit: (e, text) => {
      if (e.event === 'run-start') runId = e.runId;
      sink.emit(e, text);
    },
    note: (l) => sink.note(l),
    tick: (s) => sink.tick(s),
    close: (nl) => sink.close(nl),
  };
  const end = (exitCode: number, extra: { interrupted?: boolean; cells?: number; error?: string } = {}) =>
    progress.emit({
      event: 'run-end',
      runId,
      exitCode,
      interrupted: extra.interrupted ?? false,
      cells: extra.cells ?? 0,
      wallMs: Math.round(performance.now() - t0),
      ...(extra.error !== undefined ? { error: extra.error } : {}),
    });
  try {
    const { summary, scenarios } = await benchRun(g, names, opts, command, signal, extraManifests, progress, wrapDeps);
    if (summary.interrupted) {
      end(EXIT.interrupted, { interrupted: true, cells: summary.cells.length });
      await stopAll();
      process.exit(EXIT.interrupted);
    }
    // The run's own meta (machine, driver fidelity) so that the overview's "how sure" line is complete.
    let metas: RunMeta[] = [];
    try {
      metas = summary.runId ? [readRun(g.resultsDir, summary.runId).meta] : [];
    } catch {
      metas = [];
    }
    const stream = opts.json ? process.stderr : process.stdout;
    if (opts.overview === false) {
      // The command prints its own answer (ab's verdict, claims' verdicts): no overview that could contradict it.
    } else if (opts.leaderboard) {
      // `just bake-off`: this run's own report (results/reports/<run-id>/) and its overview, printed
      // once, with the older reference run beside it; then the run's answer in its closing lines.
      const log = (l: string) => process.stderr.write(`${l}\n`);
      let closing = '';
      const term = terminalSettings(stream, process.env);
      const text = leaderboardCommand(g, { run: summary.runId, referenceRun: true, ...term }, log, (v, files) => {
        closing = closingLine(summary, v, files.html, performance.now() - t0, term.width);
      });
      stream.write(`\n${text}${closing}`);
    } else {
      const table = `\n${renderTerminal(
        summary.cells,
        scenarios.map((s) => s.name),
        metas,
        terminalSettings(stream, process.env),
      )}`;
      if (!opts.json) process.stdout.write(table);
      else if (!opts.quiet) process.stderr.write(table);
    }
    process.exitCode = exitCodeForStatuses(summary.cells.map((c) => c.status));
    end(process.exitCode, { cells: summary.cells.length });
    return summary;
  } catch (e) {
    end(e instanceof UserError ? e.exitCode : EXIT.internal, { error: (e as Error)?.message ?? String(e) });
    throw e;
  }
}

/**
 * The bake-off's last lines: this run, its cells and wall time, its machine, its resolution (the
 * median minimum detectable difference between two rows) and where its report is (relative to the
 * working directory when inside it), wrapped to `width` columns, e.g. "This run: 2026-…-d078, 92
 * cells in 30m30s on Intel Xeon …; resolution 7.4%; its report: results/reports/…/leaderboard.html."
 */
export function closingLine(summary: RunSummary, v: ReportView, html: string, wallMs: number, width: number): string {
  const host = v.runs[0]?.machine.split(';')[0] ?? 'this machine';
  const mdd =
    v.medianMdd !== null && v.medianMdd !== undefined
      ? `resolution ${(100 * v.medianMdd).toFixed(v.medianMdd < 0.1 ? 1 : 0)}%`
      : 'no table model';
  const rel = path.relative(process.cwd(), html);
  const where = rel && !rel.startsWith('..') && !path.isAbsolute(rel) ? rel : html;
  const text = `This run: ${summary.runId}, ${summary.cells.length} cells in ${fmtDuration(wallMs)} on ${host}; ${mdd}; its report: ${where}.`;
  return `${wrap(text, width, '', '  ').join('\n')}\n`;
}

/** What bench() will run: the effective profile, the scenarios, the cells (baselines added). */
export interface BenchPlan {
  profile: Profile;
  /** Every scenario of the contract (for the final table's order). */
  scenarios: Scenario[];
  /** The cells to run, each scenario's baseline added unless --no-baseline or --url, and with `control` its A/A control (scheduler/plan.ts `withControls`). */
  cells: CellSpec[];
  /** Scenario → its baseline contender. */
  baselines: Record<string, string>;
}

/**
 * The plan of `bench <names>` with `opts`, without running anything: profile overrides, contenders
 * (compose-only ones left out, with a note), scenarios, Node runtimes, cells with the baselines.
 * The rounds are not planned here: bench() runs `opts.rounds` when given, else the scheduler
 * applies the profile's default for the run (core/profiles.ts `defaultRounds`): the profile's
 * solo rounds, plus its interleaved rounds as solo rounds when the run cannot interleave them, as
 * with `--url` (an external server cannot be paused or its CPU read: quick gives 2 + 6 = 8 solo
 * rounds). Notes go through `note`. Throws UserError for bad names or options, or nothing to run.
 */
export function planBench(
  g: Globals,
  names: string[],
  opts: BenchOpts,
  note: (l: string) => void,
  extraManifests: Manifest[] = [],
): BenchPlan {
  const profile = withOverrides(getProfile(opts.profile), opts);
  const { scenarios, manifests: own } = load(g);
  const manifests = [...own, ...extraManifests];
  let chosen = selectContenders(manifests, names);
  if (opts.url) {
    if (chosen.length !== 1)
      throw new UserError(
        '--url benches one contender: name exactly one (e.g. `just bench hasura --url http://127.0.0.1:18090`)',
      );
  } else {
    const composeOnly = chosen.filter((m) => m.composeOnly);
    const [m] = composeOnly;
    if (names.length && m) {
      throw new UserError(
        `${m.name} runs only under Docker Compose (no npm distribution). Start it with \`npx just compose-up ${m.name}\`, then bench it with \`npx just bench ${m.name} --url http://127.0.0.1:<port>\` (ports: compose/README.md).`,
      );
    }
    if (composeOnly.length)
      note(
        `skipping compose-only contender(s) ${composeOnly.map((m) => m.name).join(', ')}: bench them with --url (see compose/README.md)`,
      );
    chosen = chosen.filter((m) => !m.composeOnly);
  }
  const scen = selectScenarios(scenarios, opts.scenario ?? []);
  const majors = opts.nodeMajors ?? [Number(process.versions.node.split('.')[0])];
  const nodes = majors.map((major) => resolveNode(major, note));
  let cells = planCells(chosen, scen, profile, nodes, opts.variants);
  if (!cells.length)
    throw new UserError(
      `nothing to run: ${chosen.map((m) => m.name).join(', ') || 'no contender'} support(s) none of ${scen.map((s) => s.name).join(', ')}. ${chosen.map((m) => `${m.name} supports: ${m.scenarios.join(', ')}`).join('; ')}`,
    );
  const baselines = Object.fromEntries(scen.map((s) => [s.name, s.baseline]));
  if (!opts.url && opts.baseline !== false) {
    const b = withBaselines(cells, manifests);
    cells = b.cells;
    for (const [name, list] of b.added)
      note(
        `also measuring ${name} (not asked for): it is the baseline of ${list.join(', ')}, and every ratio is taken within one run`,
      );
    for (const [name, list] of b.missing)
      note(
        `baseline ${name} of ${list.join(', ')} is not available here (not in ${g.contendersDir}, or it does not support the scenario): those tables have no baseline in this run`,
      );
  }
  if (!opts.url && opts.control) {
    // A second process of each baseline in the plan (scheduler/plan.ts `withControls`).
    const c = withControls(cells);
    cells = c.cells;
    for (const [name, list] of c.added)
      note(
        `also measuring a second ${name} process, the A/A control of ${list.join(', ')}: compared with ${name} in the report's how-sure line, never ranked (--no-control leaves it out)`,
      );
  }
  return { profile, scenarios, cells, baselines };
}

/** bench() up to the run's summary (and the scenarios, for the table); notes through `progress`. */
async function benchRun(
  g: Globals,
  names: string[],
  opts: BenchOpts,
  command: string[],
  signal: AbortSignal,
  extraManifests: Manifest[],
  progress: ProgressSink,
  wrapDeps: (d: RunDeps) => RunDeps,
): Promise<{ summary: RunSummary; scenarios: Scenario[] }> {
  const note = (l: string) => progress.note(l);
  const { profile, scenarios, cells, baselines } = planBench(g, names, opts, note, extraManifests);
  const fidelityS = opts.fidelityS;
  if (fidelityS && profile.driver === 'k6')
    throw new UserError(`the driver fidelity check compares connection drivers; ${profile.name} is a k6 profile`);
  const abandoned = sweepAbandoned(g.resultsDir, note);
  if (abandoned.length)
    note(`marked ${abandoned.length} run(s) left running by a harness that died as abandoned: ${abandoned.join(', ')}`);
  const target = { port: opts.port, externalUrl: opts.url, upstreamDelayMs: opts.upstreamDelayMs };
  const summary = await runPlan({
    rounds: opts.rounds,
    shuffleSeed: opts.seed,
    fidelityS,
    baselines,
    cells,
    profileName: profile.name,
    resultsDir: g.resultsDir,
    scenariosDir: g.scenariosDir,
    ...target,
    deps: wrapDeps(realDeps({ profile, host: opts.host, ...target })),
    command,
    signal,
    progress,
    ...(opts.cpuProfile ? { cpuProfile: opts.cpuProfile } : {}),
    ...(opts.footprint ? { footprint: {} } : {}),
  });
  return { summary, scenarios };
}

/** `verify [contender…]`: start each server and check every scenario it supports; no load. Returns the exit code. */
export async function verify(g: Globals, names: string[], host: string, signal: AbortSignal): Promise<number> {
  const { scenarios, manifests } = load(g);
  const chosen = selectContenders(manifests, names);
  for (const m of chosen.filter((x) => x.composeOnly))
    process.stdout.write(
      `${m.name}: compose-only, not started here (verify it with \`npx just bench ${m.name} --url …\`)\n`,
    );
  const local = chosen.filter((m) => !m.composeOnly);
  const node = resolveNode(Number(process.versions.node.split('.')[0]), err);
  const cells = planCells(local, scenarios, getProfile('smoke'), [node], true);
  if (!cells.length) return EXIT.ok;
  const summary = await runPlan({
    mode: 'verify',
    cells,
    profileName: 'verify',
    resultsDir: g.resultsDir,
    scenariosDir: g.scenariosDir,
    deps: realDeps({ profile: getProfile('smoke'), host, upstreamDelayMs: 0 }),
    upstreamDelayMs: 0,
    command: ['verify', ...names],
    signal,
    log: err,
  });
  if (summary.interrupted) return EXIT.interrupted;
  const statuses: string[] = [];
  for (const label of [...new Set(summary.cells.map((c) => c.label))]) {
    const mine = summary.cells.filter((c) => c.label === label);
    const started = mine.map((c) => c.startupMs).filter((x): x is number => x !== null);
    const broken = mine.find((c) => ['build-failed', 'start-failed', 'skipped', 'unsupported'].includes(c.status));
    process.stdout.write(
      `${label}${started.length ? ` (started in ${Math.round(Math.min(...started))} ms)` : ''}${broken ? `: ${broken.status.toUpperCase()}: ${broken.failure?.reason ?? ''}` : ''}\n`,
    );
    if (broken?.failure?.logTail) process.stdout.write(`${terminalSafe(broken.failure.logTail)}\n`);
    for (const c of mine) {
      statuses.push(c.status === 'skipped' ? 'verify-failed' : c.status);
      if (!c.verification) continue;
      const v = c.verification;
      process.stdout.write(
        `  ${v.level.padEnd(4)}  ${c.scenario}${v.reasons.length ? `: ${v.reasons.join('; ')}` : ''}\n`,
      );
    }
  }
  return exitCodeForStatuses(statuses);
}
