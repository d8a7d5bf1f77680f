/**
 * Study: what does being paused cost a server per request? The interleaved rounds
 * (scheduler/interleave.ts) keep every server but one paused and resume each for 100 ms slices, so
 * in a 14-server table a server runs about 1 s in 14. This study takes one server alone and
 * compares its requests per CPU-second under continuous load with the same under that duty cycle.
 * Writes nothing under results/; prints one line per window and the ratio per pair.
 *
 * Design: one process per contender in turn, on CPU 1 (`taskset`), started with `--trace-gc` (and
 * any extra V8 flags given), warmed `WARM_S` s by wrk (1 thread, 100 connections, CPU 0, GET
 * /json); then `pairs` pairs of windows in the order CD, DC, CD … (a linear drift cancels over
 * two pairs): C, a continuous `C_S` s window; D, a duty-cycled window of `--cycles` cycles of
 * `--on` ms running and `--off` ms stopped (SIGSTOP/SIGCONT, wrk kept running; wrk is stopped by
 * SIGINT while the server is stopped, so its count holds only answered requests). Per window:
 * requests (wrk's count), the server's CPU-seconds (`/proc/<pid>/stat` utime + stime), requests
 * per CPU-second, and per 1,000 requests the scavenges, mark-compacts and their main-thread pause
 * in ms (the trace's lines, by their ms stamps, which a stopped process's clock keeps counting); per contender the ratio D ÷ C per pair and their
 * geometric mean with a 95% CI.
 *
 * Fillers (`--fillers none,spin,mem`): what runs on CPU 1 while the server is stopped. `none` leaves
 * the core idle; `spin` runs a loop that touches no memory (the core stays busy, its caches stay
 * the server's); `mem` runs a loop over a 64 MiB array at random (the core stays busy and its
 * caches and TLB are the filler's when the server resumes), as the other servers of a table do.
 * With several arms (fillers × pauses) a pair becomes a block of C and one D per arm, each D
 * divided by its block's C; the block's order is rotated per block when there are several
 * fillers, else reversed every other block. Per window it also prints the server's user and
 * system CPU per 1,000 requests (ms) and its main thread's share of its CPU.
 *
 * Pauses (`--pauses signal,freezer`): how the server is stopped. `signal` sends SIGSTOP/SIGCONT;
 * `freezer` writes its cgroup v2 `cgroup.freeze` (a folder of its own under the unified tree), as
 * the harness does (lifecycle/cgroups.ts). Every pause is tried with every filler. With the
 * freezer, each window also prints the CPU by the cgroup's `cpu.stat` beside /proc's.
 *
 * Run: `node scripts/studies/pause-duty-cycle.ts [--pairs 8] [--on 100] [--off 1300] [--cycles 15]
 * [--fillers none] [--pauses signal] [--flags=--no-memory-reducer] node-http hono nestjs-fastify-undici` (needs wrk and built
 * contenders; a contender whose manifest does not start with `node <file>` is refused). Throws on a server that does not answer GET /ping within 10 s.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import {
  collections,
  procCpu,
  ratioSummary,
  ready,
  requestsOf,
  runWrk,
  startTraced,
  type TracedServer,
  wrkArgs,
} from './traced-server.ts';

const WARM_S = 20;
const C_S = 4;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The server's CPU so far, s: user, system, and its main thread's user + system (taskset exec'd node, so the pid is node's). */
function cpu(s: TracedServer): { user: number; sys: number; main: number } {
  const m = procCpu(s.pid, s.pid);
  return { ...procCpu(s.pid), main: m.user + m.sys };
}

/** How the server is stopped (see the module's doc). */
type PauseKind = 'signal' | 'freezer';
const UNIFIED = '/sys/fs/cgroup/unified';

/** A cgroup v2 folder holding the server alone (throws when the unified tree is not writable). */
function serverCgroup(s: TracedServer): string {
  const root = fs.existsSync(path.join(UNIFIED, 'cgroup.procs')) ? UNIFIED : '/sys/fs/cgroup';
  const dir = path.join(root, `pause-duty-cycle-${process.pid}-${s.name}`);
  fs.mkdirSync(dir);
  fs.writeFileSync(path.join(dir, 'cgroup.procs'), String(s.pid));
  return dir;
}

/** The cgroup's CPU so far (`cpu.stat` usage_usec), s. */
function cgroupCpuS(dir: string): number {
  return Number(/usage_usec (\d+)/.exec(fs.readFileSync(path.join(dir, 'cpu.stat'), 'utf8'))?.[1]) / 1e6;
}

/** What runs on CPU 1 while the server is stopped (see the module's doc). */
type Filler = 'none' | 'spin' | 'mem';
const FILLER_CODE: Record<Exclude<Filler, 'none'>, string> = {
  spin: 'let x = 0; for (;;) x = (x * 1103515245 + 12345) >>> 0;',
  mem: 'const b = new Uint32Array(16 << 20); let x = 1; for (;;) { x = (x * 1103515245 + 12345) >>> 0; b[x >>> 8]++; }',
};

/** Starts a filler on CPU 1, stopped; null for `none`. */
function startFiller(kind: Filler): ChildProcess | null {
  if (kind === 'none') return null;
  const c = spawn('taskset', ['-c', '1', process.execPath, '-e', FILLER_CODE[kind]], { stdio: 'ignore' });
  if (c.pid === undefined) throw new Error(`the ${kind} filler did not start`);
  return c;
}

/**
 * A duty-cycled window: wrk runs throughout; the server runs `on` ms in every `on + off`, and the
 * filler (if any) runs while it is stopped; requests answered.
 */
async function dutyWindow(
  s: TracedServer,
  on: number,
  off: number,
  cycles: number,
  filler: ChildProcess | null,
  cgroup: string | null,
): Promise<number> {
  const fill = (run: boolean) => filler?.kill(run ? 'SIGCONT' : 'SIGSTOP');
  const stop = (on: boolean) =>
    cgroup
      ? fs.writeFileSync(path.join(cgroup, 'cgroup.freeze'), on ? '1' : '0')
      : process.kill(s.pid, on ? 'SIGSTOP' : 'SIGCONT');
  stop(true);
  fill(true);
  const w = spawn('taskset', wrkArgs(s.port, Math.ceil((cycles * (on + off)) / 1000) + 5), {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  w.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const ended = new Promise((r) => w.on('close', r));
  await sleep(300);
  for (let i = 0; i < cycles; i++) {
    fill(false);
    stop(false);
    await sleep(on);
    stop(true);
    fill(true);
    await sleep(off);
  }
  w.kill('SIGINT');
  await ended;
  fill(false);
  stop(false);
  await sleep(200);
  return requestsOf(out);
}

async function study(
  name: string,
  port: number,
  flags: string[],
  o: { pairs: number; on: number; off: number; cycles: number; fillers: Filler[]; pauses: PauseKind[] },
) {
  const s = startTraced('pause-duty-cycle', name, port, flags);
  const cgroup = o.pauses.includes('freezer') ? serverCgroup(s) : null;
  const fillers = new Map(o.fillers.map((f) => [f, startFiller(f)]));
  for (const f of fillers.values()) f?.kill('SIGSTOP');
  try {
    await ready(s);
    runWrk(s.port, WARM_S);
    const ds = o.pauses.flatMap((pause) => o.fillers.map((filler) => ({ pause, filler, key: `${pause}, ${filler}` })));
    const ratios = new Map(ds.map((d) => [d.key, [] as number[]]));
    const kinds = ['C', ...ds.map((d) => d.key)];
    for (let p = 1; p <= o.pairs; p++) {
      const eff = new Map<string, number>();
      const k = (p - 1) % kinds.length;
      const block =
        o.fillers.length > 1 ? [...kinds.slice(k), ...kinds.slice(0, k)] : p % 2 ? kinds : [...kinds].reverse();
      for (const kind of block) {
        const a = performance.now();
        const c0 = cpu(s);
        const g0 = cgroup ? cgroupCpuS(cgroup) : 0;
        const d = ds.find((x) => x.key === kind);
        const n = d
          ? await dutyWindow(
              s,
              o.on,
              o.off,
              o.cycles,
              fillers.get(d.filler) ?? null,
              d.pause === 'freezer' ? cgroup : null,
            )
          : runWrk(s.port, C_S);
        const c1 = cpu(s);
        const g = cgroup ? ` (cgroup ${(cgroupCpuS(cgroup) - g0).toFixed(3)} CPU-s)` : '';
        const user = c1.user - c0.user;
        const sys = c1.sys - c0.sys;
        const gc = collections(s, a, performance.now());
        eff.set(kind, n / (user + sys));
        const label = kind === 'C' ? 'C' : `D(${kind})`;
        console.log(
          `${name} pair ${p} ${label}: ${n} requests, ${(user + sys).toFixed(2)} CPU-s${g}, ${Math.round(n / (user + sys))} requests per CPU-second; per 1,000 requests ${((user / n) * 1e6).toFixed(1)} ms user, ${((sys / n) * 1e6).toFixed(1)} ms system, ${((gc.scavenges / n) * 1000).toFixed(2)} scavenges, ${((gc.markCompacts / n) * 1000).toFixed(3)} mark-compacts, ${((gc.ms / n) * 1000).toFixed(2)} ms of GC pause; main thread ${(((c1.main - c0.main) / (user + sys)) * 100).toFixed(1)}% of the CPU`,
        );
      }
      for (const d of ds) ratios.get(d.key)?.push((eff.get(d.key) ?? Number.NaN) / (eff.get('C') ?? Number.NaN));
    }
    for (const [f, r] of ratios)
      console.log(
        `${name}: duty-cycled (${f}) ÷ continuous ${r.map((x) => x.toFixed(3)).join(', ')}; ${ratioSummary(r)}`,
      );
  } finally {
    for (const f of fillers.values()) {
      f?.kill('SIGCONT');
      f?.kill();
    }
    if (cgroup) fs.writeFileSync(path.join(cgroup, 'cgroup.freeze'), '0');
    s.child.kill('SIGCONT');
    s.child.kill();
    if (s.child.exitCode === null && s.child.signalCode === null) await new Promise((r) => s.child.once('exit', r));
    if (cgroup) fs.rmdirSync(cgroup);
    fs.rmSync(s.traceFile, { force: true });
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: {
      pairs: { type: 'string', default: '8' },
      on: { type: 'string', default: '100' },
      off: { type: 'string', default: '1300' },
      cycles: { type: 'string', default: '15' },
      flags: { type: 'string', default: '' },
      fillers: { type: 'string', default: 'none' },
      pauses: { type: 'string', default: 'signal' },
    },
    allowPositionals: true,
  });
  const flags = values.flags.split(' ').filter(Boolean);
  const o = {
    pairs: Number(values.pairs),
    on: Number(values.on),
    off: Number(values.off),
    cycles: Number(values.cycles),
    fillers: values.fillers.split(',').map((f) => {
      if (f !== 'none' && f !== 'spin' && f !== 'mem') throw new Error(`--fillers: "${f}" is not none, spin or mem`);
      return f as Filler;
    }),
    pauses: values.pauses.split(',').map((f) => {
      if (f !== 'signal' && f !== 'freezer') throw new Error(`--pauses: "${f}" is not signal or freezer`);
      return f as PauseKind;
    }),
  };
  for (const [i, name] of positionals.entries()) await study(name, 41_100 + i, flags, o);
}

await main();
