/**
 * The once-per-run driver fidelity check, called by run.ts after the groups: on the run's
 * fastest ok connection-profile cell (pipelined or not), when the profile has `fidelityS` (or
 * `--fidelity s` / `--no-fidelity` says otherwise). The injected `FidelityProbe` measures (real:
 * DRIVERS' scheduler/fidelity.ts); this module only picks the cell, lets the probe start a fresh
 * server for it through the Lifecycle, and hands back the meta.json patch that records it.
 * Never throws: a failed probe is logged and null returned (an abort included).
 */
import { isConnectionProfile } from '../core/profiles.ts';
import type { CpuPlan } from '../lifecycle/cpu-plan.ts';
import type { RunDatabase } from '../services/database.ts';
import type { CellResult, RunMeta } from '../store/results.ts';
import type { RunWriter } from '../store/runs.ts';
import { fidelityCell } from './fidelity.ts';
import { loadJob } from './jobs.ts';
import type { CellSpec } from './plan.ts';
import { ESTIMATE } from './progress.ts';
import type { FidelityProbe, Lifecycle } from './scheduler-types.ts';

/**
 * The fidelity check's planned cost for the ETA, ms (0 when the run has none): a server start, a
 * warm-up of 1–2 s and autocannon, wrk, wrk, autocannon for `fidelityS` seconds each, with a
 * driver's start-up around each window (scheduler/fidelity.ts `measureFidelity`).
 */
export function fidelityPlanMs(o: { cells: CellSpec[]; fidelityS?: number }): number {
  const profile = o.cells[0]?.profile;
  if (!profile || !isConnectionProfile(profile)) return 0;
  const runS = o.fidelityS ?? profile.fidelityS ?? 0;
  if (!(runS > 0)) return 0;
  const warmS = Math.min(Math.max(profile.warmupS, 1), 2);
  return ESTIMATE.server + (warmS + 4 * runS) * 1000 + 5 * ESTIMATE.windowOverhead;
}

/** Runs `probe` once on the run's fastest eligible cell; the meta.json patch `{ fidelity }`, or null when not run or failed. */
export async function runFidelity(a: {
  o: { cells: CellSpec[]; fidelityS?: number; scenariosDir: string; signal: AbortSignal };
  probe: FidelityProbe;
  results: CellResult[];
  cpuPlan: CpuPlan;
  lifecycle: Lifecycle;
  writer: RunWriter;
  db: RunDatabase | undefined;
  sharedSchemas: object[];
  log: (l: string) => void;
}): Promise<Partial<RunMeta> | null> {
  const { o } = a;
  const profile = o.cells[0]?.profile;
  if (!profile || !isConnectionProfile(profile)) return null;
  const runS = o.fidelityS ?? profile.fidelityS ?? 0;
  if (!(runS > 0)) return null;
  const fastest = fidelityCell(a.results);
  if (!fastest) return null;
  const spec = o.cells.find(
    (c) =>
      c.manifest.name === fastest.contender &&
      c.variant === fastest.variant &&
      c.scenario.name === fastest.scenario &&
      c.node.major === fastest.node.major,
  );
  if (!spec) return null;
  try {
    const fidelity = await a.probe({
      cell: fastest,
      profile,
      runS,
      cpus: a.cpuPlan.client,
      threads: a.cpuPlan.clientThreads,
      signal: o.signal,
      log: a.log,
      start: async () => {
        const file = a.writer.logFile(fastest.cellId, 'fidelity');
        const s = await a.lifecycle.start(spec, file);
        return {
          baseUrl: s.baseUrl,
          stop: async () => {
            const ms = await s.stop();
            a.lifecycle.afterStop(file);
            return ms;
          },
        };
      },
      job: (baseUrl) => loadJob(spec, o.scenariosDir, a.db, baseUrl),
      scenario: spec.scenario,
      sharedSchemas: a.sharedSchemas,
    });
    return { fidelity };
  } catch (e) {
    if (!o.signal.aborted) a.log(`driver fidelity check failed: ${(e as Error).message}`);
    return null;
  }
}
