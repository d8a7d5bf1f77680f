/**
 * How many requests does a fresh server process need before its efficiency is steady? Reads a
 * rotation reference record run with no warm-up and short windows (for example
 * `just reference … --warmup 0 --windows 24 --window 1 --processes 2`), in which every
 * contender's k-th window falls in the same rotation cycle as the baseline's, so the host's drift
 * cancels in the ratio. For each contender × scenario prints, per window k, the efficiency ratio
 * to the baseline (requests per CPU-second ÷ the baseline's in the same block and cycle), as a
 * share of its steady value (the mean log ratio of the last third of windows), with the requests
 * the process had served before that window. Then the requests after which every later window
 * stays within 3% of steady. Ratios unitless; requests are counts. Reads only; writes nothing.
 *
 * Run: `node scripts/studies/warmup-curve.ts <reference record file> [baseline]` (baseline: node-http).
 */
import fs from 'node:fs';

type Win = { efficiency: number; requests: number };
type Proc = { contender: string; scenario: string; block: number; windows: Win[] };
type Rec = { contenders: string[]; scenarios: string[]; processes: Proc[] };

const [file, baseline = 'node-http'] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node scripts/studies/warmup-curve.ts <reference record file> [baseline]\n');
  process.exit(2);
}
const ref = JSON.parse(fs.readFileSync(file, 'utf8')) as Rec;
const key = (p: Proc) => `${p.scenario}|${p.block}`;
const base = new Map<string, Proc>();
for (const p of ref.processes) if (p.contender === baseline) base.set(key(p), p);

const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
for (const scenario of ref.scenarios) {
  for (const contender of ref.contenders) {
    if (contender === baseline) continue;
    const procs = ref.processes.filter((p) => p.scenario === scenario && p.contender === contender);
    // Per window k: log ratio per block, then the mean over blocks; requests served before k.
    const n = Math.min(...procs.map((p) => p.windows.length));
    const logs: number[][] = [];
    const served: number[] = [];
    for (let k = 0; k < n; k++) {
      const ls: number[] = [];
      const before: number[] = [];
      for (const p of procs) {
        const w = p.windows[k];
        const bw = base.get(key(p))?.windows[k];
        if (!w || !bw) continue;
        ls.push(Math.log(w.efficiency / bw.efficiency));
        before.push(p.windows.slice(0, k).reduce((a, w) => a + w.requests, 0));
      }
      logs.push(ls);
      served.push(mean(before));
    }
    const perK = logs.map(mean);
    const steady = mean(perK.slice(Math.floor((n * 2) / 3)));
    const share = perK.map((l) => Math.exp(l - steady));
    let settled = 0;
    for (let k = n - 1; k >= 0; k--)
      if (Math.abs((share[k] ?? 1) - 1) > 0.03) {
        settled = k + 1;
        break;
      }
    const ratio = Math.exp(steady).toFixed(3);
    process.stdout.write(
      `${scenario} ${contender}: steady ratio ${ratio}; within 3% from window ${settled + 1} (after ${Math.round(served[Math.min(settled, n - 1)] ?? 0)} requests)\n  ${share
        .map((s, k) => `${k + 1}:${(s * 100).toFixed(0)}%@${Math.round((served[k] ?? 0) / 1000)}k`)
        .join(' ')}\n`,
    );
  }
}
