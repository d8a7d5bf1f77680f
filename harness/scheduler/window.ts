/**
 * The two steps of a group that talk to a server: verification (the contract check, then in
 * bench mode the concurrency burst of contract/burst.ts) and one load window (warm-up or
 * measured) through the injected LoadDriver, with resource sampling over measured windows.
 * Times in ms; window lengths in seconds.
 */
import os from 'node:os';
import { asStorageError, StorageError } from '../core/errors.ts';
import { burstCheck } from '../contract/burst.ts';
import { verifyScenario } from '../contract/verify.ts';
import { isConnectionProfile, type Profile } from '../core/profiles.ts';
import type { LoadDriver, WindowTick } from '../drivers/driver-types.ts';
import { Sampler } from '../lifecycle/sampler.ts';
import { describeListeners, LOOPBACK_RULE, offLoopbackListeners } from '../lifecycle/server.ts';
import type { CellResult } from '../store/results.ts';
import { containmentBreach, cpuMeter } from './containment.ts';
import { loadJob, runtimeValues } from './jobs.ts';
import { type Entry, type GroupContext, liveServer } from './scheduler-types.ts';

/**
 * A burst request with no answer within max(this, the profile's request timeout) fails the cell
 * (ms). The burst runs on a freshly started, cold server: 2 s failed healthy but cold servers
 * (LoopBack 4, NestJS fan-out) on a busy 2-core host, and 1 s a /health under load. A hung
 * request still shows up within seconds; the burst stops after 20 failures.
 */
export const BURST_TIMEOUT_MS = 5000;

/**
 * Contract check and (bench mode) the concurrency burst; sets `e.verification` and `base.startupMs`.
 * Every response has a whole-response deadline: the complete response within 5 s (the burst:
 * BURST_TIMEOUT_MS, or the profile's longer request timeout), and its body within the profile's
 * request timeout of its head (smoke: 1 s), so a body that never ends fails the cell with the reason.
 */
export async function verifyEntry(e: Entry, ctx: GroupContext): Promise<void> {
  const s = liveServer(e);
  e.base.startupMs = s.startupMs;
  const t0 = performance.now();
  const rt = runtimeValues(e.cell, ctx.db);
  const timeoutMs = Math.max(BURST_TIMEOUT_MS, e.cell.profile.timeoutS * 1000);
  const bodyTimeoutMs = e.cell.profile.timeoutS * 1000;
  try {
    e.verification = await verifyScenario(ctx.checker, s.baseUrl, e.cell.scenario, rt, { bodyTimeoutMs });
  } catch (err) {
    e.verification = { level: 'fail', reasons: [(err as Error).message] };
  }
  if (ctx.mode === 'bench' && e.verification.level !== 'fail' && ctx.burstRequests > 0) {
    const p = e.cell.profile;
    const job = loadJob(e.cell, ctx.scenariosDir, ctx.db, s.baseUrl);
    const b = await burstCheck({
      baseUrl: s.baseUrl,
      scenario: e.cell.scenario,
      checker: ctx.checker,
      request: job.request,
      params: job.params,
      variants: job.variants,
      connections: isConnectionProfile(p) ? p.connections : Math.min(p.vus ?? 50, 100),
      requests: ctx.burstRequests,
      timeoutMs,
      bodyTimeoutMs,
      signal: AbortSignal.any([ctx.signal, s.died]),
    });
    e.base.burst = { requests: b.requests, failed: b.failed, ms: b.ms };
    if (!b.ok && !ctx.signal.aborted)
      e.verification = {
        level: 'fail',
        reasons: [...e.verification.reasons, ...b.reasons.map((r) => `concurrency burst (${p.name}): ${r}`)],
      };
  }
  e.ms.verify = performance.now() - t0;
}

/**
 * Ends a sampled load run (a window, or an open-loop step of scheduler/capacity-round.ts) and
 * summarises it (`closedLoop`: a connection profile's window, where an idle server is client-bound) with the CPU plan's server and client core counts (all allowed cores when
 * unpinned); null when nothing was sampled.
 */
export function stopSampler(
  sampler: Sampler,
  ctx: GroupContext,
  requests: number,
  durationS: number,
  closedLoop = false,
) {
  const cores = (list: string | null) => (list ? list.split(',').length : ctx.cpuPlan.allowedCores.length);
  return sampler.stop(requests, durationS, cores(ctx.cpuPlan.server), cores(ctx.cpuPlan.client), closedLoop);
}

/** What a window gives: its measured fields, `{ escaped }` (a containment breach: the reason), or the driver's error text. */
export type WindowOutcome = Partial<CellResult> | { escaped: string } | string;

/** The reason of an escaped window (runWindow's `{ escaped }`), else null. */
export function escapedOf(out: WindowOutcome): string | null {
  return typeof out === 'object' && 'escaped' in out && typeof out.escaped === 'string' ? out.escaped : null;
}

/**
 * One window (warm-up or measured); the measured result fields, `{ escaped }` when the server
 * broke its containment over it (scheduler/containment.ts: the reason), or the driver's error
 * text. A measured window passes the driver's live samples to `ctx.progress` when it draws them.
 * `as`: another driver and profile than the run's (the native check of k6 cells: scheduler/native-check.ts).
 */
export async function runWindow(
  e: Entry,
  ctx: GroupContext,
  durationS: number,
  warmup: boolean,
  as?: { driver: LoadDriver; profile: Profile },
): Promise<WindowOutcome> {
  const s = liveServer(e);
  const p = e.cell.profile;
  const rate = ctx.rate(e.cell);
  const effective: Profile = as?.profile ?? (rate !== null && p.driver === 'k6' ? { ...p, rate } : p);
  const sampler = new Sampler(warmup ? null : s.pid);
  const meter = cpuMeter(s);
  try {
    const driver = as?.driver ?? ctx.driver;
    const out = await driver.window(effective, loadJob(e.cell, ctx.scenariosDir, ctx.db, s.baseUrl), {
      durationS,
      warmup,
      cpus: ctx.cpuPlan.client,
      threads: ctx.cpuPlan.clientThreads,
      signal: AbortSignal.any([ctx.signal, s.died]),
      onSpawn: (pid) => {
        if (!warmup) sampler.start(pid);
      },
      scenario: e.cell.scenario,
      sharedSchemas: ctx.sharedSchemas,
      rate,
      ...(!warmup && ctx.progress.wantsTicks() ? { onTick: (t: WindowTick) => ctx.progress.tick(t) } : {}),
    });
    const use = meter();
    const sampled = stopSampler(sampler, ctx, out.requests.total, out.durationS, isConnectionProfile(effective));
    // CPU-s per second of load: the driver's own duration, not the wall time around it (wrk's done()
    // writes its latency histogram for up to 3 s after the load, while the server idles).
    const loadS = out.durationS > 0 ? Math.min(use?.wallS ?? out.durationS, out.durationS) : (use?.wallS ?? 0);
    const resources =
      sampled && use && loadS > 0 ? { ...sampled, server: { ...sampled.server, cpuSPerS: use.cpuS / loadS } } : sampled;
    const escaped = containmentBreach(s, ctx, warmup ? 'in the warm-up' : 'in a measured window', use);
    if (escaped) return { escaped };
    return { load: { ...out, profile: effective }, ...(resources ? { resources } : {}) };
  } catch (err) {
    sampler.stop(0, 1, 1, 1);
    // A full or read-only temp folder (the drivers write their scripts and samples there) is the
    // machine's fault, not the contender's: a StorageError (exit 2) ends the run, marked interrupted.
    const storage = tempStorageError(err);
    if (storage) throw storage;
    return (err as Error).message;
  }
}

/** `err` as a StorageError on the temp folder when it (or its message) is ENOSPC, EDQUOT or EROFS; else null. */
function tempStorageError(err: unknown): StorageError | null {
  const direct = asStorageError(err, 'temp', os.tmpdir());
  if (direct) return direct;
  const code = /\b(ENOSPC|EDQUOT|EROFS)\b/.exec(err instanceof Error ? err.message : String(err))?.[1];
  return code ? new StorageError('temp', os.tmpdir(), code) : null;
}

/**
 * The loopback rule, re-checked after verification and after every window (warm-up or measured):
 * the listening sockets of every process of the cell's server (its cgroup, else its process
 * tree; lifecycle/server.ts `offLoopbackListeners`) from /proc. Returns the failure reason
 * ("server listens off loopback on 0.0.0.0:PORT (pid N) since round 2; …") or null when every
 * listener is on 127.0.0.0/8 or ::1, the server is gone, or it is an external target.
 * `when`: "round 2", "the warm-up", "verification".
 */
export function loopbackBreach(e: Entry, when: string): string | null {
  const pid = e.server?.pid;
  if (pid === null || pid === undefined) return null;
  const wide = offLoopbackListeners(pid);
  return wide.length
    ? `server listens off loopback on ${describeListeners(wide)} since ${when}; ${LOOPBACK_RULE}`
    : null;
}
