/**
 * Load profiles: the one place where every profile is defined.
 *
 * Units: durations and timeouts in seconds; rates in requests/s. Connection profiles use
 * connections (concurrent keep-alive connections) and pipelining (requests in flight per
 * connection, 1 = none); k6 profiles use k6 executors and VUs.
 *
 * Rounds: every server of a scenario is started and warmed once (`warmupS`), then `rounds`
 * rounds each give every contender one measured window of `durationS` seconds, in an order
 * shuffled per round (scheduler/). One such window of one round is a *trial* (a trial file in the
 * store). A profile's total measured time per cell is `rounds × durationS`: the `standard` and
 * `stress` profiles keep their source's 10 s and 60 s.
 *
 * Driver: `native` = the ranking driver with headroom (wrk when installed, else autocannon,
 * said once in the report header), `pipelined` included (wrk pipelines through its Lua script);
 * `autocannon`, `wrk` or `k6` fix it. A profile with `fidelityS` runs the other drivers once per
 * run in its own shape beside wrk (scheduler/fidelity.ts): for `pipelined` that is autocannon, the
 * source's tool.
 *
 * Sources (docs/sources.md): the Nexus/Express/Fastify report (`pipelined`: 100 connections,
 * pipelining 10), the PostGraphile template's perf runner (`standard`: 10 connections, 10 s;
 * `stress`: 100 connections, 60 s), the nestjs-undici-performance report (`k6-ramp`:
 * ramping-vus 0→50→100), the NestJS/LoopBack/Nhost comparison (`k6-vus`: 1000 constant VUs),
 * the wrk2 / TechEmpower critique of closed-loop load (`k6-rate`: constant-arrival-rate).
 */
import { unknownName, UserError } from './errors.ts';

interface BaseProfile {
  name: string;
  description: string;
  /** Where the shape comes from (a docs/sources.md name, or `project`). */
  source: string;
  /** Warm-up of each server before its first measured window, seconds (not recorded as a result). */
  warmupS: number;
  /** Per-request timeout, seconds. */
  timeoutS: number;
  /** Rounds: measured windows per cell (one trial each); `--rounds` overrides. 5 or more give a 95% interval. */
  rounds: number;
  /** Limits of each contender server (absent: DEFAULT_LIMITS); see `contenderLimits`. */
  limits?: ContenderLimits;
}

/**
 * The most one contender server (its whole cgroup: every process it starts) may use: memory in
 * MiB (RSS; cgroup `memory.max`) and tasks, threads included (cgroup `pids.max`). Going over is
 * a cell failure ("exceeded its memory limit (4096 MiB)"), never the machine's problem
 * (lifecycle/processes.ts applies and watches them).
 */
export interface ContenderLimits {
  memoryMiB: number;
  pids: number;
}

/**
 * The default limits: far above any real stack here (the largest peak RSS in the committed runs is
 * a few hundred MiB, a Node process has about a dozen threads), far below a 24 GiB host.
 */
export const DEFAULT_LIMITS: ContenderLimits = { memoryMiB: 4096, pids: 4096 };

/**
 * The limits of profile `p`'s servers: the profile's `limits`, else DEFAULT_LIMITS, with the
 * environment's BENCH_MEMORY_MAX_MIB and BENCH_PIDS_MAX (whole numbers) over them. Throws
 * UserError naming the variable when one is not a positive whole number.
 */
export function contenderLimits(p: Profile, env: NodeJS.ProcessEnv = process.env): ContenderLimits {
  const base = p.limits ?? DEFAULT_LIMITS;
  const read = (name: string, fallback: number, least: number) => {
    const v = env[name];
    if (v === undefined || v === '') return fallback;
    const n = Number(v);
    if (!Number.isInteger(n) || n < least)
      throw new UserError(`${name} must be a whole number, at least ${least}; got '${v}'`);
    return n;
  };
  return { memoryMiB: read('BENCH_MEMORY_MAX_MIB', base.memoryMiB, 16), pids: read('BENCH_PIDS_MAX', base.pids, 8) };
}

/**
 * Every load driver of closed-loop windows, the one list of them (drivers/driver-registry.ts maps each
 * to its implementation; cells record one of these as `driver`).
 */
export const DRIVER_NAMES = ['autocannon', 'wrk', 'k6'] as const;
/** One of DRIVER_NAMES. */
export type DriverName = (typeof DRIVER_NAMES)[number];

/**
 * The load drivers of connection profiles: a closed-loop driver other than k6 (k6 profiles are their
 * own kind), or `native`, which resolves to wrk when installed, else autocannon.
 */
export type ConnectionDriver = 'native' | Exclude<DriverName, 'k6'>;
/** Every ConnectionDriver, as `--driver` takes them. */
export const CONNECTION_DRIVERS: readonly ConnectionDriver[] = ['native', 'wrk', 'autocannon'];

export interface ConnectionProfile extends BaseProfile {
  driver: ConnectionDriver;
  connections: number;
  pipelining: number;
  /** One measured window, seconds. */
  durationS: number;
  /** Seconds per run of the once-per-run driver fidelity check (scheduler/fidelity.ts); absent = off. */
  fidelityS?: number;
  /** Set on the `capacity` profile: each round is a closed-loop peak window then an open-loop capacity search. */
  capacity?: CapacityShape;
  /**
   * Interleaved rounds that rank the cells (scheduler/interleave.ts), after the solo rounds: the
   * solo rounds then give the absolute requests/s and the latency, the interleaved ones every
   * ratio, rank and verdict of the table. Absent = the solo rounds rank (as before).
   */
  interleave?: InterleaveShape;
}

/**
 * The shape of an interleaved round (issue "Resolution"; docs/noise.md measures why). Every live
 * server of the group gets its own driver window at once, and all but one driver are paused
 * (SIGSTOP) at any moment: the scheduler resumes them in turn for `sliceMs` each, in a seeded
 * shuffled order per cycle, until each server had about `activeS` seconds of load. A server's
 * figure in the round is its efficiency, requests completed ÷ its CPU-seconds (the cgroup's
 * `cpu.stat`), so a slice that another server's draining requests shortened costs nothing; host
 * speed that drifts over seconds hits every server of the round alike and cancels in the
 * per-round ratios to the baseline. Latency is not taken from these windows (a paused driver's
 * requests wait).
 */
export interface InterleaveShape {
  /** Interleaved rounds (one paired figure per server each); no CLI flag overrides it (`--rounds` sets the solo rounds). */
  rounds: number;
  /** Seconds of load per server per round (the round lasts about servers × activeS). */
  activeS: number;
  /** One slice of load, ms: short against the host's drift (~1 s here), long against a switch's cost. */
  sliceMs: number;
  /**
   * Server processes per cell over the interleaved rounds (default 1): the rounds are split into
   * this many consecutive blocks, and before every block after the first each live server is
   * restarted (a fresh process, its contract checked again, warmed again). Identical processes of
   * one build differ by a few % here (code and heap layout, JIT decisions: Mytkowicz et al.,
   * "Producing wrong data without doing anything obviously wrong!", ASPLOS 2009), an effect that
   * rounds of one process cannot see; the table model (analysis/tables.ts `tableModel`) then
   * judges on the per-process means, so that difference is in every interval (docs/noise.md,
   * "Process instances"). `rounds` should be a multiple of it.
   */
  instances?: number;
  /**
   * Restart every server before the first block too (default false): every process behind the
   * interleaved rounds then has the same history (started, checked, warmed alone for the warm-up
   * and the solo windows' seconds in one stretch), and the first process serves the solo windows
   * only (its number 1; the interleaved ones are 2 … instances + 1). In a quiet 10-contender
   * `pipelined` run whose first process also served the rounds, that process (warmed by its solo
   * windows with idle gaps between them) carried 58% of the table's residual sum of squares over 8
   * processes, and most rows rose from its first round to its second (docs/measurements.md, "The
   * `pipelined` profile").
   */
  restartFirst?: boolean;
}

/**
 * The shape of a capacity search (scheduler/capacity-search.ts; docs/decisions/0005-capacity-search-majority-of-three.md). Per round: one
 * closed-loop window of `durationS` at `connections` (the peak P), a `settleS` settle step, then
 * open-loop steps of `stepS` seconds, starting at `startShare` × P times a seeded factor in
 * [2^−½, 2^½] (the first round; later rounds start near the cell's first bracketed search and
 * move by `gallop`, gallop², gallop⁴ …: scheduler/capacity-round.ts `searchPrior`), dividing by 4
 * on failure down to `floorRps`, then bisecting (on a log scale) up to the lowest failing rate,
 * or to the cap (`capShare` × the cell's median peak so far, at least P), until the failing rate
 * is within `precision` × the held one, at most `maxSteps` steps. While exploring one passing step
 * holds a rate for now and a failure takes the majority of 3; the bracket's held rate is then
 * confirmed by the majority of 3 steps.
 * Rates in requests/s, latencies in ms.
 */
export interface CapacityShape {
  stepS: number;
  startShare: number;
  precision: number;
  maxSteps: number;
  floorRps: number;
  /**
   * Most connections (oha) or VUs (k6) of the open-loop driver; a step uses Little's law with 4×
   * headroom, rate × SLO × 4, between 16 and this (scheduler/capacity-round.ts `stepConnections`).
   */
  openLoopConnections: number;
  /** `--slo-p99`: the objective for every scenario; absent = each scenario's `sloP99Ms`. */
  sloP99Ms?: number;
  /**
   * Seconds of the settle step between the saturating peak window and the first step: an
   * unrecorded open-loop step at half the first rate (capacity-round.ts `SETTLE_SHARE`), one step
   * long. Idle time did not settle: with 0.5 s idle (docs/decisions/0007-capacity-settle-step.md) a search's
   * first step failed more often than later steps at the same share of the result
   * (scripts/studies/capacity-audit.ts, "first tries by rate").
   */
  settleS: number;
  /**
   * Rounds after the first start at the first round's figure times a seeded factor
   * 2^((u − ½)·`priorSpread`) and move by this factor, then its square, fourth power … (at most
   * 4×), down until a rate holds or up until one fails.
   * Absent: every round starts from its own peak (`startShare`).
   */
  gallop?: number;
  /** Width (log2) of the seeded start factor of a round with a prior; see `gallop`. */
  priorSpread?: number;
  /**
   * The search may offer rates up to this × the median closed-loop peak of the cell's rounds so
   * far (at least this round's peak): a 1 s peak varies by 2× between rounds here, so the round's
   * own peak is no ceiling. A search with no failure up to the cap is a lower bound.
   */
  capShare: number;
}

/** @deprecated the old name of ConnectionProfile. */
export type AutocannonProfile = ConnectionProfile;

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
  /** constant-vus / constant-arrival-rate window, seconds. */
  durationS?: number;
  /** constant-arrival-rate: requests/s, or 'half-quick' = half the cell's latest `quick` requests/s. */
  rate?: number | 'half-quick';
}

export type Profile = ConnectionProfile | K6Profile;

/** True for the connection profiles (autocannon, wrk or the native driver). */
export function isConnectionProfile(p: Profile): p is ConnectionProfile {
  return p.driver !== 'k6';
}

/** The default bake-off's profile (and the shape `ab` and the self-test build on). */
const QUICK: Profile = {
  name: 'quick',
  driver: 'native',
  description:
    'the default bake-off: 100 connections, 1 s warm-up per server, 2 solo 1 s windows per cell (requests/s, latency), then 6 interleaved rounds of 1 s per cell in 100 ms slices, in 3 server processes per cell (ranks and ratios)',
  source: 'project',
  connections: 100,
  pipelining: 1,
  warmupS: 1,
  durationS: 1,
  timeoutS: 10,
  rounds: 2,
  fidelityS: 3,
  interleave: { rounds: 6, activeS: 1, sliceMs: 100, instances: 3 },
};

export const PROFILES: Profile[] = [
  {
    name: 'smoke',
    driver: 'autocannon',
    description: 'about 2 s, for tests and a sanity check (1 s timeouts so a hung request shows up)',
    source: 'project',
    connections: 10,
    pipelining: 1,
    warmupS: 0,
    durationS: 2,
    timeoutS: 1,
    rounds: 1,
  },
  QUICK,
  {
    ...QUICK,
    name: 'ab',
    description:
      'an in-run A/B of two builds of one contender (just ab): as quick, with 1 solo window per cell and 24 interleaved rounds in 12 server processes per cell',
    rounds: 1,
    fidelityS: undefined,
    interleave: { rounds: 24, activeS: 1, sliceMs: 100, instances: 12 },
  },
  {
    name: 'pipelined',
    driver: 'native',
    description:
      "100 connections, pipelining 10 (wrk; autocannon, the source's tool, in the fidelity check), 2 s warm-up per server, 2 solo 2 s windows per cell (requests/s, latency), then 16 interleaved rounds of 1 s per cell in 100 ms slices, in 8 fresh server processes per cell (ranks and ratios)",
    source: 'Nexus/Express/Fastify report',
    connections: 100,
    pipelining: 10,
    warmupS: 2,
    durationS: 2,
    timeoutS: 10,
    rounds: 2,
    fidelityS: 3,
    interleave: { rounds: 16, activeS: 1, sliceMs: 100, instances: 8, restartFirst: true },
  },
  {
    name: 'standard',
    driver: 'native',
    description: '10 connections, 5 interleaved 2 s windows (10 s measured, as the source)',
    source: 'PostGraphile template (standard)',
    connections: 10,
    pipelining: 1,
    warmupS: 2,
    durationS: 2,
    timeoutS: 10,
    rounds: 5,
    fidelityS: 3,
  },
  {
    name: 'stress',
    driver: 'native',
    description:
      '100 connections, 5 solo 12 s windows per cell (60 s measured, as the source: requests/s, latency), then 8 interleaved rounds of 2 s per cell in 100 ms slices, one server process per cell (ranks and ratios)',
    source: 'PostGraphile template (stress)',
    connections: 100,
    pipelining: 1,
    warmupS: 5,
    durationS: 12,
    timeoutS: 10,
    rounds: 5,
    fidelityS: 5,
    interleave: { rounds: 8, activeS: 2, sliceMs: 100 },
  },
  {
    name: 'capacity',
    driver: 'native',
    description:
      'sustainable requests/s at p99 ≤ the SLO, open-loop (oha, else k6): per round a 1 s closed-loop peak, then a bisection of 1 s steps (the bracket confirmed by the majority of 3); 5 rounds',
    source: 'wrk2 / Gil Tene on coordinated omission (sustainable throughput)',
    connections: 100,
    pipelining: 1,
    warmupS: 1,
    durationS: 1,
    timeoutS: 10,
    rounds: 5,
    capacity: {
      stepS: 1,
      startShare: 0.5,
      precision: 1.12,
      maxSteps: 24,
      floorRps: 20,
      openLoopConnections: 200,
      settleS: 1,
      capShare: 1.5,
      gallop: 1.15,
      priorSpread: 0.4,
    },
  },
  {
    name: 'k6-ramp',
    driver: 'k6',
    executor: 'ramping-vus',
    description: 'ramping-vus 0→50 (10 s), 50 (20 s), 50→100 (10 s), 100 (20 s), 100→0 (10 s), no think time',
    source: 'nestjs-undici-performance report',
    warmupS: 0,
    timeoutS: 10,
    rounds: 1,
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
    description: 'constant VUs (default 1000; --vus), 5 interleaved 6 s windows (--duration; the source ran 10 min)',
    source: 'NestJS/LoopBack/Nhost comparison',
    warmupS: 2,
    timeoutS: 10,
    rounds: 5,
    vus: 1000,
    durationS: 6,
  },
  {
    name: 'k6-rate',
    driver: 'k6',
    executor: 'constant-arrival-rate',
    description:
      "constant-arrival-rate at half the cell's latest quick requests/s (or --rate), 20 s: latency without coordinated omission",
    source: 'wrk2 / TechEmpower critique of closed-loop load',
    warmupS: 0,
    timeoutS: 10,
    rounds: 1,
    vus: 1000,
    durationS: 20,
    rate: 'half-quick',
  },
  {
    name: 'quick-k6',
    driver: 'k6',
    executor: 'constant-vus',
    description: 'short constant-VU run: 50 VUs, 1 s warm-up, 5 interleaved 2 s windows',
    source: 'project',
    warmupS: 1,
    timeoutS: 10,
    rounds: 5,
    vus: 50,
    durationS: 2,
  },
];

/** Old profile names that still work: `nexus-report` is `pipelined`, `standard-3` is `quick`. */
export const PROFILE_ALIASES: Record<string, string> = { 'nexus-report': 'pipelined', 'standard-3': 'quick' };

export const DEFAULT_PROFILE = 'quick';

/** Looks a profile up by name; throws UserError listing the valid names. */
export function getProfile(name: string): Profile {
  const real = PROFILE_ALIASES[name] ?? name;
  return (
    PROFILES.find((p) => p.name === real) ??
    unknownName(
      'profile',
      name,
      PROFILES.map((p) => p.name),
    )
  );
}

/** One measured window of a profile, seconds (the sum of the stages for ramping-vus). */
export function measuredSeconds(p: Profile): number {
  if (p.driver === 'k6' && p.stages) return p.stages.reduce((s, x) => s + x.durationS, 0);
  return p.durationS ?? 0;
}

/** The interleaved rounds of a profile (`InterleaveShape`): a connection profile's, not the capacity profile's; else null. */
export function interleaveOf(p: Profile): InterleaveShape | null {
  return p.driver !== 'k6' && !p.capacity ? (p.interleave ?? null) : null;
}

/**
 * The solo rounds per cell of a run of `p` when none are asked for (no `--rounds`): the profile's
 * `rounds`, plus its interleaved rounds when the run cannot interleave (`interleaving` false: a
 * driver that cannot pause, or an external `--url` target, whose CPU time cannot be read), so the
 * table still has enough rounds to rank. quick: 2, or 2 + 6 = 8 against an external target.
 */
export function defaultRounds(p: Profile, interleaving: boolean): number {
  const il = interleaveOf(p);
  return p.rounds + (il && !interleaving ? il.rounds : 0);
}
