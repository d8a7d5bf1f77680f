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
 * Run: `node scripts/studies/pause-duty-cycle.ts [--pairs 8] [--on 100] [--off 1300] [--cycles 15]
 * [--flags=--no-memory-reducer] node-http hono nestjs-fastify-undici` (needs wrk and built
 * contenders; a contender whose manifest does not start with `node <file>` is refused). Throws on a server that does not answer GET /ping within 10 s.
 */
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { tQuantile } from '../../harness/analysis/stats.ts';
import { ready, startTraced, type TracedServer } from './traced-server.ts';

const WARM_S = 20;
const C_S = 4;
const TICK = 100;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The server's CPU-seconds so far (user + system; taskset exec'd node, so the pid is node's). */
function cpuS(s: TracedServer): number {
  const f = fs.readFileSync(`/proc/${s.pid}/stat`, 'utf8').split(')').pop()?.trim().split(' ') ?? [];
  return (Number(f[11]) + Number(f[12])) / TICK;
}

const wrkArgs = (s: TracedServer, seconds: number) => [
  '-c',
  '0',
  'wrk',
  '-t1',
  '-c100',
  `-d${seconds}s`,
  '--timeout',
  '10s',
  `http://127.0.0.1:${s.port}/json`,
];
const requestsOf = (out: string) => Number(/(\d+) requests in/.exec(out)?.[1] ?? Number.NaN);

/** A duty-cycled window: wrk runs throughout; the server runs `on` ms in every `on + off`; requests answered. */
async function dutyWindow(s: TracedServer, on: number, off: number, cycles: number): Promise<number> {
  process.kill(s.pid, 'SIGSTOP');
  const w = spawn('taskset', wrkArgs(s, Math.ceil((cycles * (on + off)) / 1000) + 5), {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let out = '';
  w.stdout.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const ended = new Promise((r) => w.on('close', r));
  await sleep(300);
  for (let i = 0; i < cycles; i++) {
    process.kill(s.pid, 'SIGCONT');
    await sleep(on);
    process.kill(s.pid, 'SIGSTOP');
    await sleep(off);
  }
  w.kill('SIGINT');
  await ended;
  process.kill(s.pid, 'SIGCONT');
  await sleep(200);
  return requestsOf(out);
}

/**
 * The trace's collections between two performance.now() times: scavenges, mark-compacts (any
 * "Mark-Compact" line, the memory reducer's included) and their main-thread pause in ms (the first
 * figure of "a / b ms").
 */
function collections(
  s: TracedServer,
  from: number,
  to: number,
): { scavenges: number; markCompacts: number; ms: number } {
  const out = { scavenges: 0, markCompacts: 0, ms: 0 };
  for (const l of fs.readFileSync(s.traceFile, 'utf8').split('\n')) {
    const m = /\s(\d+) ms: (Scavenge|Mark-Compact)\b.*?, ([\d.]+) \/ [\d.]+ ms/.exec(l);
    if (!m) continue;
    const t = Number(m[1]) + s.t0;
    if (t < from || t >= to) continue;
    if (m[2] === 'Scavenge') out.scavenges++;
    else out.markCompacts++;
    out.ms += Number(m[3]);
  }
  return out;
}

/** The geometric mean of the pairs' ratios with its 95% CI (t on n − 1 df over the log ratios). */
function summary(ratios: number[]): string {
  const logs = ratios.map(Math.log);
  const n = logs.length;
  const mean = logs.reduce((a, b) => a + b, 0) / n;
  if (n < 2) return `mean ${Math.exp(mean).toFixed(3)}`;
  const sd = Math.sqrt(logs.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1));
  const h = (tQuantile(0.975, n - 1) * sd) / Math.sqrt(n);
  return `mean ${Math.exp(mean).toFixed(3)} (95% CI ${Math.exp(mean - h).toFixed(3)}–${Math.exp(mean + h).toFixed(3)}, ${n} pairs)`;
}

async function study(
  name: string,
  port: number,
  flags: string[],
  o: { pairs: number; on: number; off: number; cycles: number },
) {
  const s = startTraced('pause-duty-cycle', name, port, flags);
  try {
    await ready(s);
    spawnSync('taskset', wrkArgs(s, WARM_S));
    const ratios: number[] = [];
    for (let p = 1; p <= o.pairs; p++) {
      const eff = { C: Number.NaN, D: Number.NaN };
      for (const kind of p % 2 ? (['C', 'D'] as const) : (['D', 'C'] as const)) {
        const a = performance.now();
        const c0 = cpuS(s);
        const n =
          kind === 'C'
            ? requestsOf(spawnSync('taskset', wrkArgs(s, C_S), { encoding: 'utf8' }).stdout)
            : await dutyWindow(s, o.on, o.off, o.cycles);
        const cpu = cpuS(s) - c0;
        const gc = collections(s, a, performance.now());
        eff[kind] = n / cpu;
        console.log(
          `${name} pair ${p} ${kind}: ${n} requests, ${cpu.toFixed(2)} CPU-s, ${Math.round(n / cpu)} requests per CPU-second, per 1,000 requests ${((gc.scavenges / n) * 1000).toFixed(2)} scavenges, ${((gc.markCompacts / n) * 1000).toFixed(3)} mark-compacts, ${((gc.ms / n) * 1000).toFixed(2)} ms of GC pause`,
        );
      }
      ratios.push(eff.D / eff.C);
    }
    console.log(`${name}: duty-cycled ÷ continuous ${ratios.map((r) => r.toFixed(3)).join(', ')}; ${summary(ratios)}`);
  } finally {
    s.child.kill('SIGCONT');
    s.child.kill();
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
    },
    allowPositionals: true,
  });
  const flags = values.flags.split(' ').filter(Boolean);
  const o = {
    pairs: Number(values.pairs),
    on: Number(values.on),
    off: Number(values.off),
    cycles: Number(values.cycles),
  };
  for (const [i, name] of positionals.entries()) await study(name, 41_100 + i, flags, o);
}

await main();
