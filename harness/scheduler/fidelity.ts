/**
 * Driver fidelity, once per run (docs/decisions/0008-wrk-ranks.md): is the
 * load driver the bottleneck? On the run's fastest ok connection-profile cell (`fidelityCell`),
 * a fresh server gets the same request (and request variants) over the same connections, at the
 * profile's pipelining, from each driver of the run, autocannon and the native driver (wrk), all
 * pinned to the client cores with the plan's threads, in ABBA order (autocannon, wrk, …, wrk,
 * autocannon: drift hits every driver alike), `runS` seconds each after a short warm-up. k6
 * joins when the run lists it and the profile does not pipeline (k6 sends one request at a time
 * per VU). A driver's fidelity = the median of its requests/s ÷ the native driver's median
 * (wrk = 1). In the `pipelined` profile this is autocannon's share of wrk's rate in the source's
 * own shape (100 connections, pipelining 10).
 *
 * Recorded as `RunMeta.fidelity` (store/results.ts `DriverFidelity`); never a leaderboard cell.
 * Without wrk the record is `skipped` with the install command. Rates in requests/s, seconds.
 */
import { cellFigure, median } from '../analysis/stats.ts';
import type { Scenario } from '../contract/scenarios.ts';
import { type ConnectionProfile, DRIVER_NAMES, type K6Profile, type Profile } from '../core/profiles.ts';
import { getDriver } from '../drivers/driver-registry.ts';
import type { DriverName, LoadJob, LoadOutput } from '../drivers/driver-types.ts';
import { findWrk, WRK_INSTALL } from '../drivers/wrk.ts';
import type { CellResult, DriverFidelity } from '../store/results.ts';
import { plural } from '../core/format.ts';

export type { DriverFidelity };

/** Below this fidelity a driver is the bottleneck at the run's fastest load (the target: ≥ 0.95× the native driver). */
export const FIDELITY_TARGET = 0.95;

/** The run's fastest ok connection-profile cell (pipelined or not), or null. */
export function fidelityCell(cells: CellResult[]): CellResult | null {
  const ok = cells.filter((c) => c.status === 'ok' && c.driver !== 'k6' && c.load && c.load.profile.driver !== 'k6');
  return ok.sort((a, b) => cellFigure(b) - cellFigure(a))[0] ?? null;
}

const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** The report sentence for a recorded fidelity check. */
export function describeFidelity(f: DriverFidelity): string {
  const pipelining = (f.pipelining ?? 1) > 1 ? `, pipelining ${f.pipelining}` : '';
  const where = `\`${f.cell.label}\` · ${f.cell.scenario} (${f.cell.profile}, ${f.connections} connections${pipelining}, ${plural(f.threads, 'client thread')})`;
  if (f.status !== 'ok') return `driver fidelity not measured on ${where}: ${f.reason}`;
  const ref = f.drivers.find((d) => d.driver === f.reference);
  if (!ref) return `driver fidelity on ${where}: no ${f.reference} runs recorded`;
  const parts = f.drivers
    .filter((d) => d.driver !== f.reference)
    .map((d) => {
      const fidelity = d.fidelity ?? Number.NaN; // set on every driver when status is ok
      return `${d.driver} ${Math.floor(fidelity * 100)}% (${fmt(median(d.rps))} req/s)${fidelity < FIDELITY_TARGET ? ' — the bottleneck at this load' : ''}`;
    });
  return `driver fidelity on ${where}, share of ${ref.driver} ${ref.version ?? ''}'s ${fmt(median(ref.rps))} req/s: ${parts.join('; ')} (medians of ${ref.rps.length} × ${f.runS} s, ABBA order)`;
}

/** The profile a driver runs in the fidelity check: the cell's connections and pipelining (k6: VUs = connections, no pipelining). */
function profileFor(driver: DriverName, p: ConnectionProfile, runS: number): Profile {
  if (driver === 'k6') {
    const k: K6Profile = {
      name: `${p.name}-fidelity`,
      description: 'fidelity check: constant VUs = connections',
      source: 'project',
      driver: 'k6',
      executor: 'constant-vus',
      vus: p.connections,
      durationS: runS,
      warmupS: 0,
      timeoutS: p.timeoutS,
      rounds: 1,
    };
    return k;
  }
  return { ...p, driver };
}

/**
 * Runs the fidelity check on `o.cell`. `start` gives a fresh server and its stop function;
 * `job(baseUrl)` is the cell's load job. `drivers`: the drivers of the run (autocannon and wrk
 * are always added; k6 only when listed). Never throws for a missing wrk or a failed run: the
 * record says what happened. Rejects only when `signal` aborts.
 */
export async function measureFidelity(o: {
  cell: CellResult;
  profile: ConnectionProfile;
  runS: number;
  cpus: string | null;
  threads: number;
  signal: AbortSignal;
  log: (l: string) => void;
  start: () => Promise<{ baseUrl: string; stop: () => Promise<unknown> }>;
  job: (baseUrl: string) => LoadJob;
  scenario: Scenario;
  sharedSchemas: object[];
  drivers?: DriverName[];
}): Promise<DriverFidelity> {
  const names = DRIVER_NAMES.filter(
    (n) => n === 'autocannon' || n === 'wrk' || (o.drivers?.includes(n) && o.profile.pipelining <= 1),
  );
  const rec: DriverFidelity = {
    status: 'skipped',
    reason: null,
    cell: {
      cellId: o.cell.cellId,
      label: o.cell.label,
      scenario: o.cell.scenario,
      profile: o.cell.profile,
      nodeMajor: o.cell.node.major,
      rps: cellFigure(o.cell),
    },
    connections: o.profile.connections,
    pipelining: o.profile.pipelining,
    runS: o.runS,
    threads: o.threads,
    reference: null,
    drivers: names.map((n) => ({ driver: n, version: null, rps: [], fidelity: null })),
    runs: [],
    summary: '',
  };
  const wrk = findWrk();
  if (!wrk) {
    rec.reason = `the native driver wrk is not installed (${WRK_INSTALL}, or \`npx just tools\` as root)`;
    rec.summary = describeFidelity(rec);
    o.log(rec.summary);
    return rec;
  }
  rec.reference = 'wrk';
  for (const d of rec.drivers) {
    const probe = getDriver(d.driver).probe();
    d.version = probe.version;
    if (!probe.available) {
      rec.status = 'error';
      rec.reason = `${d.driver} is not available: ${probe.why} (${probe.install})`;
      rec.summary = describeFidelity(rec);
      return rec;
    }
  }
  const order = [...names, ...[...names].reverse()];
  o.log(
    `driver fidelity: ${order.join(', ')} on ${o.cell.label} · ${o.cell.scenario}, ${o.profile.connections} connections, ${order.length} × ${o.runS} s`,
  );
  let server: { baseUrl: string; stop: () => Promise<unknown> } | null = null;
  const base = {
    cpus: o.cpus,
    threads: o.threads,
    signal: o.signal,
    scenario: o.scenario,
    sharedSchemas: o.sharedSchemas,
  };
  try {
    server = await o.start();
    const job = o.job(server.baseUrl);
    const warmS = Math.min(Math.max(o.profile.warmupS, 1), 2);
    await getDriver('wrk').window(profileFor('wrk', o.profile, warmS), job, {
      ...base,
      durationS: warmS,
      warmup: true,
    });
    for (const name of order) {
      const out: LoadOutput = await getDriver(name).window(profileFor(name, o.profile, o.runS), job, {
        ...base,
        durationS: o.runS,
        warmup: false,
      });
      const rps = out.durationS > 0 ? out.requests.total / out.durationS : 0;
      rec.runs.push({ driver: name, rps, errors: out.errors + out.timeouts + out.non2xx });
      rec.drivers.find((d) => d.driver === name)?.rps.push(rps); // rec.drivers has one entry per name of `order`
    }
    const errors = rec.runs.reduce((s, r) => s + r.errors, 0);
    if (errors > 0)
      throw new Error(
        `${errors} errors/timeouts/non-2xx during the fidelity runs (${rec.runs.map((r) => `${r.driver} ${r.errors}`).join(', ')})`,
      );
    const wrkRuns = rec.drivers.find((d) => d.driver === 'wrk');
    const ref = wrkRuns ? median(wrkRuns.rps) : Number.NaN;
    if (!(ref > 0)) throw new Error('wrk measured 0 requests/s');
    for (const d of rec.drivers) d.fidelity = median(d.rps) / ref;
    rec.status = 'ok';
  } catch (e) {
    if (o.signal.aborted) throw e;
    rec.status = 'error';
    rec.reason = ((e as Error).message.split('\n')[0] ?? '').slice(0, 300);
  } finally {
    await server?.stop();
  }
  rec.summary = describeFidelity(rec);
  o.log(rec.summary);
  return rec;
}
