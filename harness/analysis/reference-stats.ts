/**
 * The steady-state reference (`just reference`: cli/reference.ts parses and prints, scheduler/steady-reference.ts
 * and scheduler/reference-measure.ts measure).
 * A reference measures each contender ALONE on the server
 * core with wrk: a long warm-up, then long windows, in several fresh server processes per
 * contender, either in rotation blocks (every contender's process of a block in the same minutes)
 * or solo in ABBA order. Its units are the processes: a process's figure is the mean over its
 * windows, and intervals are between processes (the variation a restarted server really has),
 * never between windows of one process.
 *
 * - `referenceFigure`: geometric mean over processes of requests/s (or requests per server
 *   CPU-second) with the Student-t 95% interval on the logs (df = processes − 1).
 * - `referenceRatios`: each contender's ratio to the scenario's baseline: exp(mean log_c − mean
 *   log_B) over processes; rotation blocks fitted two-way over (contender, block) with the pooled
 *   residual (`blockRatio`), solo processes by Welch's t on the logs (Welch–Satterthwaite df);
 *   each ratio carries its df and its standard error split into its two means (`SeSplit`).
 *
 * The bake-off's agreement with the reference is reference-gaps.ts; its test reference-test.ts.
 *
 * Rates in requests/s; efficiencies in requests per server CPU-second; ratios unitless.
 */
import { UserError } from '../core/errors.ts';
import { type QuietCheck, quietOf } from './quiet.ts';
import { tQuantile } from './stats.ts';

/** The quiet check of a reference run's processes (analysis/quiet.ts): each window's foreign CPU ÷ its seconds. */
export function quietCheck(
  processes: readonly { windows?: readonly Pick<ReferenceWindow, 'durationS' | 'foreignCpuS'>[] }[],
): QuietCheck {
  return quietOf(
    processes
      .flatMap((p) => p.windows ?? [])
      .map((w) => (typeof w.foreignCpuS === 'number' && w.durationS > 0 ? w.foreignCpuS / w.durationS : null)),
  );
}

/**
 * The reference's minimums (issue "accurate, not only precise": a warm-up of ≥ 20 s, ≥ 3 windows
 * and ≥ 30 s measured per process, ≥ 3 processes per contender): shorter runs are marked as such.
 */
export const REFERENCE_MINIMUMS = { warmupS: 20, windows: 3, measuredS: 30, processes: 3 } as const;

/**
 * The defaults of `just reference`: the rotation design with 6 windows of 5 s per process (30 s),
 * 3 blocks. Solo runs default to 3 windows of 10 s.
 */
export const REFERENCE_DEFAULTS = {
  rotation: { warmupS: 20, windows: 6, windowS: 5, processes: 3 },
  solo: { warmupS: 20, windows: 3, windowS: 10, processes: 3 },
} as const;

/** The validated design of a reference run (cli/reference-options.ts `referenceDesign`). Seconds, counts. */
export interface ReferenceDesign {
  warmupS: number;
  windows: number;
  windowS: number;
  processes: number;
  connections: number;
  /** `rotation`: blocks of every contender at once, windows in rotation; `ABBA`: solo processes (scheduler/reference-measure.ts). */
  order: 'rotation' | 'ABBA';
}

/** Whether a design meets the reference's minimums (REFERENCE_MINIMUMS: ≥ 20 s warm-up, ≥ 3 windows and ≥ 30 s measured per process, ≥ 3 processes). */
export function meetsMinimums(d: ReferenceDesign): boolean {
  const m = REFERENCE_MINIMUMS;
  return (
    d.warmupS >= m.warmupS &&
    d.windows >= m.windows &&
    d.windows * d.windowS >= m.measuredS &&
    d.processes >= m.processes
  );
}

/** One measured window of a reference process. */
export interface ReferenceWindow {
  /** Requests completed ÷ window seconds. */
  rps: number;
  /** Requests ÷ the server's CPU-seconds in the window (null when the CPU time could not be read). */
  efficiency: number | null;
  requests: number;
  durationS: number;
  serverCpuS: number | null;
  errors: number;
  /**
   * CPU-seconds used in the window by processes outside the harness (lifecycle/foreign-cpu.ts);
   * above FOREIGN_CPU_LIMIT of a core the window was disturbed. Null or absent when not read.
   */
  foreignCpuS?: number | null;
}

/** One fresh server process of a contender: its windows after the warm-up. */
export interface ReferenceProcess {
  contender: string;
  scenario: string;
  /** 1-based position in the run's order of starts. */
  order: number;
  /** The rotation design's block (1-based): the processes of one block ran in the same minutes. Absent in solo runs. */
  block?: number;
  windows: ReferenceWindow[];
  /** Mean of the windows' requests/s and of their efficiencies (the process's figures). */
  rps: number;
  efficiency: number | null;
}

/** The standard error of one mean log figure (log units), the df of its estimate, and whether that estimate is pooled. */
export interface MeanSe {
  se: number;
  /** Degrees of freedom of the variance estimate (Infinity when known). */
  df: number;
  /** true: from the variance pooled over the scenario's contenders (one estimate shared by every pooled mean); false: its own. */
  pooled: boolean;
}

/**
 * A log ratio's error split into its two means: ln(ratio) = mean log of the contender − mean log
 * of the baseline, so Var = own.se² + base.se², and two ratios of one scenario (same baseline,
 * same run) share base.se² as their covariance.
 */
export interface SeSplit {
  own: MeanSe;
  base: MeanSe;
}

/** The fields of a process that its contender's ratio is computed from. */
export type ProcessFigures = Pick<ReferenceProcess, 'contender' | 'scenario' | 'block' | 'rps' | 'efficiency'>;

/**
 * A figure over processes with its 95% interval (t on the logs, df = n − 1; null with 1 process).
 * Ratios also carry the interval's df and the split of its standard error (`SeSplit`); records
 * written before they were stored lack both (`withSplits` recomputes them from the processes).
 */
export interface ReferenceFigure {
  figure: number;
  ci95: [number, number] | null;
  n: number;
  /** Degrees of freedom of the interval's t quantile (absent in older records). */
  df?: number;
  /** The ratio's standard error split into the contender's and the baseline's means (ratios only). */
  split?: SeSplit;
}

/** A contender's ratio to the scenario's baseline in the reference, with its 95% interval. */
export interface ReferenceRatio {
  contender: string;
  scenario: string;
  baseline: string;
  rps: ReferenceFigure;
  efficiency: ReferenceFigure | null;
  /** The record it comes from (a run id, or a pool's ids joined by "+"), when several records are read together (reference-merge.ts `mergeReferences`). */
  record?: string;
}

const logs = (xs: number[]) => xs.filter((x) => x > 0).map(Math.log);
const mean = (xs: number[]) => xs.reduce((a, x) => a + x, 0) / xs.length;
const variance = (xs: number[]) => {
  const m = mean(xs);
  return xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1);
};

/** The process's figures: the mean of its windows (requests/s; efficiency when every window has one). */
export function processFigures(windows: ReferenceWindow[]): { rps: number; efficiency: number | null } {
  if (!windows.length) throw new UserError('reference: a process without measured windows');
  const eff = windows.map((w) => w.efficiency);
  return {
    rps: mean(windows.map((w) => w.rps)),
    efficiency: eff.every((e): e is number => e !== null && e > 0) ? mean(eff) : null,
  };
}

/** Geometric mean over processes with the t interval on the logs (see the module docstring). */
export function referenceFigure(values: number[]): ReferenceFigure {
  const l = logs(values);
  if (!l.length) throw new UserError('reference: no positive figure to summarise');
  const m = mean(l);
  if (l.length < 2) return { figure: Math.exp(m), ci95: null, n: l.length };
  const h = (tQuantile(0.975, l.length - 1) * Math.sqrt(variance(l))) / Math.sqrt(l.length);
  return { figure: Math.exp(m), ci95: [Math.exp(m - h), Math.exp(m + h)], n: l.length, df: l.length - 1 };
}

/**
 * Ratio of two sets of process figures: exp(Δ mean log) with Welch's t interval (Welch–Satterthwaite
 * df) and its split (each side's own SE s/√n on n − 1 df); null interval with < 2 processes a side.
 */
export function ratioOfProcesses(a: number[], b: number[]): ReferenceFigure {
  const la = logs(a);
  const lb = logs(b);
  if (!la.length || !lb.length) throw new UserError('reference: a ratio needs figures on both sides');
  const d = mean(la) - mean(lb);
  if (la.length < 2 || lb.length < 2) return { figure: Math.exp(d), ci95: null, n: Math.min(la.length, lb.length) };
  const va = variance(la) / la.length;
  const vb = variance(lb) / lb.length;
  const se = Math.sqrt(va + vb);
  const df = se > 0 ? (va + vb) ** 2 / (va ** 2 / (la.length - 1) + vb ** 2 / (lb.length - 1)) : 1e9;
  const h = tQuantile(0.975, df) * se;
  const split = {
    own: { se: Math.sqrt(va), df: la.length - 1, pooled: false },
    base: { se: Math.sqrt(vb), df: lb.length - 1, pooled: false },
  };
  return {
    figure: Math.exp(d),
    ci95: [Math.exp(d - h), Math.exp(d + h)],
    n: Math.min(la.length, lb.length),
    df,
    split,
  };
}

/**
 * Every contender's ratio to its scenario's baseline (`baselineOf(scenario)`) from a reference's
 * processes; scenarios without processes of their baseline give no ratios. Processes of the
 * rotation design (every one with a `block`) are fitted two-way (`blockRatio`); solo processes
 * by Welch's t between processes (`ratioOfProcesses`).
 */
export function referenceRatios(
  processes: ProcessFigures[],
  baselineOf: (scenario: string) => string,
): ReferenceRatio[] {
  const out: ReferenceRatio[] = [];
  for (const scenario of [...new Set(processes.map((p) => p.scenario))]) {
    const baseline = baselineOf(scenario);
    const here = processes.filter((p) => p.scenario === scenario);
    const of = (c: string) => here.filter((p) => p.contender === c);
    const base = of(baseline);
    if (!base.length) continue;
    const blocked = here.every((p) => p.block !== undefined);
    const eff = (ps: ProcessFigures[]) => ps.map((p) => p.efficiency).filter((e): e is number => e !== null);
    const effOk = here.every((p) => p.efficiency !== null && p.efficiency > 0);
    for (const contender of [...new Set(here.map((p) => p.contender))]) {
      if (contender === baseline) continue;
      const mine = of(contender);
      const rps = blocked
        ? blockRatio(here, contender, baseline, (p) => p.rps)
        : ratioOfProcesses(
            mine.map((p) => p.rps),
            base.map((p) => p.rps),
          );
      const efficiency = !effOk
        ? null
        : blocked
          ? blockRatio(here, contender, baseline, (p) => p.efficiency ?? 0)
          : ratioOfProcesses(eff(mine), eff(base));
      out.push({ contender, scenario, baseline, rps, efficiency });
    }
  }
  return out;
}

/**
 * The rotation design's ratio of `contender` to `baseline` over one scenario's processes `ps`:
 * y_cb = ln value(process of contender c in block b), fitted y_cb = μ_c + β_b + ε over the blocks
 * every contender completed (the block effect β_b takes the host's speed in those minutes);
 * ratio exp(ȳ_contender − ȳ_baseline) with the t interval on σ̂·√(2/B), σ̂² the residual
 * variance pooled over the contenders, df = (C − 1)(B − 1); its split: each mean's SE σ̂/√B, pooled. With fewer than 2 complete blocks:
 * the ratio of the means and no interval.
 */
export function blockRatio(
  ps: ProcessFigures[],
  contender: string,
  baseline: string,
  value: (p: ProcessFigures) => number,
): ReferenceFigure {
  const cs = [...new Set(ps.map((p) => p.contender))];
  const at = (c: string, b: number) => ps.find((p) => p.contender === c && p.block === b);
  const blocks = [...new Set(ps.map((p) => p.block ?? 0))].filter((b) =>
    cs.every((c) => {
      const p = at(c, b);
      return p !== undefined && value(p) > 0;
    }),
  );
  const y = (c: string, b: number) => Math.log(value(at(c, b) as ProcessFigures));
  const rowMean = (c: string) => mean(blocks.map((b) => y(c, b)));
  const B = blocks.length;
  if (B < 2) {
    const l = (c: string) => logs(ps.filter((p) => p.contender === c).map(value));
    const d = mean(l(contender)) - mean(l(baseline));
    return { figure: Math.exp(d), ci95: null, n: B };
  }
  const colMean = (b: number) => mean(cs.map((c) => y(c, b)));
  const grand = mean(cs.map(rowMean));
  let ss = 0;
  for (const c of cs) for (const b of blocks) ss += (y(c, b) - rowMean(c) - colMean(b) + grand) ** 2;
  const df = (cs.length - 1) * (B - 1);
  const d = rowMean(contender) - rowMean(baseline);
  const mine = { se: Math.sqrt(ss / df / B), df, pooled: true };
  const h = tQuantile(0.975, df) * mine.se * Math.SQRT2;
  return { figure: Math.exp(d), ci95: [Math.exp(d - h), Math.exp(d + h)], n: B, df, split: { own: mine, base: mine } };
}

/**
 * The reference's ratios with their df and `SeSplit`: `ratios` as stored when every one has them,
 * else recomputed from the record's `processes` (`referenceRatios`, the code that made the stored
 * intervals; each scenario's baseline taken from its stored ratios). A stored ratio the processes
 * do not reproduce within 1e-9 (relative) throws UserError; without processes the stored ratios
 * are returned as they are (their intervals then read as normal: see reference-gaps.ts `splitOf`).
 */
export function withSplits(ratios: ReferenceRatio[], processes: ProcessFigures[] | undefined): ReferenceRatio[] {
  const complete = (f: ReferenceFigure | null) => f === null || (f.df !== undefined && f.split !== undefined);
  if (ratios.every((r) => complete(r.rps) && complete(r.efficiency)) || !processes?.length) return ratios;
  const baselines = new Map(ratios.map((r) => [r.scenario, r.baseline]));
  const again = referenceRatios(processes, (s) => baselines.get(s) ?? '');
  return ratios.map((r) => {
    const x = again.find((q) => q.contender === r.contender && q.scenario === r.scenario && q.baseline === r.baseline);
    if (!x) return r;
    if (Math.abs(x.rps.figure / r.rps.figure - 1) > 1e-9)
      throw new UserError(
        `reference: the processes give ${r.scenario} · ${r.contender} a ratio of ${x.rps.figure}, the record ${r.rps.figure}: the record is inconsistent`,
      );
    return {
      ...r,
      rps: { ...r.rps, df: x.rps.df, split: x.rps.split },
      efficiency:
        r.efficiency && x.efficiency
          ? { ...r.efficiency, df: x.efficiency.df, split: x.efficiency.split }
          : r.efficiency,
    };
  });
}

/** A process as the quiet leave-out reads it: its figures and its windows' seconds and other work. */
export type SourceProcess = ProcessFigures & {
  windows?: readonly { durationS: number; foreignCpuS?: number | null }[];
};

/** A reference record as the merge reads it (store/reference-store.ts ReferenceRecord fits). */
export interface ReferenceSource {
  runId: string;
  at: string;
  ratios: ReferenceRatio[];
  processes?: SourceProcess[];
  /** Windows read above FOREIGN_CPU_LIMIT (quiet.ts); absent in records made before it was read. */
  quiet?: { disturbed: number };
}

/**
 * A record's quiet part: every process with a window that other work disturbed (above
 * FOREIGN_CPU_LIMIT of a core, quiet.ts) left out, and its ratios recomputed from the rest
 * (`referenceRatios`; in the rotation design a block without one of its processes drops out of
 * every ratio of its scenario, as `blockRatio` fits only complete blocks). A wholly quiet record
 * is returned as it is. Null when a ratio keeps fewer than REFERENCE_MINIMUMS.processes processes
 * or blocks, or when the record's windows cannot say which processes were disturbed.
 */
export function quietPart(rec: ReferenceSource): { source: ReferenceSource; leftOut: number } | null {
  if (!rec.quiet?.disturbed) return { source: rec, leftOut: 0 };
  const ps = rec.processes ?? [];
  if (!ps.length || ps.some((p) => !p.windows?.length)) return null;
  const kept = ps.filter((p) => !quietCheck([p]).disturbed);
  const baselines = new Map(rec.ratios.map((r) => [r.scenario, r.baseline]));
  const ratios = referenceRatios(kept, (s) => baselines.get(s) ?? '');
  const short = (f: ReferenceFigure | null) => f !== null && f.n < REFERENCE_MINIMUMS.processes;
  if (ratios.length < rec.ratios.length || ratios.some((r) => short(r.rps) || short(r.efficiency))) return null;
  return { source: { ...rec, ratios, processes: kept }, leftOut: ps.length - kept.length };
}
