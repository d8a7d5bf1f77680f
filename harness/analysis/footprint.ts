/**
 * The Footprint table: what a stack costs besides throughput, per run and contender (with its
 * variant and Node major), from the run's own server processes (cells' `starts`, written by
 * scheduler/group.ts at every start and restart), the install sizes and the opt-in `--footprint`
 * probes in meta.json (`footprint`: store/results.ts `FootprintMeta`, scheduler/footprint-probes.ts).
 *
 * Every figure over server processes is a median with a distribution-free 95% interval
 * (`medianEstimate`). Units: ms (start-up, first response), MiB (RSS, 2^20 bytes), MB (install,
 * 10^6 bytes), µs of server CPU per request, requests/s.
 */
import type { CellResult, FootprintProbe, RunMeta, ServerStart } from '../store/results.ts';
import { cellEstimate, type Estimate, median } from './stats.ts';

/** A stack whose cold start or idle RSS is this many times node-http's gets a finding (report/issues.ts). */
export const FOOTPRINT_FACTOR = 3;

/** The baseline contender of the footprint ratios. */
export const FOOTPRINT_BASELINE = 'node-http';

/** The label of Node's own floor row (`node -e` answering GET /ping; scheduler/footprint-probes.ts). */
export const NODE_FLOOR_LABEL = 'node (floor)';

const MIB = 2 ** 20;

/** P(X ≤ k) for X ~ Binomial(n, 1/2). */
function binomHalfCdf(k: number, n: number): number {
  let p = 0;
  let c = 1; // C(n, 0)
  for (let i = 0; i <= k; i++) {
    p += c;
    c = (c * (n - i)) / (i + 1);
  }
  return p / 2 ** n;
}

/**
 * The median of `xs` with a distribution-free 95% interval: the order statistics x(j) and
 * x(n+1−j) of the largest j whose coverage 1 − 2·P(Bin(n, ½) ≤ j − 1) is ≥ 0.95 (the
 * sign-test interval; Conover, Practical Nonparametric Statistics, §3.2). That needs n ≥ 6; with
 * 2–5 samples the interval is their min–max (`range`), with 1 none. `n`: the samples.
 */
export function medianEstimate(xs: number[]): Estimate | null {
  const s = xs.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  const n = s.length;
  if (!n) return null;
  const m = n >> 1;
  const figure = median(s);
  if (n === 1) return { figure, interval: null, kind: 'none', n };
  let j = 0;
  for (let k = 1; k <= m; k++) if (1 - 2 * binomHalfCdf(k - 1, n) >= 0.95) j = k;
  if (!j) return { figure, interval: [s[0] as number, s[n - 1] as number], kind: 'range', n };
  return { figure, interval: [s[j - 1] as number, s[n - j] as number], kind: 'ci95', n };
}

/** One row of the Footprint table. Null where the run did not measure it. */
export interface FootprintRow {
  runId: string;
  /** `express`, `nestjs-fastify-undici +interceptor`, `node (floor)`; with " · Node 22" in a Node matrix. */
  label: string;
  contender: string;
  nodeMajor: number | null;
  /** Node's own floor row (a probe, no contender). */
  floor: boolean;
  /** Start-up of every server process of the run (all its scenarios), ms: median and interval. */
  coldStartMs: Estimate | null;
  /** Idle RSS right after readiness, MiB. */
  idleRssMiB: Estimate | null;
  /** RSS after each process's last load window, MiB. */
  afterLoadRssMiB: Estimate | null;
  /** `--footprint`: the first start (after evicting the page cache when `pageCache` is evicted), ms. */
  firstStartMs: number | null;
  /** `--footprint`: the repeated starts, ms. */
  repeatStartMs: Estimate | null;
  pageCache: FootprintProbe['pageCache'] | null;
  /** `--footprint`: the first request of `firstResponseScenario` after readiness, ms. */
  firstResponseMs: Estimate | null;
  firstResponseScenario: string | null;
  /** `--footprint`: server CPU per request at the light open-loop rate, µs. */
  cpuUsPerRequest: number | null;
  /** The light rate, requests/s (null without it). */
  lightRate: number | null;
  /** Packages its dependencies pull in, and their size, MB (10^6 bytes). */
  packages: number | null;
  installMB: number | null;
  /** Its requests/s in the chart's scenario (`FootprintTable.scenario`), with the interval. */
  rps: Estimate | null;
  /** Cold start ÷ node-http's and idle RSS ÷ node-http's (medians), or null. */
  coldStartX: number | null;
  idleRssX: number | null;
}

/** The Footprint table of one run. */
export interface FootprintTable {
  runId: string;
  rows: FootprintRow[];
  /** The scenario whose requests/s the rows carry (json when measured, else the scenario with most rows). */
  scenario: string | null;
  /** Whether the run ran the `--footprint` probes. */
  probed: boolean;
}

/** A run as the table needs it: its id, its footprint record (absent: from cells only) and its cells. */
export type FootprintRunIn = { meta: Pick<RunMeta, 'runId' | 'footprint'>; cells: readonly CellResult[] };

/** The ok, locally started cells of a run, grouped by row key (label, Node major). */
function cellGroups(cells: readonly CellResult[]): Map<string, CellResult[]> {
  const out = new Map<string, CellResult[]>();
  for (const c of cells) {
    if (c.status !== 'ok' || c.target?.kind === 'external') continue;
    const k = `${c.label}\u0000${c.node.major}`;
    out.set(k, [...(out.get(k) ?? []), c]);
  }
  return out;
}

/** The scenario the chart's requests/s come from: json when measured, else the one with most rows. */
function rpsScenario(cells: readonly CellResult[]): string | null {
  const counts = new Map<string, number>();
  for (const c of cells) if (c.status === 'ok' && c.load) counts.set(c.scenario, (counts.get(c.scenario) ?? 0) + 1);
  if (counts.has('json')) return 'json';
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0]?.[0] ?? null;
}

const scaled = (e: Estimate | null, k: number): Estimate | null =>
  e && { ...e, figure: e.figure / k, interval: e.interval && [e.interval[0] / k, e.interval[1] / k] };

/** The row of one contender's cells (see FootprintRow). */
function cellRow(
  runId: string,
  cs: CellResult[],
  scenario: string | null,
  meta: FootprintRunIn['meta'],
  matrix: boolean,
): FootprintRow {
  const c0 = cs[0] as CellResult; // groups are never empty
  // Runs before `starts` was recorded hold only each cell's first start-up.
  const starts = cs.flatMap((c): ServerStart[] =>
    c.starts?.length
      ? c.starts
      : c.startupMs !== null
        ? [{ process: 1, startupMs: c.startupMs, idleRssBytes: null, afterLoadRssBytes: null }]
        : [],
  );
  const nums = (xs: (number | null)[]) => xs.filter((x): x is number => x !== null);
  const inst = meta.footprint?.install?.[c0.contender];
  const rpsCell = cs.find((c) => c.scenario === scenario && c.load);
  return {
    ...probeFields(meta.footprint?.probes?.find((p) => p.label === c0.label) ?? null),
    runId,
    label: matrix ? `${c0.label} · Node ${c0.node.major}` : c0.label,
    contender: c0.contender,
    nodeMajor: c0.node.major,
    floor: false,
    coldStartMs: medianEstimate(starts.map((s) => s.startupMs)),
    idleRssMiB: scaled(medianEstimate(nums(starts.map((s) => s.idleRssBytes))), MIB),
    afterLoadRssMiB: scaled(medianEstimate(nums(starts.map((s) => s.afterLoadRssBytes))), MIB),
    packages: inst ? inst.packages : null,
    installMB: inst ? inst.bytes / 1e6 : null,
    rps: rpsCell ? cellEstimate(rpsCell) : null,
    coldStartX: null,
    idleRssX: null,
  };
}

/** The `--footprint` probe's fields of a row (all null without a probe). */
function probeFields(p: FootprintProbe | null) {
  return {
    firstStartMs: p?.firstStartMs ?? null,
    repeatStartMs: p ? medianEstimate(p.repeatStartsMs) : null,
    pageCache: p?.pageCache ?? null,
    firstResponseMs: p ? medianEstimate(p.firstResponseMs) : null,
    firstResponseScenario: p?.scenario ?? null,
    cpuUsPerRequest: p?.lightRate?.cpuUsPerRequest ?? null,
    lightRate: p?.lightRate?.rate ?? null,
  };
}

/** Node's floor row, from its probe. */
function floorRow(runId: string, p: FootprintProbe): FootprintRow {
  const starts = [...(p.firstStartMs !== null ? [p.firstStartMs] : []), ...p.repeatStartsMs];
  return {
    ...probeFields(p),
    runId,
    label: p.label,
    contender: p.contender,
    nodeMajor: null,
    floor: true,
    coldStartMs: medianEstimate(starts),
    idleRssMiB: scaled(medianEstimate(p.idleRssBytes), MIB),
    afterLoadRssMiB: null,
    packages: 0,
    installMB: 0,
    rps: null,
    coldStartX: null,
    idleRssX: null,
  };
}

/** `x ÷ base` of two medians, or null. */
const over = (x: Estimate | null, base: Estimate | null) =>
  x && base && base.figure > 0 ? x.figure / base.figure : null;

/**
 * The Footprint table of each run that started servers (oldest first as given), rows sorted by
 * cold start (the floor first). Runs without a started server are left out.
 */
export function footprintTables(runs: readonly FootprintRunIn[]): FootprintTable[] {
  const out: FootprintTable[] = [];
  for (const { meta, cells } of runs) {
    const groups = cellGroups(cells);
    const probes = meta.footprint?.probes ?? [];
    if (!groups.size && !probes.length) continue;
    const scenario = rpsScenario(cells);
    const matrix = new Set([...groups.values()].map((g) => g[0]?.node.major)).size > 1;
    const rows = [...groups.values()].map((cs) => cellRow(meta.runId, cs, scenario, meta, matrix));
    for (const p of probes) if (p.contender === NODE_FLOOR_LABEL) rows.push(floorRow(meta.runId, p));
    for (const p of probes)
      if (p.contender !== NODE_FLOOR_LABEL && !rows.some((r) => r.label === p.label))
        rows.push({ ...floorRow(meta.runId, p), floor: false, packages: null, installMB: null });
    const base = rows.find((r) => r.contender === FOOTPRINT_BASELINE && !r.label.includes('+'));
    for (const r of rows) {
      r.coldStartX = over(r.coldStartMs, base?.coldStartMs ?? null);
      r.idleRssX = over(r.idleRssMiB, base?.idleRssMiB ?? null);
    }
    rows.sort(
      (a, b) =>
        Number(b.floor) - Number(a.floor) || (a.coldStartMs?.figure ?? Infinity) - (b.coldStartMs?.figure ?? Infinity),
    );
    out.push({ runId: meta.runId, rows, scenario, probed: probes.length > 0 });
  }
  return out;
}

/** A row over FOOTPRINT_FACTOR × node-http's cold start or idle RSS. */
export interface HeavyFootprint {
  runId: string;
  label: string;
  measure: 'cold start' | 'idle RSS';
  /** The row's median (ms or MiB), node-http's, and their ratio. */
  value: number;
  baseline: number;
  ratio: number;
}

/** The rows of `t` whose cold start or idle RSS is ≥ FOOTPRINT_FACTOR × node-http's (not the floor). */
export function heavyFootprints(t: FootprintTable): HeavyFootprint[] {
  const out: HeavyFootprint[] = [];
  for (const r of t.rows) {
    if (r.floor) continue;
    const pairs = [
      ['cold start', r.coldStartMs, r.coldStartX],
      ['idle RSS', r.idleRssMiB, r.idleRssX],
    ] as const;
    for (const [measure, e, x] of pairs)
      if (e && x !== null && x >= FOOTPRINT_FACTOR)
        out.push({ runId: t.runId, label: r.label, measure, value: e.figure, baseline: e.figure / x, ratio: x });
  }
  return out;
}

/** The heavy rows (`heavyFootprints`) of every run among `cells`, from the cells' own starts. */
export function heavyFootprintsOfCells(cells: readonly CellResult[]): HeavyFootprint[] {
  const runs = [...new Set(cells.map((c) => c.runId))].map((runId) => ({
    meta: { runId },
    cells: cells.filter((c) => c.runId === runId),
  }));
  return footprintTables(runs).flatMap(heavyFootprints);
}
