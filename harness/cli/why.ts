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
import path from 'node:path';
import { type ProfileResult, readCpuProfile, samplerBias } from '../analysis/cpu-profile.ts';
import { FLAME_MIN_SHARE, flameStacks } from '../analysis/flame.ts';
import { whyCell, whyDiffs } from '../analysis/why-table.ts';
import { UserError } from '../core/errors.ts';
import { getProfile, measuredSeconds, withOverrides } from '../core/profiles.ts';
import { findCpuProfile, WHY_INTERVAL_US } from '../lifecycle/cpu-prof.ts';
import { makeCpuPlan } from '../lifecycle/cpu-plan.ts';
import { runSamplerProbe } from '../lifecycle/sampler-probe.ts';
import { whyRecordText } from '../report/why-text.ts';
import { type ProfiledServer, profiledDeps } from '../scheduler/profiled.ts';
import type { RunSummary } from '../scheduler/run.ts';
import type { Profile } from '../core/profiles.ts';
import type { CellResult } from '../store/results.ts';
import { writeFolded } from '../store/flame-store.ts';
import {
  profileDirOf,
  type SamplerCheck,
  type WhyCell,
  type WhyRecord,
  whyResultsDir,
  writeWhy,
} from '../store/why-store.ts';
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
  seed?: string;
  quiet?: boolean;
}

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
  const samplerCheck = await checkSampler(
    path.join(summary.runDir, 'logs', 'profiles', 'sampler-probe'),
    intervalUs,
    signal,
  );
  return recordWhy(g, { ...summary, servers }, { profile, intervalUs, top, against: opts.against, samplerCheck });
}

/**
 * The why run's sampler check: the probe (lifecycle/sampler-probe.ts) on the server's CPU of the
 * default CPU plan at the run's interval, with this process's Node, its profile in `dir`
 * (git-ignored logs), then analysis/cpu-profile.ts `samplerBias`. Never throws: a failed check is
 * `{ ok: false, reason }`.
 */
async function checkSampler(dir: string, intervalUs: number, signal: AbortSignal): Promise<SamplerCheck> {
  if (signal.aborted) return { ok: false, reason: 'the run was interrupted' };
  const cpus = makeCpuPlan().server;
  const r = await runSamplerProbe({ dir, intervalUs, cpus, signal });
  if ('reason' in r) return { ok: false, reason: r.reason };
  const p = readCpuProfile(r.profileFile);
  if (!p.ok) return { ok: false, reason: p.reason };
  try {
    return { ok: true, intervalUs, cpus, ...samplerBias(p.profile, r) };
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
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

/** V8's sampling interval of `--profile-cpu`, µs (`--interval`, default WHY_INTERVAL_US), for the scheduler's `profileCpu`. */
export function profileCpuOf(opts: Partial<ProfileCpuOpts>): { intervalUs: number } | undefined {
  return opts.profileCpu
    ? { intervalUs: positiveInt('--interval', opts.interval, WHY_INTERVAL_US, 100_000) }
    : undefined;
}

/**
 * `--profile-cpu`: the scheduler ran, after each group's ranked windows, the group's
 * cells once more under V8's CPU profiler (scheduler/run.ts `profileCpu`, scheduler/profiled.ts)
 * into a run of its own under `results/why/runs/<id>/`. This attributes them like `just why`
 * (recordWhy) and writes its why.json with `rankedRunId` = the ranked run. The ranked run's files
 * and figures are never touched, and its exit code stays the command's. Like a why run it records
 * the sampler check (`checkSampler`). Returns the record, or null when the run had no profiled
 * windows (no `--profile-cpu`, interrupted before any).
 */
export async function recordProfiled(
  g: Globals,
  opts: ProfileCpuOpts,
  ranked: RunSummary,
  signal: AbortSignal,
): Promise<WhyRecord | null> {
  const p = ranked.profiled;
  if (!opts.profileCpu || !p?.cells.length) return null;
  const exit = process.exitCode;
  try {
    process.stdout.write(
      `\n--profile-cpu: one window per cell under V8's CPU profiler after each group's ranked windows of run ${ranked.runId} (a why run of its own, ${p.runId}; the ranked figures above are not touched)\n`,
    );
    const profile = withOverrides(getProfile(opts.profile), opts);
    const intervalUs = profileCpuOf(opts)?.intervalUs ?? WHY_INTERVAL_US;
    const samplerCheck = await checkSampler(
      path.join(p.runDir, 'logs', 'profiles', 'sampler-probe'),
      intervalUs,
      signal,
    );
    return recordWhy(g, p, { profile, intervalUs, top: 12, rankedRunId: ranked.runId, samplerCheck });
  } finally {
    process.exitCode = exit;
  }
}
