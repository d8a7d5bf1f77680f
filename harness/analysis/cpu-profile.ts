/**
 * CPU profiles of a cell (issue "Why a stack is slow"): parse the V8 `.cpuprofile` that Node writes
 * with `--cpu-prof`, give each sample's self time to a bucket (an npm package, a workspace library,
 * the contender's own code, a group of Node's own modules, or the runtime), and turn two
 * attributions into CPU per request and the difference between two stacks. Numbers only: the
 * sentences belong to report/.
 *
 * The format (Chrome DevTools protocol, `Profiler.Profile`): `{ nodes: [{ id, callFrame:
 * { functionName, url, lineNumber, columnNumber, scriptId }, hitCount?, children? }], startTime,
 * endTime, samples: [nodeId…], timeDeltas: [µs…] }`. Times are µs on the V8 clock, which on
 * Linux is CLOCK_MONOTONIC: the same clock as `process.hrtime` in any process on the machine
 * (checked on Node 24: a profile's `startTime` lies within 1 ms of the `hrtime` µs read just
 * before `Profiler.start`), so a harness can cut a whole-process profile to a measured window
 * with its own `process.hrtime.bigint() / 1000n` readings (`window` below).
 *
 * Self time of a sample (the speedscope convention, jlfwong/speedscope src/import/chrome.ts
 * `importFromChromeCPUProfile`: "const timeDelta = timeDeltas[i + 1]"): sample i happens at
 * t_i = startTime + timeDeltas[0] + … + timeDeltas[i] and lasts until the next sample,
 * d_i = timeDeltas[i + 1]; the last sample lasts until `endTime` (speedscope gives it 0; we close
 * it at the profile's end). Negative deltas count as 0 (as speedscope does). So the self times of
 * all samples add up to endTime − t_0.
 *
 * Limits (seen on Node 24.21): the sampler measures wall time of the main thread only (no worker
 * threads, no libuv pool); time in which the thread was runnable but preempted by another
 * process counts as busy and goes to whatever was on the stack, so a shared machine adds noise
 * to short windows. A function that V8's Maglev tier inlined into its caller is not seen: its
 * time goes to the caller (a package's small helper inlined into contender code shows up as
 * contender code); TurboFan-inlined frames are kept.
 *
 * Errors: the public functions never throw on a bad profile; they return `{ ok: false, reason }`
 * where reason reads "no profile: <why>".
 */
import fs from 'node:fs';
import { fileURLToPath } from 'node:url';
import { z } from 'zod';

const CallFrameSchema = z.object({
  functionName: z.string(),
  url: z.string(),
  lineNumber: z.number().int(),
  columnNumber: z.number().int(),
  scriptId: z.union([z.string(), z.number()]),
});

const NodeSchema = z.object({
  id: z.number().int(),
  callFrame: CallFrameSchema,
  hitCount: z.number().int().nonnegative().optional(),
  children: z.array(z.number().int()).optional(),
});

/** The zod schema of a V8 `.cpuprofile` (unknown extra fields such as positionTicks are kept out). */
export const CpuProfileSchema = z.object({
  nodes: z.array(NodeSchema).min(1),
  startTime: z.number(),
  endTime: z.number(),
  samples: z.array(z.number().int()),
  timeDeltas: z.array(z.number()),
});

/** A parsed and checked `.cpuprofile`. */
export type CpuProfile = z.infer<typeof CpuProfileSchema>;
/** One frame of a profile node: `url` is `file:///…`, a plain path, `node:…`, or '' (native). */
export type CallFrame = z.infer<typeof CallFrameSchema>;

/** A profile, or why there is none ("no profile: …"). */
export type ProfileResult = { ok: true; profile: CpuProfile } | { ok: false; reason: string };

const noProfile = (why: string): { ok: false; reason: string } => ({ ok: false, reason: `no profile: ${why}` });

/**
 * Parses and checks the text of a `.cpuprofile`. Besides the schema: samples and timeDeltas
 * have the same length, every sample names a node, node ids are unique, endTime ≥ startTime.
 * Never throws.
 */
export function parseCpuProfile(text: string): ProfileResult {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    const empty = text.trim() === '';
    return noProfile(empty ? 'the file is empty' : `the file is not valid JSON (truncated?): ${(e as Error).message}`);
  }
  const r = CpuProfileSchema.safeParse(raw);
  if (!r.success) {
    const i = r.error.issues[0];
    return noProfile(`not a V8 CPU profile: ${i?.path.join('.') || '(top level)'}: ${i?.message ?? 'invalid'}`);
  }
  const p = r.data;
  if (p.samples.length !== p.timeDeltas.length) {
    return noProfile(`${p.samples.length} samples but ${p.timeDeltas.length} timeDeltas`);
  }
  if (p.endTime < p.startTime) return noProfile(`endTime ${p.endTime} is before startTime ${p.startTime}`);
  const ids = new Set<number>();
  for (const n of p.nodes) {
    if (ids.has(n.id)) return noProfile(`node id ${n.id} appears twice`);
    ids.add(n.id);
  }
  for (const s of p.samples) if (!ids.has(s)) return noProfile(`a sample names node ${s}, which is not in nodes`);
  return { ok: true, profile: p };
}

/** Reads and parses a `.cpuprofile` file (see parseCpuProfile). Never throws: a missing or unreadable file is a reason. */
export function readCpuProfile(file: string): ProfileResult {
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    return noProfile(`cannot read ${file}: ${err.code ?? err.message}`);
  }
  return parseCpuProfile(text);
}

/** A time window on the profile's clock, µs (CLOCK_MONOTONIC; see the module comment). */
export interface Window {
  fromUs: number;
  toUs: number;
}

/**
 * Self time per node id, µs: each sample's duration (module comment) goes to its node. With a
 * `window`, only the part of each sample's interval inside [fromUs, toUs) counts, so the sum is
 * the overlap of the window with the profile.
 */
export function selfTimes(p: CpuProfile, window?: Window): Map<number, number> {
  const out = new Map<number, number>();
  let t = p.startTime;
  // samples and timeDeltas have the same length (checked by parseCpuProfile)
  const times = p.samples.map((_, i) => {
    t += Math.max(0, p.timeDeltas[i] ?? 0);
    return t;
  });
  for (const [i, node] of p.samples.entries()) {
    const start = times[i] ?? t;
    const end = times[i + 1] ?? Math.max(start, p.endTime);
    const d = window ? Math.max(0, Math.min(end, window.toUs) - Math.max(start, window.fromUs)) : end - start;
    if (d > 0) out.set(node, (out.get(node) ?? 0) + d);
  }
  return out;
}

/** What a bucket is: npm package, workspace library, contender code, Node module group, runtime, other. */
export type BucketKind = 'package' | 'workspace' | 'contender' | 'node' | 'runtime' | 'other';

/** Where the contender lives, to tell its own code from everything else. */
export interface AttributionContext {
  /** Absolute folder of the contender (files under it that are not in node_modules = contender code). */
  contenderDir?: string;
}

/** Bucket of the contender's own code. */
export const CONTENDER_BUCKET = '(contender code)';
/** Bucket of native functions with no url: V8 builtins and Node's C++ bindings (e.g. writeUtf8String). */
export const NATIVE_BUCKET = '(native)';
/** The runtime's pseudo-frames, kept as their own buckets. */
const RUNTIME_FRAMES = new Set(['(garbage collector)', '(program)', '(idle)', '(root)']);

/**
 * Node's own modules in readable groups (first match wins); any other `node:` module is
 * `node:other`, and a bundled dependency `node:internal/deps/<name>/…` is `node:deps/<name>`
 * (e.g. `node:deps/undici`: the fetch of Node itself).
 */
const NODE_GROUPS: [RegExp, string][] = [
  [/^internal\/deps\/([^/]+)/, 'node:deps/$1'],
  [/^(_http_|https?$|internal\/http)/, 'node:http'],
  [/^(http2$|internal\/http2)/, 'node:http'],
  [/^(tls$|_tls_|internal\/tls)/, 'node:tls'],
  [/^(net$|internal\/net$|internal\/stream_base_commons|dns$|internal\/dns)/, 'node:net'],
  [/^(stream$|_stream_|internal\/streams\/|internal\/webstreams\/|stream\/)/, 'node:streams'],
  [/^(timers$|internal\/timers|timers\/)/, 'node:timers'],
  [/^(events$|internal\/event_target)/, 'node:events'],
  [/^(buffer$|internal\/buffer|string_decoder$|internal\/encoding|internal\/util\/inspect)/, 'node:buffer'],
  [/^(internal\/async_hooks|async_hooks$|internal\/process\/task_queues|internal\/process\/promises)/, 'node:async'],
  [/^(internal\/bootstrap\/|internal\/modules\/|internal\/main\/)/, 'node:modules'],
  // crypto: an ETag's hash (express's `etag` hashes every body with sha1) is CPU that belongs here.
  [/^(crypto$|internal\/crypto\/)/, 'node:crypto'],
];

function nodeBucket(mod: string): string {
  for (const [re, name] of NODE_GROUPS) {
    const m = re.exec(mod);
    if (m) return name.replace('$1', m[1] ?? '');
  }
  return 'node:other';
}

function urlPath(url: string): string | null {
  if (url.startsWith('file://')) {
    try {
      return fileURLToPath(url);
    } catch {
      return null;
    }
  }
  return url.startsWith('/') ? url : null;
}

/**
 * The bucket of one frame. Rules, in order:
 * 1. runtime pseudo-frames `(garbage collector)`, `(program)`, `(idle)`, `(root)` → themselves;
 * 2. empty url → `(native)`;
 * 3. `node:<module>` → a Node group (NODE_GROUPS);
 * 4. a file path with a `node_modules/` segment → the package after the LAST one
 *    (`node_modules/@scope/name/…` → `@scope/name`);
 * 5. a path segment `_lib-<name>` (the workspace libraries contenders/_lib-*) → `@bakeoff/lib-<name>`;
 * 6. a path under `ctx.contenderDir` → `(contender code)`;
 * 7. anything else → `(other files)` for file paths, `(other)` for other urls (eval, wasm…).
 */
export function bucketOf(frame: CallFrame, ctx: AttributionContext = {}): { bucket: string; kind: BucketKind } {
  const { functionName, url } = frame;
  if (url === '' && RUNTIME_FRAMES.has(functionName)) return { bucket: functionName, kind: 'runtime' };
  if (url === '') return { bucket: NATIVE_BUCKET, kind: 'runtime' };
  if (url.startsWith('node:')) return { bucket: nodeBucket(url.slice(5)), kind: 'node' };
  const file = urlPath(url);
  if (file === null) return { bucket: '(other)', kind: 'other' };
  const parts = file.split(/[\\/]/);
  const nm = parts.lastIndexOf('node_modules');
  if (nm >= 0 && nm + 1 < parts.length) {
    const first = parts[nm + 1] ?? '';
    const name = first.startsWith('@') && nm + 2 < parts.length ? `${first}/${parts[nm + 2]}` : first;
    return { bucket: name, kind: 'package' };
  }
  const lib = parts.findLast((s) => s.startsWith('_lib-') && s.length > 5);
  if (lib) return { bucket: `@bakeoff/lib-${lib.slice(5)}`, kind: 'workspace' };
  if (ctx.contenderDir) {
    const dir = ctx.contenderDir.replace(/[\\/]+$/, '');
    if (file === dir || file.startsWith(`${dir}/`)) return { bucket: CONTENDER_BUCKET, kind: 'contender' };
  }
  return { bucket: '(other files)', kind: 'other' };
}

/** One bucket's self time. */
export interface BucketTime {
  bucket: string;
  kind: BucketKind;
  /** Self time, µs. */
  selfUs: number;
  /** selfUs / busyUs, in [0, 1]; null for `(idle)` (not part of the denominator) and when busyUs is 0. */
  share: number | null;
}

/** The self time of a profile (or of a window of it) by bucket. */
export interface Attribution {
  /** Every counted sample's time, µs (the window's overlap with the profile when a window was given). */
  wallUs: number;
  /** Time in `(idle)`, µs: the event loop waiting in epoll, not CPU. */
  idleUs: number;
  /** wallUs − idleUs: the main thread's busy (CPU) time, µs; the denominator of `share`. */
  busyUs: number;
  /** Number of samples taken (with a window: whose timestamp lies in it). */
  samples: number;
  /** Buckets by selfUs, largest first (ties by name); `(idle)` included with share null. */
  buckets: BucketTime[];
}

/**
 * Attributes a profile's self time to buckets (see bucketOf). Shares are of the busy time: the
 * total without `(idle)`, because idle time is the thread waiting for I/O, which grows with
 * less load and is no CPU cost. `(program)` (V8 and Node native work outside JS, e.g. the
 * libuv loop and syscalls) and `(garbage collector)` count as busy. Note: a `--cpu-prof`
 * profile sees the main thread only (no worker threads, no libuv thread pool).
 */
export function attribute(p: CpuProfile, ctx: AttributionContext = {}, window?: Window): Attribution {
  const self = selfTimes(p, window);
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  const acc = new Map<string, { kind: BucketKind; us: number }>();
  let wall = 0;
  let idle = 0;
  for (const [id, us] of self) {
    const node = byId.get(id);
    if (!node) continue;
    const { bucket, kind } = bucketOf(node.callFrame, ctx);
    const a = acc.get(bucket) ?? { kind, us: 0 };
    a.us += us;
    acc.set(bucket, a);
    wall += us;
    if (bucket === '(idle)') idle += us;
  }
  const busy = wall - idle;
  const buckets: BucketTime[] = [...acc]
    .map(([bucket, a]) => ({
      bucket,
      kind: a.kind,
      selfUs: a.us,
      share: bucket === '(idle)' || busy <= 0 ? null : a.us / busy,
    }))
    .sort((a, b) => b.selfUs - a.selfUs || (a.bucket < b.bucket ? -1 : a.bucket > b.bucket ? 1 : 0));
  const samples = countSamples(p, window);
  return { wallUs: wall, idleUs: idle, busyUs: busy, samples, buckets };
}

function countSamples(p: CpuProfile, window?: Window): number {
  if (!window) return p.samples.length;
  let t = p.startTime;
  let c = 0;
  for (let i = 0; i < p.samples.length; i++) {
    t += Math.max(0, p.timeDeltas[i] ?? 0);
    if (t >= window.fromUs && t < window.toUs) c++;
  }
  return c;
}

/**
 * CPU per request, as INTEGER nanoseconds per request (rounded to nearest) so that sums and
 * differences are exact: `totalNs` = round(busyUs × 1000 / requests) (the measured busy CPU per
 * request; `(idle)` left out) and each bucket's ns likewise. Σ buckets[].ns may differ from
 * totalNs by the rounding (at most half a ns per bucket); diffPerRequest puts that in its remainder.
 */
export interface PerRequest {
  /** Requests the server completed in the profiled window. */
  requests: number;
  /** Busy CPU ns per request (rounded). */
  totalNs: number;
  /** By bucket, largest first; idle excluded. */
  buckets: { bucket: string; kind: BucketKind; ns: number }[];
}

/**
 * CPU per request of an attribution whose window served `requests` requests (see PerRequest).
 * Throws RangeError when `requests` is not a positive finite number (no requests, no
 * per-request figure: check before calling).
 */
export function cpuPerRequest(a: Attribution, requests: number): PerRequest {
  if (!(requests > 0) || !Number.isFinite(requests)) {
    throw new RangeError(`cpuPerRequest: requests must be a positive number, got ${requests}`);
  }
  const buckets = a.buckets
    .filter((b) => b.bucket !== '(idle)')
    .map((b) => ({ bucket: b.bucket, kind: b.kind, ns: Math.round((b.selfUs * 1000) / requests) }));
  const totalNs = Math.round((a.busyUs * 1000) / requests);
  return { requests, totalNs, buckets };
}

/** One line of a difference between two stacks: ns per request of A, of B, and A − B. */
export interface DiffPart {
  bucket: string;
  kind: BucketKind;
  aNs: number;
  bNs: number;
  diffNs: number;
}

/** The difference A − B in CPU per request, explained by bucket. */
export interface StackDiff {
  /** Busy ns/request of A and of B, and A − B (= Σ parts[].diffNs + remainderNs, exactly). */
  aTotalNs: number;
  bTotalNs: number;
  diffNs: number;
  /** The `top` buckets with the largest |A − B|, largest first (ties by name). */
  parts: DiffPart[];
  /**
   * diffNs − Σ parts[].diffNs: the buckets not listed plus the rounding of the per-bucket
   * figures (a few ns when every bucket is listed).
   */
  remainderNs: number;
  /** How many buckets the remainder holds. */
  remainderBuckets: number;
}

/**
 * Difference between two stacks' CPU per request (A − B), by bucket, sorted by |contribution|.
 * A bucket missing on one side counts 0 there. With `top` (default: all), only the `top`
 * largest parts are listed and the rest goes to the remainder. All figures are integers (ns
 * per request), so Σ parts[].diffNs + remainderNs === diffNs === aTotalNs − bTotalNs exactly
 * (the measured difference in busy CPU per request, rounded to the ns).
 */
export function diffPerRequest(a: PerRequest, b: PerRequest, top = Number.POSITIVE_INFINITY): StackDiff {
  const all = new Map<string, DiffPart>();
  for (const x of a.buckets) all.set(x.bucket, { bucket: x.bucket, kind: x.kind, aNs: x.ns, bNs: 0, diffNs: 0 });
  for (const y of b.buckets) {
    const d = all.get(y.bucket) ?? { bucket: y.bucket, kind: y.kind, aNs: 0, bNs: 0, diffNs: 0 };
    d.bNs = y.ns;
    all.set(y.bucket, d);
  }
  const parts = [...all.values()]
    .map((d) => ({ ...d, diffNs: d.aNs - d.bNs }))
    .sort(
      (x, y) => Math.abs(y.diffNs) - Math.abs(x.diffNs) || (x.bucket < y.bucket ? -1 : x.bucket > y.bucket ? 1 : 0),
    );
  const shown = parts.slice(0, Math.max(0, top));
  const rest = parts.slice(shown.length);
  const diffNs = a.totalNs - b.totalNs;
  const remainderNs = diffNs - shown.reduce((s, d) => s + d.diffNs, 0);
  return { aTotalNs: a.totalNs, bTotalNs: b.totalNs, diffNs, parts: shown, remainderNs, remainderBuckets: rest.length };
}

/** The sampler check of a why run (lifecycle/sampler-probe.ts): shares of the probe's loop, 0–1. */
export interface SamplerBias {
  /** Share of the loop's wall time in the system call: passes × its cost alone ÷ the loop's time. */
  timeShare: number;
  /** Share of the loop's profiled time (samples weighted by their durations) in the call's native frame. */
  sampleShare: number;
  /** Profile samples inside the loop. */
  samples: number;
}

/** sampleShare ÷ timeShare above which a why run says its sampler favours system calls. */
export const SAMPLER_BIAS_LIMIT = 3;

/**
 * The sampler check's figures from the probe's profile and printout (lifecycle/sampler-probe.ts):
 * the call is `process.cpuUsage`'s native frame (function `cpuUsage`, no script url). Throws
 * RangeError when the loop has no samples or no time.
 */
export function samplerBias(
  p: CpuProfile,
  probe: { fromUs: number; toUs: number; passes: number; callNs: number },
): SamplerBias {
  const window = { fromUs: probe.fromUs, toUs: probe.toUs };
  const loopUs = probe.toUs - probe.fromUs;
  const self = selfTimes(p, window);
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  let all = 0;
  let call = 0;
  for (const [id, us] of self) {
    all += us;
    const f = byId.get(id)?.callFrame;
    if (f && f.url === '' && f.functionName === 'cpuUsage') call += us;
  }
  const samples = countSamples(p, window);
  if (!(loopUs > 0) || !(all > 0) || samples === 0)
    throw new RangeError(`the sampler probe's loop has no profiled time (${samples} samples in ${loopUs} µs)`);
  return { timeShare: Math.min(1, (probe.passes * probe.callNs) / 1000 / loopUs), sampleShare: call / all, samples };
}
