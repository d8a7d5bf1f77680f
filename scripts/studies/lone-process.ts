/**
 * Study: does a server read fewer requests per CPU-second when other server processes are alive on
 * its core, idle, than when it is the only one? A solo reference record runs one server process at
 * a time; a table (and a rotation record) keeps several alive on the server core. Every study so
 * far compared arms that both had neighbours alive (round-replica.ts, table-backdrop.ts).
 *
 * Design: one process per target in turn on CPU 1 (`taskset`), warmed `--warm` s by wrk (1 thread,
 * 100 connections, CPU 0, GET /json). Then `--pairs` pairs in the order LK, KL, LK … (a linear
 * drift cancels over two pairs):
 * - L (lone): the target is the only server process alive.
 * - K (in company): the `--companions` (comma-separated contenders) are started on CPU 1, each
 *   warmed 2 s by wrk, and left idle during the window; they are stopped after it.
 * In both arms the target gets 2 s of load right before its measured window (so neither arm
 * follows an idle gap, which costs a window a few per cent), then one continuous `--window` s
 * window. A window's figure is wrk's request count (+ the 100 in flight at its end) ÷ the target's
 * CPU-seconds over the window (`/proc/<pid>/stat`). Per target it prints each pair's K ÷ L and
 * their geometric mean with a 95% CI: below 1, company costs the target requests per CPU-second.
 * A stack-specific cost shows as a K ÷ L that differs between targets. Writes nothing under results/.
 *
 * Run: `taskset -c 0 node scripts/studies/lone-process.ts [--pairs 8] [--window 10] [--warm 10]
 * [--companions node-http,nestjs-fastify-axios] node-http hono nestjs-fastify-undici` (needs wrk
 * and built contenders). Throws on a server that does not answer GET /ping within 10 s, or on a
 * contender whose manifest does not start with `node <file>`.
 */
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import {
  cpuSeconds,
  ratioSummary,
  ready,
  runWrk,
  startTraced,
  stopTraced,
  type TracedServer,
  WRK_CONNECTIONS,
} from './traced-server.ts';

const PRELOAD_S = 2;

/** One measured window of `t`: PRELOAD_S s of load, then `seconds` s; requests per CPU-second. */
function window(t: TracedServer, seconds: number): number {
  runWrk(t.port, PRELOAD_S);
  const c0 = cpuSeconds(t.pid);
  const requests = runWrk(t.port, seconds) + WRK_CONNECTIONS;
  return requests / (cpuSeconds(t.pid) - c0);
}

/** Starts the companions, waits for them and warms each 2 s; returns them (the caller stops them). */
async function startCompanions(names: string[]): Promise<TracedServer[]> {
  const out = names.map((n, i) => startTraced('lone-process', n, 41_310 + i, []));
  try {
    for (const s of out) await ready(s);
    for (const s of out) runWrk(s.port, 2);
  } catch (e) {
    await stopAll(out);
    throw e;
  }
  return out;
}

/** Stops `servers` and waits until each has exited. */
async function stopAll(servers: TracedServer[]): Promise<void> {
  const exits = servers.map((s) => (s.child.exitCode === null ? once(s.child, 'exit') : Promise.resolve()));
  for (const s of servers) stopTraced(s);
  await Promise.all(exits);
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: {
      pairs: { type: 'string', default: '8' },
      window: { type: 'string', default: '10' },
      warm: { type: 'string', default: '10' },
      companions: { type: 'string', default: 'node-http,nestjs-fastify-axios' },
    },
    allowPositionals: true,
  });
  if (positionals.length < 1) throw new Error('name at least one target contender');
  const companions = values.companions.split(',').filter(Boolean);
  const seconds = Number(values.window);
  for (const name of positionals) {
    const t = startTraced('lone-process', name, 41_300, []);
    const ratios: number[] = [];
    try {
      await ready(t);
      runWrk(t.port, Number(values.warm));
      for (let p = 1; p <= Number(values.pairs); p++) {
        const fig: Record<'L' | 'K', number> = { L: Number.NaN, K: Number.NaN };
        for (const arm of p % 2 ? (['L', 'K'] as const) : (['K', 'L'] as const)) {
          if (arm === 'L') fig.L = window(t, seconds);
          else {
            const company = await startCompanions(companions);
            try {
              fig.K = window(t, seconds);
            } finally {
              await stopAll(company);
            }
          }
        }
        ratios.push(fig.K / fig.L);
        console.log(
          `${name} pair ${p}: lone ${Math.round(fig.L)}, in company ${Math.round(fig.K)} requests per CPU-second (K ÷ L ${(fig.K / fig.L).toFixed(3)})`,
        );
      }
    } finally {
      stopTraced(t);
    }
    console.log(`${name}: in company ÷ lone: ${ratioSummary(ratios)}`);
  }
}

await main();
