/**
 * The native check of k6 cells: a server-bound figure beside a client-bound k6 measurement
 * (store/results.ts `NativeCheck`; report/native-figure.ts judges claims on it).
 *
 * After a k6 group's rounds, when in a window of any live server of the group k6 left the server
 * below 85% of its core or was client-bound by its own CPU (lifecycle/sampler.ts), every live
 * server of the group gets `ctx.rounds` more windows from wrk at the k6 shape's concurrency, one
 * per round in the rounds' seeded orders (so the figures pair by round), each as long as a k6
 * window but at most NATIVE_WINDOW_MAX_S. Concurrency (`nativeShape`): constant VUs → that many
 * connections (a VU with no think time is a closed-loop connection); ramping VUs → the highest
 * stage target; constant-arrival-rate → none (open loop, its VUs are a cap; wrk cannot replay it).
 *
 * The driver is the run's `nativeDriver` (real-deps.ts: wrk); without one (fakes) there is no
 * check, and with wrk missing it is skipped with a note. A window that fails as a cell would
 * (analysis/stats.ts `cellFailure`: over 0.1% failed requests, a wrong body) or whose driver
 * failed ends the check for that server: its cell keeps no native figure. Seconds, requests/s.
 */
import { cellFailure } from '../analysis/stats.ts';
import { type ConnectionProfile, measuredSeconds, type Profile } from '../core/profiles.ts';
import { serverBelowBusy } from '../lifecycle/sampler.ts';
import type { NativeCheck } from '../store/results.ts';
import { roundOrders } from './rounds.ts';
import type { Entry, GroupContext } from './scheduler-types.ts';
import { runWindow } from './window.ts';

/** Longest wrk window of the check, seconds (a k6-ramp window is 70 s; wrk needs no ramp). */
export const NATIVE_WINDOW_MAX_S = 10;

/** The wrk shape standing in for k6 profile `p`: its connections and a phrase, or null when wrk cannot stand in. */
export function nativeShape(p: Profile): { connections: number; shape: string } | null {
  if (p.driver !== 'k6') return null;
  if (p.executor === 'constant-vus' && p.vus)
    return { connections: p.vus, shape: `wrk at ${p.vus} connections (${p.vus} constant VUs, no think time)` };
  if (p.executor === 'ramping-vus' && p.stages?.length) {
    const peak = Math.max(...p.stages.map((s) => s.target));
    return peak > 0
      ? { connections: peak, shape: `wrk at ${peak} connections (the ramp's peak of ${peak} VUs, no think time)` }
      : null;
  }
  return null;
}

/** Runs the check on the group's live entries when one of them was client-bound (module docstring). */
export async function runNativeCheck(entries: Entry[], ctx: GroupContext, p: Profile): Promise<void> {
  const shape = nativeShape(p);
  const live = entries.filter((e) => !e.final && e.server);
  const bound = (e: Entry) =>
    e.trials.some((t) => t.status === 'ok' && (t.resources?.clientBound || serverBelowBusy(t.resources)));
  if (!shape || !live.some(bound)) return;
  if (!ctx.nativeDriver) return;
  const driver = ctx.nativeDriver();
  if (!driver) {
    ctx.progress.note(
      '  native check skipped: k6 left a server below 85% of its core, and wrk is not installed (apt-get install -y wrk)',
    );
    return;
  }
  const durationS = Math.min(Math.max(1, Math.round(measuredSeconds(p))), NATIVE_WINDOW_MAX_S);
  const profile: ConnectionProfile = {
    name: p.name,
    description: `native check: ${shape.shape}`,
    source: p.source,
    driver: 'wrk',
    connections: shape.connections,
    pipelining: 1,
    warmupS: 0,
    durationS,
    timeoutS: p.timeoutS,
    rounds: ctx.rounds,
  };
  ctx.progress.note(
    `  native check: k6 left a server below 85% of its core; ${live.length} server(s) × ${ctx.rounds} × ${durationS} s of ${shape.shape}`,
  );
  const as = { driver, profile };
  const checks = new Map<Entry, NativeCheck | null>(live.map((e) => [e, null]));
  for (const [r, order] of roundOrders(live, ctx.rounds, ctx.seed, ctx.groupIndex).entries()) {
    for (const e of order) {
      if (ctx.signal.aborted) return;
      if (!checks.has(e) || e.final || !e.server) continue;
      const out = await runWindow(e, ctx, durationS, false, as);
      // A driver error or an escape from containment gives no native figure.
      if (typeof out === 'string' || 'escaped' in out) {
        checks.delete(e);
        continue;
      }
      const load = out.load;
      if (!load || cellFailure({ ...e.base, ...out, status: 'ok' })) {
        checks.delete(e);
        continue;
      }
      const c = checks.get(e) ?? {
        driver: 'wrk',
        connections: shape.connections,
        trialRps: [],
        rounds: [],
        clientBound: false,
        shape: shape.shape,
      };
      c.trialRps.push(load.durationS > 0 ? load.requests.total / load.durationS : 0);
      c.rounds.push(r + 1);
      c.clientBound ||= Boolean(out.resources?.clientBound);
      checks.set(e, c);
    }
  }
  for (const [e, c] of checks) if (c) e.native = c;
}
