/**
 * A light, fixed open-loop rate from the harness process itself: request i is sent at
 * t0 + i/rate whether or not earlier answers came back (no coordinated omission), over a
 * keep-alive agent of at most `maxSockets` connections; a request that finds all of them busy
 * waits in the agent's queue and counts late, not dropped. For rates a core idles at (the
 * Footprint's 200 requests/s), where a load tool's own start-up would cost more than the window.
 * Rates in requests/s, times in ms unless named `S`.
 */
import http from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { fetchOnce } from '../contract/http.ts';

/** What one light-rate window did. `lateMs`: the 99th percentile of send delays behind schedule. */
export interface LightRateResult {
  sent: number;
  ok: number;
  failed: number;
  durationS: number;
  lateMs: number;
}

/**
 * Sends `rate` requests/s of `request` to `baseUrl` for `durationS` seconds and waits for the
 * answers (each with a 5 s timeout). A 2xx counts ok, anything else (status, socket error,
 * timeout) failed. Stops sending when `signal` aborts.
 */
export async function lightRate(o: {
  baseUrl: string;
  request: { method: string; path: string; headers?: Record<string, string>; body?: string };
  rate: number;
  durationS: number;
  maxSockets?: number;
  signal?: AbortSignal;
}): Promise<LightRateResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: o.maxSockets ?? 16 });
  const total = Math.round(o.rate * o.durationS);
  const pending: Promise<void>[] = [];
  const late: number[] = [];
  let ok = 0;
  let failed = 0;
  const t0 = performance.now();
  try {
    for (let i = 0; i < total && !o.signal?.aborted; i++) {
      const due = t0 + (i * 1000) / o.rate;
      const wait = due - performance.now();
      if (wait > 1) await sleep(wait);
      late.push(Math.max(0, performance.now() - due));
      pending.push(
        fetchOnce(o.baseUrl, o.request, 5000, agent).then(
          (r) => {
            if (r.status >= 200 && r.status < 300) ok++;
            else failed++;
          },
          () => {
            failed++;
          },
        ),
      );
    }
    await Promise.all(pending);
  } finally {
    agent.destroy();
  }
  late.sort((a, b) => a - b);
  return {
    sent: pending.length,
    ok,
    failed,
    durationS: (performance.now() - t0) / 1000,
    lateMs: late[Math.floor(0.99 * (late.length - 1))] ?? 0,
  };
}
