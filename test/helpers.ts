/**
 * Test helpers: run the real harness CLI as a child process, make temporary folders, and read
 * the process table (/proc) to check that no child outlives the harness.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { listRuns, readAll, readRun, readTrials } from '../harness/store/runs.ts';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'contenders');
export const CLI = path.join(ROOT, 'harness', 'cli.ts');

export interface CliResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * The run lock of the harnesses this test process starts: one per test file, so test files run
 * by different people on one machine do not refuse each other (the harness's own lock tests in
 * faults.test.ts set BENCH_LOCK_FILE themselves).
 */
export const TEST_LOCK_FILE = path.join(os.tmpdir(), `bakeoff-test-${process.pid}.lock`);

/**
 * Runs `node harness/cli.ts ...args` to completion (10 min limit). `prefix`: a command that runs
 * the node process (e.g. `['setpriv', '--bounding-set', …]`), none by default.
 */
export function runCli(args: string[], env: Record<string, string> = {}, prefix: string[] = []): Promise<CliResult> {
  return new Promise((resolve) => {
    const argv = [...prefix, process.execPath, '--disable-warning=ExperimentalWarning', CLI, ...args];
    const child = spawn(argv[0] as string, argv.slice(1), {
      cwd: ROOT,
      env: { BENCH_LOCK_FILE: TEST_LOCK_FILE, ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (b) => {
      stdout += b;
    });
    child.stderr.on('data', (b) => {
      stderr += b;
    });
    const timer = setTimeout(() => child.kill('SIGKILL'), 600_000);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout, stderr });
    });
  });
}

/** A fresh temporary folder, removed when the process exits. */
export function tmpDir(prefix: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), `bakeoff-${prefix}-`));
  process.on('exit', () => fs.rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * Every cell of every run under `resultsDir`, read through the store (harness/store/runs.ts `readAll`:
 * schema-validated; a file that fails its schema is left out, so a test expecting it fails).
 */
export function readCells(resultsDir: string): any[] {
  return readAll(resultsDir).cells;
}

/**
 * One run folder (an absolute path, e.g. a scheduler result's `runDir`) read through the store:
 * its meta as written, its cells and its trials, schema-validated; throws if it has no readable meta.
 */
export function readRunAt(runDir: string): { meta: any; cells: any[]; trials: any[] } {
  const r = readRun(path.dirname(path.dirname(runDir)), path.basename(runDir));
  const t = readTrials(r.dir);
  assert.deepEqual([...r.warnings, ...t.warnings], [], 'every file of the run passes its schema');
  return { meta: r.meta, cells: r.cells, trials: t.trials };
}

/** The meta.json of every run under `resultsDir` as written (state not inferred), through the store's `listRuns`. */
export function readMetas(resultsDir: string): any[] {
  return listRuns(resultsDir).flatMap((r) => (r.meta ? [r.meta] : []));
}

/** PIDs of every live descendant of `pid` (from /proc/<pid>/stat parent links). */
export function descendants(pid: number): number[] {
  const parent = new Map<number, number>();
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      parent.set(Number(d), ppid);
    } catch {
      /* gone */
    }
  }
  const out: number[] = [];
  const walk = (p: number) => {
    for (const [c, pp] of parent)
      if (pp === p) {
        out.push(c);
        walk(c);
      }
  };
  walk(pid);
  return out;
}

/** True when `pid` is alive and not a zombie. */
export function alive(pid: number): boolean {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
}
