/**
 * The HTML report's page data: the JSON block (`<script id="bench-data">`) the browser script
 * (html/page.js, whose typedefs mirror these types) draws its charts, filters and compare view
 * from: per table its rows' figures, intervals, latency, CPU and RSS, and a capacity table's
 * median curves (analysis/capacity.ts `medianCurve`); the ratios of every run; the runs.
 */
import { medianCurve } from '../../analysis/capacity.ts';
import { intervalName } from '../../core/format.ts';
import type { ReportView, RowView } from '../view.ts';

/** JSON that is safe inside <script>: no `<` at all, so no `</script` or `<!--`. */
export function scriptJson(data: unknown): string {
  return JSON.stringify(data)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** One row of a table in the page data. */
interface PageRow {
  label: string;
  rank: number | null;
  status: string;
  failed: boolean;
  otherRun: boolean;
  clientBound: boolean;
  /** A capacity that is a lower bound (the open-loop driver reached its limit). */
  atLeast: boolean;
  noisy: boolean;
  rps: number | null;
  lo: number | null;
  hi: number | null;
  interval: string;
  p50: number | null;
  p99: number | null;
  cpuAvg: number | null;
  cpuPeak: number | null;
  cpuCap: number | null;
  rssAvg: number | null;
  rssPeak: number | null;
  /** Requests per server CPU-second: the median of the interleaved rounds, else the solo windows' requests/s ÷ CPU. */
  eff: number | null;
  /** Where `eff` comes from: 'rounds' (interleaved), 'solo' (requests/s ÷ server CPU), '' (none). */
  effFrom: string;
  /** % of the table's baseline in the row's rank measure (100 for the baseline), with its interval; null without a ratio. */
  pct: number | null;
  pctLo: number | null;
  pctHi: number | null;
  pctInterval: string;
}

/** The page data: the JSON block the browser script (html/page.js) draws the charts and the compare view from. */
export interface PageData {
  contenders: string[];
  tables: {
    id: string;
    scenario: string;
    profile: string;
    driver: string;
    node: string;
    runId: string;
    baseline: string;
    rows: PageRow[];
    /**
     * A capacity table: its SLO (ms) and per contender its median curve (analysis/capacity.ts
     * `medianCurve`) as [offered req/s, p99 ms, steps, steps that held], by rate.
     */
    capacity: { slo: number; curves: { label: string; points: [number, number, number, number][] }[] } | null;
  }[];
  ratios: {
    runId: string;
    key: string;
    label: string;
    scenario: string;
    shape: string;
    figure: number;
    lo: number | null;
    hi: number | null;
    interval: string;
  }[];
  runs: { runId: string; startedAt: string; machine: string }[];
}

/** One row of a table as the browser script reads it (null: no figure). */
function pageRow(r: RowView): PageRow {
  const res = r.resources;
  return {
    label: r.label,
    rank: r.rank,
    status: r.status,
    failed: r.failed,
    otherRun: r.otherRun,
    clientBound: r.clientBound,
    atLeast: r.capacity?.verdict === 'at-least',
    noisy: r.noisy,
    rps: r.rps ? r.rps.figure : null,
    lo: r.rps?.interval ? r.rps.interval[0] : null,
    hi: r.rps?.interval ? r.rps.interval[1] : null,
    interval: r.rps ? intervalName(r.rps) : '',
    p50: r.latencyMs?.p50 ?? null,
    p99: r.latencyMs?.p99 ?? null,
    cpuAvg: res?.cpuAvgPct ?? null,
    cpuPeak: res?.cpuPeakPct ?? null,
    cpuCap: res?.cpuCapPct ?? null,
    rssAvg: res?.rssAvgMiB ?? null,
    rssPeak: res?.rssPeakMiB ?? null,
    eff: r.efficiency ?? (res && res.rpsPerCpuSecond > 0 ? res.rpsPerCpuSecond : null),
    effFrom: r.efficiency !== null ? 'rounds' : res && res.rpsPerCpuSecond > 0 ? 'solo' : '',
    pct: r.isBaseline ? 100 : r.ratio ? 100 * r.ratio.figure : null,
    pctLo: !r.isBaseline && r.ratio?.interval ? 100 * r.ratio.interval[0] : null,
    pctHi: !r.isBaseline && r.ratio?.interval ? 100 * r.ratio.interval[1] : null,
    pctInterval: r.ratio && !r.isBaseline ? intervalName(r.ratio) : '',
  };
}

/** The page data of a view: its tables' rows and capacity curves, the ratios of the compare view, the runs. */
export function pageData(v: ReportView, contenders: string[]): PageData {
  return {
    contenders,
    tables: v.tables.map((t) => ({
      id: t.id,
      scenario: t.scenario,
      profile: t.profile,
      driver: t.driver,
      node: String(t.nodeMajor),
      runId: t.runId,
      baseline: t.baseline,
      rows: t.rows.map(pageRow),
      capacity: t.capacity
        ? {
            slo: t.capacity.sloP99Ms,
            curves: t.rows
              .filter((r) => !r.otherRun && r.capacity?.curve.length)
              .map((r) => ({
                label: r.label,
                points: medianCurve(r.capacity?.curve ?? []).map((p): [number, number, number, number] => [
                  p.rate,
                  p.p99,
                  p.steps,
                  p.held,
                ]),
              })),
          }
        : null,
    })),
    ratios: v.ratios.map((r) => ({
      runId: r.runId,
      key: r.key,
      label: r.label,
      scenario: r.scenario,
      shape: `${r.profile} · ${r.driver} · Node ${r.nodeMajor}`,
      figure: r.ratio.figure,
      lo: r.ratio.interval ? r.ratio.interval[0] : null,
      hi: r.ratio.interval ? r.ratio.interval[1] : null,
      interval: intervalName(r.ratio),
    })),
    runs: v.runs.map((r) => ({ runId: r.runId, startedAt: r.startedAt, machine: r.machine })),
  };
}
