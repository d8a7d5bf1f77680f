/**
 * The open-loop drivers' shared types and helper (drivers/open-loop.ts describes them and
 * re-exports the types): the drivers import this file, open-loop.ts imports the drivers.
 *
 * Units: rates in requests/s, latencies in ms, durations in s.
 */
import fs from 'node:fs';
import os from 'node:os';
import type { LoadJob } from './driver-types.ts';

export type OpenLoopName = 'oha' | 'k6';

/** What one open-loop step measured. */
export interface OpenLoopOutput {
  driver: OpenLoopName;
  /** The target arrival rate, requests/s. */
  rate: number;
  /** Requests scheduled in the step (rate × duration). */
  scheduled: number;
  /** Responses received (any status). */
  responses: number;
  /**
   * 2xx responses ÷ step seconds. Requests scheduled in the step that finish after its end (both
   * drivers let them: k6's graceful stop, oha's `-w`) count, so an overloaded server can show more
   * than its throughput here; the overload shows in `dropped` and the latencies.
   */
  achievedRps: number;
  /** Latency percentiles of the responses in ms, measured from the scheduled send time (0 when there was no response). */
  latencyMs: { p50: number; p90: number; p99: number; max: number };
  /** Connection errors and timeouts. */
  errors: number;
  non2xx: number;
  /**
   * Scheduled requests never sent: k6's dropped iterations (no free VU at the scheduled time);
   * for oha `scheduled − responses − errors` (ticks still queued for a connection at the end).
   */
  dropped: number;
  /** Wall time of the driver's run, s, with the wait for requests in flight at the end of the step. */
  durationS: number;
  /** CPU time (user + system) of the driver process over the step, ms (null when not measured). */
  driverCpuMs: number | null;
  /** What the driver could not do as asked, e.g. oha sending only the first of several request variants. */
  note?: string;
}

/** Options of one step. */
export interface OpenLoopStep {
  rate: number;
  durationS: number;
  /** Connections (oha) or the VU cap (k6) available to keep up with the rate. */
  connections: number;
  /** Per-request timeout, seconds. */
  timeoutS: number;
  /** taskset CPU list of the client core(s), or null. */
  cpus: string | null;
  signal: AbortSignal;
  onSpawn?: (pid: number) => void;
}

/** An open-loop driver; `step` rejects when the driver fails or `o.signal` aborts. */
export interface OpenLoopDriver {
  name: OpenLoopName;
  /** e.g. "oha 1.16.0"; null when not installed. */
  version(): string | null;
  step(job: LoadJob, o: OpenLoopStep): Promise<OpenLoopOutput>;
}

/** Linux USER_HZ: the clock ticks per second of /proc/<pid>/stat times. */
const TICKS_PER_S = 100;

/** utime + stime (fields 14 and 15) or cutime + cstime (16 and 17) of /proc/<pid>/stat, in ticks; null when unreadable. */
function procTicks(pid: number | 'self', children: boolean): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const [a, b] = children ? [f[13], f[14]] : [f[11], f[12]];
    const t = Number(a) + Number(b);
    return Number.isFinite(t) ? t : null;
  } catch {
    return null;
  }
}

/**
 * Measures the CPU time of one child process (the driver) from outside: `watch(pid)` polls its
 * /proc/<pid>/stat every `pollMs` (default 100 ms); `stop()`, called once the child has exited
 * and been reaped (after runTracked resolves), returns its CPU time (user + system) in ms.
 *
 * The exact figure is this process's reaped-children time (cutime + cstime of /proc/self/stat)
 * gained since the meter was made; it is used when it agrees with the last poll (not below it,
 * and not more above it than the cores could have burnt since), so that another child reaped
 * meanwhile cannot inflate it; otherwise the last poll (which misses at most `pollMs` of the
 * end). Null when neither is readable (no /proc, or the child never ran).
 */
export function childCpuMeter(pollMs = 100): { watch(pid: number): void; stop(): number | null } {
  const children0 = procTicks('self', true);
  let polled: number | null = null;
  let polledAt = 0;
  let timer: NodeJS.Timeout | undefined;
  return {
    watch(pid: number) {
      const poll = () => {
        const t = procTicks(pid, false);
        if (t !== null) {
          polled = t;
          polledAt = performance.now();
        }
      };
      poll();
      timer = setInterval(poll, pollMs);
      timer.unref();
    },
    stop() {
      clearInterval(timer);
      const children1 = procTicks('self', true);
      const reaped = children0 !== null && children1 !== null ? children1 - children0 : null;
      const sincePollTicks = ((performance.now() - polledAt) / 1000) * TICKS_PER_S * os.availableParallelism();
      const ticks =
        reaped !== null && (polled === null ? reaped > 0 : reaped >= polled && reaped <= polled + sincePollTicks + 2)
          ? reaped
          : polled;
      return ticks === null ? null : (ticks * 1000) / TICKS_PER_S;
    },
  };
}
