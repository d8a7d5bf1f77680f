/**
 * The process side of CPU profiles (issue "Why a stack is slow"): start a Node server under V8's
 * sampling profiler (`--cpu-prof`) and find the `.cpuprofile` it wrote when it stopped.
 *
 * The stop path: Node writes `--cpu-prof` output only on a graceful exit (process.exit or the end
 * of the event loop). A SIGTERM/SIGINT with no handler kills the process by the default action
 * and writes nothing (checked on Node 24.21: no file on SIGTERM, none on SIGINT; a file in both
 * cases once a handler calls process.exit). So `withCpuProf` also preloads
 * `cpu-prof-exit.cjs` (`--require`), which turns SIGTERM/SIGINT into process.exit — at once when
 * the app has no handler of its own, else after a short grace (env BENCH_CPU_PROF_GRACE_MS,
 * default 1000 ms), so that a server that ignores the signals still writes its profile within
 * stopGroup's 3 s before SIGKILL. The exit code is then 128 + the signal number (143 for
 * SIGTERM) instead of "killed by SIGTERM".
 *
 * Node names the file `CPU.<yyyymmdd>.<hhmmss>.<pid>.<thread>.<seq>.cpuprofile`
 * (https://nodejs.org/api/cli.html#--cpu-prof); children that inherit execArgv (cluster,
 * child_process.fork) write their own files into the same folder.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of the preload that turns SIGTERM/SIGINT into process.exit (see module comment). */
export const CPU_PROF_PRELOAD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'cpu-prof-exit.cjs');

/** V8's default sampling interval of `--cpu-prof`, µs. */
export const DEFAULT_CPU_PROF_INTERVAL_US = 1000;

/** Where and how often to sample. */
export interface CpuProfOptions {
  /** Folder the profile is written to (created by Node if missing). */
  dir: string;
  /** Sampling interval, µs (default 1000, V8's default). */
  intervalUs?: number;
}

/**
 * The start argv with `--cpu-prof --cpu-prof-dir=<dir> --cpu-prof-interval=<µs> --require
 * <preload>` right after the node binary. `argv[0]` must be `node` (a manifest's start command,
 * before the pinned binary replaces it) or a path whose basename is `node`; any other command
 * (docker, a shell script) returns null: it cannot be profiled this way.
 * Throws RangeError for an interval that is not a positive integer.
 */
export function withCpuProf(argv: readonly string[], o: CpuProfOptions): string[] | null {
  const interval = o.intervalUs ?? DEFAULT_CPU_PROF_INTERVAL_US;
  if (!Number.isInteger(interval) || interval <= 0) {
    throw new RangeError(`cpu profile interval must be a positive integer number of µs, got ${interval}`);
  }
  const [program] = argv;
  if (program === undefined || path.basename(program) !== 'node') return null;
  return [
    program,
    '--cpu-prof',
    `--cpu-prof-dir=${path.resolve(o.dir)}`,
    `--cpu-prof-interval=${interval}`,
    '--require',
    CPU_PROF_PRELOAD,
    ...argv.slice(1),
  ];
}

/** The profile file found, or why there is none ("no profile: …"). */
export type FoundProfile = { ok: true; file: string } | { ok: false; reason: string };

/**
 * The newest `.cpuprofile` in `dir` (by modification time). With `pid`, only the files of that
 * process (the pid field of Node's file name) are considered. Never throws: a missing folder
 * or no file is a reason that says the process most likely did not exit gracefully.
 */
export function findCpuProfile(dir: string, pid?: number): FoundProfile {
  let names: string[];
  try {
    names = fs.readdirSync(dir);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') return { ok: false, reason: `no profile: cannot read ${dir}: ${code}` };
    names = []; // Node creates the folder only when it writes the profile.
  }
  const files = names
    .filter((n) => n.endsWith('.cpuprofile'))
    .filter((n) => pid === undefined || n.split('.')[3] === String(pid))
    .map((n) => {
      const file = path.join(dir, n);
      try {
        return { file, mtime: fs.statSync(file).mtimeMs };
      } catch {
        return null;
      }
    })
    .filter((f) => f !== null)
    .sort((a, b) => b.mtime - a.mtime);
  const [newest] = files;
  if (!newest) {
    return {
      ok: false,
      reason: `no profile: no .cpuprofile${pid === undefined ? '' : ` of pid ${pid}`} in ${dir} (Node writes it only on a graceful exit; the process was probably killed, or its event loop was blocked when the stop signal came)`,
    };
  }
  return { ok: true, file: newest.file };
}

/**
 * The default sampling interval of `why` and `bench --profile-cpu`, µs: 5 ms, not V8's 1 ms. Chosen from data (docs/why.md,
 * "The profiler's overhead"): at 1 ms LoopBack 4's deep stacks cost 1,396 µs of CPU per request
 * under the profiler against 540–730 unprofiled (ad hoc) and 454 at
 * 5 ms, with the same shares (docs/decisions/0010-cpu-profile-every-5-ms.md); node-http showed no cost at 1 ms.
 * A 5 s window still gives ~1,000 busy samples.
 */
export const WHY_INTERVAL_US = 5000;
