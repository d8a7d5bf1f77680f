/**
 * The result store's files: `results/runs/<run-id>/` holds `meta.json` (the run's metadata),
 * `cells/` (one JSON file per cell, or one gzipped NDJSON file once compacted) and `logs/` (each
 * server's stdout/stderr).
 *
 * Files are written atomically (write-file-atomic: temp file, then rename), a run never writes
 * into another run's folder, and readers skip (and report) files they cannot parse, each checked
 * against its zod schema (store/schema.ts), so a crash never leaves a file that breaks the
 * leaderboard.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import path from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import type { z } from 'zod';
import { readsInside } from './links.ts';
import { type CellResult, effectiveState, type RunMeta } from './results.ts';
import { asRecord, CellFileSchema, MetaFileSchema } from './schema.ts';

/** Creates `<resultsDir>/runs/<runId>/` (cells/, logs/); throws if it already exists. */
export function createRunDir(resultsDir: string, runId: string): string {
  const dir = path.join(resultsDir, 'runs', runId);
  fs.mkdirSync(path.join(resultsDir, 'runs'), { recursive: true });
  fs.mkdirSync(dir);
  fs.mkdirSync(path.join(dir, 'cells'));
  fs.mkdirSync(path.join(dir, 'logs'));
  return dir;
}

/**
 * `mkdir -p dir`. Node's recursive mkdir reports ENOENT for a folder it is not allowed to create
 * (read-only file system, no permission); then it asks once more without recursion, so the error
 * carries the real code (EROFS, EACCES) for asStorageError.
 */
export function mkdirp(dir: string): void {
  try {
    fs.mkdirSync(dir, { recursive: true });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' && fs.existsSync(path.dirname(dir))) fs.mkdirSync(dir);
    throw e;
  }
}

/** Writes JSON atomically (temp file + rename). */
export function writeJsonAtomic(file: string, data: unknown): void {
  writeFileAtomic.sync(file, `${JSON.stringify(data, null, 2)}\n`);
}

/**
 * Every run's metadata and cells under `resultsDir`, each file checked against its zod schema
 * (store/schema.ts; a `running` run whose harness is gone is returned as `abandoned`,
 * effectiveState); unreadable, truncated, empty or incomplete files are listed in `skipped`
 * and described in `warnings` (one line each, naming the file). Never throws on file content.
 */
export function readAllResults(resultsDir: string): {
  runs: RunMeta[];
  cells: CellResult[];
  skipped: string[];
  warnings: string[];
} {
  const runsDir = path.join(resultsDir, 'runs');
  const out = { runs: [] as RunMeta[], cells: [] as CellResult[], skipped: [] as string[], warnings: [] as string[] };
  let ids: string[] = [];
  try {
    ids = fs.readdirSync(runsDir).sort();
  } catch {
    return out;
  }
  for (const id of ids) {
    const dir = path.join(runsDir, id);
    if (!isDir(dir)) continue;
    if (!readsInside(resultsDir, dir)) {
      out.warnings.push(`${dir}: a symbolic link out of the results folder, not read`);
      continue;
    }
    const m = readMetaFile(path.join(dir, 'meta.json'), out);
    if (!m) continue;
    out.runs.push({ ...m, state: effectiveState(m) });
    out.cells.push(...readCellDir(path.join(dir, 'cells'), out));
  }
  return out;
}

function isDir(p: string): boolean {
  try {
    return fs.statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** The suffix of a compacted cells/ or trials/ folder: one gzipped NDJSON file beside the run's meta.json (store/compact.ts). */
export const COMPACT_SUFFIX = '.ndjson.gz';

/**
 * Reads and validates every `*.json` of a cells/ or trials/ folder, or, when the folder was
 * compacted, every line of `<folder>.ndjson.gz` (store/compact.ts); bad files and lines go to `acc`.
 */
export function readCellDir(dir: string, acc: { skipped: string[]; warnings: string[] }): CellResult[] {
  let files: string[] = [];
  try {
    files = fs
      .readdirSync(dir)
      .filter((x) => x.endsWith('.json'))
      .sort();
  } catch {
    return readCompacted(`${dir}${COMPACT_SUFFIX}`, acc);
  }
  return files.map((f) => readCellFile(path.join(dir, f), acc)).filter((c): c is CellResult => c !== null);
}

/** The cells of a compacted folder file (gzipped NDJSON, one cell a line), each validated; [] when it is missing. */
function readCompacted(file: string, acc: { skipped: string[]; warnings: string[] }): CellResult[] {
  let text: string;
  try {
    text = zlib.gunzipSync(fs.readFileSync(file)).toString('utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return [];
    acc.skipped.push(file);
    acc.warnings.push(`skipped ${file}: not a readable gzip file`);
    return [];
  }
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((l, i) => {
      const c = validateText(`${file}:${i + 1}`, l, CellFileSchema, acc);
      return c && asRecord<CellResult, typeof CellFileSchema>(c);
    })
    .filter((c): c is CellResult => c !== null);
}

/**
 * One cell or trial file, validated by CellFileSchema, as a CellResult; null (the file added to
 * `acc`) when it fails. The schema checks the fields readers rely on; the compiler checks that
 * CellResult agrees with it (schema.ts `asRecord`); the other fields are as the harness wrote them.
 */
export function readCellFile(file: string, acc: { skipped: string[]; warnings: string[] }): CellResult | null {
  const c = readValidated(file, CellFileSchema, acc);
  return c && asRecord<CellResult, typeof CellFileSchema>(c);
}

/**
 * A run's meta.json, validated by MetaFileSchema, as a RunMeta; null (the file added to `acc`)
 * when it fails. RunMeta agrees with the schema, checked by the compiler as for readCellFile.
 */
export function readMetaFile(file: string, acc: { skipped: string[]; warnings: string[] }): RunMeta | null {
  const m = readValidated(file, MetaFileSchema, acc);
  return m && asRecord<RunMeta, typeof MetaFileSchema>(m);
}

/**
 * Parses one JSON file and checks it against `schema`; returns the schema's output. Returns null
 * (and adds the file to `acc.skipped` with a one-line warning) when it is missing, empty,
 * truncated or incomplete.
 */
export function readValidated<S extends z.ZodType>(
  file: string,
  schema: S,
  acc: { skipped: string[]; warnings: string[] },
): z.output<S> | null {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    return skip(acc, file, `unreadable (${(e as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  return validateText(file, text, schema, acc);
}

/** Notes `where` as skipped, with why, in `acc`; null. */
function skip(acc: { skipped: string[]; warnings: string[] }, where: string, why: string): null {
  acc.skipped.push(where);
  acc.warnings.push(`skipped ${where}: ${why}`);
  return null;
}

/** `text` (the content of `where`: a file, or a file and line) parsed as JSON and checked against `schema`; null (noted in `acc`) when it fails. */
function validateText<S extends z.ZodType>(
  where: string,
  text: string,
  schema: S,
  acc: { skipped: string[]; warnings: string[] },
): z.output<S> | null {
  const bad = (why: string) => skip(acc, where, why);
  if (!text.trim()) return bad('empty file');
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return bad('not valid JSON (truncated or garbage)');
  }
  const r = schema.safeParse(data);
  if (!r.success) {
    const i = r.error.issues[0];
    return bad(`incomplete: ${i?.path.length ? i.path.join('.') : '(top level)'}: ${i?.message ?? 'invalid'}`);
  }
  return r.data;
}
