/**
 * The steady-state reference (`just reference`, cli/reference.ts and cli/reference-measure.ts)
 * and the bake-off's agreement with it. A reference measures each contender ALONE on the server
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
 *   residual (`blockRatio`), solo processes by Welch's t on the logs (Welch–Satterthwaite df).
 * - `compareWithReference`: per bake-off row (a ranked table's ratio to its baseline, with its
 *   95% CI), the bias |bake-off ratio ÷ reference ratio − 1| and whether the row's CI covers the
 *   reference ratio; over the rows their median and max bias and the rows covered. The targets
 *   of the design (bias ≤ 5% in every row, median ≤ 2%, ≥ 90% of rows covered) are REFERENCE_TARGETS.
 *
 * Rates in requests/s; efficiencies in requests per server CPU-second; ratios unitless.
 */
import { UserError } from '../core/errors.ts';
import { type QuietCheck, quietOf } from './quiet.ts';
import { tQuantile } from './stats.ts';

/** The targets a bake-off design must meet against the reference. */
export const REFERENCE_TARGETS = { maxBias: 0.05, medianBias: 0.02, covered: 0.9 } as const;

/** The quiet check of a reference run's processes (analysis/quiet.ts): each window's foreign CPU ÷ its seconds. */
export function quietCheck(processes: { windows: ReferenceWindow[] }[]): QuietCheck {
  return quietOf(
    processes
      .flatMap((p) => p.windows)
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

/** A figure over processes with its 95% interval (t on the logs, df = n − 1; null with 1 process). */
export interface ReferenceFigure {
  figure: number;
  ci95: [number, number] | null;
  n: number;
}

/** A contender's ratio to the scenario's baseline in the reference, with its 95% interval. */
export interface ReferenceRatio {
  contender: string;
  scenario: string;
  baseline: string;
  rps: ReferenceFigure;
  efficiency: ReferenceFigure | null;
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
  return { figure: Math.exp(m), ci95: [Math.exp(m - h), Math.exp(m + h)], n: l.length };
}

/** Ratio of two sets of process figures: exp(Δ mean log) with Welch's t interval; null interval with < 2 processes a side. */
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
  return { figure: Math.exp(d), ci95: [Math.exp(d - h), Math.exp(d + h)], n: Math.min(la.length, lb.length) };
}

/**
 * Every contender's ratio to its scenario's baseline (`baselineOf(scenario)`) from a reference's
 * processes; scenarios without processes of their baseline give no ratios. Processes of the
 * rotation design (every one with a `block`) are fitted two-way (`blockRatio`); solo processes
 * by Welch's t between processes (`ratioOfProcesses`).
 */
export function referenceRatios(
  processes: ReferenceProcess[],
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
    const eff = (ps: ReferenceProcess[]) => ps.map((p) => p.efficiency).filter((e): e is number => e !== null);
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
 * variance pooled over the contenders, df = (C − 1)(B − 1). With fewer than 2 complete blocks:
 * the ratio of the means and no interval.
 */
export function blockRatio(
  ps: ReferenceProcess[],
  contender: string,
  baseline: string,
  value: (p: ReferenceProcess) => number,
): ReferenceFigure {
  const cs = [...new Set(ps.map((p) => p.contender))];
  const at = (c: string, b: number) => ps.find((p) => p.contender === c && p.block === b);
  const blocks = [...new Set(ps.map((p) => p.block ?? 0))].filter((b) =>
    cs.every((c) => {
      const p = at(c, b);
      return p !== undefined && value(p) > 0;
    }),
  );
  const y = (c: string, b: number) => Math.log(value(at(c, b) as ReferenceProcess));
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
  const h = tQuantile(0.975, df) * Math.sqrt(ss / df) * Math.sqrt(2 / B);
  return { figure: Math.exp(d), ci95: [Math.exp(d - h), Math.exp(d + h)], n: B };
}

/** One bake-off row to compare: its ratio to the table's baseline with the 95% CI the report prints. */
export interface BakeoffRatio {
  label: string;
  scenario: string;
  baseline: string;
  ratio: number;
  ci95: [number, number] | null;
}

/** A bake-off row against the reference. */
export interface ReferenceRowCheck {
  label: string;
  scenario: string;
  bakeoff: number;
  reference: number;
  /** |bake-off ÷ reference − 1|. */
  bias: number;
  /** The bake-off's 95% CI contains the reference ratio (false without a CI). */
  covered: boolean;
  /**
   * The log gap ln(bake-off ÷ reference) over its standard error, both sides' 95% CIs read as
   * normal intervals on the log scale (half-width ÷ 1.96); null when either side has no CI.
   */
  z: number | null;
  /** |z| > 1.96: the two figures differ beyond both intervals (a bias the two runs resolve). */
  distinct: boolean;
  /** The standard error of the log gap, √(SE_bake-off² + SE_reference²); null when either side has no CI. */
  gapSe: number | null;
  /** Half the width of the bake-off's 95% CI on the log scale; null without a CI. */
  halfWidth: number | null;
}

/** The bake-off against the reference over the rows both have. */
export interface ReferenceCheck {
  unit: 'rps' | 'efficiency';
  rows: ReferenceRowCheck[];
  medianBias: number | null;
  maxBias: number | null;
  covered: number;
  /** Rows whose gap to the reference is beyond both intervals (`distinct`). */
  distinct: number;
  /** Whether the targets (REFERENCE_TARGETS) hold; null without rows. */
  met: boolean | null;
}

/**
 * The bake-off's rows against the reference ratios (same contender label, scenario and baseline),
 * in `unit` ('rps': the reference's requests/s ratio, what a user deploying the stack on a core
 * of its own gets; 'efficiency': its requests per CPU-second ratio). Rows the reference lacks are
 * left out.
 */
export function compareWithReference(
  rows: BakeoffRatio[],
  ref: ReferenceRatio[],
  unit: 'rps' | 'efficiency' = 'rps',
): ReferenceCheck {
  const checks: ReferenceRowCheck[] = [];
  for (const r of rows) {
    const x = ref.find((q) => q.contender === r.label && q.scenario === r.scenario && q.baseline === r.baseline);
    const fig = unit === 'rps' ? x?.rps : x?.efficiency;
    const f = fig?.figure;
    if (!x || f === undefined || !(f > 0) || !(r.ratio > 0)) continue;
    const sa = logSe(r.ci95);
    const sb = logSe(fig?.ci95 ?? null);
    const gapSe = sa !== null && sb !== null ? Math.sqrt(sa ** 2 + sb ** 2) : null;
    const z = gapSe === null ? null : Math.log(r.ratio / f) / gapSe;
    checks.push({
      label: r.label,
      scenario: r.scenario,
      bakeoff: r.ratio,
      reference: f,
      bias: Math.abs(r.ratio / f - 1),
      covered: r.ci95 !== null && r.ci95[0] <= f && f <= r.ci95[1],
      z,
      distinct: z !== null && Math.abs(z) > 1.96,
      gapSe,
      halfWidth: sa === null ? null : sa * 1.96,
    });
  }
  const biases = checks.map((c) => c.bias).sort((a, b) => a - b);
  const n = biases.length;
  const medianBias = n ? ((biases[(n - 1) >> 1] ?? 0) + (biases[n >> 1] ?? 0)) / 2 : null;
  const maxBias = n ? (biases[n - 1] ?? null) : null;
  const covered = checks.filter((c) => c.covered).length;
  const met =
    n && medianBias !== null && maxBias !== null
      ? maxBias <= REFERENCE_TARGETS.maxBias &&
        medianBias <= REFERENCE_TARGETS.medianBias &&
        covered / n >= REFERENCE_TARGETS.covered
      : null;
  const distinct = checks.filter((c) => c.distinct).length;
  return { unit, rows: checks, medianBias, maxBias, covered, distinct, met };
}

/** SE of a log figure from its 95% CI (half-width of the log interval ÷ 1.96); null without a usable CI. */
function logSe(ci: [number, number] | null): number | null {
  if (!ci || !(ci[0] > 0) || !(ci[1] > ci[0])) return null;
  return (Math.log(ci[1]) - Math.log(ci[0])) / (2 * 1.96);
}
