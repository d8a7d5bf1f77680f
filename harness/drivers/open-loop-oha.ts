/**
 * The oha open-loop driver (drivers/open-loop.ts): one step is one run of
 *
 *   oha -z <durationMs>ms -q <rate> --latency-correction -w -c <connections> --no-tui
 *       --output-format json -o <file> -t <timeoutMs>ms --disable-compression
 *       [--worker-threads <cores>] -m <method> [-H 'k: v' …] [-D <body file> | -Z <bodies file>]
 *       (<url> | --urls-from-file <urls file>)
 *
 * What oha 1.16.0 does with it (read from its source, src/lib.rs, src/client.rs, src/printer.rs,
 * and checked against the binary):
 * - `-q` with `-z`: a ticker puts one *scheduled time* every 1/rate s from the start until the
 *   deadline into an unbounded queue; `-c` connection tasks take them in turn. With
 *   `--latency-correction` each latency runs from that scheduled time, so time spent queued
 *   behind busy connections counts (no coordinated omission). No `--burst-*` flags (they
 *   conflict with `-q`).
 * - At the deadline, without `-w` (HTTP/1), every connection task is aborted and reported as the
 *   error "aborted due to deadline" — some idle ones too (15 for 10 in flight, measured), and
 *   the server is left working off the aborted requests into the next step. `-w`
 *   (--wait-ongoing-requests-after-deadline) instead lets each request in flight finish (or time
 *   out, `-t`) and sends nothing more, as k6's graceful stop does; ticks still queued for a
 *   connection are never sent. So `dropped` = `scheduled − responses − errors`, and deadline
 *   aborts (HTTP/2 still reports some) are not counted as errors.
 * - JSON (`--output-format json`): `statusCodeDistribution` {"200": n}, `errorDistribution`
 *   {message: n}, `latencyPercentiles` {"p50", "p90", "p99", …} in *seconds* over every response
 *   (any status; null when there was none), `summary.slowest` (s), `summary.total` (wall s).
 *   `summary.requestsPerSec` counts errors and deadline aborts too, so it is not used.
 * - oha sends `accept` (any type), `user-agent: oha/1.16.0` and, unless `--disable-compression`,
 *   `accept-encoding: gzip, compress, deflate, br`: that flag is set so that no server
 *   compresses for oha alone.
 * - `--worker-threads` (tokio) defaults to the machine's physical cores, not the taskset: it is
 *   set to the pinned cores' count.
 *
 * Variants (`job.variants`, ≥ 2): oha cannot pair a URL with a body, but it can draw one of
 * several URLs (`--urls-from-file`) or one of several bodies (`-Z`, a file of one body per line),
 * uniformly at random per request. So when the variants differ only in path, oha draws the URL;
 * only in a body without line breaks, the body; otherwise oha sends the first variant only and
 * the step's `note` says so.
 *
 * oha is looked up in BENCH_OHA (an explicit path; empty: treat as missing), PATH,
 * `<cacheBin()>/oha` and `<cache>/oha-root/bin/oha` (where `installOha` builds it with cargo).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { type Argv, onPath, pinnedCommand, runTracked } from '../lifecycle/processes.ts';
import { coresOf } from './checks.ts';
import { cacheBin, versionAtLeast } from './k6.ts';
import { childCpuMeter, type OpenLoopDriver, type OpenLoopOutput, type OpenLoopStep } from './open-loop-base.ts';
import type { LoadJob } from './driver-types.ts';

/** The pinned oha release (built from crates.io with `cargo install --locked`); older ones are refused. */
export const OHA_VERSION = '1.16.0';
/** oha's error message for a connection task aborted at the `-z` deadline (src/client.rs ClientError::Deadline). */
export const OHA_DEADLINE_ERROR = 'aborted due to deadline';

/** The cargo install root of the tool cache: `<cacheBin()>/../oha-root` (the binary is `bin/oha` under it). */
export function ohaRoot(): string {
  return path.join(path.dirname(cacheBin()), 'oha-root');
}

/** The command that builds the pinned oha into the tool cache (7–25 min on 2 cores). */
export function ohaInstallCommand(): string {
  return `cargo install oha --version ${OHA_VERSION} --locked --root ${ohaRoot()}`;
}

/** "1.16.0" from `<bin> --version` ("oha 1.16.0"), or null when it does not run. */
export function ohaVersionOf(bin: string): string | null {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 20_000 });
  return /oha (\d+\.\d+\.\d+)/.exec(r.stdout ?? '')?.[1] ?? null;
}

/** What findOha gives: the binary and its version, or null with why; and how to install it. */
export interface OhaFound {
  bin: string | null;
  version: string | null;
  /** Why oha is unavailable ('' when found). */
  why: string;
  /** The exact command that installs it. */
  install: string;
}

/**
 * The oha binary to use: BENCH_OHA (explicit path; set but empty = missing, for tests), else the
 * first of PATH, `<cacheBin()>/oha`, `<ohaRoot()>/bin/oha` whose version is ≥ OHA_VERSION.
 * Never builds (see installOha). Spawns `oha --version` per candidate; see `ohaFound` for the
 * cached form.
 */
export function findOha(): OhaFound {
  const cargo = onPath('cargo');
  const install = cargo
    ? ohaInstallCommand()
    : `install Rust ≥ 1.88 (https://rustup.rs), then ${ohaInstallCommand()}; or put oha ≥ ${OHA_VERSION} on PATH`;
  const ok = (bin: string) => {
    const v = fs.existsSync(bin) ? ohaVersionOf(bin) : null;
    return v && versionAtLeast(v, OHA_VERSION) ? v : null;
  };
  if (process.env.BENCH_OHA !== undefined) {
    const v = process.env.BENCH_OHA ? ok(process.env.BENCH_OHA) : null;
    return v
      ? { bin: process.env.BENCH_OHA, version: v, why: '', install }
      : { bin: null, version: null, why: `BENCH_OHA=${process.env.BENCH_OHA} is not oha ≥ ${OHA_VERSION}`, install };
  }
  const sys = onPath('oha');
  const candidates = [sys, path.join(cacheBin(), 'oha'), path.join(ohaRoot(), 'bin', 'oha')].filter(
    (c): c is string => c !== null,
  );
  for (const c of candidates) {
    const v = ok(c);
    if (v) return { bin: c, version: v, why: '', install };
  }
  const sysNote = sys ? ` (oha on PATH is ${ohaVersionOf(sys) ?? 'unreadable'}, older than ${OHA_VERSION})` : '';
  return {
    bin: null,
    version: null,
    why: `oha ≥ ${OHA_VERSION} not found on PATH, in ${cacheBin()} or ${path.join(ohaRoot(), 'bin')}${sysNote}`,
    install,
  };
}

let cached: { key: string; found: OhaFound } | null = null;

/** findOha cached per BENCH_OHA / PATH / BENCH_TOOLS_DIR / XDG_CACHE_HOME (a step must not spawn `oha --version` each time). */
export function ohaFound(): OhaFound {
  const e = process.env;
  const key = [e.BENCH_OHA ?? '\u0000', e.PATH, e.BENCH_TOOLS_DIR, e.XDG_CACHE_HOME].join('|');
  if (cached?.key !== key) cached = { key, found: findOha() };
  return cached.found;
}

/**
 * Builds the pinned oha into the tool cache when it is missing and cargo is on PATH: runs
 * `cargo install oha --version OHA_VERSION --locked --root <ohaRoot()>` (7–25 minutes on 2
 * cores; cargo's progress goes to this process's stderr), then looks again. Returns findOha's
 * answer; `why` says what failed (no cargo, or the build's exit code). Never throws.
 */
export function installOha(log: (l: string) => void): OhaFound {
  const before = findOha();
  if (before.bin) return before;
  const cargo = onPath('cargo');
  if (!cargo) return { ...before, why: `${before.why}; cargo is not installed` };
  log(
    `building oha ${OHA_VERSION} with cargo into ${ohaRoot()} (7 minutes here on 2 cores, up to ~25 on a busy host; once)…`,
  );
  fs.mkdirSync(ohaRoot(), { recursive: true });
  const r = spawnSync(cargo, ['install', 'oha', '--version', OHA_VERSION, '--locked', '--root', ohaRoot()], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  cached = null;
  const after = findOha();
  if (after.bin) return after;
  return { ...after, why: `${ohaInstallCommand()} failed (exit ${r.status ?? r.signal}); ${after.why}` };
}

/**
 * oha's arguments for the request part of a step: method, headers, body and URL (files written
 * into `dir`), and a note when oha cannot send the variants as asked (see the module comment).
 */
export function ohaRequestArgs(job: LoadJob, dir: string): { args: string[]; note?: string } {
  const variants = job.variants && job.variants.length > 1 ? job.variants.map((v) => v.request) : null;
  const first = variants?.[0] ?? job.request;
  const args = ['-m', first.method];
  for (const [k, v] of Object.entries(first.headers)) args.push('-H', `${k}: ${v}`);
  const sameExcept = (key: 'path' | 'body') =>
    (variants ?? []).every(
      (r) =>
        r.method === first.method &&
        JSON.stringify(r.headers) === JSON.stringify(first.headers) &&
        (key === 'path' || r.path === first.path) &&
        (key === 'body' || r.body === first.body),
    );
  const bodyFile = (body: string) => {
    const f = path.join(dir, 'body');
    fs.writeFileSync(f, body);
    return ['-D', f];
  };
  const url = (p: string) => job.url.replace(/\/$/, '') + p;
  if (variants && sameExcept('path')) {
    const f = path.join(dir, 'urls.txt');
    fs.writeFileSync(f, `${variants.map((r) => url(r.path)).join('\n')}\n`);
    if (first.body !== undefined) args.push(...bodyFile(first.body));
    args.push('--urls-from-file', f);
    return { args };
  }
  if (variants && sameExcept('body') && variants.every((r) => r.body !== undefined && !/[\r\n]/.test(r.body))) {
    const f = path.join(dir, 'bodies.txt');
    fs.writeFileSync(f, `${variants.map((r) => r.body).join('\n')}\n`);
    args.push('-Z', f, url(first.path));
    return { args };
  }
  if (first.body !== undefined) args.push(...bodyFile(first.body));
  args.push(url(first.path));
  return variants
    ? {
        args,
        note: `oha sent only the first of ${variants.length} request variants (they differ in more than the path or a one-line body)`,
      }
    : { args };
}

/** The whole oha command line of a step (without taskset), writing its JSON to `outFile`. */
export function ohaArgv(bin: string, job: LoadJob, o: OpenLoopStep, dir: string, outFile: string) {
  const req = ohaRequestArgs(job, dir);
  const argv: Argv = [
    bin,
    '-z',
    `${Math.max(1, Math.round(o.durationS * 1000))}ms`,
    '-q',
    String(o.rate),
    '--latency-correction',
    '-w',
    '-c',
    String(Math.max(1, Math.floor(o.connections))),
    '--no-tui',
    '--output-format',
    'json',
    '-o',
    outFile,
    '-t',
    `${Math.max(1, Math.round(o.timeoutS * 1000))}ms`,
    '--disable-compression',
    ...(o.cpus ? ['--worker-threads', String(coresOf(o.cpus))] : []),
    ...req.args,
  ];
  return { argv, note: req.note };
}

const num = (x: unknown): number => (typeof x === 'number' && Number.isFinite(x) ? x : 0);
const total = (m: Record<string, unknown>) => Object.values(m).reduce<number>((a, n) => a + num(n), 0);

/**
 * Maps oha's JSON (`--output-format json`, see the module comment) of one step to an
 * OpenLoopOutput: latencies from `latencyPercentiles` p50/p90/p99 and `summary.slowest`, seconds
 * to ms (0 when there was no response: look at `responses`); `errors` = every
 * `errorDistribution` entry but the deadline aborts; `scheduled` = round(rate × durationS);
 * `achievedRps` = 2xx responses ÷ `step.durationS`.
 */
export function ohaOpenLoopOutput(
  json: unknown,
  step: Pick<OpenLoopStep, 'rate' | 'durationS'>,
  driverCpuMs: number | null,
): OpenLoopOutput {
  const j = (json ?? {}) as {
    summary?: { slowest?: unknown; total?: unknown };
    latencyPercentiles?: Record<string, unknown>;
    statusCodeDistribution?: Record<string, unknown>;
    errorDistribution?: Record<string, unknown>;
  };
  const status = j.statusCodeDistribution ?? {};
  const errs = j.errorDistribution ?? {};
  const responses = total(status);
  const ok = Object.entries(status).reduce((a, [code, n]) => (/^2\d\d$/.test(code) ? a + num(n) : a), 0);
  const errors = total(errs) - num(errs[OHA_DEADLINE_ERROR]);
  const scheduled = Math.round(step.rate * step.durationS);
  const pct = j.latencyPercentiles ?? {};
  const ms = (s: unknown) => num(s) * 1000;
  return {
    driver: 'oha',
    rate: step.rate,
    scheduled,
    responses,
    achievedRps: step.durationS > 0 ? ok / step.durationS : 0,
    latencyMs: {
      p50: ms(pct.p50),
      p90: ms(pct.p90),
      p99: ms(pct.p99),
      max: responses ? ms(j.summary?.slowest) : 0,
    },
    errors,
    non2xx: responses - ok,
    dropped: Math.max(0, scheduled - responses - errors),
    durationS: num(j.summary?.total),
    driverCpuMs,
  };
}

/** oha behind the OpenLoopDriver interface (see the module comment). */
export const ohaOpenLoop: OpenLoopDriver = {
  name: 'oha',
  version() {
    const f = ohaFound();
    return f.bin ? `oha ${f.version}` : null;
  },
  /** Runs one step; rejects when oha is missing or fails, `o.rate` is not positive, or `o.signal` aborts. */
  async step(job: LoadJob, o: OpenLoopStep): Promise<OpenLoopOutput> {
    // -q 0 would make oha run closed-loop (no rate limit).
    if (!(o.rate > 0) || !(o.durationS > 0)) throw new Error('an open-loop step needs rate > 0 and durationS > 0');
    const f = ohaFound();
    if (!f.bin) throw new Error(`oha not available: ${f.why}; install: ${f.install}`);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-oha-'));
    const meter = childCpuMeter();
    try {
      const outFile = path.join(dir, 'oha.json');
      const { argv, note } = ohaArgv(f.bin, job, o, dir, outFile);
      const [cmd, ...args] = pinnedCommand(o.cpus, argv);
      const { code, output, timedOut } = await runTracked(cmd, args, {
        signal: o.signal,
        onSpawn: (pid) => {
          meter.watch(pid);
          o.onSpawn?.(pid);
        },
        timeoutMs: (o.durationS + o.timeoutS + 60) * 1000,
      });
      const cpu = meter.stop();
      if (o.signal.aborted) throw new Error('load run aborted');
      if (timedOut) throw new Error(`oha did not finish within ${o.durationS + o.timeoutS + 60} s`);
      if (code !== 0 || !fs.existsSync(outFile) || fs.statSync(outFile).size === 0)
        throw new Error(`oha exited with code ${code} and wrote no JSON: ${output.slice(-2000)}`);
      const out = ohaOpenLoopOutput(JSON.parse(fs.readFileSync(outFile, 'utf8')), o, cpu);
      return note ? { ...out, note } : out;
    } finally {
      meter.stop();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  },
};
