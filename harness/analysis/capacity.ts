/**
 * The numbers of the capacity report, computed once for every exporter: the p99 of a
 * cell at its capacity, the step that shows where the SLO breaks, and how far the ranking by
 * capacity (sustainable open-loop requests/s at p99 ≤ the SLO) differs from the ranking by the
 * closed-loop peak of the SAME cells (`capacity.peakRps`: the same run and rounds).
 *
 * - Capacity ranks: `rankRows` (the table's rank rule: 1 + the cells significantly faster) when
 *   every cell has ≥ MIN_CI_TRIALS searches behind its figure; with fewer no difference can be
 *   significant (every rank would be 1), so the capacity order is then a plain ordering of the
 *   figures, and `capacityBy` says which one was used.
 * - Closed-loop ranks: a plain ordering of the peak figures (1 + the cells with a higher peak;
 *   no significance test).
 * - Spearman's ρ: Pearson's correlation of the two rankings' average ranks (ties share the mean
 *   of their positions), so identical orders give 1 and reversed orders −1.
 *
 * - Searches that disagree (`reconcileCapacity`): a cell's figure is over the searches that
 *   bracketed their capacity; when another search of the cell held a higher rate than the
 *   figure's interval allows, the cell is a lower bound ("≥") over every search instead.
 *
 * Rates in requests/s, latencies in ms.
 */
import type { CapacityStep, CellResult } from '../store/results.ts';
import { cellEstimate, cellFailure, cellTrialCount, MIN_CI_TRIALS, median, rankRows } from './stats.ts';

/**
 * Average ranks (1-based) of `xs` in ascending order: the smallest value gets 1; tied values
 * share the mean of the positions they occupy ([10, 20, 20, 30] → [1, 2.5, 2.5, 4]).
 */
export function averageRanks(xs: number[]): number[] {
  const idx = xs.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
  const out = new Array<number>(xs.length);
  for (let i = 0; i < idx.length; ) {
    const value = idx[i]?.[0];
    let j = i;
    while (j + 1 < idx.length && idx[j + 1]?.[0] === value) j++;
    const r = (i + j) / 2 + 1;
    for (const [, at] of idx.slice(i, j + 1)) out[at] = r;
    i = j + 1;
  }
  return out;
}

/**
 * Spearman's rank correlation of two paired lists (same length, same items in the same order;
 * any numbers whose order is the ranking, e.g. ranks with ties): Pearson's r of their average
 * ranks, in [−1, 1]. Null with fewer than 2 items or when one side is all ties (no order).
 */
export function spearman(a: number[], b: number[]): number | null {
  if (a.length !== b.length) throw new RangeError(`spearman: ${a.length} vs ${b.length} items`);
  const n = a.length;
  if (n < 2) return null;
  const ra = averageRanks(a);
  const rb = averageRanks(b);
  const m = (n + 1) / 2; // the mean of average ranks is always (n + 1) / 2
  let sab = 0;
  let saa = 0;
  let sbb = 0;
  for (const [i, x] of ra.entries()) {
    const y = rb[i] ?? m; // same length as ra (checked above)
    sab += (x - m) * (y - m);
    saa += (x - m) ** 2;
    sbb += (y - m) ** 2;
  }
  if (saa === 0 || sbb === 0) return null;
  return Math.max(-1, Math.min(1, sab / Math.sqrt(saa * sbb)));
}

/** Competition ranks of figures, higher is better: 1 + the number of strictly higher figures ([5, 9, 9, 1] → [3, 1, 1, 4]). */
export function orderRanks(figures: number[]): number[] {
  return figures.map((f) => 1 + figures.filter((g) => g > f).length);
}

/**
 * The p99 at a cell's capacity, ms: in each search, the passing steps at that search's highest
 * held rate (a rate whose steps' majority held, `ratePass`; in runs without `ratePass`, any passing
 * step); the median of their p99 over all searches. Null when no step passed.
 */
export function p99AtCapacity(steps: readonly CapacityStep[]): number | null {
  const bySearch = new Map<number, CapacityStep[]>();
  for (const s of steps) bySearch.set(s.search, [...(bySearch.get(s.search) ?? []), s]);
  const p99s: number[] = [];
  for (const list of bySearch.values()) {
    const pass = list.filter((s) => s.pass && s.ratePass !== false);
    if (!pass.length) continue;
    const top = Math.max(...pass.map((s) => s.rate));
    for (const s of pass) if (s.rate === top) p99s.push(s.latencyMs.p99);
  }
  return p99s.length ? median(p99s) : null;
}

/**
 * Where the objective breaks: the failing step with the lowest rate whose p99 exceeded the SLO
 * (over every search), else the lowest failing step for another reason (errors, achieved rate),
 * else null (no step failed). A failing step outvoted at a rate that held (`ratePass`)
 * is not where the objective breaks.
 */
export function firstBreak(steps: readonly CapacityStep[], sloP99Ms: number): CapacityStep | null {
  const failing = steps.filter((s) => !s.pass && s.ratePass !== true).sort((a, b) => a.rate - b.rate);
  return failing.find((s) => s.latencyMs.p99 > sloP99Ms) ?? failing[0] ?? null;
}

/** One cell in the comparison of the two rankings. Rates in requests/s. */
export interface RankingRow {
  label: string;
  /** Sustainable requests/s at p99 ≤ the SLO (the cell's figure). */
  capacity: number;
  /** Closed-loop peak requests/s of the same rounds (`capacity.peakRps.figure`). */
  peak: number;
  /** Rank by capacity (`rankRows`, or a plain ordering: see `capacityBy`). */
  capacityRank: number;
  /** Rank by closed-loop peak: a plain ordering of the peak figures. */
  peakRank: number;
}

/** The capacity ranking against the closed-loop one, over the same cells. */
export interface RankingComparison {
  /** Cells compared: those with a capacity (not failed, not skipped); `never` cells are left out. */
  rows: RankingRow[];
  /** 'rank': rankRows (every cell has ≥ MIN_CI_TRIALS searches); 'order': a plain ordering of the capacity figures. */
  capacityBy: 'rank' | 'order';
  /** Spearman's ρ of the two rankings; null with fewer than 2 cells or when one ranking is all ties. */
  rho: number | null;
  /** Rows whose ranks differ, the largest move first (then by label). */
  moves: RankingRow[];
  /** Cells of the table left out (no capacity: never held the SLO, interrupted, failed, skipped). */
  excluded: string[];
}

/**
 * Compares the capacity ranking of one capacity table's cells (one run × scenario × profile ×
 * driver × Node major) with their closed-loop peak ranking. Cells without `capacity` are ignored;
 * cells with a capacity but no sustainable rate, or failed otherwise, are listed in `excluded`.
 */
export function compareRankings(cells: readonly CellResult[]): RankingComparison {
  const cap = cells.filter((c) => c.capacity);
  const ok = cap.filter((c) => c.capacity?.rps && !cellFailure(c) && c.status === 'ok');
  const okCaps = ok.flatMap((c) => (c.capacity ? [c.capacity] : []));
  const excluded = cap.filter((c) => !ok.includes(c)).map((c) => c.label);
  const figures = ok.map((c) => cellEstimate(c).figure);
  const peaks = okCaps.map((cap) => cap.peakRps.figure);
  const ci = ok.every((c) => cellTrialCount(c) >= MIN_CI_TRIALS && cellEstimate(c).kind === 'ci95');
  const capacityBy: RankingComparison['capacityBy'] = ci ? 'rank' : 'order';
  const capRanks = ci ? rankRows([...ok]) : orderRanks(figures);
  const peakRanks = orderRanks(peaks);
  // figures, peaks and both rank lists are parallel to `ok` (same length, same order)
  const rows = ok.map((c, i) => ({
    label: c.label,
    capacity: figures[i] ?? Number.NaN,
    peak: peaks[i] ?? Number.NaN,
    capacityRank: capRanks[i] ?? Number.NaN,
    peakRank: peakRanks[i] ?? Number.NaN,
  }));
  const moves = rows
    .filter((r) => r.capacityRank !== r.peakRank)
    .sort(
      (a, b) =>
        Math.abs(b.capacityRank - b.peakRank) - Math.abs(a.capacityRank - a.peakRank) || a.label.localeCompare(b.label),
    );
  return { rows, capacityBy, rho: spearman(capRanks, peakRanks), moves, excluded };
}

/** One point of a cell's median latency-versus-rate curve (`medianCurve`). */
export interface MedianCurvePoint {
  /** Median offered rate of the bin's steps, requests/s. */
  rate: number;
  /** Median p99 of the bin's steps, ms. */
  p99: number;
  /** Steps in the bin, and how many of them held the SLO. */
  steps: number;
  held: number;
}

/** Width of a `medianCurve` bin: rates within a factor of 1.15 (ln 1.15 on the log scale). */
export const CURVE_BIN_RATIO = 1.15;

/**
 * A cell's latency-versus-rate curve as one line (the report's capacity chart once drew every
 * step of every search as one zig-zag line per contender): the steps of all its searches binned on
 * a log scale of the offered rate (bins `CURVE_BIN_RATIO` wide, anchored at 1 requests/s so every
 * cell shares the grid), each bin giving the median rate, the median p99 and how many steps held.
 * Steps with a non-positive rate are left out. Bins sorted by rate; [] for no steps.
 */
export function medianCurve(steps: readonly { rate: number; p99: number; pass: boolean }[]): MedianCurvePoint[] {
  const bins = new Map<number, { rate: number; p99: number; pass: boolean }[]>();
  for (const s of steps) {
    if (!(s.rate > 0)) continue;
    const k = Math.floor(Math.log(s.rate) / Math.log(CURVE_BIN_RATIO));
    const bin = bins.get(k);
    if (bin) bin.push(s);
    else bins.set(k, [s]);
  }
  return [...bins.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([, b]) => ({
      rate: median(b.map((s) => s.rate)),
      p99: median(b.map((s) => s.p99)),
      steps: b.length,
      held: b.filter((s) => s.pass).length,
    }));
}

/** What one run's capacity steps say about the open-loop driver's own ceiling (`driverCeilings`). */
export interface DriverCeiling {
  /** The open-loop driver (oha, k6). */
  driver: string;
  /** Steps of the run with this driver. */
  steps: number;
  /**
   * The highest rate it delivered cleanly (≥ 95% of the offered rate achieved, ≤ 0.1% failed, not
   * at its limit), whatever the server's p99: a lower bound on the driver's ceiling, requests/s
   * achieved; null when no step was clean.
   */
  clean: { rps: number; label: string; scenario: string } | null;
  /** Steps in which the driver used ≥ 75% of its core (`clientBound`) and the lowest offered rate among them. */
  atLimit: number;
  lowestAtLimit: { rate: number; label: string; scenario: string } | null;
}

/**
 * The open-loop driver's ceiling as measured in one run (stated in the report with its run id), per driver from every step of the run's capacity cells:
 * the highest clean delivered rate (a lower bound on the ceiling, since the driver produced it)
 * and the steps at its limit (an upper region: from there on a failure may be the driver's).
 * Steps follow the rules of scheduler/capacity-search.ts `judgeStep` (0.1% failed, 95% achieved).
 * Drivers in order of first appearance; [] without capacity cells.
 */
export function driverCeilings(cells: readonly CellResult[]): DriverCeiling[] {
  const by = new Map<string, DriverCeiling>();
  for (const c of cells) {
    const k = c.capacity;
    if (!k) continue;
    let d = by.get(k.driver);
    if (!d) {
      d = { driver: k.driver, steps: 0, clean: null, atLimit: 0, lowestAtLimit: null };
      by.set(k.driver, d);
    }
    for (const s of k.steps) {
      d.steps++;
      if (s.clientBound) {
        d.atLimit++;
        if (!d.lowestAtLimit || s.rate < d.lowestAtLimit.rate)
          d.lowestAtLimit = { rate: s.rate, label: c.label, scenario: c.scenario };
        continue;
      }
      const clean = s.achievedRps >= 0.95 * s.rate && s.failed <= 0.001 * Math.max(1, s.scheduled);
      if (clean && (!d.clean || s.achievedRps > d.clean.rps))
        d.clean = { rps: s.achievedRps, label: c.label, scenario: c.scenario };
    }
  }
  return [...by.values()];
}

/**
 * The rate a step holds the SLO with probability ½ (requests/s), from steps at several rates: a
 * logistic fit of hold ~ a + b·log(rate) by maximum likelihood (Newton–Raphson; a small ridge
 * keeps a perfectly separated set finite), exp(−a/b). It is the rate the search's majority-of-3
 * rule converges to (scheduler/capacity-search.ts), so scripts/studies/capacity-truth.ts calls it the
 * truth. Null when holding does not fall with the rate (slope ≥ 0) or there are no steps.
 */
export function halfHoldRate(steps: readonly { rate: number; hold: boolean }[]): number | null {
  if (!steps.length) return null;
  const xs = steps.map((s) => Math.log(s.rate));
  const x0 = xs.reduce((a, x) => a + x, 0) / xs.length;
  let a = 0;
  let b = 0;
  for (let it = 0; it < 100; it++) {
    let ga = -1e-6 * a;
    let gb = -1e-4 * b;
    let haa = 1e-6;
    let hab = 0;
    let hbb = 1e-4;
    steps.forEach((s, i) => {
      const x = (xs[i] ?? 0) - x0;
      const p = 1 / (1 + Math.exp(-(a + b * x)));
      const y = s.hold ? 1 : 0;
      ga += y - p;
      gb += (y - p) * x;
      const w = p * (1 - p);
      haa += w;
      hab += w * x;
      hbb += w * x * x;
    });
    const det = haa * hbb - hab * hab;
    const da = (hbb * ga - hab * gb) / det;
    const db = (haa * gb - hab * ga) / det;
    a += da;
    b += db;
    if (Math.abs(da) + Math.abs(db) < 1e-10) break;
  }
  return b < 0 ? Math.exp(x0 - a / b) : null;
}

/**
 * The highest rate each search held, by search number (CapacityStep.search): a rate whose steps'
 * majority held (`ratePass`), or in runs before that field, a passing step. Searches that held no
 * rate are absent. Requests/s.
 */
export function heldBySearch(steps: readonly CapacityStep[]): Map<number, number> {
  const out = new Map<number, number>();
  for (const s of steps)
    if (s.pass && s.ratePass !== false) out.set(s.search, Math.max(out.get(s.search) ?? 0, s.rate));
  return out;
}

/** Geometric mean over every search of a cell whose searches disagree, with the min–max of them. */
const ALL_SEARCHES_ESTIMATOR =
  'geometric mean over every search that held a rate (a bracketed search its midpoint, another its highest held rate: a lower bound); range = min–max of them (not a confidence interval)';

/**
 * A capacity cell whose searches disagree, made consistent. Its figure (`capacity.rps`, `stats`)
 * is over the searches that bracketed their capacity (verdict `met`); when another search of the
 * same cell held a rate above the upper end of that figure's interval (above the figure when it
 * has none), the figure understates what the cell sustained. Such a cell becomes a lower bound:
 * verdict `at-least` ("≥"), figure = the geometric mean over every search that held a rate (the
 * bracketed ones' midpoints, the others' highest held rates, which are lower bounds), interval =
 * their min–max (kind `range`, which includes every held rate), share of peak recomputed, and
 * `heldAbove` = the searches that held more. Stats follow (trialRps, rounds = search numbers), so
 * the table, the ranking and Spearman's ρ use the new figure. Returns the cell unchanged when it
 * has no such search, is not `met`, or was already reconciled (`heldAbove` set). Searches are
 * told apart by `stats.rounds` (the search numbers of the figure's trials).
 */
export function reconcileCapacity(c: CellResult): CellResult {
  const k = c.capacity;
  const st = c.stats;
  if (!k?.rps || k.verdict !== 'met' || k.heldAbove !== undefined || !st?.trialRps?.length) return c;
  if (!Array.isArray(st.rounds) || st.rounds.length !== st.trialRps.length) return c;
  const inFigure = new Set(st.rounds);
  const others = [...heldBySearch(k.steps)].filter(([search]) => !inFigure.has(search));
  const upper = k.rps.interval?.[1] ?? k.rps.figure;
  const above = others.filter(([, rate]) => rate > upper);
  if (!above.length) return c;
  const searches = [...st.rounds, ...others.map(([s]) => s)];
  const values = [...st.trialRps, ...others.map(([, r]) => r)];
  const figure = Math.exp(values.reduce((a, x) => a + Math.log(x), 0) / values.length);
  const interval: [number, number] = [Math.min(...values), Math.max(...values)];
  const order = searches.map((_, i) => i).sort((a, b) => (searches[a] ?? 0) - (searches[b] ?? 0));
  return {
    ...c,
    capacity: {
      ...k,
      verdict: 'at-least',
      rps: { figure, interval, kind: 'range' },
      knee: figure / k.peakRps.figure,
      heldAbove: above.length,
    },
    stats: {
      ...st,
      trials: values.length,
      trialRps: order.map((i) => values[i] ?? 0),
      rounds: order.map((i) => searches[i] ?? 0),
      rps: { figure, interval, kind: 'range', estimator: ALL_SEARCHES_ESTIMATOR },
      spread: (interval[1] - interval[0]) / figure,
    },
  };
}
