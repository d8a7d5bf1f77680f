// Study script behind docs/noise.md "Interleaved windows" (ad hoc, not a harness run):
// two servers pinned to CPU 1, one wrk each on CPU 0; per window the ratio A/B of requests per
// server CPU-second (/proc/<pid>/stat ticks) and of requests, for three designs: sequential 1 s
// windows, SIGSTOP-interleaved windows (both wrk started, all but one paused, swapped every slice),
// and the duet (both at once).
// Usage: node scripts/studies/interleave-study.mjs <a> <b> [scenario=json] [designs=all|sequential,interleaved,duet]
//        [windows=10] [sliceMs=100] [connections=100]; W=<s> sets the interleaved window (default 2 s).
//   <a>/<b>: a contender folder name (node-http, express, …) or burn<µs> (the self-test fixture with BURN_US).
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
const ROOT = new URL('../..', import.meta.url).pathname;
const NODE = `${ROOT}node_modules/.bin/node`;
const [aName, bName, scen = 'json', design = 'all', reps = '10', sliceMs = '100', conns = '100'] = process.argv.slice(2);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
function cpuTicks(pid) { const s = fs.readFileSync(`/proc/${pid}/stat`, 'utf8'); const f = s.slice(s.lastIndexOf(')') + 2).split(' '); return Number(f[11]) + Number(f[12]); }
let port = 20000 + Math.floor(Math.random() * 20000);
async function startServer(name) {
  const p = port++;
  const [file, env] = name.startsWith('burn') ? [`${ROOT}contenders/_selftest/selftest-burn/server.js`, { BURN_US: name.slice(4) || '0' }] : [`${ROOT}contenders/${name}/server.js`, {}];
  const child = spawn('taskset', ['-c', '1', NODE, file], { env: { ...process.env, HOST: '127.0.0.1', PORT: String(p), NODE_ENV: 'production', ...env }, stdio: ['ignore', 'ignore', 'inherit'] });
  for (let i = 0; i < 100; i++) { try { const r = await fetch(`http://127.0.0.1:${p}/ping`); if (r.ok) break; } catch {} await sleep(100); }
  const pid = child.pid; child.on('exit', (c, s) => console.error('server exit', name, c, s));
  return { name, port: p, child, pid };
}
const pathOf = { json: '/json', ping: '/ping', users: '/users', echo: '/echo?name=bob' };
function wrk(s, d) {
  return new Promise((res) => {
    const c = spawn('taskset', ['-c', '0', 'wrk', '-t1', `-c${conns}`, `-d${d}s`, `http://127.0.0.1:${s.port}${pathOf[scen]}`], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = ''; c.stdout.on('data', (b) => (out += b));
    c.on('exit', () => { const m = /(\d+) requests in/.exec(out); res(Number(m?.[1] ?? NaN)); });
    res.child = c; s.wrkChild = c;
  });
}
const sd = (xs) => { const m = xs.reduce((a, b) => a + b, 0) / xs.length; return Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1)); };
const gm = (xs) => Math.exp(xs.reduce((a, b) => a + Math.log(b), 0) / xs.length);
async function sequential(A, B, n) {
  const rw = [], rc = [];
  for (let i = 0; i < n; i++) {
    const one = async (s) => { const c0 = cpuTicks(s.pid), t0 = performance.now(); const req = await wrk(s, 1); await sleep(30); return { req, cpu: (cpuTicks(s.pid) - c0) / 100, wall: (performance.now() - t0) / 1000 }; };
    const [x, y] = i % 2 ? [await one(B), await one(A)].reverse() : [await one(A), await one(B)];
    rw.push(x.req / y.req); rc.push((x.req / x.cpu) / (y.req / y.cpu));
  }
  return { rw, rc };
}
async function interleaved(A, B, n, W = Number(process.env.W ?? 2)) {
  const rw = [], rc = [];
  for (let i = 0; i < n; i++) {
    const c0 = [cpuTicks(A.pid), cpuTicks(B.pid)];
    const pa = wrk(A, W), pb = wrk(B, W);
    const ca = A.wrkChild, cb = B.wrkChild;
    let active = i % 2; // alternate who starts
    const stop = (c) => { try { c.kill('SIGSTOP'); } catch {} }, cont = (c) => { try { c.kill('SIGCONT'); } catch {} };
    stop(active ? ca : cb);
    let done = false; pa.then(() => 0); Promise.all([pa, pb]).then(() => (done = true));
    const t0 = performance.now(); const act = [0, 0]; let last = t0;
    while (!done && performance.now() - t0 < W * 1000 + 3000) {
      await sleep(Number(sliceMs));
      const now = performance.now(); act[active] += now - last; last = now;
      if (active === 0) { stop(ca); cont(cb); } else { stop(cb); cont(ca); }
      active = 1 - active;
      if (now - t0 > W * 1000 + 500) { cont(ca); cont(cb); }
    }
    cont(ca); cont(cb);
    const [ra, rb] = await Promise.all([pa, pb]); await sleep(30);
    const cpu = [(cpuTicks(A.pid) - c0[0]) / 100, (cpuTicks(B.pid) - c0[1]) / 100];
    rw.push(ra / rb); rc.push((ra / cpu[0]) / (rb / cpu[1]));
  }
  return { rw, rc };
}
async function duet(A, B, n) {
  const rw = [], rc = [];
  for (let i = 0; i < n; i++) {
    const c0 = [cpuTicks(A.pid), cpuTicks(B.pid)];
    const [ra, rb] = await Promise.all([wrk(A, 1), wrk(B, 1)]); await sleep(30);
    const cpu = [(cpuTicks(A.pid) - c0[0]) / 100, (cpuTicks(B.pid) - c0[1]) / 100];
    rw.push(ra / rb); rc.push((ra / cpu[0]) / (rb / cpu[1]));
  }
  return { rw, rc };
}
const A = await startServer(aName), B = await startServer(bName);
process.on('exit', () => { for (const s of [A, B]) try { process.kill(s.pid, 'SIGKILL'); } catch {} });
try {
  await Promise.all([wrk(A, 3)]); await wrk(B, 3);
  const designs = design === 'all' ? ['sequential', 'interleaved', 'duet'] : design.split(',');
  for (const d of designs) {
    const t0 = Date.now();
    const r = await ({ sequential, interleaved, duet })[d](A, B, Number(reps));
    const l = (xs) => xs.map(Math.log);
    console.log(`${aName}/${bName} ${scen} ${d.padEnd(11)} n=${reps} wall-ratio ${gm(r.rw).toFixed(3)} sd ${sd(l(r.rw)).toFixed(3)} | cpu-ratio ${gm(r.rc).toFixed(3)} sd ${sd(l(r.rc)).toFixed(3)} | ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
} finally { for (const s of [A, B]) { try { process.kill(s.pid, 'SIGKILL'); } catch {} s.child.kill('SIGKILL'); } }
