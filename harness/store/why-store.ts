/**
 * The store of `just why` (issue "Why a stack is slow"): CPU attribution tables of profiled
 * windows. Layout (known only to harness/store/):
 *
 *   results/why/runs/<run-id>/meta.json, cells/, trials/   an ordinary run (store/runs.ts) of one
 *                                                          profiled window per cell
 *   results/why/runs/<run-id>/why.json                    the attribution (WhyRecord, this module)
 *   results/why/runs/<run-id>/logs/profiles/<cell-id>/    the raw `.cpuprofile` files (git-ignored
 *                                                          with the rest of logs/: they are MBs)
 *   results/why/runs/<run-id>/flames/<cell-id>.folded      each cell's flame graph, trimmed folded
 *                                                          stacks of its window (store/flame-store.ts)
 *
 * Why runs live in their own results folder, as the self-test's do, so that a profiled window
 * (slowed by the profiler, one round) never enters the leaderboard's tables. Figures: µs of the
 * V8 clock for self time, integer ns per request for CPU per request (analysis/cpu-profile.ts).
 * Readers validate every file with the zod schema below and return a warning for a bad one
 * instead of throwing.
 */
import fs from 'node:fs';
import path from 'node:path';
import { z } from 'zod';
import { asStorageError } from '../core/errors.ts';
import { type FoldedRead, readFolded } from './flame-store.ts';
import { mkdirp, readValidated, writeJsonAtomic } from './result-files.ts';

const num = z.number().finite();
const kind = z.enum(['package', 'workspace', 'contender', 'node', 'runtime', 'other']);

const WhyBucketSchema = z.object({
  bucket: z.string(),
  kind,
  /** Self time in the window, µs. */
  selfUs: num,
  /** selfUs / busyUs; null for `(idle)`. */
  share: num.nullable(),
  /** Self CPU per request, ns (rounded): share × the cell's totalNs; null for `(idle)`. */
  ns: z.number().int().nullable(),
});

const WhyCellSchema = z.object({
  cellId: z.string(),
  contender: z.string(),
  variant: z.string().nullable(),
  scenario: z.string(),
  /** True when the contender is the scenario's baseline. */
  isBaseline: z.boolean(),
  /** The `.cpuprofile` read, relative to the run folder (under logs/, not committed), or null. */
  profileFile: z.string().nullable(),
  /**
   * Its flame graph: folded stacks of the measured window, trimmed (store/flame-store.ts,
   * analysis/flame.ts), relative to the run folder and committed; absent in runs before it existed.
   */
  flameFile: z.string().nullable().optional(),
  /** "no profile: …" when there is no attribution for this cell, else null. */
  noProfile: z.string().nullable(),
  /** Requests the server completed in the profiled window (the driver's count). */
  requests: num,
  requestsPerSec: num.nullable(),
  /** The profiled window on the profile's clock (CLOCK_MONOTONIC µs), or null. */
  window: z.object({ fromUs: num, toUs: num }).nullable(),
  wallUs: num,
  idleUs: num,
  busyUs: num,
  samples: num,
  /**
   * CPU per request, ns (rounded; null without a profile): the /proc figure (`processCpuNs`) when
   * there is one (`cpuSource` 'proc'), else the profile's busy time per request ('profile').
   * Each bucket's `ns` is its share of it.
   */
  totalNs: z.number().int().nullable(),
  /** The profile's busy (non-idle) wall time per request, ns; null without a profile. */
  busyNs: z.number().int().nullable(),
  cpuSource: z.enum(['proc', 'profile']).nullable(),
  /**
   * The server's CPU time per request in the same window from /proc (every thread; the
   * scheduler's Sampler: 1e9 / requests per CPU-second), ns; null when not sampled. The
   * profile's busy time counts time the main thread was runnable but preempted: on a busy
   * machine it exceeds this figure.
   */
  processCpuNs: z.number().int().nullable(),
  buckets: z.array(WhyBucketSchema),
});

const WhyDiffSchema = z.object({
  scenario: z.string(),
  /** Cell ids of A (the contender) and B (the scenario's baseline). */
  a: z.string(),
  b: z.string(),
  aTotalNs: z.number().int(),
  bTotalNs: z.number().int(),
  diffNs: z.number().int(),
  parts: z.array(
    z.object({ bucket: z.string(), kind, aNs: z.number().int(), bNs: z.number().int(), diffNs: z.number().int() }),
  ),
  remainderNs: z.number().int(),
  remainderBuckets: z.number().int(),
});

/**
 * The sampler check of a why run (lifecycle/sampler-probe.ts, analysis/cpu-profile.ts
 * `samplerBias`): a probe loop's system call, its share of the loop's time and of its samples
 * (0–1), at the run's interval on the server's CPU (`cpus`, taskset list; null unpinned); or why
 * there is none.
 */
const SamplerCheckSchema = z.union([
  z.object({
    ok: z.literal(true),
    intervalUs: z.number().int().positive(),
    cpus: z.string().nullable(),
    timeShare: z.number().min(0).max(1),
    sampleShare: z.number().min(0).max(1),
    samples: z.number().int().nonnegative(),
  }),
  z.object({ ok: z.literal(false), reason: z.string() }),
]);

/** The zod schema of `why.json`. */
export const WhyRecordSchema = z.object({
  schemaVersion: z.literal(1),
  runId: z.string(),
  createdAt: z.string(),
  /** Load profile of the window (its load shape), its seconds, and V8's sampling interval, µs. */
  profile: z.string(),
  durationS: num,
  samplingIntervalUs: z.number().int().positive(),
  /** The ranked run these windows followed (`bench --profile-cpu`); absent for `just why`. */
  rankedRunId: z.string().optional(),
  cells: z.array(WhyCellSchema),
  diffs: z.array(WhyDiffSchema),
  /** Absent in why runs before 2026-11-26 and in `--profile-cpu` runs. */
  samplerCheck: SamplerCheckSchema.optional(),
});

/** The attribution of one why run (see the module comment). */
export type WhyRecord = z.infer<typeof WhyRecordSchema>;
export type WhyCell = z.infer<typeof WhyCellSchema>;
export type WhyDiff = z.infer<typeof WhyDiffSchema>;
export type SamplerCheck = z.infer<typeof SamplerCheckSchema>;

/** The results folder of why runs: `<resultsDir>/why` (pass it to openRun / the scheduler as resultsDir). */
export function whyResultsDir(resultsDir: string): string {
  return path.join(resultsDir, 'why');
}

/** The folder of one why run: `<resultsDir>/why/runs/<run-id>` (its why.json and `flames/`). */
export function whyRunDir(resultsDir: string, runId: string): string {
  return path.join(whyResultsDir(resultsDir), 'runs', runId);
}

/**
 * A why cell's flame graph as the report names it, from the repository's root:
 * `results/why/runs/<run-id>/<flameFile>` (`flameFile` is relative to the run's folder).
 */
export function flamePathShown(runId: string, flameFile: string): string {
  return [...whyRunDir('results', runId).split(path.sep), flameFile].join('/');
}

/**
 * The folder a cell's `.cpuprofile` goes to, from its server log file (a RunWriter's
 * `logs/<cell-id>.log`): `logs/profiles/<cell-id>/`, inside the git-ignored logs folder.
 */
export function profileDirOf(logFile: string): string {
  return path.join(path.dirname(logFile), 'profiles', path.basename(logFile, '.log'));
}

/** Writes `<runDir>/why.json` (atomic); returns the file. StorageError when the folder refuses it. */
export function writeWhy(runDir: string, record: WhyRecord): string {
  const file = path.join(runDir, 'why.json');
  const checked = WhyRecordSchema.parse(record); // a bug in the caller, not bad input: let it throw
  try {
    mkdirp(runDir);
    writeJsonAtomic(file, checked);
  } catch (e) {
    throw asStorageError(e, 'results', path.dirname(path.dirname(runDir))) ?? e;
  }
  return file;
}

/** Reads and validates one `why.json`; null with a warning in `warnings` when missing or bad. */
export function readWhy(file: string, warnings: string[] = []): WhyRecord | null {
  const acc = { skipped: [] as string[], warnings };
  return readValidated(file, WhyRecordSchema, acc);
}

/** The key of a cell's flame graph in `readAllWhy`'s `flames`: `<run-id>/<cell-id>`. */
export function flameKey(runId: string, cellId: string): string {
  return `${runId}/${cellId}`;
}

/**
 * Every why record under `<resultsDir>/why/runs/*` (oldest run first), validated; a run folder
 * without why.json (an interrupted why run) is skipped silently, a bad file with a warning. With
 * each record, the flame graphs its cells name (`flameFile`), read by store/flame-store.ts and
 * keyed by `flameKey`: a missing or truncated one is a `{ ok: false, reason }`, never a throw.
 */
export function readAllWhy(resultsDir: string): {
  records: WhyRecord[];
  warnings: string[];
  flames: Map<string, FoldedRead>;
} {
  const runs = path.join(whyResultsDir(resultsDir), 'runs');
  const flames = new Map<string, FoldedRead>();
  let ids: string[] = [];
  try {
    ids = fs.readdirSync(runs).sort();
  } catch {
    return { records: [], warnings: [], flames };
  }
  const warnings: string[] = [];
  const records: WhyRecord[] = [];
  for (const id of ids) {
    const file = path.join(runs, id, 'why.json');
    if (!fs.existsSync(file)) continue;
    const r = readWhy(file, warnings);
    if (!r) continue;
    records.push(r);
    for (const c of r.cells)
      if (c.flameFile) flames.set(flameKey(r.runId, c.cellId), readFolded(path.join(runs, id, c.flameFile)));
  }
  return { records, warnings, flames };
}
