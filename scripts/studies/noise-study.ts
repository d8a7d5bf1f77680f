/**
 * The noise study behind docs/noise.md (issue "Resolution"): what limits the harness's resolution
 * on this host, measured, not assumed. A developer script (not part of `just test`): it starts
 * real contenders pinned to the server core (lifecycle/server.ts), drives them with wrk (and oha
 * for sub-second windows) pinned to the client core, and writes one JSON record per study plus
 * SVG plots (echarts, server-side rendering) to `--out` (default docs/noise/).
 *
 *   node scripts/studies/noise-study.ts [--out docs/noise] [--only length,duet,...]
 *
 * Experiments (each figure is from this study's own run; the study id is in every record):
 * - `length`: one node-http server, json scenario, sequential solo windows of 0.25, 0.5 s (oha)
 *   and 1, 2, 5 s (wrk): spread (sd of log requests/s) against window length; lag-1
 *   autocorrelation of the 1 s sequence; steal of the server core (/proc/stat) per window.
 * - `common`: node-http and express alternating 1 s windows: correlation of consecutive windows
 *   of different servers (common mode), each server's mean removed.
 * - `duet`: pairs on the ping scenario — node-http vs a second node-http, express, loopback4 and
 *   nestjs-graphql-mercurius — measured two ways: 20 duet windows of 1 s (both servers pinned to
 *   the server core at the same time, each driven by its own wrk; figure = requests per server
 *   CPU-second, from the cgroup's cpu.stat) and 10 sequential 5 s solo windows alternating A, B
 *   (the long reference). Ratio, 95% interval, per-window spread, and the duet's bias against the
 *   reference.
 * Units: rates in requests/s, efficiency in requests per CPU-second, CPU in µs, spreads in natural
 * log units (sd of ln x). Throws on a missing tool (wrk) with the install command.
 */
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import * as echarts from 'echarts';
import { loadScenarios } from '../../harness/contract/scenarios.ts';
import { loadManifests, type Manifest } from '../../harness/core/manifest.ts';
import { buildContender } from '../../harness/lifecycle/build.ts';
import { makeCpuPlan } from '../../harness/lifecycle/cpu-plan.ts';
import { freePort } from '../../harness/lifecycle/ports.ts';
import { cpuUsageUs, onPath, stopAll } from '../../harness/lifecycle/processes.ts';
import { startServer, type ServerHandle } from '../../harness/lifecycle/server.ts';

const ROOT = path.resolve(import.meta.dirname, '..', '..');
const plan = makeCpuPlan();
const SERVER_CPUS = plan.server;
const CLIENT_CPUS = plan.client;
const studyId = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19);

/** One measured window of one server. */
interface Window {
  server: string;
  seconds: number;
  requests: number;
  rps: number;
  cpuUs: number | null;
  /** Requests per server CPU-second (null without a CPU reading). */
  eff: number | null;
  /** Steal on the server core during the window, % of the window. */
  stealPct: number | null;
  startedAt: number;
}

function args(): { out: string; only: Set<string> | null } {
  const a = process.argv.slice(2);
  const get = (flag: string) => {
    const i = a.indexOf(flag);
    return i >= 0 ? a[i + 1] : undefined;
  };
  const only = get('--only');
  return {
    out: path.resolve(get('--out') ?? path.join(ROOT, 'docs', 'noise')),
    only: only ? new Set(only.split(',')) : null,
  };
}

/** Steal ticks of CPU `cpu` so far (/proc/stat, USER_HZ). */
function stealTicks(cpu: string | null): number | null {
  if (cpu === null) return null;
  const line = fs
    .readFileSync('/proc/stat', 'utf8')
    .split('\n')
    .find((l) => l.startsWith(`cpu${cpu.split(',')[0]} `));
  const f = line?.trim().split(/\s+/);
  return f?.[8] !== undefined ? Number(f[8]) : null;
}

function run(cmd: string, argv: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const c = spawn(cmd, argv, { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    c.stdout.on('data', (b) => {
      out += b;
    });
    c.stderr.on('data', (b) => {
      out += b;
    });
    c.once('error', reject);
    c.once('close', (code) =>
      code === 0 ? resolve(out) : reject(new Error(`${cmd} exited ${code}: ${out.slice(-400)}`)),
    );
  });
}

const pinned = (argv: string[]) => (CLIENT_CPUS ? ['taskset', '-c', CLIENT_CPUS, ...argv] : argv);

/** Requests completed in a wrk or oha run of `seconds` against `url`. */
async function load(url: string, seconds: number, connections = 50): Promise<number> {
  if (Number.isInteger(seconds)) {
    const [c, ...a] = pinned(['wrk', '-t1', `-c${connections}`, `-d${seconds}s`, url]);
    const out = await run(c as string, a);
    const m = /(\d+) requests in/.exec(out);
    if (!m?.[1]) throw new Error(`wrk printed no request count: ${out}`);
    return Number(m[1]);
  }
  const oha = onPath('oha') ?? path.join(process.env.HOME ?? '', '.cache/node-http-bakeoff/oha-root/bin/oha');
  const [c, ...a] = pinned([
    oha,
    '-z',
    `${Math.round(seconds * 1000)}ms`,
    '-c',
    String(connections),
    '--no-tui',
    '--output-format',
    'json',
    url,
  ]);
  const j = JSON.parse(await run(c as string, a)) as { statusCodeDistribution?: Record<string, number> };
  return Object.values(j.statusCodeDistribution ?? {}).reduce((x, y) => x + y, 0);
}

/** One window of each server in `servers`, all at the same time (one server: a solo window). */
async function windows(servers: { name: string; s: ServerHandle; path: string }[], seconds: number): Promise<Window[]> {
  const steal0 = stealTicks(SERVER_CPUS);
  const cpu0 = servers.map((x) => cpuUsageUs(x.s.pid));
  const t0 = performance.now();
  const startedAt = Date.now();
  const reqs = await Promise.all(servers.map((x) => load(`${x.s.baseUrl}${x.path}`, seconds)));
  const elapsed = (performance.now() - t0) / 1000;
  const cpu1 = servers.map((x) => cpuUsageUs(x.s.pid));
  const steal1 = stealTicks(SERVER_CPUS);
  return servers.map((x, i) => {
    const a = cpu0[i];
    const b = cpu1[i];
    const cpuUs = a !== null && a !== undefined && b !== null && b !== undefined ? b - a : null;
    const requests = reqs[i] ?? 0;
    return {
      server: x.name,
      seconds,
      requests,
      rps: requests / seconds,
      cpuUs,
      eff: cpuUs ? requests / (cpuUs / 1e6) : null,
      stealPct: steal0 !== null && steal1 !== null ? (steal1 - steal0) / elapsed : null,
      startedAt,
    };
  });
}

const ln = Math.log;
const mean = (x: number[]) => x.reduce((a, b) => a + b, 0) / x.length;
const sd = (x: number[]) => {
  const m = mean(x);
  return Math.sqrt(x.reduce((a, b) => a + (b - m) ** 2, 0) / Math.max(1, x.length - 1));
};
const corr = (x: number[], y: number[]) => {
  const mx = mean(x);
  const my = mean(y);
  let n = 0;
  let dx = 0;
  let dy = 0;
  for (let i = 0; i < x.length; i++) {
    const a = (x[i] ?? 0) - mx;
    const b = (y[i] ?? 0) - my;
    n += a * b;
    dx += a * a;
    dy += b * b;
  }
  return n / Math.sqrt(dx * dy);
};
/** 97.5% t quantiles for small df (df ≥ 30: 2.04…1.96). */
const T975 = [
  Number.NaN,
  12.71,
  4.3,
  3.18,
  2.78,
  2.57,
  2.45,
  2.36,
  2.31,
  2.26,
  2.23,
  2.2,
  2.18,
  2.16,
  2.14,
  2.13,
  2.12,
  2.11,
  2.1,
  2.09,
  2.09,
];
const t975 = (df: number) => T975[df] ?? 2.04;
/** exp(mean ± t·sd/√n) of log values. */
function logInterval(d: number[]): { ratio: number; low: number; high: number; sd: number; n: number } {
  const m = mean(d);
  const h = (t975(d.length - 1) * sd(d)) / Math.sqrt(d.length);
  return { ratio: Math.exp(m), low: Math.exp(m - h), high: Math.exp(m + h), sd: sd(d), n: d.length };
}

async function startAll(names: string[], manifests: Manifest[], logDir: string): Promise<Map<string, ServerHandle>> {
  const out = new Map<string, ServerHandle>();
  for (const name of names) {
    const base = name.replace(/#\d+$/, '');
    const m = manifests.find((x) => x.name === base);
    if (!m) throw new Error(`no contender '${base}'`);
    if (m.build) {
      const b = await buildContender(m);
      if (!b.ok) throw new Error(`build of ${base} failed: ${b.output.slice(-400)}`);
    }
    const s = await startServer(m, {
      host: '127.0.0.1',
      port: await freePort(),
      upstreamUrl: 'http://127.0.0.1:9',
      env: {},
      cpus: SERVER_CPUS,
      logFile: path.join(logDir, `${name.replace('#', '-')}.log`),
      nodePath: process.execPath,
    });
    out.set(name, s);
  }
  // Warm each server for 3 s (the study's own warm-up).
  for (const [, s] of out) await load(`${s.baseUrl}/ping`, 3);
  return out;
}

function svgChart(option: echarts.EChartsOption, file: string): void {
  const chart = echarts.init(null, null, { renderer: 'svg', ssr: true, width: 720, height: 360 });
  chart.setOption({ animation: false, ...option });
  fs.writeFileSync(file, chart.renderToSVGString());
  chart.dispose();
}

async function lengthStudy(servers: Map<string, ServerHandle>, out: string): Promise<unknown> {
  const s = servers.get('node-http');
  if (!s) throw new Error('node-http not started');
  const plan: [number, number][] = [
    [0.25, 24],
    [0.5, 20],
    [1, 20],
    [2, 10],
    [5, 6],
  ];
  const rows: {
    windowS: number;
    windows: number;
    driver: string;
    meanRps: number;
    spreadRps: number;
    spreadEff: number | null;
    lag1: number;
    stealPctMean: number;
    corrStealLogRps: number;
  }[] = [];
  const all: Window[] = [];
  for (const [len, n] of plan) {
    const ws: Window[] = [];
    for (let i = 0; i < n; i++) ws.push(...(await windows([{ name: 'node-http', s, path: '/json' }], len)));
    all.push(...ws);
    const logs = ws.map((w) => ln(w.rps));
    const lag1 = corr(logs.slice(0, -1), logs.slice(1));
    const effLogs = ws.flatMap((w) => (w.eff ? [ln(w.eff)] : []));
    rows.push({
      windowS: len,
      windows: n,
      driver: Number.isInteger(len) ? 'wrk' : 'oha',
      meanRps: Math.round(Math.exp(mean(logs))),
      spreadRps: sd(logs),
      spreadEff: effLogs.length > 1 ? sd(effLogs) : null,
      lag1,
      stealPctMean: mean(ws.map((w) => w.stealPct ?? 0)),
      corrStealLogRps: corr(
        ws.map((w) => w.stealPct ?? 0),
        logs,
      ),
    });
    console.error(
      `length ${len}s: spread ${sd(logs).toFixed(3)} (eff ${rows.at(-1)?.spreadEff?.toFixed(3)}), lag-1 r ${lag1.toFixed(2)}`,
    );
  }
  svgChart(
    {
      title: {
        text: 'Spread of log requests/s vs window length (node-http · json, solo)',
        textStyle: { fontSize: 13 },
      },
      xAxis: { type: 'log', name: 'window s', min: 0.2, max: 6 },
      yAxis: { type: 'value', name: 'sd of ln' },
      legend: { bottom: 0 },
      series: [
        { name: 'requests/s', type: 'line', data: rows.map((r) => [r.windowS, r.spreadRps]) },
        { name: 'requests per CPU-second', type: 'line', data: rows.map((r) => [r.windowS, r.spreadEff]) },
        {
          name: '1/√t from 1 s',
          type: 'line',
          lineStyle: { type: 'dashed' },
          data: rows.map((r) => [
            r.windowS,
            (rows.find((x) => x.windowS === 1)?.spreadRps ?? 0) / Math.sqrt(r.windowS),
          ]),
        },
      ],
    },
    path.join(out, 'spread-vs-window.svg'),
  );
  return { rows, windows: all };
}

async function commonStudy(servers: Map<string, ServerHandle>): Promise<unknown> {
  const a = servers.get('node-http');
  const b = servers.get('express');
  if (!a || !b) throw new Error('node-http and express must be started');
  const ws: Window[] = [];
  for (let i = 0; i < 16; i++) {
    ws.push(...(await windows([{ name: 'node-http', s: a, path: '/json' }], 1)));
    ws.push(...(await windows([{ name: 'express', s: b, path: '/json' }], 1)));
  }
  const resid = (name: string) => {
    const l = ws.filter((w) => w.server === name).map((w) => ln(w.rps));
    const m = mean(l);
    return l.map((x) => x - m);
  };
  const ra = resid('node-http');
  const rb = resid('express');
  const r = corr(ra, rb);
  console.error(`common mode: r(node-http window, next express window) = ${r.toFixed(2)}`);
  return { pairs: ra.length, commonModeR: r, windows: ws };
}

/** The reference server (node-http) and the partners started beside it, by name. */
function pairsOf(servers: Map<string, ServerHandle>): { a: ServerHandle; partners: [string, ServerHandle][] } {
  const a = servers.get('node-http');
  if (!a) throw new Error('node-http not started');
  const partners = ['node-http#2', 'express', 'loopback4', 'nestjs-graphql-mercurius'].flatMap((p) => {
    const b = servers.get(p);
    return b ? [[p, b] as [string, ServerHandle]] : [];
  });
  return { a, partners };
}

async function duetStudy(servers: Map<string, ServerHandle>, out: string): Promise<unknown> {
  const { a, partners } = pairsOf(servers);
  const results = [];
  for (const [p, b] of partners) {
    const duet: number[] = [];
    const duetWindows: Window[] = [];
    for (let i = 0; i < 20; i++) {
      const ws = await windows(
        [
          { name: 'node-http', s: a, path: '/ping' },
          { name: p, s: b, path: '/ping' },
        ],
        1,
      );
      duetWindows.push(...ws);
      const [x, y] = ws;
      if (x?.eff && y?.eff) duet.push(ln(y.eff / x.eff));
    }
    const seqA: number[] = [];
    const seqB: number[] = [];
    const seqEffA: number[] = [];
    const seqEffB: number[] = [];
    for (let i = 0; i < 5; i++) {
      for (const [name, s, acc, accE] of [
        ['node-http', a, seqA, seqEffA],
        [p, b, seqB, seqEffB],
      ] as const) {
        const [w] = await windows([{ name, s, path: '/ping' }], 5);
        if (w) {
          acc.push(ln(w.rps));
          if (w.eff) accE.push(ln(w.eff));
        }
      }
    }
    const seqD = seqB.map((x, i) => x - (seqA[i] ?? 0));
    const seqEffD = seqEffB.map((x, i) => x - (seqEffA[i] ?? 0));
    const d = logInterval(duet);
    const sq = logInterval(seqD);
    const sqEff = logInterval(seqEffD);
    results.push({
      pair: `${p} / node-http`,
      duet: { ...d, windowS: 1, measuredS: 20 },
      sequential: { ...sq, windowS: 5, measuredS: 50 },
      sequentialEfficiency: sqEff,
      duetShareOfCore: mean(duetWindows.filter((w) => w.server === p).map((w) => (w.cpuUs ?? 0) / 1e6)),
      bias: d.ratio / sq.ratio,
      duetWindows,
    });
    console.error(
      `duet ${p}/node-http: ${d.ratio.toFixed(3)} (${d.low.toFixed(3)}–${d.high.toFixed(3)}, sd ${d.sd.toFixed(3)}) vs sequential 5 s ${sq.ratio.toFixed(3)} (${sq.low.toFixed(3)}–${sq.high.toFixed(3)}, sd ${sq.sd.toFixed(3)}); efficiency ${sqEff.ratio.toFixed(3)}`,
    );
  }
  svgChart(
    {
      title: {
        text: 'Ratio to node-http: duet (20 × 1 s) vs sequential (5+5 × 5 s), 95% intervals',
        textStyle: { fontSize: 13 },
      },
      xAxis: { type: 'category', data: results.map((r) => r.pair) },
      yAxis: { type: 'log', name: 'ratio' },
      legend: { bottom: 0 },
      series: [
        { name: 'duet', type: 'scatter', data: results.map((r) => r.duet.ratio) },
        { name: 'duet low', type: 'scatter', symbol: 'triangle', data: results.map((r) => r.duet.low) },
        { name: 'duet high', type: 'scatter', symbol: 'triangle', data: results.map((r) => r.duet.high) },
        { name: 'sequential', type: 'scatter', symbol: 'diamond', data: results.map((r) => r.sequential.ratio) },
        { name: 'seq low', type: 'scatter', symbol: 'rect', data: results.map((r) => r.sequential.low) },
        { name: 'seq high', type: 'scatter', symbol: 'rect', data: results.map((r) => r.sequential.high) },
      ],
    },
    path.join(out, 'duet-vs-sequential.svg'),
  );
  return results;
}

/**
 * The sandwich: A and B alternate in short sequential windows (solo, the server core to itself),
 * and each B window is paired with the A window just before it: log(B/A) per pair. Done with 0.5 s
 * (oha) and 1 s (wrk) windows, against a long reference of 4 + 4 alternating 5 s windows measured
 * in the same block. Shows whether noise that is correlated over about a second cancels between
 * neighbours, without the duet's shared-core interference.
 */
async function sandwichStudy(servers: Map<string, ServerHandle>): Promise<unknown> {
  const { a, partners } = pairsOf(servers);
  const results = [];
  for (const [p, b] of partners) {
    const pair = async (len: number, n: number) => {
      const d: number[] = [];
      const dEff: number[] = [];
      for (let i = 0; i < n; i++) {
        const [x] = await windows([{ name: 'node-http', s: a, path: '/ping' }], len);
        const [y] = await windows([{ name: p, s: b, path: '/ping' }], len);
        if (x && y) {
          d.push(ln(y.rps / x.rps));
          if (x.eff && y.eff) dEff.push(ln(y.eff / x.eff));
        }
      }
      return { rps: logInterval(d), eff: dEff.length > 1 ? logInterval(dEff) : null, windowS: len, pairs: n };
    };
    const half = await pair(0.5, 20);
    const one = await pair(1, 12);
    const ref = await pair(5, 4);
    results.push({ pair: `${p} / node-http`, halfSecond: half, oneSecond: one, reference: ref });
    console.error(
      `sandwich ${p}/node-http: 0.5 s ${half.rps.ratio.toFixed(3)} (sd ${half.rps.sd.toFixed(3)}), 1 s ${one.rps.ratio.toFixed(3)} (sd ${one.rps.sd.toFixed(3)}), 5 s ref ${ref.rps.ratio.toFixed(3)} (${ref.rps.low.toFixed(3)}–${ref.rps.high.toFixed(3)}, sd ${ref.rps.sd.toFixed(3)})`,
    );
  }
  return results;
}

async function main(): Promise<void> {
  const { out, only } = args();
  if (!onPath('wrk')) {
    console.error('error: wrk is not installed: `npx just tools` (as root) or `apt-get install -y wrk`');
    process.exit(2);
  }
  fs.mkdirSync(out, { recursive: true });
  const logDir = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'bench-noise-'));
  const scenarios = loadScenarios(path.join(ROOT, 'scenarios')).map((s) => s.name);
  const manifests = loadManifests(path.join(ROOT, 'contenders'), scenarios);
  const want = (x: string) => !only || only.has(x);
  const names = ['node-http', 'node-http#2', 'express', 'loopback4', 'nestjs-graphql-mercurius'];
  const started = Date.now();
  const record: Record<string, unknown> = {
    study: studyId,
    machine: { cpuPlan: plan.note },
    node: process.version,
  };
  const stop = async () => {
    await stopAll(1000);
  };
  process.once('SIGINT', () => void stop().then(() => process.exit(130)));
  try {
    const servers = await startAll(names, manifests, logDir);
    if (want('length')) record.length = await lengthStudy(servers, out);
    if (want('common')) record.common = await commonStudy(servers);
    if (want('duet')) record.duet = await duetStudy(servers, out);
    if (want('sandwich')) record.sandwich = await sandwichStudy(servers);
  } finally {
    await stop();
  }
  record.wallS = Math.round((Date.now() - started) / 1000);
  const file = path.join(out, `study-${studyId}.json`);
  fs.writeFileSync(file, `${JSON.stringify(record, null, 1)}\n`);
  console.error(`wrote ${file} (${record.wallS} s)`);
}

await main();
