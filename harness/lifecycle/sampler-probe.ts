/**
 * The process side of the sampler check (`just why`): runs `sampler-probe.cjs` under V8's
 * sampling profiler, pinned to the server's CPU like a profiled server, and returns what it
 * printed and the profile it wrote. The numbers (how much of the loop's samples the system call
 * drew against its share of the loop's time) are analysis/cpu-profile.ts `samplerBias`.
 *
 * Why: on this project's VM (2026-11-26) a getrusage that took ~2% of a loop's time drew 29–98%
 * of its samples (pinned to one CPU at 5 ms and 1 ms; unpinned at 1 ms): V8's SIGPROF lands at
 * the thread's next entry to the kernel far more often than chance, so the frames that make
 * system calls ((native): socket writes, getrusage) are over-counted and the JavaScript just
 * before them under-counted. A why run records the check so its shares can be read with it.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { findCpuProfile } from './cpu-prof.ts';
import { type Argv, pinnedCommand, runTracked } from './processes.ts';

/** The probe program (CommonJS, no dependencies). */
export const SAMPLER_PROBE = path.join(path.dirname(fileURLToPath(import.meta.url)), 'sampler-probe.cjs');

/** What the probe printed (its loop on the profile's clock, µs) and its profile file. */
export interface SamplerProbeRun {
  fromUs: number;
  toUs: number;
  /** Passes of the loop: one system call each. */
  passes: number;
  /** Cost of one call measured alone (back-to-back), ns. */
  callNs: number;
  profileFile: string;
}

/**
 * Runs the probe with `node` (this process's Node unless given) under `--cpu-prof` at
 * `intervalUs` into `dir` (a folder of its own, made when missing), pinned to `cpus` (taskset list; null: unpinned), for `loopMs` (default
 * 1000). Resolves with the run, or with `{ reason }` (the probe failed, timed out at 20 s, was
 * aborted, or wrote no profile): never throws.
 */
export async function runSamplerProbe(o: {
  dir: string;
  intervalUs: number;
  cpus: string | null;
  node?: string;
  loopMs?: number;
  signal?: AbortSignal;
}): Promise<SamplerProbeRun | { reason: string }> {
  fs.mkdirSync(o.dir, { recursive: true });
  const node: Argv = [
    o.node ?? process.execPath,
    '--cpu-prof',
    `--cpu-prof-dir=${path.resolve(o.dir)}`,
    `--cpu-prof-interval=${o.intervalUs}`,
    SAMPLER_PROBE,
  ];
  const [cmd, ...args] = pinnedCommand(o.cpus, node);
  const r = await runTracked(cmd, args, {
    env: { ...process.env, PROBE_LOOP_MS: String(o.loopMs ?? 1000), NODE_OPTIONS: '' },
    signal: o.signal,
    timeoutMs: 20_000,
  });
  if (r.timedOut) return { reason: 'the sampler probe did not finish within 20 s' };
  if (o.signal?.aborted) return { reason: 'the sampler probe was interrupted' };
  if (r.code !== 0) return { reason: `the sampler probe exited with ${r.code}: ${r.output.trim().slice(-300)}` };
  const line = r.output.split('\n').find((l) => l.startsWith('{'));
  let printed: Omit<SamplerProbeRun, 'profileFile'>;
  try {
    printed = JSON.parse(line ?? '');
  } catch {
    return { reason: `the sampler probe printed no result: ${r.output.trim().slice(-300)}` };
  }
  const found = findCpuProfile(o.dir); // `dir` is the probe's own folder: the newest file is its profile
  if (!found.ok) return { reason: found.reason };
  return { ...printed, profileFile: found.file };
}
