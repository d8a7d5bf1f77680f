/**
 * One run at a time per machine. Two harness runs on one machine pin to the
 * same cores and spoil each other's figures, so a run first takes a machine-wide lock file,
 * `os.tmpdir()/node-http-bakeoff.lock` (BENCH_LOCK_FILE overrides the path), recording the
 * holder's pid, its process start time (so a reused pid is not mistaken for the holder), the run
 * id and the command. A second harness refuses with a UserError naming the holder (exit 2), or
 * with `wait` joins the queue and polls until it is first in line and the lock is free. A lock
 * whose holder is dead (SIGKILL, OOM, power loss) is stale and taken over, with a log line saying so.
 *
 * The queue (`<lock file>.queue/`): one ticket file per waiting harness, named by its arrival time
 * (ms) and pid, holding its pid and start time. Only the first live ticket may take the lock, so
 * waiters run in arrival order (first come, first served) and a newcomer never overtakes them; a
 * harness without `wait` that finds waiters refuses like one that finds the lock held. Tickets of
 * dead waiters are removed by whoever reads the queue; a waiter removes its own when it takes the
 * lock or exits.
 *
 * Holding the lock, the harness sweeps the temp folders a dead harness left behind
 * (`sweepTempFolders`): bench-ac-*, bench-k6-*, bench-wrk-*, bench-verify-* and bakeoff-pg-* in
 * os.tmpdir() that no live process uses.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { asStorageError, UserError } from '../core/errors.ts';
import { EXIT } from '../core/exit-codes.ts';
import { pidAlive, pidStartTime } from '../core/pid.ts';

/** What the lock file holds (JSON). */
export interface LockRecord {
  pid: number;
  /** Field 22 of /proc/<pid>/stat (clock ticks since boot), '' off Linux. */
  pidStart: string;
  /** The run id once known (null until the run folder is named). */
  runId: string | null;
  /** The CLI arguments of the holder. */
  command: string[];
  /** ISO time the lock was taken. */
  startedAt: string;
}

/**
 * A held lock. `update` rewrites the record (e.g. the run id; StorageError when the lock's folder
 * refuses the write); `release` removes the file if still ours.
 */
export interface RunLock {
  file: string;
  record: LockRecord;
  /** 'fresh', 'reentrant' (this process held it already) or 'stale' (taken over from a dead holder). */
  how: 'fresh' | 'reentrant' | 'stale';
  /** Temp folders swept when the lock was taken (absolute paths). */
  swept: string[];
  update(patch: Partial<Pick<LockRecord, 'runId' | 'command'>>): void;
  release(): void;
}

/** The lock file's path: BENCH_LOCK_FILE, else os.tmpdir()/node-http-bakeoff.lock. */
export function lockFile(): string {
  return process.env.BENCH_LOCK_FILE || path.join(os.tmpdir(), 'node-http-bakeoff.lock');
}

/**
 * True when the lock holder `pid` runs: not a zombie and, when `start` is given, the same process
 * as when it took the lock (core/pid.ts `pidAlive`, the one liveness check of the harness).
 */
export function holderAlive(pid: number, start = ''): boolean {
  return pidAlive(pid, start);
}

/**
 * The lock file's shape. Only a positive integer `pid` is required; a field of the wrong type gets
 * its neutral value (no start time: the pid alone decides; no run id; no command), so a hand-edited
 * record can neither crash the harness nor make a live holder look dead.
 */
const LockRecordSchema = z.object({
  pid: z.number().int().positive(),
  pidStart: z.string().catch(''),
  runId: z.string().nullable().catch(null),
  command: z.array(z.string()).catch([]),
  startedAt: z.string().catch('an unknown time'),
});

/** The record in `file`: a LockRecord, 'missing', or 'garbled' (empty, not JSON, or no valid pid). */
export function readLock(file = lockFile()): LockRecord | 'missing' | 'garbled' {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    return 'missing';
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return 'garbled';
  }
  const r = LockRecordSchema.safeParse(data);
  return r.success ? r.data : 'garbled';
}

/** "pid 123 (run 2026-…, `bench fastify`, since 02:31:07 UTC)". */
export function describeHolder(r: LockRecord): string {
  const bits = [
    r.runId ? `run ${r.runId}` : null,
    r.command.length ? `\`${r.command.join(' ')}\`` : null,
    `since ${r.startedAt}`,
  ].filter(Boolean);
  return `pid ${r.pid} (${bits.join(', ')})`;
}

const held = new Map<string, RunLock>();

/** The queue folder of lock `file` (see the module comment). */
export function queueDir(file: string): string {
  return `${file}.queue`;
}

/** A waiting harness's ticket: its file name (arrival ms, pid) and record. */
interface Ticket {
  name: string;
  pid: number;
  pidStart: string;
}

/**
 * The live tickets of lock `file`'s queue in arrival order (name order: zero-padded ms, then pid).
 * Removes the tickets of waiters that are gone (dead, or a reused pid) and unreadable ones older than 3 s.
 */
export function queueOf(file: string): Ticket[] {
  const dir = queueDir(file);
  let names: string[] = [];
  try {
    names = fs.readdirSync(dir).filter((n) => /^\d{15}-\d+$/.test(n));
  } catch {
    return [];
  }
  const out: Ticket[] = [];
  for (const name of names.sort()) {
    const full = path.join(dir, name);
    let t: Partial<Ticket> = {};
    try {
      t = JSON.parse(fs.readFileSync(full, 'utf8'));
    } catch {
      // A ticket between its creation and its write; one that stays unreadable is stale.
      try {
        if (Date.now() - fs.statSync(full).mtimeMs < 3000) out.push({ name, pid: 0, pidStart: '' });
        else fs.rmSync(full, { force: true });
      } catch {
        /* gone */
      }
      continue;
    }
    if (typeof t.pid === 'number' && holderAlive(t.pid, typeof t.pidStart === 'string' ? t.pidStart : ''))
      out.push({ name, pid: t.pid, pidStart: String(t.pidStart ?? '') });
    else fs.rmSync(full, { force: true });
  }
  return out;
}

/** Puts this process in lock `file`'s queue; returns its ticket's name (removed at exit). */
function joinQueue(file: string, record: LockRecord): string {
  const dir = queueDir(file);
  const name = `${String(Date.now()).padStart(15, '0')}-${process.pid}`;
  const full = path.join(dir, name);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o1777 });
    fs.writeFileSync(full, JSON.stringify({ pid: record.pid, pidStart: record.pidStart, command: record.command }));
  } catch (e) {
    throw asStorageError(e, 'temp', dir) ?? e;
  }
  process.once('exit', () => fs.rmSync(full, { force: true }));
  return name;
}

/** "1st", "2nd", "3rd", "4th" … "11th", "21st". */
export function ordinal(n: number): string {
  const teen = n % 100 >= 11 && n % 100 <= 13;
  const suffix = teen ? 'th' : (['th', 'st', 'nd', 'rd'][n % 10] ?? 'th');
  return `${n}${suffix}`;
}

/**
 * Takes lock `file` for `record` in turn (see the module comment): without `o.wait` throws
 * UserError (exit 2) when it is held or others wait; with it joins the queue, logs its place in
 * line ("2nd in line") whenever it changes, and polls every `o.pollMs` (default 1000 ms) until it
 * is first in line and the lock is free. Returns how the lock was taken.
 */
async function takeInTurn(
  file: string,
  record: LockRecord,
  o: { wait?: boolean; pollMs?: number },
  log: (line: string) => void,
): Promise<'fresh' | 'stale'> {
  let how: 'fresh' | 'stale' = 'fresh';
  let ticket: string | null = null;
  let place = 0;
  let garbledSince = 0;
  try {
    for (;;) {
      const queue = queueOf(file);
      const ahead = queue.filter((t) => ticket === null || t.name < ticket);
      let holder: LockRecord | null = null;
      if (!ahead.length) {
        if (tryCreate(file, record)) return how;
        const cur = readLock(file);
        if (cur === 'missing') continue;
        if (cur === 'garbled') {
          // A holder is between creating and writing the file; one that stays garbled is stale.
          garbledSince ||= Date.now();
          if (Date.now() - garbledSince < 3000) {
            await sleep(50);
            continue;
          }
          log(`run lock ${file} is unreadable; taking it over`);
          fs.rmSync(file, { force: true });
          how = 'stale';
          continue;
        }
        garbledSince = 0;
        if (!holderAlive(cur.pid, cur.pidStart)) {
          // Strike only the record we judged stale (another taker may have replaced it meanwhile).
          const again = readLock(file);
          if (typeof again === 'object' && again.pid === cur.pid && again.startedAt === cur.startedAt) {
            log(`taking over the run lock left by ${describeHolder(cur)}, which is no longer running`);
            fs.rmSync(file, { force: true });
            how = 'stale';
          }
          continue;
        }
        holder = cur;
      } else {
        const cur = readLock(file);
        holder = typeof cur === 'object' ? cur : null;
      }
      if (!o.wait) throw busy(file, holder, ahead.length);
      ticket ??= joinQueue(file, record);
      const now = queueOf(file).filter((t) => t.name < (ticket ?? '')).length + 1;
      if (now !== place) {
        const held = holder ? `held by ${describeHolder(holder)}` : 'the run ahead is taking it';
        log(`waiting for the run lock: ${held}; ${ordinal(now)} in line`);
        place = now;
      }
      await sleep(o.pollMs ?? 1000);
    }
  } finally {
    if (ticket) fs.rmSync(path.join(queueDir(file), ticket), { force: true });
  }
}

/** The UserError (exit 2) of a harness without --wait that finds the lock held or `waiting` runs queued. */
function busy(file: string, holder: LockRecord | null, waiting: number): UserError {
  const queued = waiting ? ` ${waiting} run${waiting === 1 ? ' waits' : 's wait'} for it already (--wait).` : '';
  const who = holder
    ? `another bake-off run holds this machine: ${describeHolder(holder)}.`
    : 'the machine is promised to the runs waiting for it:';
  return new UserError(
    `${who}${queued} Two runs at once pin to the same cores and spoil each other's figures. Wait for it to finish (or stop it), or pass --wait to join the queue and start in turn. Lock file: ${file}`,
    EXIT.usage,
  );
}

function tryCreate(file: string, record: LockRecord): boolean {
  let fd: number;
  try {
    fd = fs.openSync(file, 'wx', 0o644);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw (
      asStorageError(e, 'temp', path.dirname(file)) ??
      new UserError(`cannot create the run lock ${file}: ${(e as Error).message}`)
    );
  }
  try {
    fs.writeSync(fd, JSON.stringify(record));
  } catch (e) {
    // An empty lock file would look like a holder between create and write: remove it.
    fs.closeSync(fd);
    fs.rmSync(file, { force: true });
    throw asStorageError(e, 'temp', path.dirname(file)) ?? e;
  }
  fs.closeSync(fd);
  return true;
}

/**
 * Takes the machine-wide run lock. `runId` may be null and set later with `update`. Calling it
 * again in the process that holds it updates the record ('reentrant'). With `wait`, polls every
 * `pollMs` (default 1000) until the holder is gone, logging once; without it, throws UserError
 * (exit 2) naming the holder. A lock whose holder is dead is taken over ('stale'). After taking
 * it, sweeps stale temp folders (sweepTempFolders) and logs what it removed. The lock is
 * released on `release()` and when the process exits.
 */
export async function acquireRunLock(o: {
  runId: string | null;
  wait?: boolean;
  log?: (line: string) => void;
  command?: string[];
  file?: string;
  pollMs?: number;
}): Promise<RunLock> {
  const file = o.file ?? lockFile();
  const log = o.log ?? (() => {});
  const mine = held.get(file);
  if (mine) {
    mine.update({ runId: o.runId ?? mine.record.runId, ...(o.command ? { command: o.command } : {}) });
    return { ...mine, how: 'reentrant', swept: [] };
  }
  const record: LockRecord = {
    pid: process.pid,
    pidStart: pidStartTime(process.pid),
    runId: o.runId,
    command: o.command ?? process.argv.slice(2),
    startedAt: new Date().toISOString(),
  };
  try {
    fs.mkdirSync(path.dirname(file), { recursive: true });
  } catch (e) {
    // Recursive mkdir says ENOENT for a folder it may not create: ask again for the real code.
    let real = e;
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' && fs.existsSync(path.dirname(path.dirname(file))))
      try {
        fs.mkdirSync(path.dirname(file));
      } catch (again) {
        real = again;
      }
    throw asStorageError(real, 'temp', path.dirname(file)) ?? real;
  }
  const how = await takeInTurn(file, record, o, log);
  const lock: RunLock = {
    file,
    record,
    how,
    swept: [],
    update(patch) {
      Object.assign(record, patch);
      const cur = readLock(file);
      if (typeof cur === 'object' && cur.pid === process.pid) {
        const tmp = `${file}.${process.pid}.tmp`;
        try {
          fs.writeFileSync(tmp, JSON.stringify(record));
          fs.renameSync(tmp, file);
        } catch (e) {
          fs.rmSync(tmp, { force: true });
          throw asStorageError(e, 'temp', path.dirname(file)) ?? e;
        }
      }
    },
    release() {
      held.delete(file);
      const cur = readLock(file);
      if (typeof cur === 'object' && cur.pid === process.pid) fs.rmSync(file, { force: true });
    },
  };
  held.set(file, lock);
  lock.swept = sweepTempFolders();
  for (const d of lock.swept) log(`removed ${d}, left by a harness that is no longer running`);
  return lock;
}

/**
 * Records `runId` in every run lock this process holds (store/runs.ts `openRun` calls it once the
 * run folder is named), so that a second harness and a stale-lock takeover name the run.
 */
export function noteRunIdInLocks(runId: string): void {
  for (const l of held.values()) l.update({ runId });
}

/** Releases every lock this process holds (the CLI's exit hook calls it; so does process 'exit'). */
export function releaseAllLocks(): void {
  for (const l of [...held.values()]) l.release();
}
process.on('exit', releaseAllLocks);

/** The temp folder prefixes of the harness (drivers, verify logs, embedded PostgreSQL). */
export const TEMP_PREFIXES = ['bench-ac-', 'bench-k6-', 'bench-wrk-', 'bench-verify-', 'bakeoff-pg-'];

/**
 * Every path a live process (other than this one) refers to through its cwd, open files, argv or
 * environment, and whether another harness (argv naming harness/cli.ts) uses `tmp` as its temp
 * folder (its TMPDIR, default /tmp).
 */
function pathsInUse(tmp: string): { paths: string[]; otherHarness: boolean } {
  const paths: string[] = [];
  let otherHarness = false;
  let pids: string[] = [];
  try {
    pids = fs.readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return { paths, otherHarness };
  }
  const read = (f: string) => {
    try {
      return fs.readFileSync(f, 'utf8');
    } catch {
      return '';
    }
  };
  for (const pid of pids) {
    if (Number(pid) === process.pid) continue;
    const cmdline = read(`/proc/${pid}/cmdline`);
    const environ = read(`/proc/${pid}/environ`);
    paths.push(cmdline, environ);
    if (/harness\/cli\.ts(\0|$)/.test(cmdline)) {
      const t = /(?:^|\0)TMPDIR=([^\0]*)/.exec(environ)?.[1] || '/tmp';
      if (path.resolve(t) === path.resolve(tmp)) otherHarness = true;
    }
    try {
      paths.push(fs.readlinkSync(`/proc/${pid}/cwd`));
    } catch {
      /* gone */
    }
    let fds: string[] = [];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      try {
        const t = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
        if (t.startsWith('/')) paths.push(t);
      } catch {
        /* closed */
      }
    }
  }
  return { paths, otherHarness };
}

/**
 * Removes the harness's temp folders (TEMP_PREFIXES) in `dir` (default os.tmpdir()) that no live
 * process refers to (cwd, open file, argv or environment), that were not touched in the last
 * `minAgeMs` (default 1000: a folder between its creation and its process's start), and, for
 * bakeoff-pg-*, whose recorded owner (harness.pid) is dead. While another harness uses the same
 * temp folder (one holding another lock file, e.g. in tests), only folders untouched for 10
 * minutes go. Returns the removed paths.
 */
export function sweepTempFolders(dir = os.tmpdir(), minAgeMs = 1000): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir).filter((d) => TEMP_PREFIXES.some((p) => d.startsWith(p)));
  } catch {
    return [];
  }
  if (!names.length) return [];
  const { paths: inUse, otherHarness } = pathsInUse(dir);
  const minAge = otherHarness ? Math.max(minAgeMs, 600_000) : minAgeMs;
  const removed: string[] = [];
  for (const name of names) {
    const full = path.join(dir, name);
    try {
      const st = fs.statSync(full);
      if (!st.isDirectory() || Date.now() - st.mtimeMs < minAge) continue;
      if (name.startsWith('bakeoff-pg-')) {
        const owner = Number(fs.readFileSync(path.join(full, 'harness.pid'), 'utf8').split('\n')[0]) || 0;
        if (owner && holderAlive(owner)) continue;
      }
    } catch {
      if (!fs.existsSync(full)) continue;
    }
    if (inUse.some((p) => p.includes(full))) continue;
    fs.rmSync(full, { recursive: true, force: true });
    removed.push(full);
  }
  return removed;
}
