/**
 * The report's tables (view.ts `TableView`) from the analysis' ranked tables (analysis/tables.ts
 * `RankedTable`): the summary sentence under a table (from its rank test), the fastest row's
 * margin, the table model's resolution, the measurement notes (measurement-notes.ts, and the
 * requests/s order against the ranks: rps-order.ts) and variant overheads (variant-overhead.ts)
 * as sentences, the capacity facts, and the rows (row-view.ts).
 */
import type { RankedTable } from '../../analysis/tables.ts';
import { fmtDf, fmtFigure, fmtPct, fmtSignedPct, intervalName, outward } from '../../core/format.ts';
import { type MeasurementNote, measurementNotes } from '../measurement-notes.ts';
import { variantOverheads } from '../variant-overhead.ts';
import type { RowView, TableView } from '../view.ts';
import { otherRowView, rowView } from './row-view.ts';
import { estimateOf, fmtTimes } from './view-format.ts';
import { RPS_ORDER_MARK, rpsMarked, rpsOrderInversions, rpsOrderNote } from '../rps-order.ts';

/**
 * A capacity row's ratio when the baseline's sustainable rate is a lower bound (verdict at-least):
 * the true ratio is then at most the printed one for a row whose own rate is a figure, and bounded
 * neither way for a row whose rate is a lower bound too. Either way it prints without an interval
 * (a CI on a ratio to a bound would claim a precision it lacks), and a flag says which bound it is.
 */
function boundedRatio(v: RowView, t: RankedTable): RowView {
  if (!v.capacity || v.isBaseline || !v.ratio || t.baselineRow?.cell.capacity?.verdict !== 'at-least') return v;
  const flag =
    v.capacity.verdict === 'at-least'
      ? `% of ${t.baseline}: no bound (both sustainable rates are lower bounds)`
      : `% of ${t.baseline}: at most ${fmtFigure(v.ratio, { scale: 100 })}% (its sustainable rate is a lower bound)`;
  return { ...v, ratio: { ...v.ratio, interval: null, kind: 'none' }, flags: [...v.flags, flag] };
}

/**
 * The hyperfine-style sentence under a table, from the analysis' summary data (the rank test);
 * for a capacity table in terms of the sustainable rate ("sustained 1.25× … the rate of `b`").
 */
function summarySentence(t: RankedTable): string | null {
  const s = t.summary;
  if (!s) return null;
  const cap = t.rows.some((r) => r.cell.capacity);
  // A fastest capacity that is a lower bound (the open-loop driver was the limit) makes its ratios lower bounds too.
  const atLeast = cap && t.rows.some((r) => r.cell.label === s.fastest && r.cell.capacity?.verdict === 'at-least');
  const faster = s.comparisons.filter((c) => !c.tied);
  const tied = s.comparisons.filter((c) => c.tied && c.verdict !== 'equal within 5%');
  const equal = s.comparisons.filter((c) => c.tied && c.verdict === 'equal within 5%');
  const parts: string[] = [];
  if (faster.length)
    parts.push(
      cap
        ? `sustained ${atLeast ? 'at least ' : ''}${faster.map((c) => `${fmtTimes(estimateOf(c.ratio))} the rate of \`${c.label}\``).join(', ')}`
        : `ran ${faster.map((c) => `${fmtTimes(estimateOf(c.ratio))} as fast as \`${c.label}\``).join(', ')}`,
    );
  if (equal.length)
    parts.push(
      `is equal within 5% to ${equal.map((c) => `\`${c.label}\` (${fmtTimes(estimateOf(c.ratio))})`).join(', ')}`,
    );
  if (tied.length)
    parts.push(
      `${s.comparisons.some((c) => c.verdict) ? 'is not resolved from' : cap ? 'does not sustain a significantly higher rate than' : 'is not significantly faster than'} ${tied.map((c) => `\`${c.label}\` (${fmtTimes(estimateOf(c.ratio))})`).join(', ')}`,
    );
  return `\`${s.fastest}\` ${parts.join('; it ')}.`;
}

const NOTE_KIND: Record<MeasurementNote['kind'], string> = {
  'client-bound': 'client-bound',
  noisy: 'noisy',
  'few-trials': 'few trials',
  'other-runs': 'other runs',
  'other-machines': 'other machines',
  'no-baseline': 'no baseline',
  'services-lost': 'services lost',
  'paused-failures': 'paused, not failed',
  'capacity-lower-bound': 'capacity lower bound',
  'closed-loop-tail': 'closed-loop tail',
  'estimators-disagree': 'estimators disagree',
  'not-quiet': 'not quiet',
};

/** The fastest row's lead over the next significantly slower row, from the summary data: "1.06× (95% CI 1.05–1.07) the next (`b`)". */
function marginOf(t: RankedTable): string | null {
  const next = t.summary?.comparisons.filter((c) => !c.tied).sort((a, b) => a.ratio.figure - b.ratio.figure)[0];
  return next ? `${fmtTimes(estimateOf(next.ratio))} the next (\`${next.label}\`)` : null;
}

/** "Measurement notes" of a table (measurement-notes.ts `measurementNotes`: conditions, not contender problems), as sentences. */
function notesOf(t: RankedTable, all: RankedTable[]): string[] {
  return measurementNotes(t, all).map((n) => {
    const who = n.labels.length ? ` (${n.labels.map((l) => `\`${l}\``).join(', ')})` : '';
    const tail =
      n.kind === 'client-bound'
        ? ' — the server may be faster than measured.'
        : n.kind === 'few-trials'
          ? ' — the range of the trials is shown, not a 95% CI.'
          : n.kind === 'noisy'
            ? ' — the interval is wide; re-run to narrow it.'
            : '.';
    return `${NOTE_KIND[n.kind]}${who}: ${n.detail.replace(/\.$/, '')}${tail}`;
  });
}

/** Variant overheads of a table's run and group (variant-overhead.ts `variantOverheads`, from the table's model), as sentences with their interval. */
function variantLines(t: RankedTable): string[] {
  const cells = t.rows.map((r) => r.cell);
  const pct = (x: number) => fmtSignedPct(x);
  return variantOverheads(cells, t.fit ?? null).map((o) => {
    const iv = o.interval ? outward([o.interval[0] * 100, o.interval[1] * 100], 0.1) : null;
    const name =
      o.source === 'model'
        ? '95% CI, table model'
        : intervalName({ kind: o.kind, n: cells.find((c) => c.label === o.label)?.stats?.trials ?? 0 });
    const bounds = iv ? ` (${name} ${pct(iv[0] / 100)} … ${pct(iv[1] / 100)})` : ' (one trial: no interval)';
    const fig = Math.round(o.overhead * 1000) / 1000;
    const unit = o.source === 'model' && t.fit?.kind === 'two-way' ? 'CPU time per request' : 'time per request';
    const head = `\`${o.label}\` vs \`${o.base}\``;
    if (o.verdict === 'equal within 5%' && o.tost) {
      const tv = outward([o.tost[0] * 100, o.tost[1] * 100], 0.1);
      return `${head}: equal within 5%, ${pct(fig)} ${unit} (90% CI, table model ${pct(tv[0] / 100)} … ${pct(tv[1] / 100)}).`;
    }
    if (o.verdict === 'not resolved') return `${head}: not resolved, ${pct(fig)} ${unit}${bounds}.`;
    return `${head}: ${pct(fig)} ${unit}${bounds}.`;
  });
}

/** The capacity facts of a table whose cells have `capacity` (its first capacity row's SLO and driver), else null. */
function tableCapacity(t: RankedTable): TableView['capacity'] {
  const caps = t.rows.map((r) => r.cell.capacity).filter((k) => k !== undefined);
  const [first] = caps;
  if (!first) return null;
  return {
    sloP99Ms: first.sloP99Ms,
    driver: first.driver,
    atLeast: caps.some((k) => k.verdict === 'at-least'),
  };
}

/**
 * "Resolves 12% between two rows and 8% against `node-http` (90% power; noise σ 0.061 per round,
 * 5 rounds per row, df 40)", or "σ 0.031 per server process (the mean of its rounds), 3 processes
 * per row, df 22.2" when the model's units are processes: the table model's minimum detectable
 * differences; null without a model.
 */
export function resolutionOf(t: Pick<RankedTable, 'model' | 'baseline'>): string | null {
  const m = t.model;
  if (!m) return null;
  const pct = (x: number) => fmtPct(x, 'adaptive');
  const unit =
    m.unit === 'process'
      ? `per server process (the mean of its rounds), ${m.rounds} processes per row`
      : `per round, ${m.rounds} rounds per row`;
  return `Resolves ${pct(m.mdd.pair)} between two rows and ${pct(m.mdd.baseline)} against \`${t.baseline}\` (90% power, 5% two-sided; noise σ ${m.sigma.toFixed(3)} ${unit}, df ${fmtDf(m.df)}).`;
}

/** One ranked table as the report shows it (`id`: its page anchor; `all`: every table, for the notes on other machines). */
export function tableView(t: RankedTable, all: RankedTable[], id: string, scenarioTitle: string): TableView {
  // Rows whose solo requests/s orders them against their ranks: marked, and one note (rps-order.ts).
  const inversions = rpsOrderInversions(t.rows);
  const marked = rpsMarked(inversions);
  const orderNote = rpsOrderNote(inversions, t.rows);
  const row = (r: RankedTable['rows'][number]): RowView => {
    const v = boundedRatio(rowView(r), t);
    return marked.has(r.label) ? { ...v, rpsMark: RPS_ORDER_MARK } : v;
  };
  return {
    id,
    scenario: t.key.scenario,
    scenarioTitle,
    profile: t.key.profile,
    driver: t.key.driver,
    nodeMajor: t.key.nodeMajor,
    runId: t.runId,
    machine: t.key.machine.label,
    baseline: t.baseline,
    summary: summarySentence(t),
    margin: marginOf(t),
    resolution: resolutionOf(t),
    mddPair: t.model?.mdd.pair ?? null,
    notes: [...notesOf(t, all), ...(orderNote ? [orderNote] : [])],
    variants: variantLines(t),
    rows: [...t.rows.map(row), ...t.otherRuns.map(otherRowView)],
    capacity: tableCapacity(t),
  };
}
