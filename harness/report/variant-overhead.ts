/**
 * A variant's cost against its own contender without the variant (same run and load shape), from
 * the table model with its interval and verdict (`variantOverheads`: "equal within 5%" only when
 * the model's TOST interval says so, "not resolved" when its 95% CI includes 0 and it is not), and
 * the verdict as text (`describeOverhead`).
 */
import type { CellResult } from '../store/results.ts';
import { cellFailure, type RatioEstimate, ratio } from '../analysis/stats.ts';
import { compare, type TableModel } from '../analysis/table-model.ts';
import { sameGroup } from './finding-rules.ts';
import { fmtSignedPct } from '../core/format.ts';

/** A variant's cost against its own contender without the variant (same run). */
export interface VariantOverhead {
  label: string;
  base: string;
  scenario: string;
  profile: string;
  runId: string;
  /**
   * Extra time per request = base/variant − 1 (0.1 = 10% more time per request): of requests per
   * CPU-second when it comes from the table model (`source` 'model'), else of the solo trials'
   * requests/s.
   */
  overhead: number;
  /** Interval of `overhead` (contains it); null without one. */
  interval: [number, number] | null;
  kind: RatioEstimate['kind'];
  /** 'model': the table's model (its 95% CI, TOST for "equal within 5%"); 'trials': the solo trials paired by round. */
  source: 'model' | 'trials';
  /**
   * The model's verdict of the base against the variant: 'overhead' / 'less' when its 95% CI
   * excludes 0, 'equal within 5%' when the TOST interval lies within ±5%, else 'not resolved'.
   * Without a model: 'overhead' / 'less' only from a 95% CI of ≥ 5 trials, else 'not resolved'.
   */
  verdict: 'overhead' | 'less' | 'equal within 5%' | 'not resolved';
  /** The TOST (90%) interval of `overhead` behind 'equal within 5%'; null otherwise. */
  tost: [number, number] | null;
  /** true when the verdict is 'overhead' or 'less' (the interval excludes 0). */
  measurable: boolean;
}

/**
 * Every variant's overhead over its base contender, same run and load shape; failed cells are
 * skipped. With the table's fitted model (`fit`, analysis/tables.ts RankedTable.fit) holding both
 * rows, the overhead, its 95% CI and its verdict come from the model (table-model.ts `compare`:
 * base vs variant); otherwise from the solo trials' paired ratio, which never says "no
 * measurable overhead" (2 trials give no 95% CI): only 'not resolved'.
 */
export function variantOverheads(cells: CellResult[], fit: TableModel | null = null): VariantOverhead[] {
  const ok = cells.filter((c) => !cellFailure(c) && !(c.servicesLost ?? []).length);
  const out: VariantOverhead[] = [];
  for (const v of ok.filter((c) => c.variant)) {
    const base = ok.find(
      (b) => b.contender === v.contender && !b.variant && b.scenario === v.scenario && sameGroup(b, v),
    );
    if (!base) continue;
    const head = { label: v.label, base: base.label, scenario: v.scenario, profile: v.profile, runId: v.runId };
    const inModel = fit && [base.label, v.label].every((l) => fit.rows.some((r) => r.name === l));
    if (fit && inModel) {
      const c = compare(fit, base.label, v.label);
      const verdict = c.verdict === 'faster' ? 'overhead' : c.verdict === 'slower' ? 'less' : c.verdict;
      out.push({
        ...head,
        overhead: c.ratio - 1,
        interval: [c.ci[0] - 1, c.ci[1] - 1],
        kind: 'ci95',
        source: 'model',
        verdict,
        tost: verdict === 'equal within 5%' ? [c.tostCi[0] - 1, c.tostCi[1] - 1] : null,
        measurable: verdict === 'overhead' || verdict === 'less',
      });
      continue;
    }
    const r = ratio(base, v);
    const interval: [number, number] | null = r.interval ? [r.interval[0] - 1, r.interval[1] - 1] : null;
    const measurable = r.kind === 'ci95' && interval !== null && (interval[0] > 0 || interval[1] < 0);
    out.push({
      ...head,
      overhead: r.figure - 1,
      interval,
      kind: r.kind,
      source: 'trials',
      verdict: measurable ? (r.figure > 1 ? 'overhead' : 'less') : 'not resolved',
      tost: null,
      measurable,
    });
  }
  return out;
}

/**
 * "+12.3% time per request (95% interval +8.1% … +16.5%)", "equal within 5% (90% interval −2.0% …
 * +3.1%)" or "not resolved, +1.0% (95% interval −4.0% … +6.2%)": the verdict of `variantOverheads`.
 */
export function describeOverhead(o: VariantOverhead): string {
  const s = (x: number) => fmtSignedPct(x);
  const name = o.kind === 'ci95' ? '95% interval' : 'range';
  const iv = o.interval ? `${name} ${s(o.interval[0])} … ${s(o.interval[1])}` : 'no interval: one trial';
  if (o.verdict === 'equal within 5%' && o.tost)
    return `equal within 5% (90% interval ${s(o.tost[0])} … ${s(o.tost[1])})`;
  if (o.verdict === 'not resolved') return `not resolved, ${s(o.overhead)} (${iv})`;
  return o.overhead > 0
    ? `${s(o.overhead)} time per request (${iv})`
    : `${s(-o.overhead)} less time per request than without the variant (${iv})`;
}
