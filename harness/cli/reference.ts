/**
 * `just reference` (the `reference` command): the steady-state reference of the bake-off's
 * figures (analysis/reference-stats.ts). This module parses its options, checks the names, calls
 * scheduler/steady-reference.ts `runReference` with the real dependencies (scheduler/real-deps.ts
 * `referenceDeps`) and prints the record's figures. Each chosen contender is measured ALONE on
 * the server core of the CPU plan with wrk on the client cores: per fresh server process a warm-up
 * (default 20 s), then windows; ≥ 3 processes per contender, in rotation blocks (the default) or,
 * with `--design solo`, one process at a time in ABBA order (scheduler/reference-measure.ts). The
 * record goes to `<results>/reference/<run-id>.json`. Shorter runs (for tests) are allowed through
 * the options and are marked `meetsMinimums: false`.
 *
 * `reference-compare --reference <record(s)> --run <bake-off run(s)>`: the records read together
 * (analysis/reference-merge.ts `mergeReferences`); per row of the runs' ranked
 * tables (the mean of their logs when several), the gap bake-off ratio ÷ reference ratio − 1 with
 * its 90% CI (analysis/reference-gaps.ts), then the accuracy conclusion and its arithmetic: the
 * bias test with the shared baseline's correlation, the targets and what an unbiased design reads
 * (analysis/reference-floor.ts). With `--paired`, run k is read against reference k alone (a record
 * of its own hours) and the gaps are averaged (analysis/reference-gaps.ts `comparePaired`); a count
 * that differs is a UserError. Exit 0: the targets are printed, never enforced by the exit code.
 *
 * Only 127.0.0.1/::1 (lifecycle/server.ts). Nothing is left running (scheduler/steady-reference.ts).
 */
import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import {
  accuracyDetails,
  accuracyLine,
  leftOutText,
  noBiasReading,
  recordsLabel,
} from '../analysis/reference-floor.ts';
import { type BakeoffRatio, bakeoffRatiosOf, comparePaired, compareRuns } from '../analysis/reference-gaps.ts';
import { buildTables } from '../analysis/tables.ts';
import { mergeReferences, poolText } from '../analysis/reference-merge.ts';
import { REFERENCE_DEFAULTS } from '../analysis/reference-stats.ts';
import { UserError } from '../core/errors.ts';
import { machineName, sameMachine } from '../core/machine.ts';
import { EXIT, EXIT_HELP } from '../core/exit-codes.ts';
import { selectContenders, selectScenarios } from '../scheduler/plan.ts';
import { referenceDeps } from '../scheduler/real-deps.ts';
import { type ReferenceRunRecord, runReference } from '../scheduler/steady-reference.ts';
import type { RunMeta } from '../store/results.ts';
import { readRun } from '../store/runs.ts';
import { type ReferenceRecord, readReference } from '../store/reference-store.ts';
import { load } from './bench.ts';
import { type CliContext, type Globals, helpFooter, SHORT_EXIT_HELP, takeMachine, waitOption } from './command-kit.ts';
import { list, parseReferenceOptions, type ReferenceOpts } from './options.ts';
import { fmtPct } from '../core/format.ts';

/** A bias or share as a percent with one decimal, '–' for none. */
const pct = (x: number | null) => (x === null ? '–' : fmtPct(x, 1));

/** Checks of `reference`'s names before the machine lock (registerReference). Throws UserError. */
export function precheckReference(g: Globals, names: string[], o: ReferenceOpts): void {
  const { manifests, scenarios } = load(g);
  if (!names.length) throw new UserError('name the contenders to measure, e.g. `just reference node-http fastify`');
  selectContenders(manifests, names);
  selectScenarios(scenarios, o.scenario ?? ['json']);
}

/** Runs the reference (scheduler/steady-reference.ts) and prints its figures and record file; returns the exit code. See the module docstring. */
export async function reference(g: Globals, names: string[], o: ReferenceOpts, signal: AbortSignal): Promise<number> {
  const { manifests, scenarios: all } = load(g);
  const out = await runReference({
    contenders: selectContenders(manifests, names),
    scenarios: selectScenarios(all, o.scenario ?? ['json']),
    baselineOf: (s) => all.find((q) => q.name === s)?.baseline ?? 'node-http',
    design: o.design,
    resultsDir: g.resultsDir,
    scenariosDir: g.scenariosDir,
    deps: referenceDeps(),
    signal,
    log: (l) => {
      if (!o.quiet) process.stderr.write(`reference: ${l}\n`);
    },
  });
  if (!out) return EXIT.interrupted;
  const { interrupted } = out.record;
  process.stdout.write(
    `${referenceSummary(out.record)}\nrecord: ${out.file}${interrupted ? ' (interrupted: incomplete)' : ''}\n`,
  );
  return interrupted ? EXIT.interrupted : EXIT.ok;
}

/** The figures of a reference record as lines: per cell requests/s and requests per CPU-second with their 95% CI between processes. */
function referenceSummary(r: Pick<ReferenceRunRecord, 'figures' | 'meetsMinimums' | 'quiet'>): string {
  const n = (x: number) => Math.round(x).toLocaleString('en-US');
  const q = r.quiet;
  const iv = (f: ReferenceRunRecord['figures'][number]['rps']) =>
    f.ci95 ? ` (95% CI ${n(f.ci95[0])}–${n(f.ci95[1])}, ${f.n} processes)` : ` (${f.n} process)`;
  return [
    ...(r.meetsMinimums
      ? []
      : [
          'note: shorter than the reference minimums (20 s warm-up, 3 windows and 30 s measured per process, 3 processes): not a reference for the bake-off',
        ]),
    ...r.figures.map(
      (f) =>
        `${f.scenario} · ${f.contender}: ${n(f.rps.figure)} requests/s${iv(f.rps)}; ${f.efficiency ? `${n(f.efficiency.figure)} requests per CPU-second${iv(f.efficiency)}` : 'no CPU time'}`,
    ),
    q.read
      ? `quiet: ${q.disturbed} of ${q.read} windows had other work above ${pct(q.limit)} of a core (most: ${pct(q.maxShare)})${q.disturbed ? ': not a reference for the bake-off; re-run on a quiet machine' : ''}`
      : 'quiet: not read (no /proc)',
  ].join('\n');
}

/** Options of `reference-compare`. */
export interface ReferenceCompareOpts {
  /** One or more reference records (ids or files), read together. */
  reference: string[];
  /** One or more bake-off runs (their mean is compared). */
  run: string[];
  unit?: string;
  /** Only these scenarios' rows (the targets and the floor then read those rows alone). */
  scenario?: string[];
  /** Run k against reference k alone (as many references as runs): the mean of the paired gaps. */
  paired?: boolean;
}

/** The ranked rows of a bake-off run (store/runs.ts `readRun`) as ratios to their table's baseline with their 95% CI and model split (analysis/reference-gaps.ts `bakeoffRatiosOf`). */
export function bakeoffRatios(run: ReturnType<typeof readRun>): BakeoffRatio[] {
  return bakeoffRatiosOf(buildTables([{ meta: run.meta, cells: run.cells }], { runId: run.meta.runId }));
}

/**
 * `rows` kept to the scenarios `wanted` (all when absent). Throws UserError naming the run's
 * scenarios when a wanted one has no row in run `runId`.
 */
export function onlyScenarios(rows: BakeoffRatio[], wanted: string[] | undefined, runId: string): BakeoffRatio[] {
  if (!wanted?.length) return rows;
  const have = [...new Set(rows.map((r) => r.scenario))];
  const missing = wanted.filter((s) => !have.includes(s));
  if (missing.length)
    throw new UserError(
      `--scenario ${missing.join(', ')}: run ${runId} has no ranked row of ${missing.length > 1 ? 'these scenarios' : 'that scenario'}; its scenarios: ${have.join(', ')}`,
    );
  return rows.filter((r) => wanted.includes(r.scenario));
}

/**
 * One note per reference record that ran on another machine than a bake-off run (core/machine.ts
 * `sameMachine`): the comparison still prints, since the user named them, but says that a ratio to
 * the baseline holds for its own machine only.
 */
function machineNotes(runs: RunMeta[], refs: ReferenceRecord[]): string[] {
  const notes: string[] = [];
  for (const { runId: id, machine: here } of runs) {
    for (const r of refs)
      if (!r.machine || !sameMachine(r.machine, here))
        notes.push(
          `note: reference ${r.runId} ran on another machine (${r.machine ? machineName(r.machine) : 'not recorded'}) than run ${id} (${machineName(here)}): a ratio to the baseline holds for its own machine only, so a gap may be the machines' difference`,
        );
  }
  return notes;
}

/** `reference-compare`: prints the bake-off runs' rows (their mean) against the reference, the test and the targets; returns the exit code. */
export function referenceCompare(g: Globals, o: ReferenceCompareOpts): number {
  const unit = o.unit ?? 'rps';
  if (unit !== 'rps' && unit !== 'efficiency') throw new UserError(`--unit must be rps or efficiency, got '${unit}'`);
  const refs = o.reference.map((r) =>
    readReference(fs.existsSync(r) ? r : path.join(g.resultsDir, 'reference', `${r}.json`)),
  );
  if (o.paired && refs.length !== o.run.length)
    throw new UserError(
      `--paired: ${o.run.length} run(s) but ${refs.length} reference(s); give one reference per run, in the same order (a reference may repeat)`,
    );
  const merged = mergeReferences(refs);
  const unique = [...new Map(refs.map((r) => [r.runId, r])).values()];
  const runs = o.run.map((id) => readRun(g.resultsDir, id, 'run', true));
  const rowsOf = runs.map((run) => onlyScenarios(bakeoffRatios(run), o.scenario, run.meta.runId));
  const own = new Map(o.paired ? unique.map((r) => [r.runId, mergeReferences([r]).ratios]) : []);
  const check = o.paired
    ? comparePaired(
        rowsOf,
        refs.map((r) => own.get(r.runId) ?? []),
        unit,
      )
    : compareRuns(rowsOf, merged.ratios, unit);
  const pct = (x: number) => `${x < 0 ? '−' : '+'}${Math.abs(100 * x).toFixed(1)}%`;
  const lines = check.rows.map(
    (r) =>
      `${r.scenario} · ${r.label}: bake-off ${r.bakeoff.toFixed(3)} vs reference ${r.reference.toFixed(3)}${refs.length > 1 ? ` (${r.record})` : ''}: gap ${pct(Math.exp(r.gap) - 1)}${r.ci ? ` (90% CI ${pct(r.ci[0] - 1)} … ${pct(r.ci[1] - 1)}${r.within ? ', inside ±10%' : ''})` : ' (no interval)'}`,
  );
  for (const ref of unique) {
    const left = merged.leftOut[ref.runId];
    if (ref.quiet?.disturbed)
      lines.unshift(
        left
          ? `note: ${leftOutText(ref.runId, left)}`
          : `note: ${ref.quiet.disturbed} of reference ${ref.runId}'s windows had other work on the machine, and its quiet part is too short: it is not read`,
      );
    if (!ref.meetsMinimums)
      lines.unshift(
        `note: reference ${ref.runId} is shorter than the reference minimums or was interrupted: the comparison is not a certificate`,
      );
  }
  lines.unshift(
    ...machineNotes(
      runs.map((r) => r.meta),
      unique,
    ),
  );
  if (o.paired)
    lines.unshift(
      `paired: each run against its own reference (the mean of ${o.run.length} paired gaps): ${o.run.map((id, k) => `${id} ↔ ${refs[k]?.runId}`).join(', ')}`,
    );
  else for (const p of merged.pools) lines.unshift(`note: ${poolText(p)}`);
  const id = recordsLabel(o.paired ? unique.map((r) => r.runId) : merged.ids);
  if (!check.rows.length)
    lines.push(
      `no row of run ${o.run.join(', ')} has a reference ratio in ${merged.ids.length ? id : o.reference.join(', ')}`,
    );
  else {
    const reading = noBiasReading(check);
    lines.push(accuracyLine(check, reading, id), accuracyDetails(check, reading, id));
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}

/** Registers `reference <contender...>` on `program`: options parsed and names checked before the machine lock, then reference(). */
export function registerReference(program: Command, ctx: CliContext): void {
  const [r, s] = [REFERENCE_DEFAULTS.rotation, REFERENCE_DEFAULTS.solo];
  const c = program
    .command('reference')
    .description(
      'the steady-state reference: each contender ALONE on the server core with wrk, a long warm-up, long windows, fresh server processes (rotation blocks: every contender in the same minutes, one loaded at a time); requests/s and requests per CPU-second with intervals between processes (results/reference/<run-id>.json)',
    )
    .argument('<contender...>')
    .option('-s, --scenario <names>', 'scenario(s), comma-separated or repeated (default json)', list)
    .option(
      '--design <name>',
      'rotation (blocks: one fresh process of every contender, warmed alone, then windows in rotation) or solo (one process at a time, ABBA order)',
      'rotation',
    )
    .option('--warmup <s>', `warm-up seconds per server process (default ${r.warmupS}; reference: ≥ 20)`)
    .option(
      '--windows <n>',
      `measured windows per process (default rotation ${r.windows}, solo ${s.windows}; reference: ≥ 3)`,
    )
    .option(
      '--window <s>',
      `seconds per window (default rotation ${r.windowS}, solo ${s.windowS}; reference: ≥ 30 s per process)`,
    )
    .option(
      '--processes <n>',
      `fresh server processes per contender: rotation blocks or ABBA rounds (default ${r.processes}; reference: ≥ 3)`,
    )
    .option('--connections <n>', "wrk connections (default: the quick profile's)")
    .option('-q, --quiet', 'no progress lines');
  waitOption(c).action(async (names: string[], raw: Record<string, unknown>) => {
    const g = ctx.globals();
    const opts = parseReferenceOptions(raw);
    precheckReference(g, names, opts);
    await takeMachine({ wait: opts.wait, command: ctx.argv });
    process.exitCode = await reference(g, names, opts, ctx.signal);
  });
  helpFooter(c, ['npx just reference node-http fastify express --scenario json,users'], EXIT_HELP);
}

/** Registers `reference-compare --reference <id|file> --run <id>` on `program`. */
export function registerReferenceCompare(program: Command, ctx: CliContext): void {
  const c = program
    .command('reference-compare')
    .description(
      "bake-off runs' ratios to their baselines (their mean) against a reference record: per row the gap bake-off ÷ reference − 1 with its 90% CI (both sides' errors), the rows beyond both intervals (a test with the shared baseline's correlation), the targets and what an unbiased design reads",
    )
    .requiredOption(
      '--reference <ids|files>',
      'the reference record(s), run ids of results/reference/ or files, comma-separated or repeated: read together (records of one shape pooled or read as their mean), each ratio from the source with the most processes behind it',
      list,
    )
    .requiredOption(
      '--run <ids>',
      'the bake-off run(s), comma-separated or repeated (≥ 3: the targets are judged)',
      list,
    )
    .option(
      '--unit <unit>',
      "the reference's ratio compared: rps (requests/s) or efficiency (requests per CPU-second)",
      'rps',
    )
    .option(
      '-s, --scenario <names>',
      "only these scenarios' rows, comma-separated or repeated: the test, the targets and the floor read them alone",
      list,
    )
    .option(
      '--paired',
      'one reference per run, in the same order: each run against its own (a record of the same hours), and the mean of the paired gaps',
    )
    .action((opts: ReferenceCompareOpts) => {
      process.exitCode = referenceCompare(ctx.globals(), opts);
    });
  helpFooter(
    c,
    ['npx just reference-compare --reference 2026-01-01T00-00-00Z-abcd --run 2026-01-02T00-00-00Z-ef01'],
    SHORT_EXIT_HELP,
  );
}
