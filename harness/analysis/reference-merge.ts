/**
 * Several steady-state reference records read as one (the report's how-sure line and
 * `reference-compare`): each record's quiet part (reference-stats.ts `quietPart`), records of one
 * shape pooled block by block (`poolRecords`), then per ratio the source with the most blocks or
 * processes behind it (`mergeReferences`).
 *
 * Pooling: rotation-design records of one scenario with the same contenders, baseline, design
 * (warm-up, windows, window seconds, connections), machine (core/machine.ts `machineKey`) and Node.js version are one
 * randomized block experiment run on several days. Their blocks are fitted together by
 * reference-stats.ts `blockRatio` (each block keeps its own effect, so a day's host speed drops
 * out), with df = (C − 1)(B − 1) over all B blocks. They are pooled when the record × contender
 * interaction F (F = [(SS_pooled − Σ SS_record) / ((C − 1)(R − 1))] ÷
 * [Σ SS_record / Σ (C − 1)(B_r − 1)], Fisher–Snedecor quantile from @stdlib) stays below its
 * median (POOL_ALPHA), in requests/s and in efficiency. Otherwise the records may differ by more
 * than their blocks' noise explains, and a pooled interval (or one record's) would be too narrow:
 * they are read as draws of a day's ratio instead (`recordsMean`: the mean of their log ratios, its
 * error from the records × contenders interaction, on (C − 1)(R − 1) df; the error term of
 * treatments compared over several sites: Cochran & Cox, "Experimental Designs", series of
 * experiments). Solo (ABBA) records of one shape have no blocks to pool: they are always read by
 * `recordsMean`, so a machine's solo records of several hours count together, not the newest alone.
 */
import fQuantile from '@stdlib/stats-base-dists-f-quantile';
import { type MachineFacts, machineKey } from '../core/machine.ts';
import { tQuantile } from './stats.ts';
import {
  type ReferenceFigure,
  type ReferenceRatio,
  type ReferenceSource,
  quietPart,
  referenceRatios,
  type SourceProcess,
  withSplits,
} from './reference-stats.ts';

/**
 * The interaction test's level: records pool their blocks only when F is below its median (a
 * preliminary test at 50%, not 5%). Measured by simulation (scripts/studies/reference-pool-coverage.ts,
 * checked in test/unit/reference-merge.test.ts; docs/methodology.md): with a record × contender spread τ of 0–5% per record, the merged 95%
 * interval covers the true ratio in 94–98% of draws at this level, against 83–96% at 5%, where
 * records that differ by a few per cent too often pool into an interval that is too narrow.
 */
export const POOL_ALPHA = 0.5;

/** A record as pooling reads it: a quiet source with its design, machine and Node.js version (absent: never pooled). */
export type PoolSource = ReferenceSource & {
  design?: { warmupS: number; windows: number; windowS: number; connections: number; order: string };
  machine?: MachineFacts;
  node?: string;
};

/** One set of records of one shape and scenario: blocks pooled, or read as draws of a day's ratio (`recordsMean`). */
export interface Pool {
  scenario: string;
  contenders: string[];
  /** The records' run ids, oldest first. */
  records: string[];
  /** Complete blocks over the records (solo records: their processes of one contender). */
  blocks: number;
  /** Solo (ABBA) records: never pooled process by process, always read by `recordsMean`, with no `test`. */
  solo: boolean;
  /** Rotation records: the interaction F statistic (requests/s; the larger of requests/s and efficiency when both), its df and its critical value at POOL_ALPHA. */
  test?: { f: number; df: [number, number]; critical: number };
  /** true: blocks pooled; false: read by `recordsMean` (the records disagree, or they are solo). */
  pooled: boolean;
}

/** The label of a pooled source: its records' ids joined by "+" (run ids hold no "+"). */
export const poolLabel = (ids: readonly string[]): string => ids.join('+');

/** The sentence for one pool, e.g. "References `A` + `B` (json; express, fastify, node-http; one design): pooled, 36 blocks (record × contender F 0.52 on 2 and 66 df; they pool below 0.70, its median)." (or "their ratios differ: read as their mean, …"; solo records: "solo records, read as their mean, … (3 df).") */
export function poolText(p: Pool): string {
  const df = (p.contenders.length - 1) * (p.records.length - 1);
  const head = `References \`${p.records.join('` + `')}\` (${p.scenario}; ${p.contenders.join(', ')}; one design)`;
  const mean = `read as their mean, with the records × contenders interaction as its error (${df} df)`;
  if (!p.test) return `${head}: solo records, ${mean}.`;
  const verdict = p.pooled ? `pooled, ${p.blocks} blocks` : `their ratios differ: ${mean}`;
  return `${head}: ${verdict} (record × contender F ${p.test.f.toFixed(2)} on ${p.test.df[0]} and ${p.test.df[1]} df; they pool below ${p.test.critical.toFixed(2)}, its median).`;
}

/** The run ids behind a ratio's `record` label (one, or a pool's). */
export const recordIds = (label: string | undefined): string[] => (label ? label.split('+') : []);

/** The residual sum of squares behind a block-fitted figure: se² · df · B (reference-stats.ts `blockRatio`: se = σ̂/√B, σ̂² = SS/df). */
function residualSs(f: ReferenceFigure | null): { ss: number; df: number } | null {
  const own = f?.split?.own;
  if (!f || !own || f.df === undefined || !own.pooled) return null;
  return { ss: own.se ** 2 * f.df * f.n, df: f.df };
}

/** The interaction F of one unit: null when a record or the pool lacks a block fit. */
function interactionF(
  parts: ReferenceRatio[],
  pooled: ReferenceRatio,
  unit: 'rps' | 'efficiency',
  contenders: number,
  records: number,
  alpha: number,
): { f: number; df: [number, number]; critical: number } | null {
  const within = parts.map((r) => residualSs(r[unit]));
  const all = residualSs(pooled[unit]);
  if (!all || within.some((w) => w === null)) return null;
  const ss = within.reduce((a, w) => a + (w?.ss ?? 0), 0);
  const df = within.reduce((a, w) => a + (w?.df ?? 0), 0);
  const df1 = (contenders - 1) * (records - 1);
  if (ss <= 0 || df <= 0 || df1 <= 0) return null;
  return { f: Math.max(0, all.ss - ss) / df1 / (ss / df), df: [df1, df], critical: fQuantile(1 - alpha, df1, df) };
}

const shapeKey = (s: PoolSource, scenario: string, contenders: string[], baseline: string): string | null => {
  const d = s.design;
  if (!d || !s.machine || !s.node) return null;
  return JSON.stringify([
    d.order,
    scenario,
    baseline,
    contenders,
    d.warmupS,
    d.windows,
    d.windowS,
    d.connections,
    machineKey(s.machine),
    s.node,
  ]);
};

/**
 * The pools of `sources` (quiet parts, see the module docstring): for every set of ≥ 2 records of
 * one shape and scenario, the ratios read from all of them: rotation records pooled block by block
 * when the interaction F is below its critical value at `alpha` (default POOL_ALPHA), else
 * `recordsMean`; solo records always `recordsMean` (`record`: `poolLabel` of the ids; `rps.n`: the
 * blocks, or solo processes of one contender, of all records). Rotation sources whose processes
 * lack blocks, and sources without design, machine or Node.js version, are never pooled.
 */
export function poolRecords(
  sources: readonly PoolSource[],
  alpha = POOL_ALPHA,
): { pools: Pool[]; ratios: ReferenceRatio[] } {
  const groups = new Map<
    string,
    { scenario: string; baseline: string; contenders: string[]; solo: boolean; members: PoolSource[] }
  >();
  for (const s of sources) {
    for (const scenario of [...new Set(s.ratios.map((r) => r.scenario))]) {
      const ps = (s.processes ?? []).filter((p) => p.scenario === scenario);
      const rotation = s.design?.order === 'rotation';
      if (!ps.length || (rotation && ps.some((p) => p.block === undefined))) continue;
      const baseline = s.ratios.find((r) => r.scenario === scenario)?.baseline ?? '';
      const contenders = [...new Set(ps.map((p) => p.contender))].sort();
      const key = shapeKey(s, scenario, contenders, baseline);
      if (!key) continue;
      const g = groups.get(key) ?? { scenario, baseline, contenders, solo: !rotation, members: [] };
      g.members.push(s);
      groups.set(key, g);
    }
  }
  const pools: Pool[] = [];
  const ratios: ReferenceRatio[] = [];
  for (const g of groups.values()) {
    if (g.members.length < 2) continue;
    const members = [...g.members].sort((a, b) => a.at.localeCompare(b.at));
    const records = members.map((s) => s.runId);
    const parts = members.map((s) => withSplits(s.ratios, s.processes).filter((r) => r.scenario === g.scenario));
    if (g.solo) {
      // Solo processes are not blocks: nothing to pool, so the records are read as draws of a day's ratio.
      const n = parts.reduce((a, rs) => a + (rs[0]?.rps.n ?? 0), 0);
      pools.push({ scenario: g.scenario, contenders: g.contenders, records, blocks: n, solo: true, pooled: false });
      ratios.push(...recordsMean(parts, g.baseline, n).map((r) => ({ ...r, record: poolLabel(records) })));
      continue;
    }
    // Blocks renumbered per record so that no two records share a block effect.
    const processes: SourceProcess[] = members.flatMap((s, i) =>
      (s.processes ?? [])
        .filter((p) => p.scenario === g.scenario)
        .map((p) => ({ ...p, block: (i + 1) * 100_000 + (p.block ?? 0) })),
    );
    const together = referenceRatios(processes, () => g.baseline);
    // The residual SS is pooled over the contenders, so one ratio of the pool gives the F of each unit.
    const r = together[0];
    const mine = parts.map((rs) => rs.find((x) => x.contender === r?.contender)).filter((x) => x !== undefined);
    const tests =
      !r || mine.length !== members.length
        ? [null]
        : (['rps', 'efficiency'] as const)
            .filter((u) => r[u] !== null)
            .map((u) => interactionF(mine, r, u, g.contenders.length, members.length, alpha));
    const known = tests.filter((t) => t !== null);
    const worst = known.reduce((a, t) => (t.f / t.critical > a.f / a.critical ? t : a), {
      f: 0,
      df: [0, 0] as [number, number],
      critical: 1,
    });
    const pooled = known.length > 0 && known.length === tests.length && known.every((t) => t.f <= t.critical);
    pools.push({
      scenario: g.scenario,
      contenders: g.contenders,
      records,
      blocks: together[0]?.rps.n ?? 0,
      solo: false,
      test: { f: worst.f, df: worst.df, critical: worst.critical },
      pooled,
    });
    const combined = pooled ? together : recordsMean(parts, g.baseline, together[0]?.rps.n ?? 0);
    ratios.push(...combined.map((r) => ({ ...r, record: poolLabel(records) })));
  }
  return { pools, ratios };
}

/**
 * Records that disagree, read as draws of a day's ratio: per contender the mean over records of
 * their log ratios (each record one vote), its error from the records × contenders interaction of
 * those logs (the baseline's log ratio 0 in every record): MS = SS / ((C − 1)(R − 1)) estimates
 * one record's variance about the mean (between records plus within), so each mean log has SE
 * √(MS/R), pooled over the contenders, on (C − 1)(R − 1) df. `n`: the blocks behind it.
 */
function recordsMean(parts: ReferenceRatio[][], baseline: string, blocks: number): ReferenceRatio[] {
  const first = parts[0] ?? [];
  const R = parts.length;
  const C = first.length + 1;
  const df = (C - 1) * (R - 1);
  const unit = (u: 'rps' | 'efficiency'): ((c: string) => ReferenceFigure) | null => {
    const table = parts.map((rs) => [
      0,
      ...first.map((f) => Math.log(rs.find((x) => x.contender === f.contender)?.[u]?.figure ?? Number.NaN)),
    ]);
    if (table.some((row) => row.some((v) => !Number.isFinite(v)))) return null;
    const rowMean = table.map((row) => row.reduce((a, v) => a + v, 0) / C);
    const colMean = table[0]?.map((_, j) => table.reduce((a, row) => a + (row[j] ?? 0), 0) / R) ?? [];
    const grand = rowMean.reduce((a, v) => a + v, 0) / R;
    let ss = 0;
    for (const [i, row] of table.entries())
      for (const [j, v] of row.entries()) ss += (v - (rowMean[i] ?? 0) - (colMean[j] ?? 0) + grand) ** 2;
    const se = Math.sqrt(ss / df / R);
    const h = tQuantile(0.975, df) * se * Math.SQRT2;
    return (c) => {
      const d = colMean[first.findIndex((f) => f.contender === c) + 1] ?? Number.NaN;
      const mine = { se, df, pooled: true };
      return {
        figure: Math.exp(d),
        ci95: [Math.exp(d - h), Math.exp(d + h)],
        n: blocks,
        df,
        split: { own: mine, base: mine },
      };
    };
  };
  const rps = unit('rps');
  const eff = unit('efficiency');
  if (!rps) return [];
  return first.map((f) => ({
    contender: f.contender,
    scenario: f.scenario,
    baseline,
    rps: rps(f.contender),
    efficiency: eff ? eff(f.contender) : null,
  }));
}

/**
 * Several reference records read as one: each record's quiet part (`quietPart`; a record without
 * one is skipped), records of one shape pooled when they agree (`poolRecords`), then for each
 * contender, scenario and baseline the ratio with the most blocks or processes behind it
 * (`rps.n`; on a tie the newer record by `at`; a pool counts as its newest record), with its
 * splits (`withSplits`) and tagged with its source (`record`: a run id or a pool's `poolLabel`),
 * so that ratios of different sources count as independent in the bias test
 * (reference-gaps.ts). `ids`: the records behind at least one ratio, oldest first; `leftOut`: per
 * record id, the disturbed processes left out (only those with any); `pools`: every set of records
 * of one shape, pooled or not (`alpha`: the pooling test's level, default POOL_ALPHA). Throws
 * UserError when a record's ratios and processes disagree.
 */
export function mergeReferences(
  records: readonly PoolSource[],
  alpha = POOL_ALPHA,
): {
  ids: string[];
  ratios: ReferenceRatio[];
  leftOut: Record<string, number>;
  pools: Pool[];
} {
  const best = new Map<string, { at: string; ratio: ReferenceRatio }>();
  const leftOut: Record<string, number> = {};
  const offer = (ratio: ReferenceRatio, at: string) => {
    const key = `${ratio.contender}|${ratio.scenario}|${ratio.baseline}`;
    const had = best.get(key);
    const more = !had || ratio.rps.n > had.ratio.rps.n || (ratio.rps.n === had.ratio.rps.n && at > had.at);
    if (more) best.set(key, { at, ratio });
  };
  const quiet: PoolSource[] = [];
  for (const whole of records) {
    const q = quietPart(whole);
    if (!q) continue;
    const rec: PoolSource = { ...whole, ...q.source };
    quiet.push(rec);
    if (q.leftOut) leftOut[rec.runId] = q.leftOut;
    for (const ratio of withSplits(rec.ratios, rec.processes)) offer({ ...ratio, record: rec.runId }, rec.at);
  }
  const { pools, ratios } = poolRecords(quiet, alpha);
  const atOf = new Map(quiet.map((r) => [r.runId, r.at]));
  for (const ratio of ratios)
    offer(
      ratio,
      recordIds(ratio.record)
        .map((id) => atOf.get(id) ?? '')
        .sort()
        .at(-1) ?? '',
    );
  const used = new Set([...best.values()].flatMap((b) => recordIds(b.ratio.record)));
  const ids = [...records]
    .sort((a, b) => a.at.localeCompare(b.at))
    .map((r) => r.runId)
    .filter((id) => used.has(id));
  return { ids, ratios: [...best.values()].map((b) => b.ratio), leftOut, pools };
}
