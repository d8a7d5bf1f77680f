/**
 * Study: does an idle gap change a server's V8 young generation (the nursery) and with it its
 * requests/s? The rotation reference (scheduler/reference-measure.ts) leaves each server idle
 * while the others are loaded; the solo design loads one server without a gap. Writes nothing
 * under results/; prints one line per round and a summary per contender.
 *
 * Design: one process per contender, all on CPU 1 (`taskset`), started with `--trace-gc` (and any
 * extra V8 flags given), each warmed `WARM_S` s by wrk (1 thread, 100 connections, CPU 0), then
 * `rounds` rounds of one 5 s window per contender in turn (the rotation's shape: each server idle
 * while the others are loaded). Per window: requests/s (wrk's figure) and the median MB a
 * scavenge freed in it (from the trace: "Scavenge a (b) -> c (d) MB", a − c ≈ the nursery's
 * used part), so a window that ran with a shrunken nursery shows. Also lists the non-scavenge
 * GCs ("Mark-Compact (reduce)" is V8's memory reducer).
 *
 * Run: `node scripts/studies/nursery-after-idle.ts [--rounds 8] [--flags="--min-semi-space-size=16
 * --max-semi-space-size=16"] node-http hono nestjs-fastify-axios` (needs wrk and built contenders;
 * a contender whose manifest does not start with `node <file>` is refused). Throws on a server
 * that does not answer GET /ping within 10 s.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { ready, startTraced, stopTraced, type TracedServer } from './traced-server.ts';

const WARM_S = 20;
const WINDOW_S = 5;

/** One wrk window of `seconds` on CPU 0; requests/s. */
function wrk(s: TracedServer, seconds: number): number {
  const out = spawnSync(
    'taskset',
    ['-c', '0', 'wrk', '-t1', '-c100', `-d${seconds}s`, `http://127.0.0.1:${s.port}/json`],
    {
      encoding: 'utf8',
    },
  );
  return Number(/Requests\/sec:\s+([\d.]+)/.exec(out.stdout)?.[1] ?? Number.NaN);
}

const trace = (s: TracedServer): string[] => fs.readFileSync(s.traceFile, 'utf8').split('\n');

/** The median MB freed per scavenge in the trace lines from `from` on. */
function nurseryMb(s: TracedServer, from: number): number {
  const freed = trace(s)
    .slice(from)
    .map((l) => /Scavenge ([\d.]+) \([\d.]+\) -> ([\d.]+)/.exec(l))
    .filter((m) => m !== null)
    .map((m) => Number(m[1]) - Number(m[2]))
    .sort((a, b) => a - b);
  return freed.length ? (freed[Math.floor(freed.length / 2)] ?? 0) : Number.NaN;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: { rounds: { type: 'string', default: '8' }, flags: { type: 'string', default: '' } },
    allowPositionals: true,
  });
  const flags = values.flags.split(' ').filter(Boolean);
  const servers = positionals.map((n, i) => startTraced('nursery-after-idle', n, 41_000 + i, flags));
  try {
    for (const s of servers) await ready(s);
    for (const s of servers) wrk(s, WARM_S);
    for (let r = 1; r <= Number(values.rounds); r++) {
      const line: string[] = [];
      for (const s of servers) {
        const from = trace(s).length;
        const rps = wrk(s, WINDOW_S);
        const mb = nurseryMb(s, from);
        line.push(`${s.name} ${Math.round(rps)} (${mb.toFixed(1)} MB)`);
      }
      console.log(`round ${r}: ${line.join(' · ')}`);
    }
    for (const s of servers) {
      const other = [
        ...trace(s)
          .join('\n')
          .matchAll(/(\d+) ms: (Mark-Compact( \(reduce\))?)/g),
      ];
      console.log(
        `${s.name}: non-scavenge GCs ${other.map((m) => `${m[2]} at ${Math.round(Number(m[1]) / 1000)} s`).join(', ')}`,
      );
    }
  } finally {
    for (const s of servers) stopTraced(s);
  }
}

await main();
