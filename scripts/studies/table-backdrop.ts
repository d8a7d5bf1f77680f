/**
 * Study: does the rest of an interleaved table cost the running server anything per request? In a
 * 14-server json table (scheduler/interleave.ts), while one server runs, the other 13 sit paused
 * on the same core, each with its own wrk on the client core holding 100 connections whose
 * requests wait. pause-duty-cycle.ts showed that the pause itself costs nothing once the core is
 * kept busy; this study adds the rest: the paused servers and their waiting drivers.
 *
 * Design: one process per contender in turn on CPU 1 (`taskset`), warmed `WARM_S` s by wrk (1
 * thread, 100 connections, CPU 0, GET /json). The backdrop: `--servers` node-http processes on CPU
 * 1, each stopped (SIGSTOP) once it answers, and one wrk per backdrop server on CPU 0 with 100
 * connections, whose requests wait. Then `--pairs` pairs of continuous `C_S` s windows, one with
 * the backdrop's drivers running (B) and one without them (A: the drivers are ended, so their
 * connections close; the stopped servers stay), in the order AB, BA, AB … (a linear drift cancels
 * over two pairs). Per window: requests (wrk's count), the server's CPU-seconds (`/proc/<pid>/stat`
 * utime + stime) and requests per CPU-second; per contender the ratio B ÷ A per pair and their
 * geometric mean with a 95% CI. Writes nothing under results/.
 *
 * Run: `node scripts/studies/table-backdrop.ts [--pairs 8] [--servers 13] node-http hono
 * nestjs-fastify-undici` (needs wrk and built contenders). Throws on a server that does not answer
 * GET /ping within 10 s, or on a contender whose manifest does not start with `node <file>`.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { parseArgs } from 'node:util';
import {
  cpuSeconds,
  ratioSummary,
  ready,
  runWrk,
  startTraced,
  stopTraced,
  type TracedServer,
  wrkArgs,
} from './traced-server.ts';

const WARM_S = 20;
const C_S = 4;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Starts one waiting wrk per backdrop server (they end when killed, or after an hour). */
async function startDrivers(backdrop: TracedServer[]): Promise<ChildProcess[]> {
  const ws = backdrop.map((b) => spawn('taskset', wrkArgs(b.port, 3600), { stdio: 'ignore' }));
  await sleep(500);
  return ws;
}

/** Ends the backdrop's drivers and waits for them to exit. */
async function stopDrivers(ws: ChildProcess[]): Promise<void> {
  await Promise.all(
    ws.map((w) => {
      const gone = w.exitCode !== null || w.signalCode !== null;
      w.kill('SIGKILL');
      return gone ? undefined : new Promise((r) => w.once('exit', r));
    }),
  );
  await sleep(500);
}

async function study(name: string, port: number, backdrop: TracedServer[], pairs: number): Promise<void> {
  const s = startTraced('table-backdrop', name, port, []);
  let drivers: ChildProcess[] = [];
  try {
    await ready(s);
    runWrk(s.port, WARM_S);
    const ratios: number[] = [];
    for (let p = 1; p <= pairs; p++) {
      const eff = { A: Number.NaN, B: Number.NaN };
      for (const kind of p % 2 ? (['A', 'B'] as const) : (['B', 'A'] as const)) {
        if (kind === 'B' && drivers.length === 0) drivers = await startDrivers(backdrop);
        if (kind === 'A' && drivers.length > 0) {
          await stopDrivers(drivers);
          drivers = [];
        }
        const c0 = cpuSeconds(s.pid);
        const n = runWrk(s.port, C_S);
        const cpu = cpuSeconds(s.pid) - c0;
        eff[kind] = n / cpu;
        console.log(
          `${name} pair ${p} ${kind}: ${n} requests, ${cpu.toFixed(2)} CPU-s, ${Math.round(n / cpu)} requests per CPU-second`,
        );
      }
      ratios.push(eff.B / eff.A);
    }
    console.log(
      `${name}: with the backdrop ÷ without ${ratios.map((r) => r.toFixed(3)).join(', ')}; ${ratioSummary(ratios)}`,
    );
  } finally {
    await stopDrivers(drivers);
    stopTraced(s);
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: { pairs: { type: 'string', default: '8' }, servers: { type: 'string', default: '13' } },
    allowPositionals: true,
  });
  const backdrop: TracedServer[] = [];
  try {
    for (let i = 0; i < Number(values.servers); i++) {
      const b = startTraced('table-backdrop', 'node-http', 41_200 + i, []);
      backdrop.push(b);
      await ready(b);
      process.kill(b.pid, 'SIGSTOP');
    }
    for (const [i, name] of positionals.entries()) await study(name, 41_100 + i, backdrop, Number(values.pairs));
  } finally {
    for (const b of backdrop) stopTraced(b);
  }
}

await main();
