/**
 * Open-loop load at a fixed arrival rate, for the capacity search (scheduler/capacity.ts, issue
 * 15): one *step* sends requests at `rate` requests/s for `durationS` seconds whatever the server
 * does, and measures each request's latency from the moment it was *scheduled* to be sent, so a
 * server that falls behind shows its queueing delay (no coordinated omission; Gil Tene, wrk2).
 *
 * Two implementations (drivers/open-loop-oha.ts, drivers/open-loop-k6.ts):
 * - `oha`: `oha -q <rate> --latency-correction` (Rust, tokio; measured here on one pinned core:
 *   about 35–45 µs of CPU per response plus ~40 ms per second idle, so ≈ 25k responses per
 *   CPU-second; 8000 requests/s held with p50 0.4 ms), built from crates into the tool cache by
 *   `BENCH_BUILD_OHA=1 just tools` (drivers/tools.ts).
 * - `k6`: the constant-arrival-rate executor (an iteration that finds no free VU is dropped;
 *   about 160 µs of CPU per response plus ~110 ms per second, so ≈ 5k responses per CPU-second;
 *   at 3000 requests/s on one shared core it already dropped 2.5% and p99 rose to 73 ms).
 * `resolveOpenLoop()` picks oha when installed, else k6, else none (with the install commands).
 * The types live in open-loop-base.ts (re-exported here), as the drivers import them and this
 * file imports the drivers.
 *
 * Units: rates in requests/s, latencies in ms, durations in s.
 */
import { K6_INSTALL, k6OpenLoop, k6OpenLoopFound } from './open-loop-k6.ts';
import { ohaFound, ohaOpenLoop } from './open-loop-oha.ts';
import type { OpenLoopDriver, OpenLoopName } from './open-loop-base.ts';

export type { OpenLoopDriver, OpenLoopName, OpenLoopOutput, OpenLoopStep } from './open-loop-base.ts';
export { childCpuMeter } from './open-loop-base.ts';

/** About how many requests/s k6's constant-arrival-rate executor holds here with clean latency (one client core). */
export const K6_OPEN_LOOP_CEILING_RPS = 5000;

/**
 * The open-loop driver to use: `prefer` (default 'oha') when it is installed, else the other
 * one, else `driver: null`. `note` says what was chosen and why (a missing driver's reason and
 * install command; k6's ceiling of about K6_OPEN_LOOP_CEILING_RPS requests/s when k6 stands in
 * for oha); '' when the preferred driver is used. Spawns `oha --version` / `k6 version` once
 * per PATH (cached). Never throws.
 */
export function resolveOpenLoop(prefer: OpenLoopName = 'oha'): { driver: OpenLoopDriver | null; note: string } {
  const oha = ohaFound();
  const k6 = k6OpenLoopFound();
  const ohaMissing = `oha is not available (${oha.why}; install: ${oha.install})`;
  const k6Missing = `k6 is not available (${k6.why}; install: ${K6_INSTALL})`;
  const k6Ceiling = `k6 holds only about ${K6_OPEN_LOOP_CEILING_RPS} requests/s of open-loop load here (one client core), so a capacity above that is the client's limit, not the server's`;
  if (prefer === 'k6') {
    if (k6.bin) return { driver: k6OpenLoop, note: '' };
    if (oha.bin) return { driver: ohaOpenLoop, note: `${k6Missing}; using oha ${oha.version}` };
  } else {
    if (oha.bin) return { driver: ohaOpenLoop, note: '' };
    if (k6.bin)
      return { driver: k6OpenLoop, note: `${ohaMissing}; using k6 ${k6.version ?? ''} instead: ${k6Ceiling}` };
  }
  return { driver: null, note: `no open-loop driver: ${ohaMissing}; ${k6Missing}` };
}
