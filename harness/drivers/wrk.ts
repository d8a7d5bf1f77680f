/**
 * wrk (Debian package `wrk`, C, epoll) as a first-class load driver: the native driver with
 * headroom (docs/dev/notes-drivers.md has the ceilings measured here).
 *
 * One window = `durationS` seconds of `wrk -t<threads> -c<connections>`, pinned to the client
 * cores, driven by a generated Lua script (`wrkScript`):
 * - the request (method, path, headers, body) is static; with `job.variants` a `request()` hook
 *   returns one pre-formatted variant drawn at random per request;
 * - checks: defining `response()` makes wrk parse every header and body into Lua, which costs it
 *   about a third more CPU per response (measured here, notes-drivers.md). So a window runs two
 *   wrk processes side by side on the same cores: the main one without response() on most
 *   connections, and a checker on ≈ connections/sampleEvery of them (at least 1) whose
 *   response() counts every non-2xx status (3xx too; the main process counts only wrk's
 *   status > 399) and writes every n-th response (status, content-type, content-length,
 *   transfer-encoding, body) to a file, so about 1 in sampleEvery responses overall is checked,
 *   after the window, in Node with the verifier's ContractChecker (drivers/checks.ts);
 * - `done()` prints one JSON line (requests, duration, bytes, errors by kind, p50/p90/p95/p99/
 *   p99.9/max, the process's CPU time from /proc/self/stat) and writes wrk's raw latency values
 *   (`latency(i)`: value µs, count) to a file; both processes' values are merged into one HDR
 *   histogram, from which the window's percentiles are read. wrk 4.1's latency statistics are
 *   a sample (each thread's own histogram is resampled into them at its calibrated rate), so
 *   the histogram's counts are not response counts; its percentiles are wrk's own.
 *
 * `findWrk` returns null when wrk is not installed (BENCH_WRK overrides PATH; an empty value
 * means "none", for tests). Rates in requests/s, latencies in ms unless named Us.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import * as hdr from 'hdr-histogram-js';
import type { ConcreteRequest } from '../contract/scenarios.ts';
import type { Profile } from '../core/profiles.ts';
import { type Argv, onPath, pinnedCommand, runTracked } from '../lifecycle/processes.ts';
import { checkSamples, coresOf, type SampledResponse, variantParams } from './checks.ts';
import type { DriverProbe, LoadDriver, LoadJob, LoadOutput, WindowOptions } from './driver-types.ts';

/** The command that installs wrk on Debian/Ubuntu. */
export const WRK_INSTALL = 'apt-get install -y wrk';

/** The wrk binary (BENCH_WRK when set — an empty value means none, for tests — else PATH) and its version, or null. */
export function findWrk(): { bin: string; version: string } | null {
  const bin = process.env.BENCH_WRK !== undefined ? process.env.BENCH_WRK || null : onPath('wrk');
  if (!bin) return null;
  const r = spawnSync(bin, ['-v'], { encoding: 'utf8' });
  if (r.error) return null;
  const version = /wrk\s+(?:debian\/)?(\S+)/.exec(`${r.stdout}${r.stderr}`)?.[1] ?? 'unknown';
  return { bin, version };
}

const MARK = 'BAKEOFF_WRK ';
/** Sampled responses written per thread at most (bounds the files of long windows). */
export const MAX_SAMPLES_PER_THREAD = 20_000;
/** Seconds done() may spend reading wrk's raw latency values before it stops (the histogram is then absent). */
const HISTOGRAM_BUDGET_S = 3;

/** A Lua string literal for `s` (three-digit decimal escapes for quotes, backslashes and everything outside printable ASCII). */
export function luaString(s: string): string {
  return `"${[...Buffer.from(s, 'utf8')].map((b) => (b >= 0x20 && b < 0x7f && b !== 0x22 && b !== 0x5c ? String.fromCharCode(b) : `\\${String(b).padStart(3, '0')}`)).join('')}"`;
}

function luaHeaders(h: Record<string, string>): string {
  return `{${Object.entries(h)
    .map(([k, v]) => `[${luaString(k)}] = ${luaString(v)}`)
    .join(', ')}}`;
}

/** Options of the generated script. */
export interface WrkScriptOptions {
  /** The requests: one (static) or several (drawn at random per request by `request()`). */
  requests: ConcreteRequest[];
  /** Folder for the per-thread sample files and the latency file. */
  dir: string;
  /** Check every N-th response of each thread. */
  sampleEvery: number;
  /** Define `response()` (status counts and sampled checks). false = wrk's own counters only (measuring its cost). */
  responseHook: boolean;
  /**
   * done() writes wrk's raw latency values (the HDR histogram). false when the window's latency is
   * not wanted (WindowOptions.latency): reading a wide histogram value by value is slow, and on a
   * shared client core its CPU-time budget stretches to minutes of wall time.
   */
  histogram?: boolean;
}

/** The Lua script of one window (see the module docstring). */
export function wrkScript(o: WrkScriptOptions): string {
  const [first] = o.requests;
  if (!first) throw new Error('wrkScript: no request to send (requests is empty)');
  const L: string[] = [
    '-- generated by harness/drivers/wrk.ts',
    `local DIR = ${luaString(o.dir)}`,
    `local EVERY = ${Math.max(1, Math.floor(o.sampleEvery))}`,
    `local MAXS = ${MAX_SAMPLES_PER_THREAD}`,
    'tid, seen, non2xx, sampled = 0, 0, 0, 0',
    'local threads = {}',
    'local out = nil',
    `wrk.method = ${luaString(first.method)}`,
    `wrk.path = ${luaString(first.path)}`,
  ];
  for (const [k, v] of Object.entries(first.headers)) L.push(`wrk.headers[${luaString(k)}] = ${luaString(v)}`);
  if (first.body !== undefined) L.push(`wrk.body = ${luaString(first.body)}`);
  L.push(
    'setup = function(thread)',
    '  threads[#threads + 1] = thread',
    '  thread:set("tid", #threads)',
    'end',
    'local reqs, nreq = {}, 0',
    'init = function(args)',
    '  math.randomseed(os.time() * 1000 + tid)',
  );
  if (o.requests.length > 1)
    for (const r of o.requests)
      L.push(
        `  reqs[#reqs + 1] = wrk.format(${luaString(r.method)}, ${luaString(r.path)}, ${luaHeaders(r.headers)}, ${r.body === undefined ? 'nil' : luaString(r.body)})`,
      );
  L.push('  nreq = #reqs');
  if (o.responseHook) L.push('  out = io.open(DIR .. "/samples-" .. tid .. ".bin", "wb")');
  L.push('end');
  if (o.requests.length > 1) L.push('request = function()', '  return reqs[math.random(nreq)]', 'end');
  if (o.responseHook)
    L.push(
      'response = function(status, headers, body)',
      '  seen = seen + 1',
      '  if status < 200 or status > 299 then non2xx = non2xx + 1 end',
      '  if (seen - 1) % EVERY == 0 and sampled < MAXS then',
      '    sampled = sampled + 1',
      '    local ct, cl, te',
      '    for k, v in pairs(headers) do',
      '      local l = string.lower(k)',
      '      if l == "content-type" then ct = v elseif l == "content-length" then cl = v elseif l == "transfer-encoding" then te = v end',
      '    end',
      '    out:write(string.format("%d %d %d %d %d\\n", status, ct and #ct or -1, cl and #cl or -1, te and #te or -1, #body), ct or "", cl or "", te or "", body)',
      '    if sampled % 64 == 0 then out:flush() end',
      '  end',
      'end',
    );
  L.push(
    'local function cpu()',
    '  local f = io.open("/proc/self/stat", "r")',
    '  if not f then return -1, -1 end',
    '  local s = f:read("*a")',
    '  f:close()',
    '  local rest = s:match("%) (.*)$")',
    '  if not rest then return -1, -1 end',
    '  local fields = {}',
    '  for w in rest:gmatch("%S+") do fields[#fields + 1] = w end',
    '  return tonumber(fields[12]) or -1, tonumber(fields[13]) or -1',
    'end',
    'done = function(summary, latency, requests)',
    '  local s, n, sm = 0, 0, 0',
    '  for _, t in ipairs(threads) do',
    '    s = s + (t:get("seen") or 0)',
    '    n = n + (t:get("non2xx") or 0)',
    '    sm = sm + (t:get("sampled") or 0)',
    '  end',
    '  local e = summary.errors',
    '  local ut, st = cpu()',
    '  local P = function(p) return latency:percentile(p) end',
    `  io.write(string.format('${MARK}{"requests":%.0f,"durationUs":%.0f,"bytes":%.0f,"connect":%.0f,"read":%.0f,"write":%.0f,"timeout":%.0f,"status":%.0f,"seen":%.0f,"non2xx":%.0f,"sampled":%.0f,"threads":%d,"meanUs":%.3f,"stdevUs":%.3f,"maxUs":%.0f,"p50Us":%.0f,"p90Us":%.0f,"p95Us":%.0f,"p99Us":%.0f,"p999Us":%.0f,"utimeTicks":%.0f,"stimeTicks":%.0f}\\n',`,
    '    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.timeout, e.status,',
    '    s, n, sm, #threads, latency.mean, latency.stdev, latency.max,',
    '    P(50), P(90), P(95), P(99), P(99.9), ut, st))',
    `  local h = ${o.histogram === false ? 'nil' : 'io.open(DIR .. "/latency.txt", "w")'}`,
    '  if h then',
    '    local t0 = os.clock()',
    '    local count = #latency',
    '    for i = 1, count do',
    // latency(i) = the i-th distinct value (µs) and its count; past the last one it returns 0.
    '      local v, c = latency(i)',
    '      if v == 0 then break end',
    '      h:write(string.format("%.0f %.0f\\n", v, c))',
    `      if os.clock() - t0 > ${HISTOGRAM_BUDGET_S} then h:write("TRUNCATED\\n") break end`,
    '    end',
    '    h:close()',
    '  end',
    'end',
  );
  return `${L.join('\n')}\n`;
}

/** What done() prints. Latencies in µs, CPU time in clock ticks (-1 when unreadable). */
export interface WrkSummary {
  requests: number;
  durationUs: number;
  bytes: number;
  connect: number;
  read: number;
  write: number;
  timeout: number;
  /** wrk's own count: responses with status > 399. */
  status: number;
  /** Responses seen by response() (0 without the hook). */
  seen: number;
  /** Responses with a status outside 200–299 seen by response(). */
  non2xx: number;
  sampled: number;
  threads: number;
  meanUs: number;
  stdevUs: number;
  maxUs: number;
  p50Us: number;
  p90Us: number;
  p95Us: number;
  p99Us: number;
  p999Us: number;
  utimeTicks: number;
  stimeTicks: number;
}

/** Parses done()'s JSON line from wrk's output; throws with the output's tail when it is missing. */
export function parseWrkSummary(output: string): WrkSummary {
  const line = output.split('\n').find((l) => l.startsWith(MARK));
  if (!line) throw new Error(`wrk printed no result line: ${output.slice(-1000).trim()}`);
  return JSON.parse(line.slice(MARK.length));
}

function isFour(xs: number[]): xs is [number, number, number, number] {
  return xs.length === 4;
}

/** Reads one per-thread sample file (the format response() writes). Stops at a truncated record. */
export function readSampleFile(file: string): SampledResponse[] {
  const buf = fs.readFileSync(file);
  const out: SampledResponse[] = [];
  let at = 0;
  while (at < buf.length) {
    const nl = buf.indexOf(10, at);
    if (nl < 0) break;
    const [status = Number.NaN, ...lens] = buf.toString('latin1', at, nl).split(' ').map(Number); // split yields ≥ 1 part
    at = nl + 1;
    const take = (n: number): string | null => {
      if (n < 0) return null;
      const s = buf.toString('utf8', at, at + n);
      at += n;
      return s;
    };
    if (!isFour(lens) || at + lens.reduce((s, n) => s + Math.max(0, n), 0) > buf.length) break;
    const [ctLen, clLen, teLen, bodyLen] = lens;
    const contentType = take(ctLen);
    const contentLength = take(clLen);
    const transferEncoding = take(teLen);
    const body = buf.subarray(at, at + bodyLen);
    at += bodyLen;
    out.push({ status, contentType, contentLength, transferEncoding, body });
  }
  return out;
}

/** The wrk argv of one window (before pinning). */
export function wrkArgv(
  bin: string,
  o: { threads: number; connections: number; durationS: number; timeoutS: number; script: string; url: string },
): Argv {
  const threads = Math.max(1, Math.min(o.threads, o.connections));
  return [
    bin,
    `-t${threads}`,
    `-c${o.connections}`,
    `-d${Math.max(1, Math.round(o.durationS))}s`,
    '--timeout',
    `${o.timeoutS}s`,
    '-s',
    o.script,
    o.url,
  ];
}

/**
 * How a window's connections are split (see the module docstring): `checker` connections run in
 * a second wrk process whose response() checks every `every`-th of its responses, the rest run
 * in the main process without response() (it costs wrk about a third more CPU per response,
 * docs/dev/notes-drivers.md). The overall sampling rate stays about 1/sampleEvery.
 * `mode: 'all'` puts response() on every connection (one process); `'none'` on none.
 */
export function splitConnections(
  connections: number,
  sampleEvery: number,
  mode: 'split' | 'all' | 'none' = 'split',
): { main: number; checker: number; every: number } {
  const n = Math.max(1, Math.floor(sampleEvery));
  if (mode === 'none') return { main: connections, checker: 0, every: n };
  if (mode === 'all') return { main: 0, checker: connections, every: n };
  const checker = Math.min(connections, Math.max(1, Math.round(connections / n)));
  return { main: connections - checker, checker, every: Math.max(1, Math.round((n * checker) / connections)) };
}

interface OneRun {
  summary: WrkSummary;
  samples: SampledResponse[];
  latencyFile: string;
  pid: number | null;
}

/** Runs one wrk process of a window (the main or the checker part). */
async function runOne(
  bin: string,
  dir: string,
  a: {
    requests: ConcreteRequest[];
    url: string;
    connections: number;
    threads: number;
    every: number;
    hook: boolean;
    histogram: boolean;
    durationS: number;
    timeoutS: number;
  },
  o: Pick<WindowOptions, 'cpus' | 'signal' | 'onSpawn'>,
): Promise<OneRun> {
  fs.mkdirSync(dir, { recursive: true });
  const script = path.join(dir, 'window.lua');
  fs.writeFileSync(
    script,
    wrkScript({ requests: a.requests, dir, sampleEvery: a.every, responseHook: a.hook, histogram: a.histogram }),
  );
  const argv = wrkArgv(bin, { ...a, script });
  const [cmd, ...args] = pinnedCommand(o.cpus, argv);
  let pid: number | null = null;
  const { code, output } = await runTracked(cmd, args, {
    signal: o.signal,
    onSpawn: (p) => {
      pid = p;
      o.onSpawn?.(p);
    },
    timeoutMs: (a.durationS + a.timeoutS + 30) * 1000,
  });
  if (o.signal.aborted) throw new Error('wrk run aborted');
  if (code !== 0) throw new Error(`wrk exited with code ${code}: ${output.slice(-1000).trim()}`);
  const summary = parseWrkSummary(output);
  const samples = a.hook
    ? fs
        .readdirSync(dir)
        .filter((f) => f.startsWith('samples-'))
        .flatMap((f) => readSampleFile(path.join(dir, f)))
    : [];
  return { summary, samples, latencyFile: path.join(dir, 'latency.txt'), pid };
}

/** Merges raw latency files into one HDR histogram, or null when one is missing or truncated. */
function mergedHistogram(files: string[]): hdr.Histogram | null {
  const h = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: 120_000_000,
    numberOfSignificantValueDigits: 3,
  });
  for (const file of files) {
    if (!fs.existsSync(file)) return null;
    const lines = fs.readFileSync(file, 'utf8').split('\n').filter(Boolean);
    if (lines.includes('TRUNCATED')) return null;
    for (const l of lines) {
      const [v, c] = l.split(' ').map(Number);
      if (v !== undefined && c !== undefined && c > 0) h.recordValueWithCount(Math.max(1, v), c);
    }
  }
  return h.totalCount > 0 ? h : null;
}

/**
 * Runs one wrk window: the main wrk process (no response()) and the checker process (response()
 * on a few connections) side by side, both pinned to `o.cpus`, then the sampled checks in Node.
 * `checks` chooses the split (splitConnections). Rejects when wrk fails, prints no result or
 * `o.signal` aborts.
 */
export async function runWrkWindow(
  bin: string,
  p: { connections: number; pipelining: number; timeoutS: number },
  job: LoadJob,
  o: WindowOptions & { checks?: 'split' | 'all' | 'none' },
): Promise<LoadOutput> {
  if (p.pipelining > 1)
    throw new Error('wrk sends one request at a time per connection: use autocannon for pipelining');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-wrk-'));
  try {
    const requests = job.variants?.length ? job.variants.map((v) => v.request) : [job.request];
    const split = splitConnections(p.connections, job.sampleEvery, o.checks ?? 'split');
    const [firstRequest = job.request] = requests;
    const url = job.url.replace(/\/$/, '') + firstRequest.path;
    const common = { requests, url, durationS: o.durationS, timeoutS: p.timeoutS, histogram: o.latency !== false };
    const mainThreads = split.main > 0 ? Math.max(1, Math.min(o.threads, split.main)) : 0;
    const runs = await Promise.all([
      split.main > 0
        ? runOne(
            bin,
            path.join(dir, 'main'),
            { ...common, connections: split.main, threads: mainThreads, every: split.every, hook: false },
            o,
          )
        : null,
      split.checker > 0
        ? runOne(
            bin,
            path.join(dir, 'checker'),
            { ...common, connections: split.checker, threads: 1, every: split.every, hook: true },
            // The scheduler samples the main process's CPU; the checker's is added to driverCpuMs.
            { ...o, onSpawn: split.main > 0 ? undefined : o.onSpawn },
          )
        : null,
    ]);
    const parts = runs.filter((r): r is OneRun => r !== null);
    const sum = (f: (s: WrkSummary) => number) => parts.reduce((acc, r) => acc + f(r.summary), 0);
    const [main, checker] = runs;
    const bodyChecks = checker
      ? checkSamples(o.scenario, o.sharedSchemas, variantParams(job), checker.samples)
      : { sampled: 0, mismatched: 0 };
    const durationS = Math.max(...parts.map((r) => r.summary.durationUs)) / 1e6;
    const requests_ = sum((s) => s.requests);
    const ticks = 100; // USER_HZ on Linux
    const cpuKnown = parts.every((r) => r.summary.utimeTicks >= 0);
    const h = mergedHistogram(parts.map((r) => r.latencyFile));
    const leadRun = main ?? checker;
    if (!leadRun) throw new Error('wrk ran no process (0 connections in the window)');
    const lead = leadRun.summary;
    const pct = (q: number, fallbackUs: number) => (h ? h.getValueAtPercentile(q) : fallbackUs) / 1000;
    return {
      driver: 'wrk',
      requestsPerSec: { mean: durationS > 0 ? requests_ / durationS : 0, stddev: 0, samples: [] },
      latencyMs: {
        mean: h ? h.mean / 1000 : lead.meanUs / 1000,
        p50: pct(50, lead.p50Us),
        p90: pct(90, lead.p90Us),
        p95: pct(95, lead.p95Us),
        p99: pct(99, lead.p99Us),
        p999: pct(99.9, lead.p999Us),
        max: Math.max(...parts.map((r) => r.summary.maxUs)) / 1000,
      },
      latencyHistogramUs: h ? hdr.encodeIntoCompressedBase64(h) : null,
      requests: { total: requests_, sent: requests_ },
      errors: sum((s) => s.connect + s.read + s.write),
      timeouts: sum((s) => s.timeout),
      // The checker counts every status outside 2xx (3xx too); the main process only wrk's own > 399.
      non2xx: (main?.summary.status ?? 0) + (checker?.summary.non2xx ?? 0),
      bytes: sum((s) => s.bytes),
      durationS,
      bodyChecks,
      driverCpuMs: cpuKnown
        ? { user: (sum((s) => s.utimeTicks) * 1000) / ticks, system: (sum((s) => s.stimeTicks) * 1000) / ticks }
        : null,
      client: { cores: coresOf(o.cpus), threads: mainThreads + (checker ? 1 : 0) },
    };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** wrk behind the LoadDriver interface (connection profiles only). */
export const wrkDriver: LoadDriver = {
  name: 'wrk',
  interleaves: true,
  probe(): DriverProbe {
    const w = findWrk();
    return w
      ? { name: 'wrk', available: true, version: w.version, why: '', install: WRK_INSTALL }
      : {
          name: 'wrk',
          available: false,
          version: null,
          why: process.env.BENCH_WRK === '' ? 'wrk disabled (BENCH_WRK is empty)' : 'wrk is not installed',
          install: WRK_INSTALL,
        };
  },
  async window(p: Profile, job: LoadJob, o: WindowOptions): Promise<LoadOutput> {
    if (p.driver === 'k6') throw new Error(`wrk runs connection profiles, not the k6 profile ${p.name}`);
    const w = findWrk();
    if (!w) throw new Error(`wrk is not installed (${WRK_INSTALL})`);
    return runWrkWindow(w.bin, p, job, o);
  },
};
