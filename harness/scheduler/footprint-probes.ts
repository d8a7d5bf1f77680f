/**
 * The opt-in footprint probes (`bench --footprint`), after a run's groups: for each contender
 * (and variant) of the run, and for Node's own floor (`node -e` answering GET /ping), on the
 * run's first Node runtime and through the run's Lifecycle (pinned, as the cells' servers):
 *
 * 1. evict the contender's files (its folder and every package it installs:
 *    store/install-size.ts `installClosure`) from the page cache (lifecycle/page-cache.ts), then a
 *    first start: the start after the files were last read from disk;
 * 2. `repeats` repeated starts (page cache warm): each one's start-up, idle RSS and the time of
 *    the first request of its scenario (users when the contender serves it, else json, else its
 *    first) right after readiness;
 * 3. on the last one, the light rate (drivers/light-rate.ts: `rate` requests/s for `durationS`)
 *    and the server's CPU over it (cgroup cpu.stat: TargetHandle `cpuUs`), µs per request.
 *
 * Costs about (repeats + 1) × (start-up + stop) + durationS per contender. Never throws for a
 * contender that fails: its probe carries the error. Times in ms.
 */
import { CONTROL_VARIANT } from '../analysis/aa-control.ts';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fetchOnce } from '../contract/http.ts';
import { ROOT } from '../core/paths.ts';
import { lightRate } from '../drivers/light-rate.ts';
import { evictPageCache } from '../lifecycle/page-cache.ts';
import type { RunDatabase } from '../services/database.ts';
import { installClosure } from '../store/install-size.ts';
import type { FootprintProbe } from '../store/results.ts';
import { NODE_FLOOR_LABEL } from '../analysis/footprint.ts';
import { loadJob } from './jobs.ts';
import { cellLabel, type CellSpec } from './plan.ts';
import type { Lifecycle, TargetHandle } from './scheduler-types.ts';

/** The defaults: 3 repeated starts, 200 requests/s for 5 s. */
export const FOOTPRINT_DEFAULTS = { repeats: 3, rate: 200, durationS: 5 } as const;

/** Node's floor: a server of `node -e` answering 200 "pong" to every request. */
const FLOOR_CODE =
  "require('node:http').createServer((q,s)=>s.writeHead(200,{'content-type':'text/plain','content-length':4}).end('pong')).listen(+process.env.PORT,process.env.HOST)";

export interface FootprintOptions {
  cells: CellSpec[];
  lifecycle: Lifecycle;
  scenariosDir: string;
  db?: RunDatabase;
  /** Where the probe's server logs go, by a file-name-safe id. */
  logFile: (id: string) => string;
  repeats?: number;
  rate?: number;
  durationS?: number;
  /** The folder holding package-lock.json and node_modules (default: the repository). */
  rootDir?: string;
  signal: AbortSignal;
  log: (line: string) => void;
}

/** One cell per contender label (the run's first Node major; no A/A control): users when planned, else json, else its first. */
export function probeCells(cells: CellSpec[]): CellSpec[] {
  const major = cells[0]?.node.major;
  const by = new Map<string, CellSpec[]>();
  for (const c of cells) {
    // The A/A control is a second process of a baseline, not a contender: no probe of its own.
    if (c.node.major !== major || c.variant === CONTROL_VARIANT) continue;
    const l = cellLabel(c.manifest.name, c.variant);
    by.set(l, [...(by.get(l) ?? []), c]);
  }
  const pick = (cs: CellSpec[]) =>
    cs.find((c) => c.scenario.name === 'users') ?? cs.find((c) => c.scenario.name === 'json') ?? cs[0];
  return [...by.values()].map(pick).filter((c): c is CellSpec => c !== undefined);
}

/** The floor's cell: `first` with a manifest that runs FLOOR_CODE on `node -e` and GET /ping. */
function floorCell(first: CellSpec, dir: string): CellSpec {
  const ping = { ...first.scenario, name: 'ping', request: { method: 'GET', path: '/ping' } } as CellSpec['scenario'];
  return {
    ...first,
    variant: null,
    scenario: ping,
    manifest: {
      ...first.manifest,
      name: NODE_FLOOR_LABEL,
      dir,
      build: null,
      start: ['node', '-e', FLOOR_CODE],
      env: {},
      variants: {},
      paths: {},
      requires: [],
    },
  };
}

/** Runs the probes (see the module comment); one per contender label, then the floor. */
export async function runFootprint(o: FootprintOptions): Promise<FootprintProbe[]> {
  const cells = probeCells(o.cells);
  const [first] = cells;
  if (!first) return [];
  const floorDir = fs.mkdtempSync(path.join(fs.realpathSync(os.tmpdir()), 'bench-floor-'));
  const out: FootprintProbe[] = [];
  try {
    for (const cell of [...cells, floorCell(first, floorDir)]) {
      if (o.signal.aborted) break;
      const p = await probeOne(cell, o);
      o.log(`  footprint ${p.label}: ${p.error ?? probeLine(p)}`);
      out.push(p);
    }
  } finally {
    fs.rmSync(floorDir, { recursive: true, force: true });
  }
  return out;
}

function probeLine(p: FootprintProbe): string {
  const cpu = p.lightRate?.cpuUsPerRequest;
  return `first start ${p.firstStartMs?.toFixed(0)} ms (page cache ${p.pageCache}), repeated ${p.repeatStartsMs.map((x) => x.toFixed(0)).join('/')} ms, CPU ${cpu === null || cpu === undefined ? '–' : cpu.toFixed(0)} µs/request at ${p.lightRate?.rate ?? '–'} requests/s`;
}

/** The first request of the cell's scenario after readiness, ms; null when it failed. */
async function firstResponse(s: TargetHandle, req: ReturnType<typeof loadJob>['request']): Promise<number | null> {
  const t = performance.now();
  try {
    const r = await fetchOnce(s.baseUrl, req, 10_000);
    return r.status >= 200 && r.status < 300 ? performance.now() - t : null;
  } catch {
    return null;
  }
}

/** One contender's probe. */
async function probeOne(cell: CellSpec, o: FootprintOptions): Promise<FootprintProbe> {
  const label = cellLabel(cell.manifest.name, cell.variant);
  const root = o.rootDir ?? ROOT;
  const probe: FootprintProbe = {
    label,
    contender: cell.manifest.name,
    variant: cell.variant,
    pageCache: 'warm',
    firstStartMs: null,
    repeatStartsMs: [],
    idleRssBytes: [],
    firstResponseMs: [],
    scenario: cell.scenario.name,
    lightRate: null,
    error: null,
  };
  const logFile = o.logFile(`footprint__${label.replace(/[^\w.-]+/g, '_')}`);
  const dirs = [cell.manifest.dir, ...installClosure(root, cell.manifest.dir).locations.map((l) => path.join(root, l))];
  if (evictPageCache(dirs) !== null) probe.pageCache = 'evicted';
  const repeats = o.repeats ?? FOOTPRINT_DEFAULTS.repeats;
  try {
    for (let i = 0; i <= repeats && !o.signal.aborted; i++) {
      const s = await o.lifecycle.start(cell, logFile);
      try {
        const req = loadJob(cell, o.scenariosDir, o.db, s.baseUrl).request;
        if (i === 0) {
          probe.firstStartMs = s.startupMs;
          continue;
        }
        if (s.startupMs !== null) probe.repeatStartsMs.push(s.startupMs);
        const rss = s.rssBytes?.() ?? null;
        if (rss !== null) probe.idleRssBytes.push(rss);
        const fr = await firstResponse(s, req);
        if (fr !== null) probe.firstResponseMs.push(fr);
        if (i === repeats) probe.lightRate = await measureLightRate(s, req, o);
      } finally {
        await s.stop();
        o.lifecycle.afterStop(logFile);
      }
    }
  } catch (e) {
    probe.error = (e as Error).message;
  }
  return probe;
}

/** The light rate on server `s` and its CPU per answered request, µs (null when its CPU cannot be read). */
async function measureLightRate(s: TargetHandle, request: ReturnType<typeof loadJob>['request'], o: FootprintOptions) {
  const rate = o.rate ?? FOOTPRINT_DEFAULTS.rate;
  const durationS = o.durationS ?? FOOTPRINT_DEFAULTS.durationS;
  const cpu0 = s.cpuUs();
  const r = await lightRate({ baseUrl: s.baseUrl, request, rate, durationS, signal: o.signal });
  const cpu1 = s.cpuUs();
  const cpuUsPerRequest = cpu0 !== null && cpu1 !== null && r.ok > 0 ? (cpu1 - cpu0) / r.ok : null;
  return { rate, durationS: r.durationS, ok: r.ok, failed: r.failed, cpuUsPerRequest };
}
