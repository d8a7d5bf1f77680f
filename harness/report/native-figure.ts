/**
 * The server-bound figure of a client-bound k6 cell, for the claims (report/claims.ts).
 *
 * A k6 cell whose server used < 85% of its core is client-bound (lifecycle/sampler.ts
 * `clientBoundRule`): its requests/s is a lower bound. Such a cell may carry `nativeCheck`
 * (store/results.ts `NativeCheck`): the same server driven by wrk at the same concurrency, one
 * window per round. Constant VUs with no think time are N closed-loop connections; the shapes
 * differ for ramping VUs (wrk holds one concurrency), a VU cap (k6-rate's arrival rate is open
 * loop) and think time (a VU that sleeps is not a busy connection): `NativeCheck.shape` says how
 * the check stood in for the k6 shape.
 *
 * `nativePair(a, b)`: when a or b is client-bound or its server was below 85% of its core (k6
 * windows are not called client-bound for an idle server: sampler.ts `clientBoundRule`), and both
 * carry a native figure, neither of them client-bound, the two cells as wrk measured them (`driver`
 * wrk, the check's per-round requests/s as trials, its client-bound flag) — the claim is then
 * judged on them, and k6's own ratio is shown as the source tool's (`SourceToolLine`). Else null.
 */
import { MIN_CI_TRIALS } from '../analysis/stats.ts';
import { serverBelowBusy } from '../lifecycle/sampler.ts';
import type { CellResult, CellStats } from '../store/results.ts';

/** k6's own figure of a claim judged on wrk's: the ratio in the claim's units, its band, and the client-bound labels. */
export interface SourceToolLine {
  /** The cells' own driver (k6). */
  driver: string;
  ours: number;
  band: [number, number];
  /** Labels whose k6 figure was a lower bound (client-bound, or its server below 85% of its core). */
  clientBound: string[];
  /** How wrk stood in for k6's shape (each side's `NativeCheck.shape`, deduplicated). */
  shape: string;
}

/** Cell `c` as its native check measured it, or null when it has none (or too few rounds). */
function asNative(c: CellResult): CellResult | null {
  const n = c.nativeCheck;
  if (!n || n.trialRps.length < MIN_CI_TRIALS || n.rounds.length !== n.trialRps.length || !c.stats) return null;
  const stats: CellStats = { ...c.stats, trials: n.trialRps.length, trialRps: n.trialRps, rounds: n.rounds };
  const resources = c.resources ? { ...c.resources, clientBound: n.clientBound } : undefined;
  return { ...c, driver: n.driver, stats, ...(resources ? { resources } : {}) };
}

/** The pair as wrk measured it when k6 left a side client-bound and both sides have a server-bound native figure (module docstring); else null. */
export function nativePair(a: CellResult, b: CellResult): { a: CellResult; b: CellResult } | null {
  const k6Bound = (c: CellResult) => Boolean(c.resources?.clientBound) || serverBelowBusy(c.resources);
  if (!k6Bound(a) && !k6Bound(b)) return null;
  const na = asNative(a);
  const nb = asNative(b);
  if (!na || !nb || na.resources?.clientBound || nb.resources?.clientBound) return null;
  return { a: na, b: nb };
}

/** The shape note of a native pair: "wrk at 1000 connections (constant VUs, no think time)". */
export function nativeShape(a: CellResult, b: CellResult): string {
  return [...new Set([a, b].map((c) => c.nativeCheck?.shape).filter((s): s is string => Boolean(s)))].join('; ');
}
