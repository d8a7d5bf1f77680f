/**
 * The Lua script that drives one wrk process of a window (drivers/wrk.ts runs it), and the
 * readers of what it leaves: done()'s JSON line (`parseWrkSummary`) and response()'s sample files
 * (`readSampleFile`).
 *
 * - The request: static (wrk.method, path, headers, body) for one request without pipelining;
 *   else a `request()` hook. With request variants it draws one at random per request; with
 *   pipelining > 1 it returns a batch of `pipelining` requests concatenated (wrk's own pipelining:
 *   wrk counts the requests in the first batch, writes each batch whole and the next only when
 *   every response of the previous one has arrived) and counts its calls per thread.
 * - `response()` (only when asked: it makes wrk hand every header and body to Lua): counts every
 *   response, every non-2xx status, and writes every n-th response to a per-thread sample file.
 *   wrk calls it once per response, pipelined or not.
 * - `done()`: one JSON line (requests, duration, bytes, errors by kind, batches written,
 *   percentiles in µs, the process's CPU ticks from /proc/self/stat) and wrk's raw latency
 *   values (`latency(i)`: value µs, count) into `latency.txt`, within a CPU-time budget.
 */
import fs from 'node:fs';
import type { ConcreteRequest } from '../contract/scenarios.ts';
import type { SampledResponse } from './checks.ts';

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
  /**
   * Requests in flight per connection (the profile's pipelining, default 1). Above 1, `request()`
   * returns `pipelining` requests concatenated (a batch; with variants each drawn at random) and
   * counts its calls, from which done() gives the batches written.
   */
  pipelining?: number;
}

/** The script's request part: the static request, or init() building the variants and the batch, and request(). */
function requestLines(o: WrkScriptOptions, depth: number): string[] {
  const [first] = o.requests;
  if (!first) throw new Error('wrkScript: no request to send (requests is empty)');
  const L: string[] = [`wrk.method = ${luaString(first.method)}`, `wrk.path = ${luaString(first.path)}`];
  for (const [k, v] of Object.entries(first.headers)) L.push(`wrk.headers[${luaString(k)}] = ${luaString(v)}`);
  if (first.body !== undefined) L.push(`wrk.body = ${luaString(first.body)}`);
  const variants = o.requests.length > 1;
  L.push(
    'setup = function(thread)',
    '  threads[#threads + 1] = thread',
    '  thread:set("tid", #threads)',
    'end',
    'local reqs, nreq = {}, 0',
    'local batch, parts = nil, {}',
    'init = function(args)',
    '  math.randomseed(os.time() * 1000 + tid)',
  );
  if (variants)
    for (const r of o.requests)
      L.push(
        `  reqs[#reqs + 1] = wrk.format(${luaString(r.method)}, ${luaString(r.path)}, ${luaHeaders(r.headers)}, ${r.body === undefined ? 'nil' : luaString(r.body)})`,
      );
  L.push('  nreq = #reqs');
  if (depth > 1 && !variants) L.push(`  batch = string.rep(wrk.format(), ${depth})`);
  if (o.responseHook) L.push('  out = io.open(DIR .. "/samples-" .. tid .. ".bin", "wb")');
  L.push('end');
  if (depth > 1 && variants)
    L.push(
      'request = function()',
      '  calls = calls + 1',
      `  for i = 1, ${depth} do parts[i] = reqs[math.random(nreq)] end`,
      '  return table.concat(parts)',
      'end',
    );
  else if (depth > 1) L.push('request = function()', '  calls = calls + 1', '  return batch', 'end');
  else if (variants) L.push('request = function()', '  return reqs[math.random(nreq)]', 'end');
  return L;
}

/** The script's response() hook: counts, non-2xx, every EVERY-th response into the sample file. */
const RESPONSE_LINES = [
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
];

/**
 * The script's done(): the JSON line and the raw latency file. `batches`: the request() calls of
 * every thread less the one wrk makes before the run to count a batch's requests (thread 1's
 * script_verify_request), or -1 without pipelining.
 */
function doneLines(o: WrkScriptOptions, depth: number): string[] {
  return [
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
    '  local s, n, sm, b = 0, 0, 0, 0',
    '  for _, t in ipairs(threads) do',
    '    s = s + (t:get("seen") or 0)',
    '    n = n + (t:get("non2xx") or 0)',
    '    sm = sm + (t:get("sampled") or 0)',
    '    b = b + (t:get("calls") or 0)',
    '  end',
    `  b = ${depth > 1 ? 'b - 1' : '-1'}`,
    '  local e = summary.errors',
    '  local ut, st = cpu()',
    '  local P = function(p) return latency:percentile(p) end',
    `  io.write(string.format('${MARK}{"requests":%.0f,"durationUs":%.0f,"bytes":%.0f,"connect":%.0f,"read":%.0f,"write":%.0f,"timeout":%.0f,"status":%.0f,"seen":%.0f,"non2xx":%.0f,"sampled":%.0f,"batches":%.0f,"threads":%d,"meanUs":%.3f,"stdevUs":%.3f,"maxUs":%.0f,"p50Us":%.0f,"p90Us":%.0f,"p95Us":%.0f,"p99Us":%.0f,"p999Us":%.0f,"utimeTicks":%.0f,"stimeTicks":%.0f}\\n',`,
    '    summary.requests, summary.duration, summary.bytes, e.connect, e.read, e.write, e.timeout, e.status,',
    '    s, n, sm, b, #threads, latency.mean, latency.stdev, latency.max,',
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
  ];
}

/** The Lua script of one wrk process (see the module docstring). Throws when `requests` is empty. */
export function wrkScript(o: WrkScriptOptions): string {
  const depth = Math.max(1, Math.floor(o.pipelining ?? 1));
  const L: string[] = [
    '-- generated by harness/drivers/wrk-script.ts',
    `local DIR = ${luaString(o.dir)}`,
    `local EVERY = ${Math.max(1, Math.floor(o.sampleEvery))}`,
    `local MAXS = ${MAX_SAMPLES_PER_THREAD}`,
    'tid, seen, non2xx, sampled, calls = 0, 0, 0, 0, 0',
    'local threads = {}',
    'local out = nil',
    ...requestLines(o, depth),
    ...(o.responseHook ? RESPONSE_LINES : []),
    ...doneLines(o, depth),
  ];
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
  /** Batches written (pipelining > 1: request() calls less wrk's counting call), else -1. */
  batches: number;
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
