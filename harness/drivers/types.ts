/**
 * What every load driver takes and gives, so the store, the leaderboard and the analysis treat
 * autocannon and k6 alike. Latencies in ms, bytes in bytes, rates in requests/s, times in s.
 */
import type { ConcreteRequest, ParamValues } from '../contract/scenarios.ts';

/** One load run against a started server. */
export interface LoadJob {
  url: string;
  scenario: string;
  scenariosDir: string;
  /** Parameter values of the load request (the scenario's `load` values). */
  params: ParamValues;
  request: ConcreteRequest;
  /** Check every N-th response against the contract. */
  sampleEvery: number;
}

/** What one measured load run gave. */
export interface LoadOutput {
  driver: 'autocannon' | 'k6';
  /** Mean over the measured window; per-second samples where the driver gives them (autocannon). */
  requestsPerSec: { mean: number; stddev: number; samples: number[] };
  /** Latency percentiles in ms (p95 where the driver gives it). */
  latencyMs: { mean: number; p50: number; p90: number; p95?: number; p99: number; max: number };
  /** HDR histogram of 2xx latencies in µs, compressed base64 (autocannon), or null. */
  latencyHistogramUs: string | null;
  requests: { total: number; sent: number };
  /** Connection and socket errors other than timeouts. */
  errors: number;
  timeouts: number;
  non2xx: number;
  bytes: number;
  durationS: number;
  bodyChecks: { sampled: number; mismatched: number; firstMismatch?: string };
  /** CPU time of the driver process, ms, where measured. */
  driverCpuMs: { user: number; system: number } | null;
}
