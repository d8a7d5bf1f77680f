/**
 * `claims` (`just claims`): measures every source claim of report/claims.json in its source's own
 * load shape (the claim's profiles, at the profiles' own window lengths), with at least
 * MIN_CI_TRIALS (5) rounds per cell (the profile's interleaved rounds where it has them, else solo rounds), through the ordinary bench machinery (cli/bench.ts
 * `planBench` / `bench`, the scheduler): one bench run per profile, over the union of the
 * profile's claims' contenders (variants when a claim names one) and scenarios; each scenario's
 * baseline only with `--with-baselines` (each claim's b is its reference: the table model's MDD
 * then uses b as the reference row, report/claims.ts). `--source` and `--claim`
 * narrow it. Claims whose contender runs only under Docker Compose (Hasura) are not measured and
 * say so with their command. Before starting, it prints the plan and its expected duration (from
 * the profiles: server starts, warm-ups, rounds × windows; scheduler/group.ts `groupPlan`);
 * `--dry-run` prints only that. After the runs it prints each claim's verdict (report/claims.ts).
 */
import path from 'node:path';
import type { Command } from 'commander';
import { UserError } from '../core/errors.ts';
import { EXIT_HELP } from '../core/exit-codes.ts';
import { getProfile, interleaveOf } from '../core/profiles.ts';
import { MIN_CI_TRIALS } from '../analysis/stats.ts';
import { readSnapshot } from './report.ts';
import {
  type Claim,
  contenderOf,
  describeRange,
  evaluateClaims,
  formatComparison,
  formatRange,
  loadClaims,
  measureCommand,
  headroomText,
  verdictText,
} from '../report/claims.ts';
import { groupPlan } from '../scheduler/group.ts';
import { fmtDuration } from '../core/format.ts';
import type { CellSpec } from '../scheduler/plan.ts';
import { bench, load, planBench } from './bench.ts';
import { type CliContext, type Globals, helpFooter, takeMachine, waitOption } from './command-kit.ts';
import { type BenchOpts, type ClaimsOpts, list, parseClaimsOptions, parseHost } from './options.ts';

/** One bench run of the claims plan: one profile, its contenders and scenarios. */
export interface ClaimsStep {
  profile: string;
  contenders: string[];
  scenarios: string[];
  variants: boolean;
  /** The claim ids this run measures. */
  claims: string[];
  /** The bench options of the run. */
  opts: BenchOpts;
  /** The cells bench will run (baselines included). */
  cells: CellSpec[];
  rounds: number;
  /** Expected wall time, ms (server starts, warm-ups, windows; builds and database start not included). */
  ms: number;
}

/** The claims plan: the bench runs, and the claims that cannot be measured here (with the command). */
export interface ClaimsPlan {
  steps: ClaimsStep[];
  notMeasured: { claim: Claim; reason: string }[];
  ms: number;
}

/** The claims selected by --source / --claim; UserError naming the valid values for an unknown one. */
export function selectClaims(all: Claim[], o: Pick<ClaimsOpts, 'source' | 'claim'>): Claim[] {
  let out = all;
  if (o.source) {
    const sources = [...new Set(all.map((c) => c.source))];
    const s = sources.find((x) => x.toLowerCase() === o.source?.toLowerCase());
    if (!s) throw new UserError(`unknown source '${o.source}': sources are ${sources.map((x) => `'${x}'`).join(', ')}`);
    out = out.filter((c) => c.source === s);
  }
  if (o.claim?.length) {
    const ids = all.map((c) => c.id);
    const bad = o.claim.filter((id) => !ids.includes(id));
    if (bad.length) throw new UserError(`unknown claim id(s) ${bad.join(', ')}: ids are ${ids.join(', ')}`);
    out = out.filter((c) => o.claim?.includes(c.id));
  }
  if (!out.length) throw new UserError('no claim matches both --source and --claim: drop one of them');
  return out;
}

/** Expected ms of a run's cells: the sum of scheduler/group.ts `groupPlan` over its groups (scenario × driver × Node). */
function expectedMs(cells: CellSpec[], rounds: number): number {
  const groups = new Map<string, CellSpec[]>();
  for (const c of cells) {
    const k = `${c.scenario.name}|${c.node.major}`;
    groups.set(k, [...(groups.get(k) ?? []), c]);
  }
  return [...groups.values()].reduce((s, g) => s + groupPlan(g, rounds, 'bench').ms, 0);
}

/**
 * The plan of `claims` (no load): per profile of the selected claims, the bench options and cells
 * (cli/bench.ts `planBench`), with at least 5 rounds (solo rounds; a profile with interleaved
 * rounds keeps its own solo rounds and ranks on its interleaved ones) and the expected time. Claims with a
 * compose-only contender go to `notMeasured`. Throws UserError for bad options (--rounds below 5,
 * --duration on k6-ramp …).
 */
export function planClaims(g: Globals, o: ClaimsOpts): ClaimsPlan {
  const claims = selectClaims(loadClaims(), o);
  const { manifests } = load(g);
  const composeOnly = new Set(manifests.filter((m) => m.composeOnly).map((m) => m.name));
  const notMeasured: ClaimsPlan['notMeasured'] = [];
  const byProfile = new Map<string, Claim[]>();
  for (const c of claims) {
    const docker = [c.a, c.b].map(contenderOf).find((n) => composeOnly.has(n));
    if (docker) {
      notMeasured.push({ claim: c, reason: c.whenMissing ?? `${docker} runs only under Docker Compose` });
      continue;
    }
    for (const p of c.profiles) byProfile.set(p, [...(byProfile.get(p) ?? []), c]);
  }
  const steps: ClaimsStep[] = [...byProfile].map(([profile, cs]) => {
    const contenders = [...new Set(cs.flatMap((c) => [c.a, c.b].map(contenderOf)))];
    const scenarios = [...new Set(cs.map((c) => c.scenario))];
    const variants = cs.some((c) => [c.a, c.b].some((l) => l.includes(' +')));
    // A profile with interleaved rounds ranks on those (≥ 5 of them); its solo rounds are kept as they are.
    const prof = getProfile(profile);
    const rounds = o.rounds ?? (interleaveOf(prof) ? prof.rounds : Math.max(prof.rounds, MIN_CI_TRIALS));
    const opts: BenchOpts = {
      profile,
      scenario: scenarios,
      variants,
      rounds,
      host: o.host,
      upstreamDelayMs: 0,
      ...(o.durationS !== undefined ? { durationS: o.durationS } : {}),
      ...(o.withBaselines ? {} : { baseline: false }),
      ...(o.seed !== undefined ? { seed: o.seed } : {}),
      ...(o.quiet ? { quiet: true } : {}),
    };
    const plan = planBench(g, contenders, opts, () => {});
    return {
      profile,
      contenders,
      scenarios,
      variants,
      claims: cs.map((c) => c.id),
      opts,
      cells: plan.cells,
      rounds,
      ms: expectedMs(plan.cells, rounds),
    };
  });
  return { steps, notMeasured, ms: steps.reduce((s, x) => s + x.ms, 0) };
}

/** The bench command line equivalent to a step (recorded as the run's command; it repeats the run). */
export function stepCommand(s: ClaimsStep): string[] {
  return [
    'bench',
    ...s.contenders,
    '--profile',
    s.profile,
    '--scenario',
    s.scenarios.join(','),
    '--rounds',
    String(s.rounds),
    ...(s.variants ? [] : ['--no-variants']),
    ...(s.opts.durationS ? ['--duration', String(s.opts.durationS)] : []),
    ...(s.opts.baseline === false ? ['--no-baseline'] : []),
  ];
}

/** The plan as text: per run its cells, windows and expected time; the claims not measured; the total. */
export function renderClaimsPlan(plan: ClaimsPlan): string[] {
  const out = [
    `Claims plan (harness/report/claims.json): each claim in its source's own load shape, ≥ ${MIN_CI_TRIALS} rounds per cell (interleaved where the profile has them), one bench run per profile.`,
  ];
  plan.steps.forEach((s, i) => {
    const p = s.cells[0]?.profile ?? getProfile(s.profile);
    const secs = p.driver === 'k6' && p.stages ? p.stages.reduce((a, x) => a + x.durationS, 0) : (p.durationS ?? 0);
    const il = interleaveOf(p);
    const shape = il
      ? `${s.rounds} solo rounds × ${secs} s windows, then ${il.rounds} interleaved rounds of ${il.activeS} s in ${(il.instances ?? 1) > 1 ? `${il.instances} server processes` : 'one server process'} per cell`
      : `${s.rounds} rounds × ${secs} s windows`;
    out.push(
      '',
      `${i + 1}. ${s.profile}: ${s.cells.length} cells × ${shape} (+ ${p.warmupS} s warm-up per cell), expected ${fmtDuration(s.ms)}`,
      `   claims: ${s.claims.join(', ')}`,
      `   command: just ${stepCommand(s).join(' ')}`,
    );
    for (const c of s.cells)
      out.push(`   cell: ${c.variant ? `${c.manifest.name} +${c.variant}` : c.manifest.name} · ${c.scenario.name}`);
  });
  for (const n of plan.notMeasured)
    out.push(
      '',
      `not measured here: ${n.claim.id}: ${n.reason}; then \`${measureCommand(n.claim, n.claim.profiles[0] ?? '')}\``,
    );
  out.push(
    '',
    `Expected duration: ${fmtDuration(plan.ms)} (from the profiles: server starts, warm-ups, rounds × windows; builds and the database start come on top).`,
  );
  return out;
}

/** The verdicts of the given claims over every run in the results folder, one line each. */
function verdictLines(g: Globals, ids: string[]): string[] {
  const { snapshot } = readSnapshot(g.resultsDir, g.scenariosDir);
  const rs = evaluateClaims(
    loadClaims().filter((c) => ids.includes(c.id)),
    snapshot.runs.map((r) => ({ meta: r.meta, cells: [...r.cells] })),
    { scenarios: snapshot.scenarios.map((s) => ({ name: s.name, baseline: s.baseline })) },
  );
  return rs.map(
    (r) =>
      `${r.claim.id} (${r.profile}): ${verdictText(r)}${r.ours !== null && r.band ? ` — ours ${formatComparison(r.claim.compare, r.ours)} (${formatRange(r.claim.compare, r.band)})` : ''}; range ${describeRange(r.claim)}${r.runId ? `; run ${r.runId}` : ''}${r.headroom ? `; ${headroomText(r.claim, r.headroom)}` : ''}`,
  );
}

/**
 * `claims`: prints the plan (planClaims) and its expected duration, then (unless --dry-run) runs
 * each step with bench() and prints the claims' verdicts. Returns the exit code (the worst of the runs').
 */
export async function claimsCommand(
  g: Globals,
  plan: ClaimsPlan,
  o: Pick<ClaimsOpts, 'dryRun'>,
  signal: AbortSignal,
): Promise<number> {
  const write = (l: string) => process.stdout.write(`${l}\n`);
  for (const l of renderClaimsPlan(plan)) write(l);
  if (o.dryRun) return 0;
  let exit = 0;
  let left = plan.ms;
  for (const [i, s] of plan.steps.entries()) {
    process.stderr.write(
      `\nclaims: run ${i + 1} of ${plan.steps.length} (${s.profile}), expected ${fmtDuration(s.ms)}; all runs left ≈ ${fmtDuration(left)}\n`,
    );
    // Each step's own overview would rank its cells as a bake-off; the verdicts below are the answer.
    await bench(g, s.contenders, { ...s.opts, overview: false }, stepCommand(s), signal);
    if (signal.aborted) return 130;
    exit = Math.max(exit, Number(process.exitCode ?? 0));
    left -= s.ms;
  }
  write('');
  write('Verdicts (judged over every run in the results folder; `just leaderboard` renders them):');
  for (const l of verdictLines(g, [...plan.steps.flatMap((s) => s.claims), ...plan.notMeasured.map((n) => n.claim.id)]))
    write(`  ${l}`);
  write(`(results folder: ${path.relative(process.cwd(), g.resultsDir) || '.'})`);
  return exit;
}

/**
 * Registers `claims` on `program`: options parsed and the plan made (planClaims: names, profiles,
 * rounds) before the machine lock, which `--dry-run` never takes; then claimsCommand().
 */
export function registerClaims(program: Command, ctx: CliContext): void {
  const c = program
    .command('claims')
    .description(
      "measure every source claim (harness/report/claims.json) in its source's own load shape at its own length, ≥ 5 rounds per cell (interleaved where the profile has them): one bench run per profile; prints the plan and expected duration first, the verdicts at the end",
    )
    .option(
      '--source <name>',
      'only the claims of this source (a docs/sources.md name, e.g. "Nexus/Express/Fastify report")',
    )
    .option('--claim <ids>', 'only these claim ids, comma-separated or repeated (e.g. s003-json)', list)
    .option('--dry-run', 'print the plan (runs, cells, commands) and the expected duration; measure nothing')
    .option(
      '--rounds <n>',
      "solo rounds per cell, at least 5 (default: the profile's; at least 5 unless it has interleaved rounds)",
    )
    .option('--duration <s>', 'shorten the windows (the verdicts are then marked provisional); not for k6-ramp')
    .option(
      '--with-baselines',
      "also measure each scenario's baseline contender, as bench does (about 10 min more; by default each claim's own reference b is the table model's reference row)",
    )
    .option('--seed <n>', 'shuffle seed of every run')
    .option('--host <host>', 'loopback address the contenders listen on (127.0.0.1 or ::1)', parseHost, '127.0.0.1')
    .option('-q, --quiet', 'no progress lines or notes');
  waitOption(c).action(async (raw: Record<string, unknown>) => {
    const g = ctx.globals();
    const opts = parseClaimsOptions(raw);
    const plan = planClaims(g, opts);
    if (!opts.dryRun) await takeMachine({ wait: opts.wait, command: ctx.argv });
    process.exitCode = await claimsCommand(g, plan, opts, ctx.signal);
  });
  helpFooter(
    c,
    [
      'npx just claims --dry-run',
      'npx just claims --source "Nexus/Express/Fastify report"',
      'npx just claims --claim s004-postgraphile-live',
    ],
    EXIT_HELP,
  );
}
