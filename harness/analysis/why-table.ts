/**
 * The tables of `just why` (issue "Why a stack is slow"), from a cell's profile and its profiled
 * window: the attribution by bucket with µs of self time, share of busy time and ns of CPU per
 * request (`whyCell`), and per scenario the difference of each contender from the scenario's
 * baseline in ns of CPU per request by bucket, adding up exactly (`whyDiffs`; the arithmetic is
 * analysis/cpu-profile.ts `cpuPerRequest` / `diffPerRequest`). The shapes are the store's
 * (store/why-store.ts). Never throws on a bad profile: the cell then carries "no profile: …".
 *
 * CPU per request: the server's CPU time in the window from /proc (the scheduler's Sampler, every
 * thread) divided by the requests, shared out over the buckets by their share of the profile's
 * busy samples. Not the profile's busy time itself: V8's sampler measures wall time, and a main
 * thread preempted by another process (a shared machine) is charged for the wait to whatever frame
 * it resumes in; measured on this 2-core machine under a load average of 11, a 400 µs timed burn
 * showed 1,030 µs of busy time per request (ad hoc, test/integration/why.test.ts fixture). The shares keep
 * their meaning (the wait lands where the CPU goes); the /proc total removes the wait. Without a
 * /proc figure the profile's busy time per request is used (`cpuSource` 'profile').
 */
import type { WhyCell, WhyDiff } from '../store/why-store.ts';
import { attribute, cpuPerRequest, diffPerRequest, type PerRequest, type ProfileResult } from './cpu-profile.ts';

/** What is known of one profiled cell. */
export interface WhyCellInput {
  cellId: string;
  contender: string;
  variant: string | null;
  scenario: string;
  isBaseline: boolean;
  /** Absolute folder of the contender (to name its own code). */
  contenderDir: string;
  /** The profile file (relative to the run folder) and its parse, or why there is none. */
  profileFile: string | null;
  profile: ProfileResult;
  /** The measured window (CLOCK_MONOTONIC µs) with its completed requests, or null when none ran. */
  window: { fromUs: number; toUs: number; requests: number; requestsPerSec: number } | null;
  /** The server's requests per CPU-second in the window from /proc (CellResult resources), or null. */
  rpsPerCpuSecond: number | null;
}

/** The attribution of one cell (see the module comment); `noProfile` says why there is none. */
export function whyCell(i: WhyCellInput): WhyCell {
  const base = {
    cellId: i.cellId,
    contender: i.contender,
    variant: i.variant,
    scenario: i.scenario,
    isBaseline: i.isBaseline,
    profileFile: i.profileFile,
    requests: i.window?.requests ?? 0,
    requestsPerSec: i.window?.requestsPerSec ?? null,
    window: i.window ? { fromUs: i.window.fromUs, toUs: i.window.toUs } : null,
    processCpuNs: i.rpsPerCpuSecond && i.rpsPerCpuSecond > 0 ? Math.round(1e9 / i.rpsPerCpuSecond) : null,
  };
  const empty = {
    wallUs: 0,
    idleUs: 0,
    busyUs: 0,
    samples: 0,
    totalNs: null,
    busyNs: null,
    cpuSource: null,
    buckets: [],
  };
  if (!i.profile.ok) return { ...base, ...empty, noProfile: i.profile.reason };
  if (!i.window) return { ...base, ...empty, noProfile: 'no profile: no measured window ran (see the cell status)' };
  if (!(i.window.requests > 0))
    return { ...base, ...empty, noProfile: 'no profile: the window completed no request (see the cell status)' };
  const a = attribute(i.profile.profile, { contenderDir: i.contenderDir }, i.window);
  if (a.samples === 0)
    return {
      ...base,
      ...empty,
      noProfile: `no profile: the profile holds no sample inside the measured window (profile ${i.profile.profile.startTime}–${i.profile.profile.endTime} µs, window ${i.window.fromUs}–${i.window.toUs} µs)`,
    };
  const per = cpuPerRequest(a, i.window.requests);
  const proc = base.processCpuNs;
  // With the /proc figure: each bucket's share of the busy samples times the process's CPU per request.
  const nsOf = new Map(
    per.buckets.map((b) => {
      const share = a.buckets.find((x) => x.bucket === b.bucket)?.share ?? 0;
      return [b.bucket, proc === null ? b.ns : Math.round(share * proc)];
    }),
  );
  return {
    ...base,
    noProfile: null,
    wallUs: a.wallUs,
    idleUs: a.idleUs,
    busyUs: a.busyUs,
    samples: a.samples,
    totalNs: proc ?? per.totalNs,
    busyNs: per.totalNs,
    cpuSource: proc === null ? 'profile' : 'proc',
    buckets: a.buckets.map((b) => ({ ...b, ns: nsOf.get(b.bucket) ?? null })),
  };
}

/** A cell's CPU per request as analysis/cpu-profile.ts takes it; null without a profile. */
export function perRequestOf(c: WhyCell): PerRequest | null {
  if (c.totalNs === null || c.noProfile) return null;
  return {
    requests: c.requests,
    totalNs: c.totalNs,
    buckets: c.buckets.flatMap((b) => (b.ns === null ? [] : [{ bucket: b.bucket, kind: b.kind, ns: b.ns }])),
  };
}

/**
 * Per scenario, every other profiled cell minus the reference cell (A − B), every bucket listed
 * (so the remainder is only the per-bucket rounding). The reference is the scenario's baseline
 * cell, or with `reference` the cell of that contender (no variant) in the scenario.
 */
export function whyDiffs(cells: readonly WhyCell[], reference?: string): WhyDiff[] {
  const out: WhyDiff[] = [];
  const isRef = (c: WhyCell) => (reference ? c.contender === reference && !c.variant : c.isBaseline);
  for (const b of cells.filter(isRef)) {
    const bp = perRequestOf(b);
    if (!bp) continue;
    for (const a of cells.filter((c) => c !== b && c.scenario === b.scenario)) {
      const ap = perRequestOf(a);
      if (!ap) continue;
      out.push({ scenario: a.scenario, a: a.cellId, b: b.cellId, ...diffPerRequest(ap, bp) });
    }
  }
  return out;
}
