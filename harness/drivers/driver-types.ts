/**
 * What every load driver takes and gives, so the store, the leaderboard and the analysis treat
 * autocannon, wrk and k6 alike. Latencies in ms, bytes in bytes, rates in requests/s, times in s.
 *
 * A driver runs one *window* at a time (a warm-up or one measured trial) against a started
 * server; the scheduler decides how many windows, in which order, for which contender.
 */
import type { ConcreteRequest, ParamValues, Scenario } from '../contract/scenarios.ts';
import type { DriverName, Profile } from '../core/profiles.ts';

/** The driver names are defined once, in core/profiles.ts (DRIVER_NAMES); re-exported for the drivers' users. */
export type { DriverName } from '../core/profiles.ts';

/** One request of a load job with the parameter values it was made from (its expected body follows from them). */
export interface RequestVariant {
  request: ConcreteRequest;
  params: ParamValues;
}

/** One load run against a started server. */
export interface LoadJob {
  url: string;
  scenario: string;
  scenariosDir: string;
  /** Parameter values of the load request (the scenario's `load` values). */
  params: ParamValues;
  request: ConcreteRequest;
  /**
   * When set (≥ 1 entries), each request under load is one of these, drawn uniformly at random
   * (e.g. graphql-node's random user id, so that no cache answers it); a sampled response is
   * checked against the expectation of the variant it answered. `request`/`params` stay the first.
   */
  variants?: RequestVariant[];
  /** Check every N-th response against the contract. */
  sampleEvery: number;
}

/** Options of one window. */
export interface WindowOptions {
  /** Length of this window, seconds (a warm-up or one measured trial). */
  durationS: number;
  /** true for a warm-up: the caller discards the output. */
  warmup: boolean;
  /** taskset CPU list of the client cores, or null (unpinned). */
  cpus: string | null;
  /** Client threads/workers to use (wrk -t, autocannon workers; k6 schedules its own). */
  threads: number;
  signal: AbortSignal;
  /** Called with the driver's PID once it runs (resource sampling). */
  onSpawn?: (pid: number) => void;
  scenario: Scenario;
  sharedSchemas: object[];
  /**
   * false: the caller drops the window's latency (an interleaved round: scheduler/interleave.ts), so
   * the driver may skip collecting it (wrk then writes no raw histogram). Default true.
   */
  latency?: boolean;
  /** constant-arrival-rate rate, requests/s (k6-rate), when resolved. */
  rate?: number | null;
  /**
   * Live samples while the window runs, about once a second, for the terminal's progress line
   * (never recorded). Drivers that report live call it (autocannon with one thread); wrk, k6
   * and autocannon with worker threads do not. Set only when someone draws the samples.
   */
  onTick?: (s: WindowTick) => void;
}

/** A live sample of a running window. */
export interface WindowTick {
  /** Seconds since the driver started the load. */
  elapsedS: number;
  /** Requests completed in the last second, or null when the driver gives none live. */
  requestsPerSec: number | null;
}

/** Whether a driver can run here, and if not, how to get it. */
export interface DriverProbe {
  name: DriverName;
  available: boolean;
  /** e.g. "4.1.0"; null when unavailable. */
  version: string | null;
  /** Why it is unavailable ('' when available). */
  why: string;
  /** The exact command that installs it. */
  install: string;
}

/** A load driver: autocannon (Node), wrk (C, epoll) or k6 (Go). See drivers/driver-registry.ts. */
export interface LoadDriver {
  name: DriverName;
  probe(): DriverProbe;
  /** Runs one window of profile `p`'s shape against `job.url`; rejects when the driver fails or `o.signal` aborts. */
  window(p: Profile, job: LoadJob, o: WindowOptions): Promise<LoadOutput>;
  /**
   * Its windows may run in interleaved rounds (scheduler/interleave.ts: every server of a group
   * driven at once, all but one paused): a window that runs its full length against a server that
   * stalls for a second or two and reports what was answered (wrk, autocannon: yes; k6 profiles are
   * not interleaved; `just why`'s profiled driver: no, one window per cell).
   */
  interleaves: boolean;
}

/** What one window gave. */
export interface LoadOutput {
  driver: DriverName;
  /** Mean over the window; per-second samples where the driver gives them (autocannon). */
  requestsPerSec: { mean: number; stddev: number; samples: number[] };
  /** Latency percentiles in ms (p95/p999 where the driver gives them). */
  latencyMs: { mean: number; p50: number; p90: number; p95?: number; p99: number; p999?: number; max: number };
  /** HDR histogram of 2xx latencies in µs, compressed base64, or null. */
  latencyHistogramUs: string | null;
  requests: { total: number; sent: number };
  /** Connection and socket errors other than timeouts. */
  errors: number;
  timeouts: number;
  non2xx: number;
  bytes: number;
  durationS: number;
  bodyChecks: { sampled: number; mismatched: number; mismatchedNon2xx?: number; firstMismatch?: string };
  /** CPU time of the driver process, ms, where measured. */
  driverCpuMs: { user: number; system: number } | null;
  /** The client side of the window: cores it was pinned to and threads it used. */
  client?: { cores: number; threads: number };
}
