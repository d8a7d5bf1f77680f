/**
 * A contender's server for the GC studies (nursery-after-idle.ts, pause-duty-cycle.ts): one
 * process pinned to CPU 1 (`taskset`), started with `--trace-gc` and extra V8 flags, its stdout
 * (the GC trace) in a temp file; and a wait for GET /ping. Only for contenders whose manifest
 * starts with `node <file>`; anything else throws, since V8 flags cannot be added.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CONTENDERS_DIR } from '../../harness/core/paths.ts';

export interface TracedServer {
  name: string;
  port: number;
  child: ChildProcess;
  /** The node process's pid (taskset execs node, so it is the child's). */
  pid: number;
  /** When the process started (performance.now(), ms): the trace's ms stamps count from about then. */
  t0: number;
  /** The file the GC trace goes to: a file, not a pipe, because the studies run wrk synchronously. */
  traceFile: string;
}

/** Starts `name` on 127.0.0.1:`port`; `study` names the trace file. Throws on a non-`node <file>` manifest. */
export function startTraced(study: string, name: string, port: number, flags: string[]): TracedServer {
  const dir = path.join(CONTENDERS_DIR, name);
  const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'contender.json'), 'utf8')) as { start: string[] };
  if (manifest.start[0] !== 'node' || manifest.start.length !== 2)
    throw new Error(`${name}: its start is not "node <file>", so V8 flags cannot be added`);
  const env = {
    ...process.env,
    HOST: '127.0.0.1',
    PORT: String(port),
    NODE_ENV: 'production',
    UPSTREAM_URL: 'http://127.0.0.1:9',
  };
  const traceFile = path.join(os.tmpdir(), `${study}-${name}-${process.pid}.log`);
  const out = fs.openSync(traceFile, 'w');
  const t0 = performance.now();
  const child = spawn('taskset', ['-c', '1', process.execPath, '--trace-gc', ...flags, manifest.start[1] ?? ''], {
    cwd: dir,
    env,
    stdio: ['ignore', out, 'inherit'],
  });
  fs.closeSync(out);
  if (child.pid === undefined) throw new Error(`${name}: taskset did not start`);
  return { name, port, child, pid: child.pid, t0, traceFile };
}

/** Resolves once GET /ping answers 2xx; throws after 10 s. */
export async function ready(s: TracedServer): Promise<void> {
  for (let i = 0; i < 50; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${s.port}/ping`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${s.name} did not answer GET /ping on port ${s.port} within 10 s`);
}
