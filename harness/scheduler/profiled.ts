/**
 * A run's dependencies with every local server under V8's CPU profiler (`just why`, issue "Why a
 * stack is slow"): `profiledDeps` wraps a run's `RunDeps` (real-deps.ts) so that
 * - the Lifecycle starts each server with `--cpu-prof` and the SIGTERM/SIGINT preload injected
 *   after the pinned node (lifecycle/cpu-prof.ts `withCpuProf`), writing into
 *   `profileDir(logFile)`; a start command that is not `node …` runs unprofiled and its cell gets
 *   the reason;
 * - the load driver notes, for each measured (not warm-up) window, its start and end on
 *   CLOCK_MONOTONIC in µs (`process.hrtime`, the clock of the profile's timestamps:
 *   analysis/cpu-profile.ts) and the requests it completed, so that the whole-process profile can
 *   be cut to that window.
 * The scheduler itself (group.ts, window.ts) runs unchanged: start, verify, warm, windows, and the
 * graceful stop after which Node writes the profile.
 */
import path from 'node:path';
import { withCpuProf } from '../lifecycle/cpu-prof.ts';
import type { LoadDriver } from '../drivers/driver-types.ts';
import type { RunDeps } from './scheduler-types.ts';

/** What the wrapper saw of one cell's server. */
export interface ProfiledServer {
  /** The cell id (its log file's base name). */
  cellId: string;
  /** Folder of its `.cpuprofile` files. */
  dir: string;
  /** Why it runs unprofiled (a start command that is not node), else null. */
  unprofiled: string | null;
  pid: number | null;
  baseUrl: string;
  /** The absolute folder of the contender (its own code). */
  contenderDir: string;
  /** Its measured windows: CLOCK_MONOTONIC µs, the requests completed and the duration, s. */
  windows: { fromUs: number; toUs: number; requests: number; durationS: number; requestsPerSec: number }[];
}

const nowUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * `deps` with profiled servers and a window-timing driver (module comment). `profileDir` maps a
 * server's log file to the folder its profile is written to (store/why-store.ts `profileDirOf`).
 * `intervalUs`: V8's sampling interval. The returned `servers` fills as servers start.
 */
export function profiledDeps(
  deps: RunDeps,
  o: { profileDir: (logFile: string) => string; intervalUs: number },
): { deps: RunDeps; servers: Map<string, ProfiledServer> } {
  const servers = new Map<string, ProfiledServer>();
  const byUrl = new Map<string, ProfiledServer>();
  const inner = deps.driver.driver;
  const driver: LoadDriver = {
    name: inner.name,
    // One profiled window per cell: never interleaved (a paused server's profile would mix slices).
    interleaves: false,
    probe: () => inner.probe(),
    async window(p, job, wo) {
      const fromUs = nowUs();
      const out = await inner.window(p, job, wo);
      const toUs = nowUs();
      const s = byUrl.get(job.url);
      if (s && !wo.warmup)
        s.windows.push({
          fromUs,
          toUs,
          requests: out.requests.total,
          durationS: out.durationS,
          requestsPerSec: out.requestsPerSec.mean,
        });
      return out;
    },
  };
  return {
    servers,
    deps: {
      ...deps,
      driver: { ...deps.driver, driver },
      lifecycle: (refs) => {
        const lc = deps.lifecycle(refs);
        return {
          ...lc,
          async start(cell, logFile) {
            const dir = o.profileDir(logFile);
            const argv = withCpuProf(cell.manifest.start, { dir, intervalUs: o.intervalUs });
            const unprofiled = argv
              ? null
              : `no profile: the start command of ${cell.manifest.name} is not \`node …\` (${cell.manifest.start.join(' ')}), so --cpu-prof cannot be injected`;
            const h = await lc.start(argv ? { ...cell, manifest: { ...cell.manifest, start: argv } } : cell, logFile);
            const s: ProfiledServer = {
              cellId: path.basename(logFile, '.log'),
              dir,
              unprofiled,
              pid: h.pid,
              baseUrl: h.baseUrl,
              contenderDir: cell.manifest.dir,
              windows: [],
            };
            servers.set(s.cellId, s);
            byUrl.set(h.baseUrl, s);
            return h;
          },
        };
      },
    },
  };
}
