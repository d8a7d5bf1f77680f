/**
 * The real Lifecycle implementations, adapting lifecycle/build.ts and lifecycle/server.ts to the
 * scheduler's `Lifecycle`: `localLifecycle` builds with the manifest's command and starts
 * servers with lifecycle/server.ts (pinned to the server cores, on the cell's Node runtime, with
 * the variant's env, the upstream mock's URL and DATABASE_URL when the cell needs the database,
 * and the profile's memory and task limits: core/profiles.ts `contenderLimits`);
 * `externalLifecycle` benches a server that is already running at `--url` (no build, start, stop
 * or pinning). Times in ms.
 */
import { buildContender } from '../lifecycle/build.ts';
import type { CpuPlan } from '../lifecycle/cpu-plan.ts';
import { freePort } from '../lifecycle/ports.ts';
import { contenderLimits, type ContenderLimits } from '../core/profiles.ts';
import { serverRssBytes } from '../lifecycle/memory.ts';
import { containmentBreaches, cpuUsageUs, pauseTracked, type ProcessLimits } from '../lifecycle/processes.ts';
import { logTail, StartError, startServer } from '../lifecycle/server.ts';
import { needsDatabase } from './jobs.ts';
import { StartFailure, type Lifecycle, type ServiceRefs } from './scheduler-types.ts';

/** A profile's contender limits in the units of lifecycle/processes.ts (bytes, tasks). */
function processLimits(l: ContenderLimits): ProcessLimits {
  return { memoryBytes: l.memoryMiB * 2 ** 20, pids: l.pids };
}

/** The upstream URL a server gets when the run started no upstream mock (nothing listens there). */
const NO_UPSTREAM = 'http://127.0.0.1:9';

export interface LocalOptions {
  host: string;
  /** Fixed port (default: a free one per server). */
  port?: number;
  /** The run's services, read when a server starts. */
  services: ServiceRefs;
  cpuPlan: CpuPlan;
  /** Called with a server log after its server stopped (FAULTS' capLog). */
  capLog?: (file: string) => void;
}

/** Starts real contender processes. */
export function localLifecycle(o: LocalOptions): Lifecycle {
  return {
    kind: 'local',
    build: (m, signal) => buildContender(m, signal),
    async start(cell, logFile) {
      const m = cell.manifest;
      const db = o.services.database();
      try {
        const s = await startServer(m, {
          host: o.host,
          port: o.port ?? (await freePort(o.host)),
          upstreamUrl: o.services.upstreamUrl() ?? NO_UPSTREAM,
          env: {
            ...(cell.variant ? m.variants[cell.variant]?.env : {}), // cell.variant is a key of m.variants (plan)
            ...(needsDatabase(cell) && db?.url ? { DATABASE_URL: db.url } : {}),
          },
          cpus: o.cpuPlan.server,
          logFile,
          nodePath: cell.node.path,
          limits: processLimits(contenderLimits(cell.profile)),
        });
        const died = new AbortController();
        const onExit = () => died.abort();
        s.child.once('exit', onExit);
        return {
          baseUrl: s.baseUrl,
          pid: s.pid,
          startupMs: s.startupMs,
          exitInfo: () => s.exitInfo(),
          died: died.signal,
          cpuUs: () => cpuUsageUs(s.pid),
          pause: (on) => {
            pauseTracked(s.pid, on);
          },
          escapes: (clientCpus) => containmentBreaches(s.pid, clientCpus),
          rssBytes: () => serverRssBytes(s.pid),
          async stop() {
            s.child.off('exit', onExit);
            return s.stop();
          },
        };
      } catch (e) {
        if (e instanceof StartError) throw new StartFailure(e.message, e.logTail);
        throw e;
      }
    },
    logTail: (f) => logTail(f),
    afterStop: (f) => o.capLog?.(f),
  };
}

/** The server at `url`, already running (compose, another host process). */
export function externalLifecycle(url: string): Lifecycle {
  return {
    kind: 'external',
    build: async () => ({ ok: true, ms: 0, output: '' }),
    start: async () => ({
      baseUrl: url,
      pid: null,
      startupMs: null,
      exitInfo: () => null,
      died: new AbortController().signal,
      cpuUs: () => null,
      stop: async () => 0,
    }),
    logTail: () => '',
    afterStop: () => {},
  };
}
