/**
 * Open-loop load at a fixed arrival rate, for the capacity search (scheduler/capacity-round.ts, issue
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

/** One open-loop driver as the registry knows it: the driver, how to find it, and its caveat. */
interface OpenLoopEntry {
  driver: OpenLoopDriver;
  /** Whether it is installed (cached per environment): `bin` null with `why` and `install` when not. */
  found(): { bin: string | null; version: string | null; why: string; install: string };
  /** Said after "using <name> <version> instead" when it stands in for the preferred driver ('' = nothing to add). */
  standIn(): string;
}

/**
 * The open-loop drivers by name, in the order they are tried after the preferred one. A new
 * open-loop driver is one entry here (and its module, which implements OpenLoopDriver).
 */
const OPEN_LOOP_DRIVERS: Record<OpenLoopName, OpenLoopEntry> = {
  oha: { driver: ohaOpenLoop, found: ohaFound, standIn: () => '' },
  k6: {
    driver: k6OpenLoop,
    found: () => ({ ...k6OpenLoopFound(), install: K6_INSTALL }),
    standIn: () =>
      `k6 holds only about ${K6_OPEN_LOOP_CEILING_RPS} requests/s of open-loop load here (one client core), so a capacity above that is the client's limit, not the server's`,
  },
};

/**
 * The open-loop driver to use: `prefer` (default 'oha') when it is installed, else the next
 * installed one of OPEN_LOOP_DRIVERS, else `driver: null`. `note` says what was chosen and why
 * (each missing driver's reason and install command; the stand-in's caveat, e.g. k6's ceiling of
 * about K6_OPEN_LOOP_CEILING_RPS requests/s); '' when the preferred driver is used. Spawns
 * `oha --version` / `k6 version` once per PATH (cached). Never throws.
 */
export function resolveOpenLoop(prefer: OpenLoopName = 'oha'): { driver: OpenLoopDriver | null; note: string } {
  const names = Object.keys(OPEN_LOOP_DRIVERS) as OpenLoopName[];
  const missing: string[] = [];
  for (const name of [prefer, ...names.filter((n) => n !== prefer)]) {
    const entry = OPEN_LOOP_DRIVERS[name];
    const f = entry.found();
    if (!f.bin) {
      missing.push(`${name} is not available (${f.why}; install: ${f.install})`);
      continue;
    }
    if (name === prefer) return { driver: entry.driver, note: '' };
    const caveat = entry.standIn();
    const using = `using ${name} ${f.version ?? ''}`.trimEnd();
    return { driver: entry.driver, note: `${missing.join('; ')}; ${using}${caveat ? ` instead: ${caveat}` : ''}` };
  }
  return { driver: null, note: `no open-loop driver: ${missing.join('; ')}` };
}
