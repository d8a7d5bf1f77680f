/**
 * Runs a cell's warm-up and measurement with the profile's driver (autocannon or k6) and
 * returns the measured LoadOutput. Rejects when the driver fails; `signal` stops it.
 */
import type { Profile } from '../core/profiles.ts';
import type { Scenario } from '../contract/scenarios.ts';
import { runAutocannon } from './autocannon.ts';
import { k6Executor, k6Expectation, runK6 } from './k6.ts';
import type { LoadJob, LoadOutput } from './types.ts';

export interface LoadContext {
  cpus: string | null;
  signal: AbortSignal;
  scenario: Scenario;
  sharedSchemas: object[];
  /** The k6 binary (k6 profiles). */
  k6Bin?: string;
  /** The resolved constant-arrival rate, requests/s (k6-rate). */
  rate?: number | null;
  /** Called with the driver's PID when the measured run (not the warm-up) starts. */
  onMeasure?: (pid: number) => void;
}

/** Warm-up (when the profile has one), then the measured run. */
export async function runLoad(p: Profile, job: LoadJob, c: LoadContext): Promise<LoadOutput> {
  if (p.driver === 'autocannon') {
    const shape = { ...job, connections: p.connections, pipelining: p.pipelining, timeoutS: p.timeoutS };
    if (p.warmupS > 0) await runAutocannon({ ...shape, durationS: p.warmupS }, c.cpus, c.signal);
    return runAutocannon({ ...shape, durationS: p.durationS }, c.cpus, c.signal, c.onMeasure);
  }
  if (!c.k6Bin) throw new Error('k6 is not available');
  const k6Job = { ...job, timeoutS: p.timeoutS, expect: k6Expectation(c.scenario, job.params, c.sharedSchemas) };
  if (p.warmupS > 0)
    await runK6(c.k6Bin, { ...k6Job, executor: k6Executor(p, c.rate ?? null, p.warmupS) }, c.cpus, c.signal);
  return runK6(c.k6Bin, { ...k6Job, executor: k6Executor(p, c.rate ?? null) }, c.cpus, c.signal, c.onMeasure);
}
