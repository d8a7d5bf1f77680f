/**
 * `why <contender…> [--scenario s[,s]] [--profile quick]` ("why a stack is slow"): for
 * each contender and scenario, plus the scenario's baseline contender as bench adds it, one
 * profiled window: the bench machinery (cli/bench.ts → scheduler/run.ts: build, start, verify
 * with the contract check and burst, warm-up, then ONE measured window in the profile's load
 * shape with the run's driver, graceful stop) with every server under V8's CPU profiler
 * (scheduler/profiled.ts). Then each cell's profile is cut to its measured window and attributed
 * by package (analysis/cpu-profile.ts, analysis/why-table.ts), and each contender is compared with
 * its scenario's baseline in µs of CPU per request.
 *
 * Store: the run goes to `results/why/runs/<run-id>/` (never into the leaderboard's tables: a
 * profiled window is slowed by the profiler), the attribution to its `why.json`, the raw
 * `.cpuprofile` files to its git-ignored `logs/profiles/` (store/why-store.ts). Output: bench's table of
 * the profiled windows, then per cell the attribution and per contender the difference from the
 * baseline (report/why-text.ts). A cell without a profile says "no profile: <why>".
 */
import { writableSubfolder } from '../store/links.ts';
import path from 'node:path';
import type { Command } from 'commander';
import { type ProfileResult, readCpuProfile } from '../analysis/cpu-profile.ts';
import { FLAME_MIN_SHARE, flameStacks } from '../analysis/flame.ts';
import { whyCell, whyDiffs } from '../analysis/why-table.ts';
import { UserError } from '../core/errors.ts';
import { EXIT_HELP } from '../core/exit-codes.ts';
import { DEFAULT_PROFILE, getProfile, measuredSeconds } from '../core/profiles.ts';
import { withOverrides } from '../core/profile-overrides.ts';
import { findCpuProfile } from '../lifecycle/cpu-prof.ts';
import { whyRecordText } from '../report/why-text.ts';
import { type ProfiledServer, profiledDeps } from '../scheduler/profiled.ts';
import { checkSampler } from '../scheduler/sampler-check.ts';
import type { RunSummary } from '../scheduler/run.ts';
import type { Profile } from '../core/profiles.ts';
import type { CellResult } from '../store/results.ts';
import { writeFolded } from '../store/flame-store.ts';
import { profileDirOf, type SamplerCheck, type WhyCell, type WhyRecord, writeWhy } from '../store/why-store.ts';
import { bench, load, precheckBench } from './bench.ts';
import { type CliContext, type Globals, helpFooter, takeMachine, waitOption } from './command-kit.ts';
import { type BenchOpts, list, OPTION_DEFAULTS, parseHost, parseWhyOptions, type WhyOpts } from './options.ts';

/**
 * The checks of `why`'s options that need the profile, before the machine lock: the profile
 * exists and is closed-loop (one window to profile, not a capacity search). Throws UserError.
 */
export function precheckWhy(profile: string): void {
  const p = getProfile(profile);
  if ('capacity' in p && p.capacity)
    throw new UserError(
      `why profiles one closed-loop window; ${p.name} is a capacity profile (an open-loop search). Use --profile quick (or another closed-loop profile).`,
    );
}

/** One cell's attribution (its server, profile file and measured window) and the profile it read. */
function cellInput(c: CellResult, s: ProfiledServer | undefined, runDir: string, baselines: Map<string, string>) {
  const win = s?.windows[0] ?? null;
  let profileFile: string | null = null;
  let profile: ProfileResult;
  if (!s)
    profile = {
      ok: false,
      reason: `no profile: the server of ${c.cellId} never started (${c.status}: ${c.failure?.reason ?? ''})`,
    };
  else if (s.unprofiled) profile = { ok: false, reason: s.unprofiled };
  else {
    const found = findCpuProfile(s.dir, s.pid ?? undefined);
    const any = found.ok ? found : findCpuProfile(s.dir);
    if (!any.ok) profile = { ok: false, reason: any.reason };
    else {
      profileFile = path.relative(runDir, any.file);
      profile = readCpuProfile(any.file);
    }
  }
  const status =
    c.status === 'ok' || profile.ok === false
      ? null
      : `no profile: the cell is ${c.status}${c.failure ? ` (${c.failure.reason})` : ''}, so its window is no measure`;
  const cell = whyCell({
    cellId: c.cellId,
    contender: c.contender,
    variant: c.variant,
    scenario: c.scenario,
    isBaseline: baselines.get(c.scenario) === c.contender && !c.variant,
    contenderDir: s?.contenderDir ?? '',
    profileFile,
    profile: status ? { ok: false, reason: status } : profile,
    window: win,
    rpsPerCpuSecond: c.resources?.rpsPerCpuSecond ?? null,
  });
  return { cell, profile, contenderDir: s?.contenderDir ?? '' };
}

/**
 * Writes each attributed cell's flame graph (analysis/flame.ts: the window's call tree, frames
 * under 0.5% folded) to `<runDir>/flames/<cell-id>.folded` and sets the cell's `flameFile`.
 */
function writeFlames(runDir: string, runId: string, inputs: ReturnType<typeof cellInput>[]): WhyCell[] {
  return inputs.map(({ cell, profile, contenderDir }) => {
    if (cell.noProfile || !profile.ok || !cell.window) return { ...cell, flameFile: null };
    const { stacks, totalUs } = flameStacks(profile.profile, { contenderDir }, cell.window);
    if (!stacks.length) return { ...cell, flameFile: null };
    const flameFile = writeFolded(runDir, { cellId: cell.cellId, runId, minShare: FLAME_MIN_SHARE, totalUs, stacks });
    return { ...cell, flameFile };
  });
}

/** The bench options of a why run: its own, one round, no fidelity check. */
function whyBenchOpts(opts: WhyOpts): BenchOpts {
  return {
    scenario: opts.scenario,
    profile: opts.profile,
    host: opts.host,
    upstreamDelayMs: opts.upstreamDelayMs,
    variants: opts.variants,
    baseline: opts.baseline,
    durationS: opts.durationS,
    seed: opts.seed,
    quiet: opts.quiet,
    rounds: 1,
    fidelityS: 0,
  };
}

/** `why`: see the module comment. Returns the written record (null when the run wrote no folder). */
export async function why(
  g: Globals,
  names: string[],
  opts: WhyOpts,
  command: string[],
  signal: AbortSignal,
): Promise<WhyRecord | null> {
  precheckWhy(opts.profile);
  const { intervalUs, top } = opts;
  const isBaseline = (n: string) => load(g).scenarios.some((s) => s.baseline === n);
  if (opts.against && !names.includes(opts.against) && !isBaseline(opts.against))
    throw new UserError(
      `--against ${opts.against}: name it among the contenders too (e.g. \`just why A ${opts.against} --against ${opts.against}\`), so that it is profiled in the same run`,
    );
  const own: Globals = { ...g, resultsDir: writableSubfolder(g.resultsDir, 'why') };
  const benchOpts = whyBenchOpts(opts);
  const profile = withOverrides(getProfile(opts.profile), benchOpts);
  let servers = new Map<string, ProfiledServer>();
  const summary: RunSummary = await bench(own, names, benchOpts, command, signal, [], undefined, (d) => {
    const p = profiledDeps(d, { profileDir: profileDirOf, intervalUs });
    servers = p.servers;
    return p.deps;
  });
  if (!summary.runDir) return null;
  const samplerCheck = await checkSampler(
    path.join(summary.runDir, 'logs', 'profiles', 'sampler-probe'),
    intervalUs,
    signal,
  );
  return recordWhy(g, { ...summary, servers }, { profile, intervalUs, top, against: opts.against, samplerCheck });
}

/**
 * The attribution of a run of profiled windows (`just why`, or `--profile-cpu`'s run): each
 * cell's profile cut to its window and attributed (cellInput), its flame graph written
 * (writeFlames), the differences from the reference, `why.json` written (store/why-store.ts), and
 * the tables printed. `rankedRunId`: the ranked run the windows followed.
 */
function recordWhy(
  g: Globals,
  run: { runId: string; runDir: string; cells: CellResult[]; servers: Map<string, ProfiledServer> },
  o: {
    profile: Profile;
    intervalUs: number;
    top: number;
    against?: string;
    rankedRunId?: string;
    samplerCheck?: SamplerCheck;
  },
): WhyRecord {
  const baselines = new Map(load(g).scenarios.map((s) => [s.name, s.baseline]));
  const inputs = run.cells.map((c) => cellInput(c, run.servers.get(c.cellId), run.runDir, baselines));
  const cells = writeFlames(run.runDir, run.runId, inputs);
  const record: WhyRecord = {
    schemaVersion: 1,
    runId: run.runId,
    createdAt: new Date().toISOString(),
    profile: o.profile.name,
    durationS: measuredSeconds(o.profile),
    samplingIntervalUs: o.intervalUs,
    ...(o.rankedRunId ? { rankedRunId: o.rankedRunId } : {}),
    cells,
    diffs: whyDiffs(cells, o.against),
    ...(o.samplerCheck ? { samplerCheck: o.samplerCheck } : {}),
  };
  const file = writeWhy(run.runDir, record);
  const profiles = path.join(run.runDir, 'logs', 'profiles');
  process.stdout.write(
    `\n${whyRecordText(record, o.top)}attribution: ${file}\nflame graphs (folded stacks, committed; drawn by \`just leaderboard\`'s HTML, open in speedscope): ${path.join(run.runDir, 'flames')}\nraw profiles (git-ignored; open one in Chrome DevTools or speedscope): ${profiles}\n`,
  );
  return record;
}

/**
 * The checks of `bench --profile-cpu` / `bench-all --profile-cpu`, before the machine lock: the
 * profiled windows need the harness's own servers on the pinned Node (not `--url`, not `--node`),
 * a closed-loop profile (precheckWhy), and text output (not `--json`, whose stdout is NDJSON).
 * (`--interval` without `--profile-cpu` is refused by the parse, cli/options.ts.) Throws UserError (exit 2).
 */
export function precheckCpuProfile(opts: BenchOpts): void {
  if (!opts.cpuProfile) return;
  const no = (flag: string, why: string) => new UserError(`--profile-cpu cannot be combined with ${flag}: ${why}`);
  if (opts.url) throw no('--url', 'it profiles the servers the harness starts, not an external target');
  if (opts.nodeMajors) throw no('--node', 'the profiled windows run on the pinned Node only; run `just why` per major');
  if (opts.json) throw no('--json', 'the attribution is printed as text');
  precheckWhy(opts.profile);
}

/**
 * `--profile-cpu`: the scheduler ran, after each group's ranked windows, the group's
 * cells once more under V8's CPU profiler (scheduler/run.ts `cpuProfile`, scheduler/profiled.ts)
 * into a run of its own under `results/why/runs/<id>/`. This attributes them like `just why`
 * (recordWhy) and writes its why.json with `rankedRunId` = the ranked run. The ranked run's files
 * and figures are never touched, and its exit code stays the command's. Like a why run it records
 * the sampler check (`checkSampler`). Returns the record, or null when the run had no profiled
 * windows (no `--profile-cpu`, interrupted before any).
 */
export async function recordProfiled(
  g: Globals,
  opts: BenchOpts,
  ranked: RunSummary,
  signal: AbortSignal,
): Promise<WhyRecord | null> {
  const p = ranked.profiled;
  if (!opts.cpuProfile || !p?.cells.length) return null;
  const exit = process.exitCode;
  try {
    process.stdout.write(
      `\n--profile-cpu: one window per cell under V8's CPU profiler after each group's ranked windows of run ${ranked.runId} (a why run of its own, ${p.runId}; the ranked figures above are not touched)\n`,
    );
    const profile = withOverrides(getProfile(opts.profile), opts);
    const { intervalUs } = opts.cpuProfile;
    const samplerCheck = await checkSampler(
      path.join(p.runDir, 'logs', 'profiles', 'sampler-probe'),
      intervalUs,
      signal,
    );
    return recordWhy(g, p, { profile, intervalUs, top: OPTION_DEFAULTS.top, rankedRunId: ranked.runId, samplerCheck });
  } finally {
    process.exitCode = exit;
  }
}

/** Registers `why <contender...>` on `program`: options parsed and names checked before the machine lock, then why(). */
export function registerWhy(program: Command, ctx: CliContext): void {
  const c = program
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
    .option(
      '--interval <us>',
      "V8's sampling interval, µs (--cpu-prof-interval; 5000: see docs/why.md)",
      String(OPTION_DEFAULTS.intervalUs),
    )
    .option('--against <contender>', "compare every other contender with this one (default: each scenario's baseline)")
    .option('--top <n>', 'buckets shown per table', String(OPTION_DEFAULTS.top))
    .option('--host <host>', 'loopback address the contenders listen on (127.0.0.1 or ::1)', parseHost, '127.0.0.1')
    .option('--upstream-delay <ms>', 'UPSTREAM_DELAY_MS of the upstream mock', String(OPTION_DEFAULTS.upstreamDelayMs))
    .option('--no-variants', 'skip manifest variants')
    .option('--no-baseline', "do not add each scenario's baseline contender")
    .option('--seed <n>', 'shuffle seed (recorded)')
    .option('-q, --quiet', 'no progress lines or notes');
  waitOption(c).action(async (names: string[], raw: Record<string, unknown>) => {
    const g = ctx.globals();
    const opts = parseWhyOptions(raw);
    precheckBench(g, names, whyBenchOpts(opts));
    precheckWhy(opts.profile);
    await takeMachine({ wait: opts.wait, command: ctx.argv });
    await why(g, names, opts, ctx.argv, ctx.signal);
  });
  helpFooter(
    c,
    ['npx just why express --scenario json', 'npx just why loopback4 --scenario ping --duration 5'],
    EXIT_HELP,
  );
}
