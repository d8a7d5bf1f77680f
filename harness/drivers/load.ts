/**
 * A cell's warm-up and one measured window with the profile's driver (drivers/registry.ts):
 * the one-call form for callers that do not schedule windows themselves. Rejects when the
 * driver fails; `signal` stops it.
 */
import type { Scenario } from '../contract/scenarios.ts';
import { measuredSeconds, type Profile } from '../core/profiles.ts';
import { resolveDriver } from './registry.ts';
import type { LoadJob, LoadOutput, WindowOptions } from './types.ts';

export interface LoadContext {
  cpus: string | null;
  signal: AbortSignal;
  scenario: Scenario;
  sharedSchemas: object[];
  /** Client threads (CpuPlan.clientThreads); default 1. */
  threads?: number;
  /** Unused (k6 is found by the k6 driver); kept for older callers. */
  k6Bin?: string;
  /** The resolved constant-arrival rate, requests/s (k6-rate). */
  rate?: number | null;
  /** Called with the driver's PID when the measured window (not the warm-up) starts. */
  onMeasure?: (pid: number) => void;
}

/** Warm-up (when the profile has one), then one measured window of the profile's `durationS`. */
export async function runLoad(p: Profile, job: LoadJob, c: LoadContext): Promise<LoadOutput> {
  const { driver } = resolveDriver(p);
  const base: Omit<WindowOptions, 'durationS' | 'warmup'> = {
    cpus: c.cpus,
    threads: c.threads ?? 1,
    signal: c.signal,
    scenario: c.scenario,
    sharedSchemas: c.sharedSchemas,
    rate: c.rate ?? null,
  };
  if (p.warmupS > 0) await driver.window(p, job, { ...base, durationS: p.warmupS, warmup: true });
  return driver.window(p, job, { ...base, durationS: measuredSeconds(p), warmup: false, onSpawn: c.onMeasure });
}
