/**
 * Study: does a short window cost a heavy stack more per request than a long one? A server's
 * figure in an interleaved round (scheduler/interleave.ts) rests on about 1 s of its load, with
 * its driver's 100 connections opened at the round's start and closed at its end; a solo
 * reference window (scheduler/reference-measure.ts) rests on 10 s per connection set. The other
 * studies (pause-duty-cycle.ts, table-backdrop.ts, verify-before-load.ts) compare windows of one
 * length, so a cost paid once per window cancels in them; this one varies the length alone.
 *
 * Design: one process per contender in turn on CPU 1 (`taskset`), warmed `WARM_S` s by wrk (1
 * thread, 100 connections, CPU 0, GET /json). Then `--pairs` pairs, in the order SL, LS, SL …
 * (a linear drift cancels over two pairs): S is `--short` windows of 1 s, each a fresh wrk (its
 * connections opened and closed), L one window of `--short` seconds. After each wrk the study
 * waits `GAP_MS` so that the server's work on the closed connections is in the reading. Per arm:
 * requests (wrk's count plus the 100 in flight at each wrk's end, which the server still serves,
 * as scheduler/interleave.ts credits them), the server's CPU-seconds (`/proc/<pid>/stat`), split
 * into the CPU while wrk ran and in the gaps after it; per contender the ratio S ÷ L of requests
 * per CPU-second per pair, their geometric mean with a 95% CI, and the gaps' CPU per window.
 * Writes nothing under results/.
 *
 * Run: `node scripts/studies/window-length.ts [--pairs 8] [--short 10] node-http hono
 * nestjs-fastify-undici` (needs wrk and built contenders). Throws on a server that does not answer
 * GET /ping within 10 s, or on a contender whose manifest does not start with `node <file>`.
 */
import { parseArgs } from 'node:util';
import { cpuSeconds, ratioSummary, ready, runWrk, startTraced, stopTraced, WRK_CONNECTIONS } from './traced-server.ts';

const WARM_S = 20;
const GAP_MS = 300;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** One arm: `windows` wrk runs of `seconds` each; requests (with those in flight) and CPU while loaded and in the gaps. */
async function arm(pid: number, port: number, windows: number, seconds: number) {
  let requests = 0;
  let loaded = 0;
  let gaps = 0;
  for (let w = 0; w < windows; w++) {
    const c0 = cpuSeconds(pid);
    const n = runWrk(port, seconds);
    const c1 = cpuSeconds(pid);
    await sleep(GAP_MS);
    const c2 = cpuSeconds(pid);
    requests += n + WRK_CONNECTIONS;
    loaded += c1 - c0;
    gaps += c2 - c1;
  }
  return { requests, loaded, gaps, eff: requests / (loaded + gaps) };
}

async function study(name: string, port: number, pairs: number, short: number): Promise<void> {
  const s = startTraced('window-length', name, port, []);
  try {
    await ready(s);
    runWrk(s.port, WARM_S);
    const ratios: number[] = [];
    const gapMs = { S: 0, L: 0 };
    for (let p = 1; p <= pairs; p++) {
      const eff = { S: Number.NaN, L: Number.NaN };
      for (const kind of p % 2 ? (['S', 'L'] as const) : (['L', 'S'] as const)) {
        const a = kind === 'S' ? await arm(s.pid, s.port, short, 1) : await arm(s.pid, s.port, 1, short);
        eff[kind] = a.eff;
        gapMs[kind] += (1000 * a.gaps) / (kind === 'S' ? short : 1);
        console.log(
          `${name} pair ${p} ${kind}: ${a.requests} requests, ${a.loaded.toFixed(2)} CPU-s loaded + ${a.gaps.toFixed(2)} in the gaps, ${Math.round(a.eff)} requests per CPU-second`,
        );
      }
      ratios.push(eff.S / eff.L);
    }
    console.log(
      `${name}: 1 s windows ÷ one ${short} s window ${ratios.map((r) => r.toFixed(3)).join(', ')}; ${ratioSummary(ratios)}; CPU after a wrk ended: ${(gapMs.S / pairs).toFixed(0)} ms (1 s windows), ${(gapMs.L / pairs).toFixed(0)} ms (${short} s)`,
    );
  } finally {
    stopTraced(s);
  }
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: { pairs: { type: 'string', default: '8' }, short: { type: 'string', default: '10' } },
    allowPositionals: true,
  });
  for (const [i, name] of positionals.entries())
    await study(name, 41_100 + i, Number(values.pairs), Number(values.short));
}

await main();
