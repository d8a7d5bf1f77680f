/**
 * The runs API of the result store. Layout (known only to harness/store/):
 *
 *   results/runs/<run-id>/meta.json             the run's metadata (RunMeta), with the harness pid
 *   results/runs/<run-id>/cells/<cell-id>.json  one aggregated cell per cell
 *   results/runs/<run-id>/trials/<cell-id>__t<n>.json  each measured window (trial) as it finished
 *   results/runs/<run-id>/logs/<cell-id>.log    each server's output
 *   results/baselines/<name>/                   a copy of a complete run (meta + cells + trials)
 *   results/selftest/<id>.json                  a `just selftest` record
 *
 * Every write is atomic (temp file + rename); a RunWriter writes into its own fresh folder only.
 * Readers validate every file (store/schema.ts) and return one warning per bad file; they throw
 * only UserError (a run or baseline that does not exist, or is not complete where it must be).
 */
import fs from 'node:fs';
import path from 'node:path';
import { UserError } from '../core/errors.ts';
import {
  newRunId,
  readCellDir,
  readValidated,
  SCHEMA_VERSION,
  writeJsonAtomic,
  type CellResult,
  type RunMeta,
} from './results.ts';
import { MetaFileSchema } from './schema.ts';

export type RunState = RunMeta['state'];

/** Writes one run. All paths are inside `dir`. */
export interface RunWriter {
  runId: string;
  dir: string;
  /** The run's metadata as last written. */
  readonly meta: RunMeta;
  /** Writes a trial (one measured window) as `trials/<cellId>__t<trialNo>.json`. */
  writeTrial(cell: CellResult, trialNo: number): void;
  /** Writes (or rewrites) a cell as `cells/<cellId>.json`. */
  writeCell(cell: CellResult): void;
  /** Absolute path of a server log of `cellId` (`suffix` e.g. `fidelity`); the folder exists. */
  logFile(cellId: string, suffix?: string): string;
  /** `file` relative to the results folder (what a CellResult's `logFile` holds). */
  relative(file: string): string;
  /** Merges `patch` into meta.json. */
  updateMeta(patch: Partial<RunMeta>): void;
  /** Records a temporary folder of the run, removed by `sweepAbandoned` if the harness dies. */
  addTempDir(dir: string): void;
  /** Marks the run complete or interrupted, with finishedAt. */
  finish(state: 'complete' | 'interrupted'): void;
}

/** What openRun needs; the store adds schemaVersion, runId, startedAt, state and the harness pid. */
export type RunInit = Omit<RunMeta, 'schemaVersion' | 'runId' | 'startedAt' | 'finishedAt' | 'state' | 'harnessPid'>;

/** Creates `results/runs/<new id>/` and its meta.json (state `running`). Never reuses a folder. */
export function openRun(resultsDir: string, init: RunInit, runId = newRunId()): RunWriter {
  const dir = path.join(resultsDir, 'runs', runId);
  fs.mkdirSync(path.join(resultsDir, 'runs'), { recursive: true });
  fs.mkdirSync(dir); // throws EEXIST: a run never writes into another run's folder
  for (const sub of ['cells', 'trials', 'logs']) fs.mkdirSync(path.join(dir, sub));
  let meta: RunMeta = {
    schemaVersion: SCHEMA_VERSION,
    runId,
    startedAt: new Date().toISOString(),
    finishedAt: null,
    state: 'running',
    harnessPid: process.pid,
    ...init,
  };
  const writeMeta = () => writeJsonAtomic(path.join(dir, 'meta.json'), meta);
  writeMeta();
  const safe = (id: string) => id.replace(/[^\w.+@-]/g, '_');
  return {
    runId,
    dir,
    get meta() {
      return meta;
    },
    writeTrial: (c, n) => writeJsonAtomic(path.join(dir, 'trials', `${safe(c.cellId)}__t${n}.json`), c),
    writeCell: (c) => writeJsonAtomic(path.join(dir, 'cells', `${safe(c.cellId)}.json`), c),
    logFile: (id, suffix) => path.join(dir, 'logs', `${safe(id)}${suffix ? `__${suffix}` : ''}.log`),
    relative: (file) => path.relative(resultsDir, file),
    updateMeta(patch) {
      meta = { ...meta, ...patch };
      writeMeta();
    },
    addTempDir(d) {
      meta = { ...meta, tempDirs: [...(meta.tempDirs ?? []), d] };
      writeMeta();
    },
    finish(state) {
      meta = { ...meta, state, finishedAt: new Date().toISOString() };
      writeMeta();
    },
  };
}

/** True when a process with this pid exists (EPERM: it exists but is not ours). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** One run folder as listed: its state (a dead harness's `running` run is `abandoned`), meta or a warning. */
export interface RunInfo {
  runId: string;
  dir: string;
  state: RunState | 'unreadable';
  meta: RunMeta | null;
  warning: string | null;
}

/** Every run folder under `resultsDir`, oldest first (run ids sort by time). Never throws on content. */
export function listRuns(resultsDir: string): RunInfo[] {
  const runsDir = path.join(resultsDir, 'runs');
  let ids: string[] = [];
  try {
    ids = fs.readdirSync(runsDir).sort();
  } catch {
    return [];
  }
  return ids
    .filter((id) => isDir(path.join(runsDir, id)))
    .map((runId) => {
      const dir = path.join(runsDir, runId);
      const acc = { skipped: [] as string[], warnings: [] as string[] };
      const meta = readValidated(path.join(dir, 'meta.json'), MetaFileSchema, acc) as RunMeta | null;
      if (!meta) return { runId, dir, state: 'unreadable' as const, meta: null, warning: acc.warnings[0] ?? null };
      const dead = meta.state === 'running' && (meta.harnessPid === undefined || !pidAlive(meta.harnessPid));
      return { runId, dir, state: dead ? 'abandoned' : meta.state, meta, warning: null };
    });
}

/**
 * Marks every run left `running` by a harness that is no longer alive as `abandoned` and removes
 * the temporary folders it recorded. Call at the start of bench. Returns the run ids it marked.
 */
export function sweepAbandoned(resultsDir: string): string[] {
  const marked: string[] = [];
  for (const r of listRuns(resultsDir)) {
    if (r.state !== 'abandoned' || !r.meta || r.meta.state === 'abandoned') continue;
    for (const t of r.meta.tempDirs ?? []) fs.rmSync(t, { recursive: true, force: true });
    writeJsonAtomic(path.join(r.dir, 'meta.json'), { ...r.meta, state: 'abandoned' });
    marked.push(r.runId);
  }
  return marked;
}

/** A run (or baseline) as read: validated meta and cells, one warning per skipped file. */
export interface RunRead {
  meta: RunMeta;
  cells: CellResult[];
  dir: string;
  state: RunState;
  warnings: string[];
}

/**
 * Reads run `ref` (a run id under results/runs, or a path to a run folder) or, with kind
 * `baseline`, the baseline named `ref`. UserError (exit 2) when it does not exist or its
 * meta.json is unreadable; with `requireComplete`, also when the run is not complete.
 */
export function readRun(
  resultsDir: string,
  ref: string,
  kind: 'run' | 'baseline' = 'run',
  requireComplete = false,
): RunRead {
  const where = path.join(resultsDir, kind === 'baseline' ? 'baselines' : 'runs');
  const candidates = kind === 'baseline' ? [path.join(where, ref)] : [path.join(where, ref), path.resolve(ref)];
  const dir = candidates.find((d) => fs.existsSync(path.join(d, 'meta.json')));
  if (!dir) {
    let known: string[] = [];
    try {
      known = fs.readdirSync(where).sort().slice(-10);
    } catch {
      /* none yet */
    }
    throw new UserError(
      `no ${kind} '${ref}' (looked in ${where}). ${known.length ? `Known: ${known.join(', ')}` : `No ${kind}s yet.`}`,
    );
  }
  const acc = { skipped: [] as string[], warnings: [] as string[] };
  const meta = readValidated(path.join(dir, 'meta.json'), MetaFileSchema, acc) as RunMeta | null;
  if (!meta) throw new UserError(`${kind} '${ref}' cannot be read: ${acc.warnings[0]}`);
  const dead = meta.state === 'running' && (meta.harnessPid === undefined || !pidAlive(meta.harnessPid));
  const state: RunState = dead ? 'abandoned' : meta.state;
  if (requireComplete && state !== 'complete')
    throw new UserError(
      `${kind} '${ref}' is ${state}, not complete: compare and baseline take complete runs only. Re-run it, or name a complete run (\`npx just compare\` lists none? run \`npx just bench-all\`).`,
    );
  const cells = readCellDir(path.join(dir, 'cells'), acc);
  return { meta, cells, dir, state, warnings: acc.warnings };
}

/** The trials of a run (trial files), validated; bad files are skipped with a warning. */
export function readTrials(runDir: string): { trials: CellResult[]; warnings: string[] } {
  const acc = { skipped: [] as string[], warnings: [] as string[] };
  return { trials: readCellDir(path.join(runDir, 'trials'), acc), warnings: acc.warnings };
}

/** Every run's meta and cells (schema-validated; see readAllResults). */
export { readAllResults as readAll } from './results.ts';

/** The newest complete run's id, or null. */
export function latestCompleteRun(resultsDir: string): string | null {
  const done = listRuns(resultsDir).filter((r) => r.state === 'complete');
  return done.length ? done[done.length - 1].runId : null;
}

/** Saves complete run `runRef` (meta, cells, trials; no logs) as baseline `name`, replacing one of that name. */
export function saveBaseline(resultsDir: string, runRef: string, name: string): string {
  if (!/^[\w.-]+$/.test(name))
    throw new UserError(`baseline name '${name}' may use letters, digits, '.', '_' and '-' only`);
  const { dir } = readRun(resultsDir, runRef, 'run', true);
  const dest = path.join(resultsDir, 'baselines', name);
  const tmp = `${dest}.tmp-${process.pid}`;
  fs.mkdirSync(path.dirname(dest), { recursive: true });
  fs.rmSync(tmp, { recursive: true, force: true });
  fs.cpSync(dir, tmp, { recursive: true, filter: (src) => !src.startsWith(path.join(dir, 'logs')) });
  fs.rmSync(dest, { recursive: true, force: true });
  fs.renameSync(tmp, dest);
  return dest;
}

/** Reads baseline `name` (UserError when missing). */
export function readBaseline(resultsDir: string, name: string): RunRead {
  return readRun(resultsDir, name, 'baseline');
}

/** Writes a selftest record as `results/selftest/<id>.json`; returns the file. */
export function writeSelftest(resultsDir: string, id: string, record: unknown): string {
  const file = path.join(resultsDir, 'selftest', `${id.replace(/[^\w.-]/g, '_')}.json`);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  writeJsonAtomic(file, record);
  return file;
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
