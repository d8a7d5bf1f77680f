/**
 * The real `RunDeps` of a run (scheduler/scheduler-types.ts), built by the CLI: the CPU plan of this
 * machine (lifecycle/cpu-plan.ts), the profile's load driver (drivers/driver-registry.ts, `native` →
 * wrk when installed, else autocannon), real server processes (scheduler/server-lifecycle.ts) or
 * the external target at `externalUrl`, the upstream mock and PostgreSQL (services/), the Node
 * engines check (lifecycle/node-runtime.ts), k6 (drivers/k6.ts, built when Go is there), the
 * driver fidelity check (scheduler/fidelity.ts) and wrk for the native check of k6 cells. Nothing starts until the scheduler asks.
 * `referenceDeps`: the same pieces for the steady-state reference (scheduler/steady-reference.ts), with wrk
 * and the CPU of other work beside it (lifecycle/foreign-cpu.ts).
 */
import { getProfile, type Profile } from '../core/profiles.ts';
import { findK6 } from '../drivers/k6.ts';
import { resolveOpenLoop } from '../drivers/open-loop.ts';
import { getDriver, resolveDriver } from '../drivers/driver-registry.ts';
import { findWrk } from '../drivers/wrk.ts';
import { makeCpuPlan } from '../lifecycle/cpu-plan.ts';
import { foreignCpuS, foreignSnapshot } from '../lifecycle/foreign-cpu.ts';
import { containmentNote } from '../lifecycle/processes.ts';
import { capLog } from '../lifecycle/logs.ts';
import { engineProblem } from '../lifecycle/node-runtime.ts';
import { openDatabase } from '../services/database.ts';
import { startUpstream } from '../services/upstream.ts';
import { measureFidelity } from './fidelity.ts';
import { externalLifecycle, localLifecycle } from './server-lifecycle.ts';
import type { ReferenceDeps } from './reference-measure.ts';
import type { RunDeps } from './scheduler-types.ts';

/**
 * The real dependencies for a run of `profile`. `host`: where servers and the upstream mock
 * listen; `port`: a fixed server port (default: a free one per server); `externalUrl`: bench
 * the server already running there (no build, start or engines check; the database is read,
 * not started); `upstreamDelayMs`: the upstream mock's delay per response (UPSTREAM_DELAY_MS).
 * Probes wrk (resolveDriver) and the machine's cores; starts nothing.
 */
export function realDeps(o: {
  profile: Profile;
  host: string;
  port?: number;
  externalUrl?: string;
  upstreamDelayMs: number;
}): RunDeps {
  const plan = makeCpuPlan();
  const { externalUrl } = o;
  const cpuPlan = externalUrl ? plan : { ...plan, note: `${plan.note}; ${containmentNote(plan.server)}` };
  return {
    cpuPlan,
    driver: resolveDriver(o.profile),
    openLoop: () => resolveOpenLoop(),
    nativeDriver: () => (findWrk() ? getDriver('wrk') : null),
    lifecycle: (services) =>
      externalUrl
        ? externalLifecycle(externalUrl)
        : localLifecycle({ host: o.host, port: o.port, cpuPlan, services, capLog: (f) => capLog(f) }),
    services: {
      startUpstream: () => startUpstream({ host: o.host, cpus: cpuPlan.services, delayMs: o.upstreamDelayMs }),
      openDatabase: ({ log, signal }) =>
        openDatabase({ cpus: cpuPlan.services, log, external: Boolean(externalUrl), signal }),
    },
    prechecks: {
      engineProblem: (cell) => engineProblem(cell.manifest.dir, cell.node.version),
      k6: (log) => findK6({ build: true, log }),
    },
    fidelity: measureFidelity,
  };
}

/**
 * The real dependencies of a reference run (its driver: wrk): servers and the upstream
 * mock on 127.0.0.1 (no upstream delay), the CPU plan of this machine as it is noted in the record,
 * and the CPU of the processes outside the harness (lifecycle/foreign-cpu.ts). Starts nothing.
 */
export function referenceDeps(): ReferenceDeps {
  const profile = { ...getProfile('quick'), driver: 'wrk' } as Profile;
  const d = realDeps({ profile, host: '127.0.0.1', upstreamDelayMs: 0 });
  return {
    cpuPlan: makeCpuPlan(),
    driver: d.driver,
    lifecycle: d.lifecycle,
    services: d.services,
    foreignCpu: () => {
      const f0 = foreignSnapshot();
      return () => foreignCpuS(f0, foreignSnapshot());
    },
  };
}
