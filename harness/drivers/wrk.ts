/**
 * wrk (Debian package `wrk`, C, epoll) as a reference load generator for the driver
 * cross-check only: it never produces a leaderboard cell. It sends the same request as the
 * cell (method, path, headers, body through a generated Lua script) over the same number of
 * keep-alive connections, one thread, pinned to the client cores, and reports through a Lua
 * `done()` hook as one JSON line, so nothing depends on wrk's human-readable text.
 *
 * `findWrk` returns null when wrk is not on PATH: the cross-check is optional (issue 6:
 * "recorded, not required").
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import type { ConcreteRequest } from '../contract/scenarios.ts';
import { onPath, pinnedCommand, runTracked } from '../lifecycle/processes.ts';

/** wrk's measured run. Rates in requests/s, latencies in ms. */
export interface WrkOutput {
  requestsPerSec: number;
  requests: number;
  durationS: number;
  /** Socket errors (connect, read, write) and timeouts, and responses with status > 399. */
  errors: { connect: number; read: number; write: number; timeout: number; status: number };
  latencyMs: { p50: number; p99: number; max: number };
}

/** The wrk binary (BENCH_WRK when set — an empty value means none, for tests — else PATH) and its version, or null. */
export function findWrk(): { bin: string; version: string } | null {
  const bin = process.env.BENCH_WRK !== undefined ? process.env.BENCH_WRK || null : onPath('wrk');
  if (!bin) return null;
  const r = spawnSync(bin, ['-v'], { encoding: 'utf8' });
  const version = /wrk\s+(\S+)/.exec(`${r.stdout}${r.stderr}`)?.[1] ?? 'unknown';
  return { bin, version };
}

const MARK = 'BAKEOFF_WRK ';

/** A Lua string literal for `s` (three-digit decimal escapes for quotes, backslashes and everything outside printable ASCII). */
function luaString(s: string): string {
  return `"${[...Buffer.from(s, 'utf8')].map((b) => (b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c ? String.fromCharCode(b) : `\\${String(b).padStart(3, '0')}`)).join('')}"`;
}

/** The Lua script: the cell's request, and a done() hook that prints one JSON line. */
export function wrkScript(req: ConcreteRequest): string {
  const lines = [`wrk.method = ${luaString(req.method)}`];
  for (const [k, v] of Object.entries(req.headers)) lines.push(`wrk.headers[${luaString(k)}] = ${luaString(v)}`);
  if (req.body !== undefined) lines.push(`wrk.body = ${luaString(req.body)}`);
  lines.push(
    'done = function(summary, latency, requests)',
    '  local e = summary.errors',
    `  io.write(string.format('${MARK}{"requests":%d,"durationUs":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"status":%d,"p50Us":%d,"p99Us":%d,"maxUs":%d}\\n',`,
    '    summary.requests, summary.duration, e.connect, e.read, e.write, e.timeout, e.status,',
    '    latency:percentile(50), latency:percentile(99), latency.max))',
    'end',
  );
  return `${lines.join('\n')}\n`;
}

/** Parses the JSON line of wrkScript's done() hook from wrk's output; throws when it is missing. */
export function parseWrkOutput(output: string): WrkOutput {
  const line = output.split('\n').find((l) => l.startsWith(MARK));
  if (!line) throw new Error(`wrk printed no result line: ${output.slice(-1000)}`);
  const j = JSON.parse(line.slice(MARK.length));
  const durationS = j.durationUs / 1e6;
  return {
    requestsPerSec: durationS > 0 ? j.requests / durationS : 0,
    requests: j.requests,
    durationS,
    errors: { connect: j.connect, read: j.read, write: j.write, timeout: j.timeout, status: j.status },
    latencyMs: { p50: j.p50Us / 1000, p99: j.p99Us / 1000, max: j.maxUs / 1000 },
  };
}

/**
 * Runs `wrk -t1 -c connections -d durationS` against `url + req.path`, pinned to `cpus`.
 * Rejects when wrk fails or prints no result; `signal` stops it.
 */
export async function runWrk(
  bin: string,
  o: { url: string; request: ConcreteRequest; connections: number; durationS: number; timeoutS: number },
  cpus: string | null,
  signal?: AbortSignal,
): Promise<WrkOutput> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-wrk-'));
  try {
    const script = path.join(dir, 'request.lua');
    fs.writeFileSync(script, wrkScript(o.request));
    const argv = [
      bin,
      '-t1',
      `-c${o.connections}`,
      `-d${o.durationS}s`,
      `--timeout`,
      `${o.timeoutS}s`,
      '-s',
      script,
      o.url.replace(/\/$/, '') + o.request.path,
    ];
    const [cmd, ...args] = pinnedCommand(cpus, argv);
    const { code, output } = await runTracked(cmd, args, { signal, timeoutMs: (o.durationS + o.timeoutS + 30) * 1000 });
    if (signal?.aborted) throw new Error('wrk run aborted');
    if (code !== 0) throw new Error(`wrk exited with code ${code}: ${output.slice(-1000)}`);
    return parseWrkOutput(output);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
