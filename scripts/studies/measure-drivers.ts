/**
 * Driver measurements behind docs/dev/notes-drivers.md (not part of a bake-off run): paired, so
 * that a shared, loaded machine hits both sides alike. Each round runs two load generators AT
 * THE SAME TIME on the client core (CPU 0), 50 connections each, against node-http · ping on the
 * server core (CPU 1), and compares their CPU time per response (µs); its inverse is a driver's
 * ceiling on one core (responses per driver CPU-second).
 *
 *   node scripts/studies/measure-drivers.ts hook [rounds]              wrk without vs with response() on every response
 *   node scripts/studies/measure-drivers.ts vs <driver|oha:BIN> [rounds] wrk (as the driver runs it) vs autocannon, k6 or an oha binary
 *
 * Prints one line per round and a SUMMARY line (medians and ranges). Durations 3 s per round.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildRequest, loadParams, loadScenarios, loadSharedSchemas } from '../../harness/contract/scenarios.ts';
import { CONTENDERS_DIR, SCENARIOS_DIR } from '../../harness/core/paths.ts';
import { freePort } from '../../harness/lifecycle/ports.ts';
import { runAutocannon } from '../../harness/drivers/autocannon.ts';
import { findK6 } from '../../harness/drivers/k6.ts';
import type { LoadJob, LoadOutput, WindowOptions } from '../../harness/drivers/driver-types.ts';
import { findWrk, runWrkWindow } from '../../harness/drivers/wrk.ts';

const SECONDS = 3;
const CONNECTIONS = 50;

/** One side of a pair: responses completed and CPU seconds used. */
interface Side {
  responses: number;
  cpuS: number;
}

const cpuOf = (o: LoadOutput): number => ((o.driverCpuMs?.user ?? 0) + (o.driverCpuMs?.system ?? 0)) / 1000;

/** Runs `argv` pinned to CPU 0 under /usr/bin/time; resolves with its output and user+system CPU seconds. */
function timed(argv: string[]): Promise<{ cpuS: number; out: string }> {
  return new Promise((resolve, reject) => {
    const c = spawn('/usr/bin/time', ['-f', 'TIME %U %S', 'taskset', '-c', '0', ...argv]);
    let out = '';
    c.stdout.on('data', (b) => {
      out += b;
    });
    c.stderr.on('data', (b) => {
      out += b;
    });
    c.on('close', () => {
      const m = /TIME ([\d.]+) ([\d.]+)/.exec(out);
      if (!m) reject(new Error(`no CPU time from /usr/bin/time: ${out.slice(-500)}`));
      else resolve({ cpuS: Number(m[1]) + Number(m[2]), out });
    });
  });
}

/** The upper median of `v` (NaN for an empty list). */
const median = (v: number[]) => [...v].sort((a, b) => a - b)[v.length >> 1] ?? Number.NaN;
const range = (v: number[], d = 2) => `${Math.min(...v).toFixed(d)}–${Math.max(...v).toFixed(d)}`;

const USAGE =
  'usage: node scripts/studies/measure-drivers.ts hook [rounds] | node scripts/studies/measure-drivers.ts vs autocannon|k6|oha:<bin> [rounds]';

async function main(): Promise<void> {
  const [mode, what, roundsArg] = process.argv.slice(2);
  const rounds = Number((mode === 'hook' ? what : roundsArg) ?? 5);
  if ((mode !== 'hook' && !(mode === 'vs' && what)) || !Number.isInteger(rounds) || rounds < 1) throw new Error(USAGE);
  const wrk = findWrk();
  if (!wrk) throw new Error('wrk is not installed: `just tools` installs it (apt-get install wrk as root)');
  const s = loadScenarios(SCENARIOS_DIR).find((x) => x.name === 'ping');
  if (!s) throw new Error(`no ping scenario in ${SCENARIOS_DIR}`);
  const params = loadParams(s);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const server = spawn('taskset', ['-c', '1', process.execPath, path.join(CONTENDERS_DIR, 'node-http', 'server.js')], {
    env: { ...process.env, HOST: '127.0.0.1', PORT: String(port) },
    stdio: 'ignore',
  });
  try {
    for (let i = 0; i < 100; i++) {
      try {
        if ((await fetch(`${url}/ping`)).ok) break;
      } catch {
        await sleep(50);
      }
    }
    const job: LoadJob = {
      url,
      scenario: 'ping',
      scenariosDir: SCENARIOS_DIR,
      params,
      request: buildRequest(s, params),
      sampleEvery: 50,
    };
    const o: WindowOptions = {
      durationS: SECONDS,
      warmup: false,
      cpus: '0',
      threads: 1,
      signal: new AbortController().signal,
      scenario: s,
      sharedSchemas: loadSharedSchemas(SCENARIOS_DIR),
    };
    const prof = { connections: CONNECTIONS, pipelining: 1, timeoutS: 10 };
    const wrkSide = async (checks: 'split' | 'all' | 'none'): Promise<Side> => {
      const x = await runWrkWindow(wrk.bin, prof, job, { ...o, checks });
      return { responses: x.requests.total, cpuS: cpuOf(x) };
    };
    const other = async (): Promise<Side> => {
      if (what === 'autocannon') {
        const x = await runAutocannon({ ...job, ...prof, durationS: SECONDS }, '0');
        return { responses: x.requests.total, cpuS: cpuOf(x) };
      }
      if (what === 'k6') {
        const k6 = findK6({ build: false });
        if (!k6.bin) throw new Error(k6.why);
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-measure-'));
        const script = path.join(dir, 'k6.js');
        const summary = path.join(dir, 'summary.json');
        fs.writeFileSync(
          script,
          `import http from 'k6/http';\nexport const options = { vus: ${CONNECTIONS}, duration: '${SECONDS}s' };\nexport default function () { http.get('${url}/ping'); }\nexport function handleSummary(d) { return { ${JSON.stringify(summary)}: JSON.stringify(d) }; }\n`,
        );
        const r = await timed([k6.bin, 'run', '--quiet', script]);
        const n = JSON.parse(fs.readFileSync(summary, 'utf8')).metrics.http_reqs.values.count as number;
        fs.rmSync(dir, { recursive: true, force: true });
        return { responses: n, cpuS: r.cpuS };
      }
      if (what?.startsWith('oha:')) {
        const r = await timed([
          what.slice(4),
          '-z',
          `${SECONDS}s`,
          '-c',
          String(CONNECTIONS),
          '--no-tui',
          '--output-format',
          'json',
          `${url}/ping`,
        ]);
        const j = JSON.parse(r.out.slice(r.out.indexOf('{'), r.out.lastIndexOf('}') + 1));
        const n = Object.values(j.statusCodeDistribution as Record<string, number>).reduce((a, b) => a + b, 0);
        return { responses: n, cpuS: r.cpuS };
      }
      throw new Error(USAGE);
    };
    const [nameA, nameB] = mode === 'hook' ? ['wrk without response()', 'wrk with response()'] : ['wrk', what];
    const a: number[] = [];
    const b: number[] = [];
    for (let r = 0; r < rounds; r++) {
      const [x, y] = await Promise.all(
        mode === 'hook' ? [wrkSide('none'), wrkSide('all')] : [wrkSide('split'), other()],
      );
      const ar = (x.cpuS * 1e6) / x.responses;
      const br = (y.cpuS * 1e6) / y.responses;
      a.push(ar);
      b.push(br);
      process.stdout.write(
        `${nameA}: ${x.responses} responses, ${ar.toFixed(2)} µs CPU each | ${nameB}: ${y.responses} responses, ${br.toFixed(2)} µs CPU each | ratio ${(br / ar).toFixed(3)}\n`,
      );
    }
    const ratios = b.map((v, i) => v / (a[i] ?? Number.NaN)); // a and b have one entry per round
    process.stdout.write(
      `SUMMARY ${nameB} vs ${nameA}: CPU per response ${median(b).toFixed(1)} vs ${median(a).toFixed(1)} µs (ranges ${range(b, 1)}, ${range(a, 1)}); median ratio ${median(ratios).toFixed(3)} (${range(ratios)}); responses per driver CPU-second ${Math.round(1e6 / median(b))} vs ${Math.round(1e6 / median(a))}\n`,
    );
  } finally {
    server.kill('SIGKILL');
  }
}

try {
  await main();
} catch (e) {
  console.error(`error: ${(e as Error).message}`);
  process.exitCode = 2;
}
