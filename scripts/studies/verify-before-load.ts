/**
 * Study: does the bake-off's verification leave a server slower under load? Before a cell is
 * measured, the bake-off checks its server against the contract and sends the concurrency burst
 * (2,000 requests over 100 node:http keep-alive connections; scheduler/window.ts `verifyEntry`);
 * the steady-state reference (scheduler/reference-measure.ts) does neither. If that early traffic
 * shaped the JIT's code for the process's life, the bake-off's json rows would read lower than
 * the reference's.
 *
 * Design: per contender, `--processes` fresh processes on CPU 1 (`taskset`), in the order VNNV
 * VNNV …: V processes get `verifyScenario` and `burstCheck` (contract/) on the json scenario after
 * they answer GET /ping, N processes do not. Then each is warmed `WARM_S` s by wrk (1 thread, 100
 * connections, CPU 0, GET /json) and measured over `WINDOWS` windows of `C_S` s: requests (wrk's
 * count) ÷ the server's CPU-seconds (`/proc/<pid>/stat`). Prints one line per process and, per
 * contender, the ratio V ÷ N of the geometric means with a 95% CI (Welch's t on the log figures).
 * Writes nothing under results/.
 *
 * Run: `node scripts/studies/verify-before-load.ts [--processes 12] node-http hono
 * nestjs-fastify-undici` (needs wrk and built contenders). Throws on fewer than 4 processes, on a failed verification, on a
 * server that does not answer GET /ping within 10 s, or on a manifest not of the form `node <file>`.
 */
import fs from 'node:fs';
import { parseArgs } from 'node:util';
import { tQuantile } from '../../harness/analysis/stats.ts';
import { burstCheck } from '../../harness/contract/burst.ts';
import { buildRequest, loadParams, loadScenarios, loadSharedSchemas } from '../../harness/contract/scenarios.ts';
import { ContractChecker, verifyScenario } from '../../harness/contract/verify.ts';
import { SCENARIOS_DIR } from '../../harness/core/paths.ts';
import { cpuSeconds, ready, runWrk, startTraced } from './traced-server.ts';

const WARM_S = 5;
const C_S = 4;
const WINDOWS = 2;

/** Mean and variance of the logs. */
function logStats(xs: number[]): { mean: number; v: number; n: number } {
  const l = xs.map(Math.log);
  const n = l.length;
  const mean = l.reduce((a, b) => a + b, 0) / n;
  return { mean, v: l.reduce((a, b) => a + (b - mean) ** 2, 0) / (n - 1), n };
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: { processes: { type: 'string', default: '12' } },
    allowPositionals: true,
  });
  const processes = Number(values.processes);
  if (!(processes >= 4))
    throw new Error(`--processes must be 4 or more (two of each kind at least), got ${values.processes}`);
  const scenario = loadScenarios(SCENARIOS_DIR).find((s) => s.name === 'json');
  if (!scenario) throw new Error('no json scenario in scenarios/');
  const checker = new ContractChecker(loadSharedSchemas(SCENARIOS_DIR));
  const params = loadParams(scenario);
  const request = buildRequest(scenario, params);
  for (const [c, name] of positionals.entries()) {
    const figs = { V: [] as number[], N: [] as number[] };
    for (let i = 0; i < processes; i++) {
      const kind = [0, 3].includes(i % 4) ? 'V' : 'N';
      const s = startTraced('verify-before-load', name, 41_100 + c, []);
      try {
        await ready(s);
        const baseUrl = `http://127.0.0.1:${s.port}`;
        if (kind === 'V') {
          const v = await verifyScenario(checker, baseUrl, scenario, {}, { bodyTimeoutMs: 10_000 });
          const b = await burstCheck({ baseUrl, scenario, checker, request, params, connections: 100 });
          if (v.level === 'fail' || !b.ok) throw new Error(`${name}: verification failed: ${v.reasons.join('; ')}`);
        }
        runWrk(s.port, WARM_S);
        const c0 = cpuSeconds(s.pid);
        let n = 0;
        for (let w = 0; w < WINDOWS; w++) n += runWrk(s.port, C_S);
        const eff = n / (cpuSeconds(s.pid) - c0);
        figs[kind].push(eff);
        console.log(`${name} process ${i + 1} ${kind}: ${Math.round(eff)} requests per CPU-second`);
      } finally {
        s.child.kill();
        await new Promise((r) => (s.child.exitCode === null ? s.child.once('exit', r) : r(null)));
        fs.rmSync(s.traceFile, { force: true });
      }
    }
    const v = logStats(figs.V);
    const n = logStats(figs.N);
    const se2 = v.v / v.n + n.v / n.n;
    const df = se2 ** 2 / ((v.v / v.n) ** 2 / (v.n - 1) + (n.v / n.n) ** 2 / (n.n - 1));
    const h = tQuantile(0.975, df) * Math.sqrt(se2);
    const d = v.mean - n.mean;
    console.log(
      `${name}: verified ÷ not verified ${Math.exp(d).toFixed(3)} (95% CI ${Math.exp(d - h).toFixed(3)}–${Math.exp(d + h).toFixed(3)}; ${v.n} and ${n.n} processes)`,
    );
  }
}

await main();
