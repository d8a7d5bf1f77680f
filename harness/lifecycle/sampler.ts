/**
 * Resource sampling over a measured window: CPU % and RSS of the server's whole process tree
 * (its process group and its cgroup: lifecycle/processes.ts `trackedProcesses`) and CPU % of the load driver, read with `pidusage` at 5 Hz (≥ 4 Hz, as
 * the methodology asks). CPU % is of one core (100 = one full core).
 */
import fs from 'node:fs';
import pidusage from 'pidusage';
import { type ForeignSnapshot, foreignCpuS, foreignSnapshot } from './foreign-cpu.ts';
import { trackedProcesses } from './processes.ts';

/** PIDs whose process group is `pgid` (the server and anything it forked). */
export function groupPids(pgid: number): number[] {
  const out: number[] = [];
  for (const d of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${d}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) === pgid) out.push(Number(d));
    } catch {
      /* gone */
    }
  }
  return out.length ? out : [pgid];
}

/** Resource use of one cell's measured window. CPU % is of one core (100 = one full core). */
export interface ResourceUse {
  server: {
    cpuPctAvg: number;
    cpuPctPeak: number;
    rssBytesAvg: number;
    rssBytesPeak: number;
    rssSlopeBytesPerS: number;
    /** Least-squares RSS slope over the second half of the window only, bytes/s (growth that persists after start-up). */
    rssSlopeSecondHalfBytesPerS?: number;
    samples: number;
    pinnedCores: number;
    /** CPU-seconds of the server's cgroup per wall second of the window (its exact counter; scheduler/containment.ts judges it). */
    cpuSPerS?: number;
  };
  client: { cpuPctAvg: number; cores: number };
  /** Requests served per CPU-second of the server. */
  rpsPerCpuSecond: number;
  /**
   * The figure is a lower bound: the driver used ≥ 90% of its cores, or (closed-loop windows) the
   * server used < SERVER_BUSY_PCT of its cores although the driver kept every connection busy.
   */
  clientBound: boolean;
  /** Which rule said client-bound: the driver's CPU, or the server's idle CPU. Absent when not client-bound. */
  clientBoundBy?: 'driver-cpu' | 'server-idle';
  /** CPU used by processes outside the harness over the window, share of one core (foreign-cpu.ts); null: not read. */
  foreignShare?: number | null;
}

/** % of its pinned cores a closed-loop server must use for its window to count as saturated (below: client-bound). */
export const SERVER_BUSY_PCT = 85;
/** % of its cores the load driver must use to count as saturated by its own CPU. */
export const DRIVER_BUSY_PCT = 90;

/**
 * Why a window's figure is a lower bound, or null: the driver used ≥ DRIVER_BUSY_PCT of its cores
 * (`driver-cpu`), or in a closed-loop window (every connection always has a request out) the
 * server used < SERVER_BUSY_PCT of its cores from at least 3 samples (`server-idle`): the load side
 * (driver, and the services sharing its core) could not keep the server busy. CPU % of one core.
 */
export function clientBoundRule(o: {
  serverCpuPct: number;
  serverCores: number;
  clientCpuPct: number | null;
  clientCores: number;
  samples: number;
  closedLoop: boolean;
}): 'driver-cpu' | 'server-idle' | null {
  if (o.clientCpuPct !== null && o.clientCpuPct >= DRIVER_BUSY_PCT * o.clientCores) return 'driver-cpu';
  if (o.closedLoop && o.samples >= 3 && o.serverCpuPct < SERVER_BUSY_PCT * o.serverCores) return 'server-idle';
  return null;
}

/**
 * True when a window's server used < SERVER_BUSY_PCT of its pinned cores (from at least 3
 * samples), whatever the driver: the sign that the load side left it idle, which
 * `clientBoundRule` calls client-bound for closed-loop windows only. CPU % of one core.
 */
export function serverBelowBusy(r: Pick<ResourceUse, 'server'> | undefined): boolean {
  return Boolean(r && r.server.samples >= 3 && r.server.cpuPctAvg < SERVER_BUSY_PCT * r.server.pinnedCores);
}

interface Sample {
  t: number;
  serverCpu: number;
  serverRss: number;
  clientCpu: number | null;
}

export class Sampler {
  private samples: Sample[] = [];
  private timer: NodeJS.Timeout | undefined;
  private serverPids: number[] = [];
  private clientPid: number | null = null;
  private busy = false;
  private t0 = 0;
  private serverPgid: number | null;
  private intervalMs: number;
  private foreign0: ForeignSnapshot = null;

  /** Samples the server group `serverPgid` (null: external target, nothing to sample) every `intervalMs`. */
  constructor(serverPgid: number | null, intervalMs = 200) {
    this.serverPgid = serverPgid;
    this.intervalMs = intervalMs;
  }

  /** Begins the window; call when the measured load run starts. `clientPid` is the driver's. */
  start(clientPid: number | null): void {
    this.clientPid = clientPid;
    // Every process of the contender: its process group plus what its cgroup (or environment token)
    // holds, so a detached or setsid child's CPU and memory count too.
    this.serverPids = this.serverPgid
      ? [...new Set([...groupPids(this.serverPgid), ...trackedProcesses(this.serverPgid)])]
      : [];
    this.t0 = performance.now();
    this.foreign0 = foreignSnapshot();
    this.timer = setInterval(() => void this.tick(), this.intervalMs);
    void this.tick();
  }

  private async tick(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      const pids = [...this.serverPids, ...(this.clientPid ? [this.clientPid] : [])];
      if (!pids.length) return;
      const stats = await pidusage(pids).catch(() => ({}) as Record<string, { cpu: number; memory: number }>);
      let serverCpu = 0;
      let serverRss = 0;
      for (const p of this.serverPids) {
        const s = stats[p];
        if (s) {
          serverCpu += s.cpu;
          serverRss += s.memory;
        }
      }
      const c = this.clientPid ? stats[this.clientPid] : undefined;
      this.samples.push({ t: (performance.now() - this.t0) / 1000, serverCpu, serverRss, clientCpu: c ? c.cpu : null });
    } finally {
      this.busy = false;
    }
  }

  /**
   * Ends the window and summarises it; null when nothing was sampled. `closedLoop`: the window was
   * closed-loop (a connection profile's), so an idle server means the load side was the limit.
   * `durationS`: the load's own duration (the driver's, seconds); the CPU and client figures use
   * the readings within it (all readings when fewer than 3 fall within it).
   */
  stop(
    totalRequests: number,
    durationS: number,
    serverCores: number,
    clientCores: number,
    closedLoop = false,
  ): ResourceUse | null {
    clearInterval(this.timer);
    pidusage.clear();
    const foreign = foreignCpuS(this.foreign0, foreignSnapshot());
    const wallS = (performance.now() - this.t0) / 1000;
    // pidusage's first reading of a pid has no previous point: drop it.
    const read = this.samples.slice(1).filter((x) => x.serverRss > 0);
    // Only the readings of the load itself: after `durationS` the driver is still reporting (wrk's
    // done() writes its latency histogram for up to 3 s) while the server idles, and an idle tail
    // would read as an idle server (a false "client-bound") and a low CPU share.
    const inLoad = read.filter((x) => x.t <= durationS + this.intervalMs / 2000);
    const s = inLoad.length >= 3 || inLoad.length === read.length ? inLoad : read;
    if (!s.length) return null;
    const avg = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const cpu = s.map((x) => x.serverCpu);
    const rss = s.map((x) => x.serverRss);
    const client = s.map((x) => x.clientCpu).filter((x): x is number => x !== null);
    // Least-squares slope of RSS over time, bytes/s (whole window, and its second half alone).
    const slopeOf = (xs: Sample[]): number => {
      if (xs.length < 2) return 0;
      const tm = avg(xs.map((x) => x.t));
      const rm = avg(xs.map((x) => x.serverRss));
      const den = xs.reduce((a, x) => a + (x.t - tm) ** 2, 0);
      return den > 0 ? xs.reduce((a, x) => a + (x.t - tm) * (x.serverRss - rm), 0) / den : 0;
    };
    const rm = avg(rss);
    const slope = slopeOf(s);
    const half = (s.at(-1)?.t ?? 0) / 2; // s is not empty here
    const secondHalf = s.filter((x) => x.t >= half);
    const cpuAvg = avg(cpu);
    const cpuSeconds = (cpuAvg / 100) * durationS;
    const clientAvg = client.length ? avg(client) : 0;
    const bound = clientBoundRule({
      serverCpuPct: cpuAvg,
      serverCores,
      clientCpuPct: client.length ? clientAvg : null,
      clientCores,
      samples: s.length,
      closedLoop,
    });
    return {
      server: {
        cpuPctAvg: cpuAvg,
        cpuPctPeak: Math.max(...cpu),
        rssBytesAvg: rm,
        rssBytesPeak: Math.max(...rss),
        rssSlopeBytesPerS: slope,
        rssSlopeSecondHalfBytesPerS: slopeOf(secondHalf),
        samples: s.length,
        pinnedCores: serverCores,
      },
      client: { cpuPctAvg: clientAvg, cores: clientCores },
      rpsPerCpuSecond: cpuSeconds > 0 ? totalRequests / cpuSeconds : 0,
      clientBound: bound !== null,
      ...(bound ? { clientBoundBy: bound } : {}),
      foreignShare: foreign !== null && wallS > 0 ? foreign / wallS : null,
    };
  }
}
