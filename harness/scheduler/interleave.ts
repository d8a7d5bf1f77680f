/**
 * Interleaved rounds: the measurement that ranks (issue "Resolution"; profiles.ts
 * `InterleaveShape`; docs/noise.md has the study behind it).
 *
 * Why. On this host the speed of the server core drifts by 5–20% over a second or two, so two
 * solo windows measured seconds apart differ by that much whatever the stacks are. In an
 * interleaved round every live server of the group is driven AT ONCE, each by its own driver
 * window of the same length, and the scheduler keeps every server but one paused (its cgroup
 * frozen, every process of it, detached ones included; SIGSTOP to its process group where no
 * freezer is: lifecycle/processes.ts `pauseTracked`): it resumes them in turn for `sliceMs` each (100 ms), in a new seeded
 * shuffled order every cycle, for the whole window, so each server gets about `activeS` seconds.
 * A paused server's driver just waits for its answers (no CPU). Every server thus samples the same
 * seconds of the host's drift, and the drift cancels in the per-round ratio to the baseline (the
 * table model, analysis/table-model.ts).
 *
 * The figure of a server in a round is its efficiency: (requests completed + requests in flight
 * when the driver stopped) ÷ the CPU-seconds of its processes (cgroup `cpu.stat`, µs) from the
 * round's start until its driver ended and it drained. It charges each server exactly for its own
 * work, wherever a slice boundary fell.
 *
 * What the figure means: requests per CPU-second of the contender's own processes. Work done
 * elsewhere (the upstream mock of `fanout`, PostgreSQL) is not in it; the solo rounds' requests/s
 * stays the absolute figure, and their latency the latency (a paused server's requests wait, so
 * latency from these windows is never read).
 *
 * Why the servers and not the drivers are paused: a paused wrk does not end at its `-d` (its
 * clock does not run while stopped) and SIGINT may reach a worker thread and not end it either;
 * a wrk that is never paused ends on time, and its waiting costs nothing. Times in ms unless named S.
 */
import type { ConnectionProfile, InterleaveShape } from '../core/profiles.ts';
import { mulberry32 } from '../core/prng.ts';
import type { LoadOutput } from '../drivers/driver-types.ts';
import { foreignCpuS, foreignSnapshot } from '../lifecycle/foreign-cpu.ts';
import type { CellResult, PairedWindow } from '../store/results.ts';
import { describePaired } from './aggregate.ts';
import { loadJob, lostServices } from './jobs.ts';
import { shuffle } from './rounds.ts';
import { type Entry, type GroupContext, liveServer } from './scheduler-types.ts';
import { loopbackBreach } from './window.ts';
import { containmentBreach, FREEZE_SLACK_S } from './containment.ts';
import { pauseTracked } from '../lifecycle/processes.ts';

/** Wait after the last driver ended before the servers' CPU is read (they serve what was in flight), ms. */
export const DRAIN_MS = 100;

/** Pauses (`true`) or resumes (`false`) one server. */
type Pause = (on: boolean) => void;

/**
 * The pause/resume state of one round: which entry's server runs, how each entry's server is
 * paused, and each entry's unpaused time (ms). `register` pauses a server unless its entry is the
 * active one; `switchTo` pauses the active server and resumes the next; `resumeAll` resumes every
 * server (the end of the slices, an abort). A server given by its pid is paused with
 * lifecycle/processes.ts `pauseTracked` (its cgroup's freezer, else its process group's signals).
 */
export class SliceGate {
  private pids = new Map<Entry, Pause>();
  private active: Entry | null = null;
  private since = 0;
  readonly activeMs = new Map<Entry, number>();
  private readonly now: () => number;

  /** `now`: the clock, ms (a fake in tests). */
  constructor(now: () => number = () => performance.now()) {
    this.now = now;
  }

  /** The server of `e` (its pid, or its pause function): paused at once unless `e` is the active entry. */
  register(e: Entry, server: number | Pause): void {
    const pause: Pause = typeof server === 'number' ? (on) => void pauseTracked(server, on) : server;
    this.pids.set(e, pause);
    if (this.active !== e) pause(true);
  }

  /** Pauses the active entry's server (if another) and resumes `e`'s; the time is charged to the one that ran. */
  switchTo(e: Entry): void {
    this.charge();
    const prev = this.active ? this.pids.get(this.active) : undefined;
    if (prev !== undefined && this.active !== e) prev(true);
    this.pids.get(e)?.(false);
    this.active = e;
  }

  /** Ends the slices: every server resumed, the active one's time charged. */
  resumeAll(): void {
    this.charge();
    this.active = null;
    for (const pause of this.pids.values()) pause(false);
  }

  /** Charges the time since the last switch to the active entry. */
  private charge(): void {
    const t = this.now();
    if (this.active) this.activeMs.set(this.active, (this.activeMs.get(this.active) ?? 0) + (t - this.since));
    this.since = t;
  }
}

/** Seconds of one round of `servers` servers (every driver's window): servers × activeS, whole seconds (wrk's -d). */
export function roundWindowS(servers: number, shape: InterleaveShape): number {
  return Math.max(1, Math.ceil(servers * shape.activeS));
}

/** The planned cost of one interleaved round of `servers` servers, ms (for the ETA). */
export function interleavedRoundMs(servers: number, shape: InterleaveShape): number {
  return servers < 2 ? 0 : roundWindowS(servers, shape) * 1000 + DRAIN_MS + 500;
}

/**
 * The slice order of one round: cycles of the entries, each cycle in its own order drawn from a
 * seeded PRNG (so a round is reproducible from the run's seed), consecutive cycles never giving
 * the same entry two slices in a row.
 */
export function sliceOrder<T>(items: readonly T[], slices: number, seed: number): T[] {
  const rnd = mulberry32(seed >>> 0);
  const out: T[] = [];
  while (out.length < slices) {
    let cycle = shuffle(items, rnd);
    if (cycle.length > 1 && cycle[0] === out.at(-1)) cycle = [...cycle.slice(1), ...cycle.slice(0, 1)];
    out.push(...cycle);
  }
  return out.slice(0, slices);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The paired figure of one server in a round, or null when its CPU could not be read or it did no work. */
export function pairedFigure(
  out: LoadOutput,
  inFlight: number,
  cpuUs: number | null,
  activeS: number,
  servers: number,
  sliceMs: number,
): PairedWindow | null {
  if (cpuUs === null || !(cpuUs > 0) || out.requests.total <= 0) return null;
  const serverCpuS = cpuUs / 1e6;
  return {
    efficiency: (out.requests.total + inFlight) / serverCpuS,
    requests: out.requests.total,
    serverCpuS,
    activeS,
    servers,
    sliceMs,
  };
}

/** How a round is used: `instance` (1-based server process of every cell, profiles.ts `instances`). */
export interface RoundUse {
  instance?: number;
}

/**
 * One interleaved round of the live entries (see the module docstring): writes one trial per
 * entry (its `paired` figure; a crash, an off-loopback socket or a driver error makes an error
 * trial and stops that server). Returns false when an abort interrupted the round (no trials).
 */
export async function runInterleavedRound(
  entries: Entry[],
  ctx: GroupContext,
  round: number,
  shape: InterleaveShape,
  stop: (e: Entry) => Promise<void>,
  tail: (e: Entry) => string,
  use: RoundUse = {},
): Promise<boolean> {
  const live = entries.filter((e) => !e.final && e.server);
  if (live.length < 2) return true;
  const first = live[0];
  if (!first) return true;
  const p = first.cell.profile as ConnectionProfile;
  const windowS = roundWindowS(live.length, shape);
  const slices = Math.ceil((windowS * 1000) / shape.sliceMs);
  const order = sliceOrder(live, slices, ctx.seed + 7919 * ctx.groupIndex + 104729 * round);
  const what = `interleaved round ${round}`;
  ctx.progress.window(
    `${what}: ${live.length} servers, ${windowS} s in ${shape.sliceMs} ms slices`,
    interleavedRoundMs(live.length, shape),
  );
  const gate = new SliceGate();
  const [head] = order;
  if (head) gate.switchTo(head);
  for (const e of live) {
    const s = liveServer(e);
    if (s.pause) gate.register(e, s.pause);
    else if (s.pid !== null) gate.register(e, s.pid);
  }
  const cpu0 = new Map(live.map((e) => [e, liveServer(e).cpuUs()]));
  const foreign0 = foreignSnapshot();
  const roundT0 = performance.now();
  const runs = live.map((e) => {
    const s = liveServer(e);
    return ctx.driver
      .window(p, loadJob(e.cell, ctx.scenariosDir, ctx.db, s.baseUrl), {
        durationS: windowS,
        warmup: false,
        latency: false,
        cpus: ctx.cpuPlan.client,
        threads: ctx.cpuPlan.clientThreads,
        signal: AbortSignal.any([ctx.signal, s.died]),
        scenario: e.cell.scenario,
        sharedSchemas: ctx.sharedSchemas,
        rate: null,
      })
      .then(
        (out) => ({ out, error: null }),
        (err: unknown) => ({ out: null, error: err instanceof Error ? err.message : String(err) }),
      );
  });
  let ended = 0;
  for (const r of runs) void r.then(() => ended++);
  // The slices fill the drivers' window; a late timer (a busy host) lengthens a slice, never the
  // round, and each server's share stays equal in expectation (the order is shuffled per cycle).
  const endAt = performance.now() + windowS * 1000;
  try {
    for (const [i, e] of order.entries()) {
      if (ctx.signal.aborted || ended > 0 || performance.now() >= endAt) break;
      if (i > 0) gate.switchTo(e);
      await sleep(Math.max(0, Math.min(shape.sliceMs, endAt - performance.now())));
    }
  } finally {
    gate.resumeAll();
  }
  const resumedAt = performance.now();
  const results = await Promise.all(runs);
  ctx.progress.close();
  if (ctx.signal.aborted) return false;
  await sleep(DRAIN_MS);
  // Every server ran from resumedAt until its CPU is read below: allowed on top of its slices.
  const sharedS = (performance.now() - resumedAt) / 1000 + FREEZE_SLACK_S;
  const foreign = foreignCpuS(foreign0, foreignSnapshot());
  const foreignShare = foreign === null ? null : foreign / ((performance.now() - roundT0) / 1000);
  const inFlight = p.connections * Math.max(1, p.pipelining);
  for (const [i, e] of live.entries()) {
    const r = results[i];
    if (!r) continue;
    const c0 = cpu0.get(e);
    const c1 = liveServer(e).cpuUs();
    const cpu = c0 === null || c0 === undefined || c1 === null ? null : c1 - c0;
    const activeS = (gate.activeMs.get(e) ?? 0) / 1000;
    const fig = r.out ? pairedFigure(r.out, inFlight, cpu, activeS, live.length, shape.sliceMs) : null;
    const paired = fig
      ? { ...fig, ...((use.instance ?? 1) > 1 ? { instance: use.instance ?? 1 } : {}), foreignShare }
      : fig;
    const wallS = (performance.now() - roundT0) / 1000;
    const used = cpu === null ? null : { cpuS: cpu / 1e6, wallS };
    const escaped = containmentBreach(liveServer(e), ctx, `in interleaved round ${round}`, used, activeS + sharedS);
    const trial = await pairedTrial(e, ctx, round, r.out, paired, r.error, tail, escaped);
    e.trials.push(trial);
    ctx.sink.writeTrial(trial, e.trials.length);
    if (trial.status !== 'ok') await stop(e);
  }
  ctx.progress.done('round', interleavedRoundMs(live.length, shape));
  return true;
}

/** The trial of entry `e` in interleaved round `round` (the checks of a solo window: crash, loopback, the services). */
async function pairedTrial(
  e: Entry,
  ctx: GroupContext,
  round: number,
  out: LoadOutput | null,
  paired: PairedWindow | null,
  error: string | null,
  tail: (e: Entry) => string,
  escapedWhy: string | null,
): Promise<CellResult> {
  const died = liveServer(e).exitInfo();
  const where = `interleaved round ${round}`;
  const wide = died ? null : loopbackBreach(e, where);
  const escaped = died || wide ? null : escapedWhy;
  const lost = await lostServices(e.cell, ctx);
  const stamp = { round, verification: e.verification, finishedAt: new Date().toISOString() };
  if (out && paired && !died && !wide && !escaped) {
    // The latency of a paused driver is not the server's: the histogram is dropped, never read.
    const load = { ...out, latencyHistogramUs: null, profile: e.cell.profile };
    const trial: CellResult = { ...e.base, ...lost, load, paired, status: 'ok', ...stamp };
    ctx.progress.note(`  ${e.label}: ${describePaired(paired)}`);
    return trial;
  }
  const reason = died
    ? `server ${died} during ${where}`
    : (wide ??
      escaped ??
      (error
        ? `load driver failed in ${where}: ${error}`
        : `${where}: the server's CPU time could not be read, or it served no request`));
  const status = died ? 'crashed' : escaped ? 'uncontained' : 'error';
  return { ...e.base, ...lost, status, failure: { reason, logTail: tail(e) }, ...stamp };
}
