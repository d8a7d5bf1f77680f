/**
 * Load profiles: the one place where every profile is defined.
 *
 * Units: durations and timeouts in seconds; rates in requests/s. autocannon profiles use
 * connections (concurrent keep-alive connections) and pipelining (requests in flight per
 * connection, 1 = none); k6 profiles use k6 executors and VUs.
 * Sources: seed 003 (`nexus-report`: autocannon, 100 connections, pipelining 10, 10 s),
 * seed 004 (`standard`: 10 connections, 10 s; `stress`: 100 connections, 60 s),
 * seeds 000/001 (`k6-ramp`: ramping-vus 0→50→100), seed 002 (`k6-vus`: 1000 constant VUs),
 * the wrk2 / TechEmpower critique of closed-loop load (`k6-rate`: constant-arrival-rate).
 */
import { unknownName, UserError } from './errors.ts';

interface BaseProfile {
  name: string;
  description: string;
  source: string;
  /** Warm-up run before the measurement, seconds (not recorded as a result). */
  warmupS: number;
  /** Per-request timeout, seconds. */
  timeoutS: number;
  /** Trials per cell (default 1); `--trials` overrides. */
  trials?: number;
}

export interface AutocannonProfile extends BaseProfile {
  driver: 'autocannon';
  connections: number;
  pipelining: number;
  /** Measured window, seconds. */
  durationS: number;
  /** Seconds per run of the once-per-run driver cross-check against wrk (drivers/cross-check.ts); absent = off. */
  crossCheckS?: number;
}

export interface K6Stage {
  durationS: number;
  target: number;
}

export interface K6Profile extends BaseProfile {
  driver: 'k6';
  executor: 'ramping-vus' | 'constant-vus' | 'constant-arrival-rate';
  /** ramping-vus stages. */
  stages?: K6Stage[];
  /** constant-vus VUs (or the VU cap of constant-arrival-rate). */
  vus?: number;
  /** constant-vus / constant-arrival-rate duration, seconds. */
  durationS?: number;
  /** constant-arrival-rate: requests/s, or 'half-quick' = half the cell's latest autocannon `quick` requests/s. */
  rate?: number | 'half-quick';
}

export type Profile = AutocannonProfile | K6Profile;

export const PROFILES: Profile[] = [
  {
    name: 'smoke',
    driver: 'autocannon',
    description: 'about 2 s, for tests and a quick sanity check (1 s timeouts so a hung request shows up)',
    source: 'project',
    connections: 10,
    pipelining: 1,
    warmupS: 0,
    durationS: 2,
    timeoutS: 1,
  },
  {
    name: 'quick',
    driver: 'autocannon',
    description: 'the default bake-off: 100 connections, 2 s warm-up, 5 s measured',
    source: 'project',
    connections: 100,
    pipelining: 1,
    warmupS: 2,
    durationS: 5,
    timeoutS: 10,
    crossCheckS: 3,
  },
  {
    name: 'standard-3',
    driver: 'autocannon',
    description: 'the quick shape, 3 interleaved trials: medians with 95% bootstrap intervals',
    source: 'project (hyperfine / criterion.rs practice)',
    connections: 100,
    pipelining: 1,
    warmupS: 2,
    durationS: 5,
    timeoutS: 10,
    trials: 3,
    crossCheckS: 3,
  },
  {
    name: 'nexus-report',
    driver: 'autocannon',
    description: '100 connections, pipelining 10, 10 s measured',
    source: 'seed 003',
    connections: 100,
    pipelining: 10,
    warmupS: 3,
    durationS: 10,
    timeoutS: 10,
  },
  {
    name: 'standard',
    driver: 'autocannon',
    description: '10 connections, 10 s measured',
    source: 'seed 004 (standard)',
    connections: 10,
    pipelining: 1,
    warmupS: 3,
    durationS: 10,
    timeoutS: 10,
    crossCheckS: 5,
  },
  {
    name: 'stress',
    driver: 'autocannon',
    description: '100 connections, 60 s measured',
    source: 'seed 004 (stress)',
    connections: 100,
    pipelining: 1,
    warmupS: 5,
    durationS: 60,
    timeoutS: 10,
    crossCheckS: 5,
  },
  {
    name: 'k6-ramp',
    driver: 'k6',
    executor: 'ramping-vus',
    description: 'ramping-vus 0→50 (10 s), 50 (20 s), 50→100 (10 s), 100 (20 s), 100→0 (10 s), no think time',
    source: 'seeds 000/001',
    warmupS: 0,
    timeoutS: 10,
    stages: [
      { durationS: 10, target: 50 },
      { durationS: 20, target: 50 },
      { durationS: 10, target: 100 },
      { durationS: 20, target: 100 },
      { durationS: 10, target: 0 },
    ],
  },
  {
    name: 'k6-vus',
    driver: 'k6',
    executor: 'constant-vus',
    description: 'constant VUs (default 1000; --vus), 30 s (--duration; the seed ran 10 min)',
    source: 'seed 002',
    warmupS: 0,
    timeoutS: 10,
    vus: 1000,
    durationS: 30,
  },
  {
    name: 'k6-rate',
    driver: 'k6',
    executor: 'constant-arrival-rate',
    description:
      "constant-arrival-rate at half the cell's latest autocannon quick requests/s (or --rate), 20 s: latency without coordinated omission",
    source: 'wrk2 / TechEmpower critique of closed-loop load',
    warmupS: 0,
    timeoutS: 10,
    vus: 1000,
    durationS: 20,
    rate: 'half-quick',
  },
  {
    name: 'quick-k6',
    driver: 'k6',
    executor: 'constant-vus',
    description: 'short constant-VU run: 50 VUs, 2 s warm-up, 5 s measured',
    source: 'project',
    warmupS: 2,
    timeoutS: 10,
    vus: 50,
    durationS: 5,
  },
];

export const DEFAULT_PROFILE = 'quick';

/** Looks a profile up by name; throws UserError listing the valid names. */
export function getProfile(name: string): Profile {
  return (
    PROFILES.find((p) => p.name === name) ??
    unknownName(
      'profile',
      name,
      PROFILES.map((p) => p.name),
    )
  );
}

/** The measured window of a profile, seconds (the sum of the stages for ramping-vus). */
export function measuredSeconds(p: Profile): number {
  if (p.driver === 'k6' && p.stages) return p.stages.reduce((s, x) => s + x.durationS, 0);
  return p.durationS ?? 0;
}

/**
 * Applies CLI overrides (--duration s, --vus n, --rate r) to a profile; throws UserError when an
 * override does not fit the profile's driver or executor.
 */
export function withOverrides(p: Profile, o: { duration?: string; vus?: string; rate?: string }): Profile {
  const num = (flag: string, v: string) => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new UserError(`${flag} must be a positive number, got '${v}'`);
    return n;
  };
  let out: Profile = { ...p };
  if (o.duration !== undefined) {
    if (p.driver === 'k6' && p.stages)
      throw new UserError(`--duration does not apply to ${p.name} (ramping stages are fixed)`);
    out = { ...out, durationS: num('--duration', o.duration) } as Profile;
  }
  if (o.vus !== undefined) {
    if (out.driver !== 'k6' || out.executor === 'ramping-vus')
      throw new UserError(`--vus applies to the k6 profiles k6-vus, k6-rate and quick-k6, not ${p.name}`);
    out = { ...out, vus: Math.round(num('--vus', o.vus)) };
  }
  if (o.rate !== undefined) {
    if (out.driver !== 'k6' || out.executor !== 'constant-arrival-rate')
      throw new UserError(`--rate applies to k6-rate only, not ${p.name}`);
    out = { ...out, rate: num('--rate', o.rate) };
  }
  return out;
}
