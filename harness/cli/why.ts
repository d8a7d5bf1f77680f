/**
 * `why <contender…> [--scenario s[,s]] [--profile quick]` (issue 25, "Why a stack is slow"): for
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
import path from 'node:path';
import { type ProfileResult, readCpuProfile } from '../analysis/cpu-profile.ts';
import { FLAME_MIN_SHARE, flameStacks } from '../analysis/flame.ts';
import { whyCell, whyDiffs } from '../analysis/why-table.ts';
import { UserError } from '../core/errors.ts';
import { getProfile, measuredSeconds, withOverrides } from '../core/profiles.ts';
import { findCpuProfile } from '../lifecycle/cpu-prof.ts';
import { whyRecordText } from '../report/why-text.ts';
import { type ProfiledServer, profiledDeps } from '../scheduler/profiled.ts';
import type { RunSummary } from '../scheduler/run.ts';
import type { CellResult } from '../store/results.ts';
import { writeFolded } from '../store/flame-store.ts';
import { profileDirOf, type WhyCell, type WhyRecord, whyResultsDir, writeWhy } from '../store/why-store.ts';
import { bench, type BenchOpts, type Globals, load } from './bench.ts';

export interface WhyOpts {
  scenario?: string[];
  profile: string;
  host: string;
  upstreamDelay: string;
  variants: boolean;
  baseline?: boolean;
  duration?: string;
  /** V8 sampling interval, µs (`--interval`; default WHY_INTERVAL_US). */
  interval?: string;
  /** The contender every other one is compared with (`--against`; default: each scenario's baseline). */
  against?: string;
  /** Buckets shown per table (`--top`; default 12). */
  top?: string;
  /** The ranked run these profiled windows follow (`bench --profile-cpu`), recorded in why.json. */
  rankedRunId?: string;
  seed?: string;
  quiet?: boolean;
}

/**
 * The default sampling interval of `why`, µs: 5 ms, not V8's 1 ms. Chosen from data (docs/why.md,
 * "The profiler's overhead"): at 1 ms LoopBack 4's deep stacks cost 1,396 µs of CPU per request
 * under the profiler (run 2026-11-25T03-16-37Z-eccb) against 540–730 unprofiled (ad hoc) and 454 at
 * 5 ms (run 2026-11-25T03-33-42Z-f8cf), with the same shares; node-http showed no cost at 1 ms.
 * A 5 s window still gives ~1,000 busy samples.
 */
export const WHY_INTERVAL_US = 5000;

function positiveInt(flag: string, v: string | undefined, dflt: number, max: number): number {
  if (v === undefined) return dflt;
  const n = Number(v);
  if (!Number.isInteger(n) || n < 1 || n > max)
    throw new UserError(`${flag} must be a whole number from 1 to ${max}, got '${v}'`);
  return n;
}

/** The checks of `why`'s own options, before the machine lock (cli.ts preAction). Throws UserError. */
export function precheckWhy(opts: Partial<WhyOpts>): void {
  const p = getProfile(opts.profile ?? 'quick');
  if ('capacity' in p && p.capacity)
    throw new UserError(
      `why profiles one closed-loop window; ${p.name} is a capacity profile (an open-loop search). Use --profile quick (or another closed-loop profile).`,
    );
  positiveInt('--interval', opts.interval, WHY_INTERVAL_US, 100_000);
  positiveInt('--top', opts.top, 12, 1000);
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

/** `why`: see the module comment. Returns the written record (null when the run wrote no folder). */
export async function why(
  g: Globals,
  names: string[],
  opts: WhyOpts,
  command: string[],
  signal: AbortSignal,
): Promise<WhyRecord | null> {
  precheckWhy(opts);
  const intervalUs = positiveInt('--interval', opts.interval, WHY_INTERVAL_US, 100_000);
  const top = positiveInt('--top', opts.top, 12, 1000);
  const isBaseline = (n: string) => load(g).scenarios.some((s) => s.baseline === n);
  if (opts.against && !names.includes(opts.against) && !isBaseline(opts.against))
    throw new UserError(
      `--against ${opts.against}: name it among the contenders too (e.g. \`just why A ${opts.against} --against ${opts.against}\`), so that it is profiled in the same run`,
    );
  const own: Globals = { ...g, resultsDir: whyResultsDir(g.resultsDir) };
  const benchOpts: BenchOpts = { ...opts, rounds: '1', fidelity: false };
  const profile = withOverrides(getProfile(opts.profile), benchOpts);
  let servers = new Map<string, ProfiledServer>();
  const summary: RunSummary = await bench(own, names, benchOpts, command, signal, [], undefined, (d) => {
    const p = profiledDeps(d, { profileDir: profileDirOf, intervalUs });
    servers = p.servers;
    return p.deps;
  });
  if (!summary.runDir) return null;
  const baselines = new Map(load(g).scenarios.map((s) => [s.name, s.baseline]));
  const inputs = summary.cells.map((c) => cellInput(c, servers.get(c.cellId), summary.runDir, baselines));
  const cells = writeFlames(summary.runDir, summary.runId, inputs);
  const record: WhyRecord = {
    schemaVersion: 1,
    runId: summary.runId,
    createdAt: new Date().toISOString(),
    profile: profile.name,
    durationS: measuredSeconds(profile),
    samplingIntervalUs: intervalUs,
    ...(opts.rankedRunId ? { rankedRunId: opts.rankedRunId } : {}),
    cells,
    diffs: whyDiffs(cells, opts.against),
  };
  const file = writeWhy(summary.runDir, record);
  const profiles = path.join(summary.runDir, 'logs', 'profiles');
  process.stdout.write(
    `\n${whyRecordText(record, top)}attribution: ${file}\nflame graphs (folded stacks, committed; drawn by \`just leaderboard\`'s HTML, open in speedscope): ${path.join(summary.runDir, 'flames')}\nraw profiles (git-ignored; open one in Chrome DevTools or speedscope): ${profiles}\n`,
  );
  return record;
}

/** What `--profile-cpu` reads of bench's options (BenchOpts, plus `--interval`). */
export interface ProfileCpuOpts extends BenchOpts {
  profileCpu?: boolean;
  interval?: string;
}

/**
 * The checks of `bench --profile-cpu` / `bench-all --profile-cpu`, before the machine lock: the
 * profiled windows need the harness's own servers on the pinned Node (not `--url`, not `--node`),
 * a closed-loop profile (precheckWhy), and text output (not `--json`, whose stdout is NDJSON).
 * Throws UserError (exit 2).
 */
export function precheckProfileCpu(opts: Partial<ProfileCpuOpts>): void {
  if (!opts.profileCpu && opts.interval !== undefined)
    throw new UserError('--interval sets the sampling of --profile-cpu: add --profile-cpu (or use `just why`)');
  if (!opts.profileCpu) return;
  const no = (flag: string, why: string) => new UserError(`--profile-cpu cannot be combined with ${flag}: ${why}`);
  if (opts.url) throw no('--url', 'it profiles the servers the harness starts, not an external target');
  if (opts.node) throw no('--node', 'the profiled windows run on the pinned Node only; run `just why` per major');
  if (opts.json) throw no('--json', 'the attribution is printed as text');
  precheckWhy({ profile: opts.profile ?? 'quick', interval: opts.interval });
}

/**
 * `--profile-cpu` (issue 25): after the ranked run `ranked` has finished, one profiled window per
 * cell of the same selection (contenders, scenarios, variants, baselines, profile and window
 * length) through `why` (scheduler/profiled.ts), stored as a why run of its own in
 * `results/why/runs/<id>/` with `rankedRunId` set; the ranked run's files and figures are never
 * touched, and its exit code stays the command's. Nothing runs when the ranked run was interrupted
 * or wrote no folder. Returns the why record (null when none was written).
 */
export async function profileCpuAfter(
  g: Globals,
  names: string[],
  opts: ProfileCpuOpts,
  ranked: RunSummary,
  command: string[],
  signal: AbortSignal,
): Promise<WhyRecord | null> {
  if (!opts.profileCpu || !ranked.runId || !ranked.runDir || ranked.interrupted || signal.aborted) return null;
  const exit = process.exitCode;
  process.stdout.write(
    `\n--profile-cpu: one window per cell under V8's CPU profiler, after ranked run ${ranked.runId} (a why run of its own in results/why/; the ranked figures above are not touched)\n`,
  );
  try {
    const { rounds: _r, trials: _t, fidelity: _f, crossCheck: _c, port: _p, ...rest } = opts;
    return await why(g, names, { ...rest, rankedRunId: ranked.runId }, command, signal);
  } finally {
    process.exitCode = exit;
  }
}
