/**
 * Comparing two runs (criterion.rs style), per cell present and ok in both: "improved",
 * "regressed" or "no change".
 *
 * - The change of a cell is the change in its ratio to its OWN run's baseline contender
 *   (node-http for REST; the scenario's `baseline` for GraphQL): host drift between the runs
 *   hits both and cancels. In each run the ratio is paired by round (per-round ratios
 *   cell/baseline); the change = geomean(new per-round ratios) / geomean(old ones) − 1 with a
 *   95% Welch t-interval on the logs (analysis/stats.ts `sampleRatio`, unpaired).
 * - The baseline's own cells (and cells whose run lacks a baseline) are compared by absolute
 *   requests/s (Welch on the logs of the trials) and flagged `hostSensitive`: a faster or slower
 *   host moves them.
 * - Verdict improved/regressed only when |change| > threshold (COMPARE_THRESHOLD = 5% by
 *   default) AND the interval excludes 0; cells without an interval (one trial) are "no change".
 *
 * The result is plain JSON (no cell objects), for `--format json|md` and the selftest.
 */
import { sameMachine } from '../core/machine.ts';
import type { CellResult, RunMeta } from '../store/results.ts';
import { baselineOf } from '../analysis/tables.ts';
import {
  COMPARE_THRESHOLD,
  cellFailure,
  cellFigure,
  cellSamples,
  type IntervalKind,
  type RatioEstimate,
  roundRatios,
  sampleRatio,
} from '../analysis/stats.ts';
import { fmtPct, fmtSignedPct } from '../core/format.ts';

export { readRun, saveBaseline } from '../store/runs.ts';

export type ChangeVerdict = 'improved' | 'regressed' | 'no change';

/** One cell's change between the two runs. Rates in requests/s; changes as fractions (0.05 = +5%). */
export interface CellChange {
  cellId: string;
  label: string;
  scenario: string;
  profile: string;
  driver: string;
  nodeMajor: number;
  /** 'ratio-to-baseline': change of cell/baseline (drift cancels); 'absolute': change of requests/s. */
  basis: 'ratio-to-baseline' | 'absolute';
  /** The baseline contender of the scenario (null for 'absolute' without a baseline). */
  baseline: string | null;
  /** true for absolute comparisons: a faster or slower host moves them. */
  hostSensitive: boolean;
  /** The compared figure in the old and new run (ratio to baseline, or requests/s). */
  old: number;
  new: number;
  /** Requests/s figures of the cell in each run (for the reader). */
  oldRps: number;
  newRps: number;
  /** new/old − 1. */
  change: number;
  /** Interval of `change` ([low, high], contains it); null without one. */
  interval: [number, number] | null;
  /** 'ci95' (Welch, ≥ 5 rounds in each run), 'range' (2–4), 'none'. */
  kind: IntervalKind;
  verdict: ChangeVerdict;
}

/** The comparison of two runs. */
export interface Comparison {
  /** Old run (or baseline) name and new run name. */
  a: string;
  b: string;
  threshold: number;
  changes: CellChange[];
  /** Cells measured in only one of the runs, or failed in one, with the reason. */
  unmatched: { cellId: string; reason: string }[];
  counts: Record<ChangeVerdict, number>;
  /** Fraction of compared cells with "no change". */
  noChangeFraction: number;
  /** The runs' machines differ (CPU model or cores): absolute (host-sensitive) changes mean little. */
  machinesDiffer: boolean;
}

/** A run as compareRuns takes it: the store's read of a run. */
export interface RunInput {
  meta: RunMeta;
  cells: CellResult[];
}

/** Options of compareRuns. */
export interface CompareOptions {
  /** Scenario list with baselines (Scenario.baseline). */
  scenarios?: { name: string; baseline?: string }[];
  /** Display names of the runs (default: their run ids). */
  names?: { old?: string; new?: string };
}

/** Per-round requests/s ratios of cell / base, same run (paired by round). */
function perRound(c: CellResult, base: CellResult): number[] {
  return roundRatios(c, base);
}

/**
 * Compares run `oldRun` with `newRun` (see the module docstring). `threshold` defaults to
 * COMPARE_THRESHOLD (5%). Also accepts the older call shape
 * `compareRuns(oldName, oldCells, newName, newCells, threshold?)`.
 */
export function compareRuns(oldRun: RunInput, newRun: RunInput, threshold?: number, opts?: CompareOptions): Comparison;
export function compareRuns(
  aName: string,
  a: CellResult[],
  bName: string,
  b: CellResult[],
  threshold?: number,
): Comparison;
export function compareRuns(...args: unknown[]): Comparison {
  if (typeof args[0] === 'string') {
    const [aName, a, bName, b, threshold] = args as [string, CellResult[], string, CellResult[], number | undefined];
    const pseudo = (name: string, cells: CellResult[]): RunInput => ({
      meta: { runId: cells[0]?.runId ?? name, machine: { cpuModel: '', cores: 0 } } as RunMeta,
      cells,
    });
    return compareImpl(pseudo(aName, a), pseudo(bName, b), threshold ?? COMPARE_THRESHOLD, {
      names: { old: aName, new: bName },
    });
  }
  const [oldRun, newRun, threshold, opts] = args as [
    RunInput,
    RunInput,
    number | undefined,
    CompareOptions | undefined,
  ];
  return compareImpl(oldRun, newRun, threshold ?? COMPARE_THRESHOLD, opts ?? {});
}

function groupKey(c: CellResult): string {
  return `${c.scenario}|${c.profile}|${c.driver}|${c.node.major}`;
}

function compareImpl(oldRun: RunInput, newRun: RunInput, threshold: number, opts: CompareOptions): Comparison {
  const byId = (cells: CellResult[]) => new Map(cells.map((c) => [c.cellId, c]));
  const oldMap = byId(oldRun.cells);
  const newMap = byId(newRun.cells);
  const baseIn = (cells: CellResult[]) => {
    const m = new Map<string, CellResult>();
    for (const c of cells)
      if (c.label === baselineOf(c.scenario, opts.scenarios) && !cellFailure(c)) m.set(groupKey(c), c);
    return m;
  };
  const oldBase = baseIn(oldRun.cells);
  const newBase = baseIn(newRun.cells);
  const changes: CellChange[] = [];
  const unmatched: Comparison['unmatched'] = [];
  for (const id of [...new Set([...oldMap.keys(), ...newMap.keys()])].sort()) {
    const oc = oldMap.get(id);
    const nc = newMap.get(id);
    if (!oc || !nc) {
      unmatched.push({ cellId: id, reason: oc ? 'not in the new run' : 'not in the old run' });
      continue;
    }
    const fo = cellFailure(oc);
    const fn = cellFailure(nc);
    if (fo || fn) {
      unmatched.push({
        cellId: id,
        reason: [fo && `old run: ${fo}`, fn && `new run: ${fn}`].filter(Boolean).join('; '),
      });
      continue;
    }
    const baseline = baselineOf(nc.scenario, opts.scenarios);
    const ob = oldBase.get(groupKey(oc));
    const nb = newBase.get(groupKey(nc));
    const relative = nc.label !== baseline && ob && nb;
    let r: RatioEstimate;
    let oldFig: number;
    let newFig: number;
    if (relative) {
      const ro = perRound(oc, ob);
      const rn = perRound(nc, nb);
      r = sampleRatio(rn, ro);
      oldFig = geo(ro);
      newFig = geo(rn);
    } else {
      r = sampleRatio(cellSamples(nc).rps, cellSamples(oc).rps);
      oldFig = cellFigure(oc);
      newFig = cellFigure(nc);
    }
    const change = r.figure - 1;
    const interval: [number, number] | null = r.interval ? [r.interval[0] - 1, r.interval[1] - 1] : null;
    const excludesZero = interval !== null && r.kind !== 'none' && (interval[0] > 0 || interval[1] < 0);
    const verdict: ChangeVerdict =
      Math.abs(change) > threshold && excludesZero ? (change > 0 ? 'improved' : 'regressed') : 'no change';
    changes.push({
      cellId: id,
      label: nc.label,
      scenario: nc.scenario,
      profile: nc.profile,
      driver: nc.driver,
      nodeMajor: nc.node.major,
      basis: relative ? 'ratio-to-baseline' : 'absolute',
      baseline: relative || nc.label === baseline ? baseline : null,
      hostSensitive: !relative,
      old: oldFig,
      new: newFig,
      oldRps: cellFigure(oc),
      newRps: cellFigure(nc),
      change,
      interval,
      kind: r.kind,
      verdict,
    });
  }
  const counts: Record<ChangeVerdict, number> = { improved: 0, regressed: 0, 'no change': 0 };
  for (const c of changes) counts[c.verdict]++;
  changes.sort(
    (x, y) =>
      x.label.localeCompare(y.label) || x.scenario.localeCompare(y.scenario) || x.cellId.localeCompare(y.cellId),
  );
  const mo = oldRun.meta.machine;
  const mn = newRun.meta.machine;
  return {
    a: opts.names?.old ?? oldRun.meta.runId,
    b: opts.names?.new ?? newRun.meta.runId,
    threshold,
    changes,
    unmatched,
    counts,
    noChangeFraction: changes.length ? counts['no change'] / changes.length : 0,
    machinesDiffer: Boolean(mo && mn && !sameMachine(mo, mn)),
  };
}

function geo(xs: number[]): number {
  return xs.length ? Math.exp(xs.reduce((a, x) => a + Math.log(x), 0) / xs.length) : Number.NaN;
}

/**
 * What a run measured, for the "nothing to compare" message: its profile(s), driver(s) and Node
 * version(s) from its cells (falling back to meta.json's Node version), e.g.
 * "profile quick, driver wrk, Node 24.11.0"; "no cells" for an empty run.
 */
export function describeRunGroups(run: RunInput): string {
  const uniq = (xs: string[]) => [...new Set(xs)].sort();
  const plural = (word: string, xs: string[]) => `${word}${xs.length > 1 ? 's' : ''} ${xs.join(', ')}`;
  if (!run.cells.length) return 'no cells';
  const nodes = uniq(run.cells.map((c) => c.node?.version ?? run.meta.node?.version ?? '?'));
  return [
    plural('profile', uniq(run.cells.map((c) => c.profile))),
    plural('driver', uniq(run.cells.map((c) => c.driver))),
    `Node ${nodes.join(', ')}`,
  ].join(', ');
}

/**
 * The one-line reason two runs gave nothing to compare (no cell measured ok in both), naming each
 * run's profile(s), driver(s) and Node version(s): `compare` exits 2 with it (cells are compared
 * only within the same scenario × profile × driver × Node major).
 */
export function nothingToCompare(c: Comparison, oldRun: RunInput, newRun: RunInput): string {
  return (
    `compared 0 cells: ${c.a} and ${c.b} share no cell measured ok in both. ` +
    `${c.a} has ${describeRunGroups(oldRun)}; ${c.b} has ${describeRunGroups(newRun)}. ` +
    'Cells compare only within the same scenario, profile, driver and Node major: compare two runs of the same profile (--verbose lists the unmatched cells).'
  );
}

/** Options of renderComparison: `verbose` lists every unmatched cell id (otherwise only their count). */
export interface RenderCompareOptions {
  verbose?: boolean;
}

/** The comparison as Markdown (also printed by `just compare`). */
export function renderComparison(c: Comparison, opts: RenderCompareOptions = {}): string {
  const lines = [
    `# ${c.b} vs ${c.a}`,
    '',
    [
      "Each cell's change is the change of its ratio to its own run's baseline (host drift cancels);",
      "the baseline's own cells are compared by absolute requests/s and marked host-sensitive.",
      `A change counts only beyond ±${fmtPct(c.threshold)} and when its 95% interval (Welch, on the logs) excludes 0.`,
    ].join(' '),
    '',
    "Two separate runs are the weaker design: the host drifts between them, and only each run's own baseline ties them together. To measure a change of one contender, `npx just ab <contender> --ref <git rev>` runs both builds interleaved in one run.",
    '',
    `${c.changes.length} cells: ${c.counts.improved} improved, ${c.counts.regressed} regressed, ${c.counts['no change']} no change (${fmtPct(c.noChangeFraction)} no change).`,
    ...(c.machinesDiffer ? ['', 'The two runs ran on different machines: host-sensitive rows mean little.'] : []),
    '',
    '| contender | scenario | compared | old | new | change (interval) | verdict |',
    '|---|---|---|---:|---:|---:|---|',
  ];
  const fig = (ch: CellChange, v: number) =>
    ch.basis === 'absolute' ? Math.round(v).toLocaleString('en-US') : `${v.toFixed(3)}×`;
  for (const ch of c.changes) {
    const compared = ch.basis === 'absolute' ? 'req/s (host-sensitive)' : `ratio to ${ch.baseline}`;
    const range = ch.kind === 'range' ? ', range' : '';
    const iv = ch.interval
      ? ` (${fmtSignedPct(ch.interval[0])} … ${fmtSignedPct(ch.interval[1])}${range})`
      : ' (no interval)';
    const verdict = ch.verdict === 'no change' ? 'no change' : `**${ch.verdict}**`;
    lines.push(
      `| ${ch.label} | ${ch.scenario} | ${compared} | ${fig(ch, ch.old)} | ${fig(ch, ch.new)} | ${fmtSignedPct(ch.change)}${iv} | ${verdict} |`,
    );
  }
  if (c.unmatched.length && opts.verbose)
    lines.push('', `Not compared: ${c.unmatched.map((u) => `${u.cellId} (${u.reason})`).join(', ')}`);
  else if (c.unmatched.length) {
    const why = new Map<string, number>();
    for (const u of c.unmatched) {
      const k = /^not in the (old|new) run$/.test(u.reason) ? u.reason : 'failed in one run';
      why.set(k, (why.get(k) ?? 0) + 1);
    }
    const parts = [...why].map(([k, n]) => `${n} ${k}`).join(', ');
    lines.push('', `Not compared: ${c.unmatched.length} cells (${parts}); --verbose lists them.`);
  }
  return `${lines.join('\n')}\n`;
}
