/**
 * Starting and stopping one contender server.
 *
 * `startServer` spawns the manifest's start command (pinned to the server cores: taskset, and the
 * cgroup cpuset where the kernel offers one, which the process cannot leave) with HOST,
 * PORT, UPSTREAM_URL and NODE_ENV=production, sends its stdout/stderr to a log file, and polls
 * `GET /ping` until it answers 200. It throws StartError (with the log's tail) when the server
 * exits early or is not ready within the manifest's `readyTimeoutMs`, and UserError when the
 * port is busy.
 *
 * Loopback only: HOST, PORT, UPSTREAM_URL and NODE_ENV are set by the harness
 * after the manifest's and the caller's env (manifest.ts already refuses them in a manifest), and
 * once the server is ready the listening sockets of all its processes (its cgroup, else its
 * process tree and token carriers: processes.ts `trackedProcesses`) are read from /proc (ports.ts
 * `listeningAddresses`); one that listens off loopback (0.0.0.0, ::, a public address) stops the
 * server and throws StartError, so the cell is recorded start-failed with the reason. The
 * scheduler repeats the check after every window (`offLoopbackListeners`), for a server that
 * opens such a listener later.
 *
 * Environment: only PATH, HOME, LANG, TMPDIR and TZ pass from the harness's own environment;
 * DATABASE_URL reaches a server only through `o.env` (the scheduler sets it for a cell that needs
 * the database), never from the harness's environment.
 * The log is capped while the server writes it (logs.ts `capWhileWritten`: at 8 MiB), and `stop()`
 * caps it at its first and last MiB (logs.ts `capLog`, idempotent).
 *
 * Limits: `o.limits` (core/profiles.ts `contenderLimits`) bound the server's memory and tasks
 * (processes.ts); a server stopped for going over says so in `exitInfo()` ("exceeded its memory
 * limit (4096 MiB; …)") instead of "killed by SIGKILL".
 */
import fs from 'node:fs';
import path from 'node:path';
import type { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Manifest } from '../core/manifest.ts';
import { UserError } from '../core/errors.ts';
import { describeError, fetchOnce, isProtocolError } from '../contract/http.ts';

/** Unreadable answers in a row (parse errors, resets) after which readiness gives up at once. */
export const PROTOCOL_STRIKES = 3;
import {
  type Argv,
  hasExited,
  isTracked,
  limitBreach,
  pinnedCommand,
  type ProcessLimits,
  spawnTracked,
  stopGroup,
  trackedProcesses,
} from './processes.ts';
import { describePortHolder, isPortFree, listeningAddresses, waitPortFree, type Listener } from './ports.ts';
import { capLog, capWhileWritten } from './logs.ts';

export class StartError extends Error {
  logTail: string;
  constructor(message: string, logTail: string) {
    super(message);
    this.name = 'StartError';
    this.logTail = logTail;
  }
}

/** A running contender. Times in ms. */
export interface ServerHandle {
  child: ChildProcess;
  pid: number;
  port: number;
  baseUrl: string;
  /** From spawn to the first 200 on GET /ping, ms. */
  startupMs: number;
  logFile: string;
  /** "exited with code 1" / "killed by SIGSEGV" / "exceeded its memory limit (…)" once the server has died, else null. */
  exitInfo(): string | null;
  /** Stops the server and waits until its port is free; resolves with the time it took, ms. */
  stop(): Promise<number>;
}

export interface StartOptions {
  host: string;
  port: number;
  upstreamUrl: string;
  env: Record<string, string>;
  cpus: string | null;
  logFile: string;
  nodePath: string;
  /** The server's memory and task limits (processes.ts `spawnTracked`); absent: none. */
  limits?: ProcessLimits;
}

/** The last `lines` lines of a log file ('' when missing); reads at most its last 64 KiB. */
export function logTail(file: string, lines = 25): string {
  try {
    const fd = fs.openSync(file, 'r');
    try {
      const size = fs.fstatSync(fd).size;
      const len = Math.min(size, 64 * 1024);
      const buf = Buffer.alloc(len);
      fs.readSync(fd, buf, 0, len, size - len);
      return buf
        .toString('utf8')
        .split('\n')
        .slice(-lines - 1)
        .join('\n')
        .trim();
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return '';
  }
}

const PASS_ENV = ['PATH', 'HOME', 'LANG', 'TMPDIR', 'TZ'];

/**
 * The listening sockets off loopback of tracked server `pid` and every process it started (its
 * cgroup; else its process tree and token carriers), from /proc. [] for a pid the harness did
 * not start (an external target, a fake in tests): only our own processes are judged.
 */
export function offLoopbackListeners(pid: number): Listener[] {
  if (!isTracked(pid)) return [];
  return listeningAddresses(trackedProcesses(pid)).filter((l) => !l.loopback);
}

/** "0.0.0.0:4000 (pid 12), [::]:4001 (pid 13)": listeners for a failure reason. */
export function describeListeners(ls: Listener[]): string {
  return ls.map((l) => `${l.address.includes(':') ? `[${l.address}]` : l.address}:${l.port} (pid ${l.pid})`).join(', ');
}

/** The rule a server broke when it listens off loopback, and what to do; for failure reasons. */
export const LOOPBACK_RULE =
  'the harness allows only 127.0.0.1 and ::1. Listen on the HOST and PORT the harness passes in the environment.';

/**
 * Polls `GET /ping` on `baseUrl` every 10 ms until it answers 200. Throws StartError (the server
 * stopped, its log capped) when the server exits first (`exitInfo`), when PROTOCOL_STRIKES answers
 * in a row are unreadable (contract/http.ts `isProtocolError`), or at `deadline` (a
 * performance.now() time), each with the last underlying error.
 */
async function waitReady(
  m: Manifest,
  o: StartOptions,
  child: ChildProcess,
  baseUrl: string,
  exitInfo: () => string | null,
  deadline: number,
): Promise<void> {
  const fail = async (message: string, graceMs: number) => {
    await stopGroup(child, graceMs);
    capLog(o.logFile);
    throw new StartError(message, logTail(o.logFile));
  };
  let last = 'no answer yet';
  let unreadable = 0; // protocol errors in a row
  for (;;) {
    const died = exitInfo();
    if (died) await fail(`${m.name} ${died} before it was ready`, 500);
    try {
      const res = await fetchOnce(baseUrl, { method: 'GET', path: '/ping' }, 1000);
      if (res.status === 200) return;
      last = `it answered status ${res.status}`;
      unreadable = 0;
    } catch (e) {
      const refused = (e as NodeJS.ErrnoException).code === 'ECONNREFUSED';
      last = refused ? 'connection refused (not listening yet)' : describeError(e);
      unreadable = isProtocolError(e) ? unreadable + 1 : 0;
    }
    // Unreadable answers in a row: a server that speaks no plain HTTP/1.1 here (h2c only, TLS
    // only, a wrong Content-Length) will not start to; say so now, not at the deadline.
    if (unreadable >= PROTOCOL_STRIKES)
      await fail(
        `${m.name} answers GET /ping in a way the harness's HTTP/1.1 client cannot read: ${last} (${PROTOCOL_STRIKES} times in a row). Serve plain HTTP/1.1 (no TLS, no HTTP/2 only) on the HOST and PORT the harness passes`,
        1000,
      );
    if (performance.now() > deadline)
      await fail(
        `${m.name} did not answer GET /ping with 200 within ${m.readyTimeoutMs} ms; the last try: ${last}`,
        1000,
      );
    await sleep(10);
  }
}

/** Starts `m` and waits for readiness. See the module comment for errors. */
export async function startServer(m: Manifest, o: StartOptions): Promise<ServerHandle> {
  if (!(await isPortFree(o.port, o.host))) {
    const who = describePortHolder(o.port);
    throw new UserError(
      `port ${o.port} on ${o.host} is already in use${who ? ` by ${who}` : ''}. Stop that process or choose another port (--port).`,
    );
  }
  fs.mkdirSync(path.dirname(o.logFile), { recursive: true });
  const fd = fs.openSync(o.logFile, 'a');
  const [program, ...programArgs] = m.start;
  if (program === undefined) throw new Error(`${m.name}: contender.json "start" is empty`); // the manifest schema forbids it
  const argv: Argv = [program === 'node' ? o.nodePath : program, ...programArgs];
  const env: Record<string, string> = {};
  for (const k of PASS_ENV) {
    const v = process.env[k];
    if (v !== undefined) env[k] = v;
  }
  Object.assign(env, m.env, o.env, {
    NODE_ENV: 'production',
    HOST: o.host,
    PORT: String(o.port),
    UPSTREAM_URL: o.upstreamUrl,
  });
  const [cmd, ...args] = pinnedCommand(o.cpus, argv);
  const t0 = performance.now();
  const child = spawnTracked(cmd, args, {
    cwd: m.dir,
    env,
    stdio: ['ignore', fd, fd],
    limits: o.limits,
    cpus: o.cpus,
  });
  fs.closeSync(fd);
  const stopCap = capWhileWritten(o.logFile);
  child.once('exit', stopCap);
  let spawnError: Error | undefined;
  child.once('error', (e) => {
    spawnError = e;
  });
  const exitInfo = () => {
    if (spawnError) return `could not be started: ${spawnError.message}`;
    if (!hasExited(child)) return null;
    const over = child.pid === undefined ? null : limitBreach(child.pid);
    if (over) return over;
    return child.signalCode ? `killed by ${child.signalCode}` : `exited with code ${child.exitCode}`;
  };
  const baseUrl = `http://${o.host.includes(':') ? `[${o.host}]` : o.host}:${o.port}`;
  await waitReady(m, o, child, baseUrl, exitInfo, t0 + m.readyTimeoutMs);
  const startupMs = performance.now() - t0;
  const pid = child.pid;
  if (pid === undefined) throw new StartError(`${m.name} could not be started (no process id)`, logTail(o.logFile));
  const offLoopback = offLoopbackListeners(pid);
  if (offLoopback.length) {
    await stopGroup(child, 1000);
    await waitPortFree(o.port, o.host, 2000);
    capLog(o.logFile);
    throw new StartError(
      `${m.name} listens off loopback on ${describeListeners(offLoopback)}; ${LOOPBACK_RULE}`,
      logTail(o.logFile),
    );
  }
  return {
    child,
    pid,
    port: o.port,
    baseUrl,
    startupMs,
    logFile: o.logFile,
    exitInfo,
    async stop() {
      const s = performance.now();
      await stopGroup(child, 3000);
      await waitPortFree(o.port, o.host, 5000);
      capLog(o.logFile);
      return performance.now() - s;
    },
  };
}
