/**
 * Study: does a whole interleaved round, as the table runs it, cost a heavy stack more per
 * request than continuous load does, in the same process? The parts of a round were measured
 * alone (pause-duty-cycle.ts, table-backdrop.ts, verify-before-load.ts, window-length.ts) and
 * none did; this study runs them together, with the round's start (every driver connecting at
 * once) and end (every server resumed at once, then a drain) as scheduler/interleave.ts has them.
 *
 * Design: the contenders named (the targets) and `--fillers` filler processes (node-http, or the
 * comma-separated `--filler-contenders` in turn, e.g. the json table's own stacks), 14 servers by
 * default, all on CPU 1 (`taskset`), each warmed `--warm` s alone by wrk (1 thread, 100
 * connections, CPU 0, GET /json). Then `--pairs` pairs, in the order RC, CR, RC … (a linear drift
 * cancels over two pairs):
 * - R: `ROUNDS` rounds. A round starts one wrk per server for `servers` × 1 s (wrk's -d), keeps
 *   every server but one stopped (SIGSTOP; with `--pause freeze`, its own cgroup v2 frozen through
 *   `cgroup.freeze`, as the harness pauses a server where the unified tree is mounted) and runs
 *   them in 100 ms slices in the harness's own seeded order (scheduler/interleave.ts
 *   `sliceOrder`) until the window ends or a wrk exits, then resumes every server at once, waits
 *   for every wrk and `DRAIN_MS` more.
 * - C: for each target in turn, `ROUNDS` continuous 1 s windows (a fresh wrk each, the other
 *   servers idle), each followed by `DRAIN_MS`; with `--continuous S`, one window of S seconds
 *   instead (the solo reference's windows are 10 s). With `--against sigstop` (and `--pause
 *   freeze`), C is R again with the servers paused by SIGSTOP: the figure is then freeze ÷ SIGSTOP.
 * A target's requests per CPU-second in an arm is (wrk's count + the 100 requests in flight at
 * each wrk's end, credited as the harness does) ÷ its CPU-seconds over the arm (`/proc/<pid>/stat`,
 * read before the first window and after the last drain). Per pair it prints each target's ratio to
 * the node-http target in R and in C and their quotient R ÷ C, and per target the geometric mean of
 * that quotient with a 95% CI: below 1, the round reads the target lower against node-http than
 * continuous load does in the same processes. Per pair and target it also prints, per 1,000
 * requests in each arm, the user and system CPU (ms), the scavenges and mark-compacts and their
 * pause (ms, from the `--trace-gc` lines; in R a stop that lands inside a collection adds its
 * length to the pause, so R's GC ms are not CPU). Writes nothing under results/.
 *
 * Run: `taskset -c 0 node scripts/studies/round-replica.ts [--pairs 8] [--fillers 11]
 * [--filler-contenders express,fastify,loopback4] [--warm 10]
 * [--continuous 10] [--pause sigstop|freeze] [--flags '--min-semi-space-size=16 --max-semi-space-size=16']
 * node-http hono nestjs-fastify-undici` (the first target is the baseline; needs wrk and built
 * contenders; `--pause freeze` needs root and a mounted cgroup v2 tree). Throws on a server that
 * does not answer GET /ping within 10 s, on a contender whose manifest does not start with
 * `node <file>`, or (freeze) on a cgroup it cannot create or join.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { type ConnectionProfile, DEFAULT_PROFILE, getProfile } from '../../harness/core/profiles.ts';
import { cgroupParent, removeCgroupDir, writeKnob } from '../../harness/lifecycle/cgroups.ts';
import { DRAIN_MS, sliceOrder } from '../../harness/scheduler/interleave.ts';
import {
  collections,
  procCpu,
  ratioSummary,
  ready,
  requestsOf,
  runWrk,
  startTraced,
  stopTraced,
  type TracedServer,
  WRK_CONNECTIONS,
  wrkArgs,
} from './traced-server.ts';

const ROUNDS = 3;
/** The default profile's slice, ms. */
const SLICE_MS = (getProfile(DEFAULT_PROFILE) as ConnectionProfile).interleave?.sliceMs ?? 0;
if (!(SLICE_MS > 0)) throw new Error('the default profile has no interleaved slices');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Pauses (`true`) or resumes (`false`) a server. */
type Pauser = (s: TracedServer, on: boolean) => void;

const bySignal: Pauser = (s, on) => process.kill(s.pid, on ? 'SIGSTOP' : 'SIGCONT');

/**
 * Moves each server into its own cgroup v2 folder under one study folder beside this process's
 * cgroup (lifecycle/cgroups.ts `cgroupParent`, where the harness puts its own) and returns a
 * `Pauser` that freezes (`cgroup.freeze` 1) and thaws it, and a `cleanup` that thaws every folder
 * and, a second later (the servers have exited), removes them. Throws when no cgroup v2 tree is
 * mounted or a folder cannot be made or joined.
 */
function freezer(servers: TracedServer[]): { pause: Pauser; cleanup: () => void } {
  const root = cgroupParent();
  if (!root) throw new Error('--pause freeze needs a mounted cgroup v2 tree (and BENCH_CGROUP not off or v1)');
  const base = path.join(root, `round-replica-${process.pid}`);
  fs.mkdirSync(base);
  const dirs = new Map<TracedServer, string>();
  for (const [i, s] of servers.entries()) {
    const dir = path.join(base, `s${i}`);
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'cgroup.procs'), String(s.pid));
    dirs.set(s, dir);
  }
  const pause: Pauser = (s, on) => fs.writeFileSync(path.join(dirs.get(s) ?? '', 'cgroup.freeze'), on ? '1' : '0');
  const cleanup = () => {
    for (const dir of dirs.values()) writeKnob(dir, 'cgroup.freeze', '0');
    setTimeout(() => removeCgroupDir(base), 1000);
  };
  return { pause, cleanup };
}

/** Runs wrk (`wrkArgs`) against `port` for `seconds`; resolves with its request count when it exits. */
function wrkAsync(port: number, seconds: number): { done: Promise<number>; child: ChildProcess } {
  const child = spawn('taskset', wrkArgs(port, seconds), { stdio: ['ignore', 'pipe', 'ignore'] });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString();
  });
  const done = new Promise<number>((r) => child.once('close', () => r(requestsOf(out))));
  return { done, child };
}

/** One round of every server (see the module's doc); returns each server's requests, with those in flight. */
async function round(servers: TracedServer[], seed: number, pause: Pauser): Promise<Map<TracedServer, number>> {
  const windowS = servers.length;
  const order = sliceOrder(servers, Math.ceil((windowS * 1000) / SLICE_MS), seed);
  let active = order[0];
  for (const s of servers) if (s !== active) pause(s, true);
  const drivers = servers.map((s) => wrkAsync(s.port, windowS));
  let ended = false;
  for (const d of drivers) void d.done.then(() => (ended = true));
  const endAt = performance.now() + windowS * 1000;
  try {
    for (const [i, s] of order.entries()) {
      if (ended || performance.now() >= endAt) break;
      if (i > 0 && s !== active) {
        if (active) pause(active, true);
        pause(s, false);
        active = s;
      }
      await sleep(Math.max(0, Math.min(SLICE_MS, endAt - performance.now())));
    }
  } finally {
    for (const s of servers) pause(s, false);
  }
  const counts = await Promise.all(drivers.map((d) => d.done));
  await sleep(DRAIN_MS);
  return new Map(servers.map((s, i) => [s, (counts[i] ?? Number.NaN) + WRK_CONNECTIONS]));
}

/** A target's figures in one arm: requests per CPU-second, and per 1,000 requests its user and system CPU, its collections and their pause (ms). */
interface ArmFigures {
  eff: number;
  userMs: number;
  sysMs: number;
  scavenges: number;
  markCompacts: number;
  gcMs: number;
}

/** A target's CPU and clock at an arm's start, for `figures`. */
const mark = (t: TracedServer) => ({ cpu: procCpu(t.pid), at: performance.now() });

/** A target's `ArmFigures` from `m` (its `mark`) to now, over `requests`. */
function figures(t: TracedServer, m: ReturnType<typeof mark>, requests: number): ArmFigures {
  const c = procCpu(t.pid);
  const user = c.user - m.cpu.user;
  const sys = c.sys - m.cpu.sys;
  const gc = collections(t, m.at, performance.now());
  const k = 1000 / requests;
  return {
    eff: requests / (user + sys),
    userMs: 1000 * user * k,
    sysMs: 1000 * sys * k,
    scavenges: gc.scavenges * k,
    markCompacts: gc.markCompacts * k,
    gcMs: gc.ms * k,
  };
}

/** Each target's figures over `ROUNDS` rounds of all servers. */
async function roundArm(
  servers: TracedServer[],
  targets: TracedServer[],
  seed: number,
  pause: Pauser,
): Promise<ArmFigures[]> {
  const m0 = targets.map(mark);
  const req = targets.map(() => 0);
  for (let r = 0; r < ROUNDS; r++) {
    const got = await round(servers, seed + r, pause);
    for (const [i, t] of targets.entries()) req[i] = (req[i] ?? 0) + (got.get(t) ?? Number.NaN);
  }
  return targets.map((t, i) => figures(t, m0[i] ?? mark(t), req[i] ?? 0));
}

/** Each target's figures over `ROUNDS` continuous 1 s windows of its own, or one window of `longS` s when given. */
async function continuousArm(targets: TracedServer[], longS: number): Promise<ArmFigures[]> {
  const out: ArmFigures[] = [];
  for (const t of targets) {
    const m0 = mark(t);
    let req = 0;
    for (let r = 0; r < (longS > 0 ? 1 : ROUNDS); r++) {
      const s = longS > 0 ? longS : 1;
      req += runWrk(t.port, s) + WRK_CONNECTIONS;
      await sleep(DRAIN_MS);
    }
    out.push(figures(t, m0, req));
  }
  return out;
}

/** One arm's diagnostics as text: user and system CPU, collections and GC pause, per 1,000 requests. */
const diag = (f: ArmFigures | undefined) =>
  f
    ? `user ${f.userMs.toFixed(1)} + sys ${f.sysMs.toFixed(1)} ms, ${f.scavenges.toFixed(2)} scavenges, ${f.markCompacts.toFixed(3)} mark-compacts, GC ${f.gcMs.toFixed(2)} ms`
    : '–';

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    options: {
      pairs: { type: 'string', default: '8' },
      fillers: { type: 'string', default: '11' },
      'filler-contenders': { type: 'string', default: 'node-http' },
      warm: { type: 'string', default: '10' },
      flags: { type: 'string', default: '' },
      continuous: { type: 'string', default: '0' },
      pause: { type: 'string', default: 'sigstop' },
      against: { type: 'string', default: 'continuous' },
    },
    allowPositionals: true,
  });
  if (positionals.length < 2) throw new Error('name at least two contenders: the baseline first');
  if (values.pause !== 'sigstop' && values.pause !== 'freeze')
    throw new Error(`--pause is sigstop or freeze, not ${values.pause}`);
  if (values.against !== 'continuous' && !(values.against === 'sigstop' && values.pause === 'freeze'))
    throw new Error(`--against is continuous, or sigstop with --pause freeze; not ${values.against}`);
  const servers: TracedServer[] = [];
  let cleanup = () => {};
  try {
    const flags = values.flags.split(' ').filter(Boolean);
    for (const [i, name] of positionals.entries()) servers.push(startTraced('round-replica', name, 41_100 + i, flags));
    const fillerNames = values['filler-contenders'].split(',').filter(Boolean);
    for (let i = 0; i < Number(values.fillers); i++)
      servers.push(startTraced('round-replica', fillerNames[i % fillerNames.length] ?? 'node-http', 41_200 + i, flags));
    for (const s of servers) await ready(s);
    for (const s of servers) runWrk(s.port, Number(values.warm));
    let pause = bySignal;
    if (values.pause === 'freeze') ({ pause, cleanup } = freezer(servers));
    const targets = servers.slice(0, positionals.length);
    const armNames = `R rounds paused by ${values.pause}, C ${values.against === 'sigstop' ? 'rounds paused by sigstop' : 'continuous windows'}`;
    const quotients = targets.map(() => [] as number[]);
    for (let p = 1; p <= Number(values.pairs); p++) {
      const arms: Record<'R' | 'C', ArmFigures[]> = { R: [], C: [] };
      for (const kind of p % 2 ? (['R', 'C'] as const) : (['C', 'R'] as const))
        arms[kind] =
          kind === 'R'
            ? await roundArm(servers, targets, 1000 * p, pause)
            : values.against === 'sigstop'
              ? await roundArm(servers, targets, 1000 * p, bySignal)
              : await continuousArm(targets, Number(values.continuous));
      const eff = (k: 'R' | 'C', i: number) => arms[k][i]?.eff ?? Number.NaN;
      const line = targets.map((t, i) => {
        const rr = eff('R', i) / eff('R', 0);
        const rc = eff('C', i) / eff('C', 0);
        quotients[i]?.push(rr / rc);
        return `${t.name} ${Math.round(eff('R', i))}/${Math.round(eff('C', i))} (ratio R ${rr.toFixed(3)}, C ${rc.toFixed(3)})`;
      });
      console.log(`pair ${p}: requests per CPU-second, R/C (${armNames}): ${line.join('; ')}`);
      for (const [i, t] of targets.entries())
        console.log(`  ${t.name} per 1,000 requests: R ${diag(arms.R[i])}; C ${diag(arms.C[i])}`);
    }
    for (const [i, t] of targets.entries())
      if (i > 0) console.log(`${t.name}: ratio in R ÷ ratio in C (${armNames}): ${ratioSummary(quotients[i] ?? [])}`);
  } finally {
    cleanup();
    for (const s of servers) stopTraced(s);
  }
}

await main();
