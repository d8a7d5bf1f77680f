/**
 * The sampler check of a run of profiled windows (`just why`, `--profile-cpu`): a probe process
 * under V8's CPU profiler on the server core (lifecycle/sampler-probe.ts), whose profile says how
 * far V8's sampling is off on this machine (analysis/cpu-profile.ts `samplerBias`); recorded in
 * the run's why.json (store/why-store.ts `SamplerCheck`).
 */
import { readCpuProfile, samplerBias } from '../analysis/cpu-profile.ts';
import { makeCpuPlan } from '../lifecycle/cpu-plan.ts';
import { runSamplerProbe } from '../lifecycle/sampler-probe.ts';
import type { SamplerCheck } from '../store/why-store.ts';

/**
 * The why run's sampler check: the probe (lifecycle/sampler-probe.ts) on the server's CPU of the
 * default CPU plan at the run's interval, with this process's Node, its profile in `dir`
 * (git-ignored logs), then analysis/cpu-profile.ts `samplerBias`. Never throws: a failed check is
 * `{ ok: false, reason }`.
 */
export async function checkSampler(dir: string, intervalUs: number, signal: AbortSignal): Promise<SamplerCheck> {
  if (signal.aborted) return { ok: false, reason: 'the run was interrupted' };
  const cpus = makeCpuPlan().server;
  const r = await runSamplerProbe({ dir, intervalUs, cpus, signal });
  if ('reason' in r) return { ok: false, reason: r.reason };
  const p = readCpuProfile(r.profileFile);
  if (!p.ok) return { ok: false, reason: p.reason };
  try {
    return { ok: true, intervalUs, cpus, ...samplerBias(p.profile, r) };
  } catch (e) {
    return { ok: false, reason: (e as Error).message };
  }
}
