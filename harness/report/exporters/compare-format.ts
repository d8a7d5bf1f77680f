/**
 * Renders a comparison of two runs (report/compare-runs.ts `compareRuns` computes it) for `compare
 * --format json|md`. JSON schema `bakeoff-compare` version 1: `{ schema, version, a, b,
 * threshold, machinesDiffer, counts, noChangeFraction, changes: [{ cell_id, label, scenario,
 * profile, driver, node_major, basis, baseline, host_sensitive, old, new, old_rps, new_rps,
 * change_pct, change_low_pct, change_high_pct, interval, verdict }], unmatched }`. Ratios to
 * the baseline are rounded to 4 decimals, requests/s to integers, changes to 0.1% with the
 * interval's bounds rounded outward (so it contains the printed change). Markdown: the
 * comparison module's own rendering. When both sides are the same run (`compare A A`, or a
 * baseline copied from that run), nothing is compared: `sameRunText` says so instead, in JSON
 * `{ schema, version, a, b, sameRun: true, changes: [], unmatched: [] }`.
 */
import { type Comparison, renderComparison } from '../compare-runs.ts';
import { intervalName, outward } from '../../core/format.ts';

export type CompareFormat = 'md' | 'json';

/** The comparison as JSON text (schema bakeoff-compare v1). */
export function comparisonJson(c: Comparison): string {
  const r4 = (x: number) => Math.round(x * 10_000) / 10_000;
  return `${JSON.stringify(
    {
      schema: 'bakeoff-compare',
      version: 1,
      a: c.a,
      b: c.b,
      threshold: c.threshold,
      machinesDiffer: c.machinesDiffer,
      counts: c.counts,
      noChangeFraction: r4(c.noChangeFraction),
      changes: c.changes.map((ch) => {
        const iv = ch.interval ? outward([ch.interval[0] * 100, ch.interval[1] * 100], 0.1) : null;
        return {
          cell_id: ch.cellId,
          label: ch.label,
          scenario: ch.scenario,
          profile: ch.profile,
          driver: ch.driver,
          node_major: ch.nodeMajor,
          basis: ch.basis,
          baseline: ch.baseline,
          host_sensitive: ch.hostSensitive,
          old: ch.basis === 'absolute' ? Math.round(ch.old) : r4(ch.old),
          new: ch.basis === 'absolute' ? Math.round(ch.new) : r4(ch.new),
          old_rps: Math.round(ch.oldRps),
          new_rps: Math.round(ch.newRps),
          change_pct: Math.round(ch.change * 1000) / 10,
          change_low_pct: iv ? iv[0] : null,
          change_high_pct: iv ? iv[1] : null,
          interval: ch.interval ? intervalName({ kind: ch.kind, n: 0 }).replace(/ \(0 trials\)/, '') : 'none',
          verdict: ch.verdict,
        };
      }),
      unmatched: c.unmatched,
    },
    null,
    2,
  )}\n`;
}

/** The comparison in `format` ('md' or 'json'); `verbose` lists every unmatched cell in md (JSON always has them). */
export function renderCompare(c: Comparison, format: CompareFormat, opts: { verbose?: boolean } = {}): string {
  return format === 'json' ? comparisonJson(c) : renderComparison(c, opts);
}

/**
 * What `compare` prints when both sides are the same run `runId` (`a`, `b`: the names as given):
 * one Markdown line, or the JSON object with `sameRun: true` and no changes. Never a table of
 * "no change" verdicts, which a run compared with itself shows by construction.
 */
export function sameRunText(a: string, b: string, runId: string, format: CompareFormat): string {
  if (format === 'json')
    return `${JSON.stringify({ schema: 'bakeoff-compare', version: 1, a, b, sameRun: true, changes: [], unmatched: [] }, null, 2)}\n`;
  return `# ${b} vs ${a}\n\nBoth sides are the same run, ${runId}: nothing was compared.\n`;
}
