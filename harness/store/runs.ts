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
 * A write the file system refuses (ENOSPC, EDQUOT, EROFS, EACCES, EPERM) is a StorageError (a
 * UserError, exit 2) naming the results folder; a RunWriter then marks its run `interrupted`.
 * Nothing read from a results folder decides what gets deleted: the harness's temp folders are
 * swept by their own naming scheme (lifecycle/lock.ts `sweepTempFolders`), never from meta.json.
 */
import { linkBelow, readsInside, refuseLinks } from './links.ts';
import fs from 'node:fs';
import path from 'node:path';
import { asStorageError, type StorageError, UserError } from '../core/errors.ts';
import { fileKind } from '../core/output-file.ts';
import { pidStartTime } from '../core/pid.ts';
import { noteRunIdInLocks } from '../lifecycle/lock.ts';
import { effectiveState, newRunId, SCHEMA_VERSION, type CellResult, type RunMeta } from './results.ts';
import { mkdirp, readCellDir, readMetaFile, writeJsonAtomic } from './result-files.ts';

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
  /**
   * Merges `patch` into meta.json. After a refused write (the run is failing with a StorageError
   * already) it only tries, and never throws.
   */
  updateMeta(patch: Partial<RunMeta>): void;
  /**
   * Marks the run complete or interrupted, with finishedAt. After a refused write the state is
   * `interrupted` whatever was asked, and the write is tried hard (atomic, then in place) without
   * throwing; a refused final write marks the run `interrupted` and throws StorageError.
   */
  finish(state: 'complete' | 'interrupted'): void;
}

/** What openRun needs; the store adds schemaVersion, runId, startedAt, state and the harness pid and start time. */
export type RunInit = Omit<
  RunMeta,
  'schemaVersion' | 'runId' | 'startedAt' | 'finishedAt' | 'state' | 'harnessPid' | 'harnessPidStart'
>;

/**
 * Creates `results/runs/<new id>/` and its meta.json (state `running`, with this process's pid and
 * start time, so that a reader can tell a dead or replaced harness), and records the run id in the
 * run lock this process holds (lifecycle/lock.ts). Never reuses a folder (EEXIST). A refused
 * write is a StorageError; a folder whose meta.json could not be written is removed again.
 */
export function openRun(resultsDir: string, init: RunInit, runId = newRunId()): RunWriter {
  const dir = path.join(resultsDir, 'runs', runId);
  const metaFile = path.join(dir, 'meta.json');
  const refused = (e: unknown) => asStorageError(e, 'results', resultsDir);
  refuseLinks(resultsDir, dir);
  try {
    mkdirp(path.join(resultsDir, 'runs'));
    fs.mkdirSync(dir); // throws EEXIST: a run never writes into another run's folder
  } catch (e) {
    throw refused(e) ?? e;
  }
  let meta: RunMeta = {
    schemaVersion: SCHEMA_VERSION,
    runId,
    startedAt: new Date().toISOString(),
    finishedAt: null,
    state: 'running',
    harnessPid: process.pid,
    harnessPidStart: pidStartTime(process.pid),
    ...init,
  };
  try {
    for (const sub of ['cells', 'trials', 'logs']) fs.mkdirSync(path.join(dir, sub));
    writeJsonAtomic(metaFile, meta);
  } catch (e) {
    // No meta.json: remove the folder rather than leave a run that no reader can place.
    try {
      fs.rmSync(dir, { recursive: true, force: true });
    } catch {
      /* left for the reader: a folder without meta.json is listed as unreadable */
    }
    throw refused(e) ?? e;
  }
  try {
    noteRunIdInLocks(runId);
  } catch {
    /* the lock record is informational; the lock itself is held */
  }
  let broken: StorageError | null = null;
  /** meta.json written atomically, else in place (truncating frees the old blocks), else left as is. */
  const writeMetaHard = () => {
    try {
      writeJsonAtomic(metaFile, meta);
    } catch {
      try {
        fs.writeFileSync(metaFile, `${JSON.stringify(meta)}\n`);
      } catch {
        /* the next start sees a dead harness pid and infers `abandoned` */
      }
    }
  };
  const markInterrupted = () => {
    meta = { ...meta, state: 'interrupted', finishedAt: meta.finishedAt ?? new Date().toISOString() };
    writeMetaHard();
  };
  /** Runs a write; a refused one marks the run interrupted (once) and becomes a StorageError. */
  const guarded = (write: () => void) => {
    try {
      write();
    } catch (e) {
      const se = refused(e);
      if (!se) throw e;
      if (!broken) {
        broken = se;
        markInterrupted();
      }
      throw se;
    }
  };
  const writeMeta = () => guarded(() => writeJsonAtomic(metaFile, meta));
  const safe = (id: string) => id.replace(/[^\w.+@-]/g, '_');
  return {
    runId,
    dir,
    get meta() {
      return meta;
    },
    writeTrial: (c, n) => guarded(() => writeJsonAtomic(path.join(dir, 'trials', `${safe(c.cellId)}__t${n}.json`), c)),
    writeCell: (c) => guarded(() => writeJsonAtomic(path.join(dir, 'cells', `${safe(c.cellId)}.json`), c)),
    logFile: (id, suffix) => path.join(dir, 'logs', `${safe(id)}${suffix ? `__${suffix}` : ''}.log`),
    relative: (file) => path.relative(resultsDir, file),
    updateMeta(patch) {
      meta = { ...meta, ...patch };
      if (broken) writeMetaHard();
      else writeMeta();
    },
    finish(state) {
      if (broken) {
        markInterrupted();
        return;
      }
      meta = { ...meta, state, finishedAt: new Date().toISOString() };
      writeMeta();
    },
  };
}

/**
 * Checks the results folder `dir` (`--results-dir`) before a command uses it, so that a wrong one
 * is a user error (exit 2) in one line, never a stack: UserError when `dir`, or a folder on its
 * path, exists and is not a folder (a regular file, /dev/null, a FIFO); with `write` (the command
 * writes into it), StorageError when `dir` (or, when missing, the folder it would be created in)
 * refuses writes (EACCES, EPERM, EROFS). A missing folder is fine: writers create it, readers see
 * an empty store.
 */
export function checkResultsDir(dir: string, write: boolean): void {
  const notAFolder = (p: string, kind: string) =>
    new UserError(
      `--results-dir ${dir} ${p === dir ? 'is' : `is inside ${p}, which is`} ${kind}, not a folder: pass a folder (created when missing; the default is results/).`,
    );
  let existing = dir;
  for (;;) {
    let st: fs.Stats | null = null;
    try {
      st = fs.statSync(existing);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      // ENOENT: not there yet; ENOTDIR: a part of the path is a file (found further up).
      if (code !== 'ENOENT' && code !== 'ENOTDIR')
        throw asStorageError(e, 'results', dir) ?? new UserError(`--results-dir ${dir}: ${(e as Error).message}`);
    }
    if (st && !st.isDirectory()) throw notAFolder(existing, fileKind(existing)?.kind ?? 'not a folder');
    if (st) break;
    const up = path.dirname(existing);
    if (up === existing) return;
    existing = up;
  }
  if (!write) return;
  try {
    fs.accessSync(existing, fs.constants.W_OK);
  } catch (e) {
    throw (
      asStorageError(e, 'results', dir) ??
      new UserError(`--results-dir ${dir} cannot be written (${(e as Error).message})`)
    );
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

/** The names in folder `dir`, sorted; [] when it cannot be read. */
function safeReaddir(dir: string): string[] {
  try {
    return fs.readdirSync(dir).sort();
  } catch {
    return [];
  }
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
    .filter((id) => isDir(path.join(runsDir, id)) && readsInside(resultsDir, path.join(runsDir, id)))
    .map((runId) => {
      const dir = path.join(runsDir, runId);
      const acc = { skipped: [] as string[], warnings: [] as string[] };
      const meta = readMetaFile(path.join(dir, 'meta.json'), acc);
      if (!meta) return { runId, dir, state: 'unreadable' as const, meta: null, warning: acc.warnings[0] ?? null };
      return { runId, dir, state: effectiveState(meta), meta, warning: null };
    });
}

/**
 * Marks every run left `running` by a harness that is no longer alive (dead, a zombie, or its pid
 * now another process: core/pid.ts) as `abandoned`. Call at the start of bench, holding the run
 * lock. Deletes nothing: a meta.json comes from a folder anyone may hand us (a PR, a CI artifact),
 * so no path read from it is acted on (the old `tempDirs` field is ignored); the harness's temp
 * folders are swept by name (lifecycle/lock.ts). A run reached through a symbolic link is skipped
 * with a line to `warn` (store/links.ts). Returns the run ids it marked; StorageError when the
 * results folder refuses the write.
 */
export function sweepAbandoned(resultsDir: string, warn: (line: string) => void = () => {}): string[] {
  const marked: string[] = [];
  const runsDir = path.join(resultsDir, 'runs');
  for (const id of safeReaddir(runsDir)) {
    const link = linkBelow(resultsDir, path.join(runsDir, id, 'meta.json'));
    if (link)
      warn(`skipped ${link} in the abandoned-run sweep: a symbolic link, and the harness never writes through one`);
  }
  for (const r of listRuns(resultsDir)) {
    if (r.state !== 'abandoned' || !r.meta || r.meta.state === 'abandoned') continue;
    if (linkBelow(resultsDir, path.join(r.dir, 'meta.json'))) continue;
    try {
      writeJsonAtomic(path.join(r.dir, 'meta.json'), { ...r.meta, state: 'abandoned' });
    } catch (e) {
      throw asStorageError(e, 'results', resultsDir) ?? e;
    }
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
 * The store's naming scheme of run ids (results.ts `newRunId`: `<UTC time>Z-<4 hex digits>`, e.g. `2026-01-01T00-00-00Z-ab12`) and
 * baseline names: one folder name of letters, digits, '.', '_' and '-', not starting with '.'
 * (so never `.`, `..` or a path).
 */
export const STORE_NAME = /^[\w-][\w.-]*$/;

/**
 * The folder name that run or baseline reference `ref` stands for inside `<resultsDir>/runs` (or
 * `baselines`): `ref` itself when it follows STORE_NAME, or the last part of a path to a folder
 * directly inside that folder (`results/runs/<id>`, as a shell completes it). Anything else
 * (`../../../etc`, `/etc`, a folder elsewhere) is a UserError (exit 2) "no run named …": names
 * are not paths, and nothing outside the results folder is read.
 */
export function storeName(resultsDir: string, ref: string, kind: 'run' | 'baseline'): string {
  const where = path.resolve(resultsDir, kind === 'baseline' ? 'baselines' : 'runs');
  if (STORE_NAME.test(ref)) return ref;
  const abs = path.resolve(ref);
  if (path.dirname(abs) === where && STORE_NAME.test(path.basename(abs))) return path.basename(abs);
  throw new UserError(
    `no ${kind} named '${ref}': a ${kind === 'run' ? 'run id' : 'baseline name'} is the name of a folder in ${where} (letters, digits, '.', '_' and '-', not starting with '.'), never a path outside it.${knownText(where, kind)}`,
  );
}

/** " Known: a, b" (the 10 newest folders of `where` with a meta.json), or " No runs yet.". */
function knownText(where: string, kind: 'run' | 'baseline'): string {
  let known: string[] = [];
  try {
    known = fs
      .readdirSync(where)
      .filter((d) => STORE_NAME.test(d) && fs.existsSync(path.join(where, d, 'meta.json')))
      .sort()
      .slice(-10);
  } catch {
    /* none yet */
  }
  return known.length ? ` Known: ${known.join(', ')}` : ` No ${kind}s yet.`;
}

/**
 * Reads run `ref` (a run id under results/runs, or a path to a folder directly inside it) or,
 * with kind `baseline`, the baseline named `ref` (storeName: anything else is "no run named …").
 * UserError (exit 2) when it does not exist or its meta.json is unreadable; with
 * `requireComplete`, also when the run is not complete.
 */
export function readRun(
  resultsDir: string,
  ref: string,
  kind: 'run' | 'baseline' = 'run',
  requireComplete = false,
): RunRead {
  const where = path.join(resultsDir, kind === 'baseline' ? 'baselines' : 'runs');
  const dir = path.join(where, storeName(resultsDir, ref, kind));
  if (!fs.existsSync(path.join(dir, 'meta.json'))) {
    if (isDir(dir))
      throw new UserError(
        `${kind} folder ${dir} exists but has no meta.json (its harness died before writing it, or the folder is a partial copy), so it cannot be read. Restore its meta.json, or delete the folder and run the bench again.`,
      );
    throw new UserError(`no ${kind} named '${ref}' (looked in ${where}).${knownText(where, kind)}`);
  }
  const acc = { skipped: [] as string[], warnings: [] as string[] };
  const meta = readMetaFile(path.join(dir, 'meta.json'), acc);
  if (!meta)
    throw new UserError(
      `${kind} '${ref}' cannot be read: ${acc.warnings[0]}. Restore its meta.json, or delete ${dir} and run the bench again.`,
    );
  const state = effectiveState(meta);
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
export { readAllResults as readAll } from './result-files.ts';

/**
 * The generated report files of a results folder: `<resultsDir>/LEADERBOARD.md` (markdown) and
 * `<resultsDir>/leaderboard.html` (html), as the `leaderboard` command writes them.
 */
export function reportFiles(resultsDir: string): { markdown: string; html: string } {
  return { markdown: path.join(resultsDir, 'LEADERBOARD.md'), html: path.join(resultsDir, 'leaderboard.html') };
}

/**
 * The default folder of a one-run report (`leaderboard --run ID`): `<resultsDir>/reports/<run-id>/`,
 * so a one-run report never overwrites the committed `LEADERBOARD.md`. The folder is not created here.
 */
export function runReportDir(resultsDir: string, runId: string): string {
  // A run id read from a meta.json is data: never `..` or a path (a leading '.' becomes '_').
  return path.join(resultsDir, 'reports', runId.replace(/[^\w.-]/g, '_').replace(/^\./, '_'));
}

/** The newest complete run's id, or null. */
export function latestCompleteRun(resultsDir: string): string | null {
  const done = listRuns(resultsDir).filter((r) => r.state === 'complete');
  return done.at(-1)?.runId ?? null;
}

/**
 * Saves complete run `runRef` (meta, cells, trials; no logs) as baseline `name`, replacing one of
 * that name (copied to a temp folder beside it, then renamed). Returns the baseline folder.
 * UserError for a bad name or a run that is not complete; StorageError when the results folder
 * refuses the copy (the partial copy is removed, an older baseline of that name is kept).
 */
export function saveBaseline(resultsDir: string, runRef: string, name: string): string {
  if (!STORE_NAME.test(name))
    throw new UserError(
      `baseline name '${name}' may use letters, digits, '.', '_' and '-' only, and may not start with '.'`,
    );
  const { dir } = readRun(resultsDir, runRef, 'run', true);
  const dest = path.join(resultsDir, 'baselines', name);
  const tmp = `${dest}.tmp-${process.pid}`;
  refuseLinks(resultsDir, dest);
  refuseLinks(resultsDir, tmp);
  try {
    mkdirp(path.dirname(dest));
    fs.rmSync(tmp, { recursive: true, force: true });
    fs.cpSync(dir, tmp, { recursive: true, filter: (src) => !src.startsWith(path.join(dir, 'logs')) });
    fs.rmSync(dest, { recursive: true, force: true });
    fs.renameSync(tmp, dest);
  } catch (e) {
    try {
      fs.rmSync(tmp, { recursive: true, force: true });
    } catch {
      /* read-only: nothing was copied */
    }
    throw asStorageError(e, 'results', resultsDir) ?? e;
  }
  return dest;
}

/** Reads baseline `name` (UserError when missing). */
export function readBaseline(resultsDir: string, name: string): RunRead {
  return readRun(resultsDir, name, 'baseline');
}

/** Writes a selftest record as `results/selftest/<id>.json`; returns the file. StorageError when refused. */
export function writeSelftest(resultsDir: string, id: string, record: unknown): string {
  return writeRecord(resultsDir, 'selftest', id, record);
}

/** Writes an A/B record (cli/ab.ts) as `results/ab/<id>.json`; returns the file. StorageError when refused. */
export function writeAbRecord(resultsDir: string, id: string, record: unknown): string {
  return writeRecord(resultsDir, 'ab', id, record);
}

/** Writes a capacity-truth record (scripts/studies/capacity-truth.ts) as `results/capacity-truth/<id>.json`; returns the file. StorageError when refused. */
export function writeCapacityTruth(resultsDir: string, id: string, record: unknown): string {
  return writeRecord(resultsDir, 'capacity-truth', id, record);
}

/** Writes a steady-state reference record (cli/reference.ts) as `results/reference/<id>.json`; returns the file. StorageError when refused. */
export function writeReferenceRecord(resultsDir: string, id: string, record: unknown): string {
  return writeRecord(resultsDir, 'reference', id, record);
}

/** Writes `record` as `<resultsDir>/<kind>/<id>.json` (atomically); returns the file. StorageError when refused. */
function writeRecord(
  resultsDir: string,
  kind: 'selftest' | 'ab' | 'capacity-truth' | 'reference',
  id: string,
  record: unknown,
): string {
  const file = path.join(resultsDir, kind, `${id.replace(/[^\w.-]/g, '_')}.json`);
  try {
    mkdirp(path.dirname(file));
    writeJsonAtomic(file, record);
  } catch (e) {
    throw asStorageError(e, 'results', resultsDir) ?? e;
  }
  return file;
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}
