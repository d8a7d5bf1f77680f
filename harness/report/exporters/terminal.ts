/**
 * The terminal exporter (`just leaderboard`'s output), in hyperfine's spirit: first the overview
 * (how sure, the winners per scenario, the % of baseline matrix), then per table plain aligned
 * columns without rules between rows: rank, contender, requests/s with its interval (named
 * "95% CI" or "range (N trials)"), p99, flags, then the summary sentence and the measurement notes.
 */
import { columns } from '../columns.ts';
import { fmtBounds, fmtFigure, fmtMs, intervalName, sig } from '../format.ts';
import { buildView } from '../view-build.ts';
import type { ReportView, TableView } from '../view.ts';
import type { Exporter, ExportOptions } from './types.ts';
import type { ReportSnapshot } from '../snapshot.ts';

/** Strips Markdown code ticks and emphasis from a sentence for the terminal. */
const plain = (s: string): string => s.replace(/`/g, '').replace(/\*\*/g, '');

function overview(v: ReportView): string[] {
  const out = ['Overview', `  How sure: ${v.certainty}`, `  ${v.rankRule}`];
  if (v.driverFallback) out.push(`  Driver: ${plain(v.driverFallback)}`);
  if (!v.winners.length) return [...out, '  No ranked table yet.', ''];
  out.push('');
  out.push(
    ...columns(
      v.winners.map((w) => [
        w.scenario,
        `${w.winners.join(', ')}${w.winners.length > 1 ? ' (tied)' : ''}`,
        w.margin ? plain(w.margin) : '',
      ]),
      [],
      '  ',
    ),
  );
  const m = v.matrix;
  out.push(
    '',
    "  % of each scenario's baseline (interval in brackets; * = rank 1; ≥ client-bound; ~ noisy; † not ranked):",
  );
  const rows: string[][] = [['contender', ...m.scenarios]];
  for (const c of m.contenders)
    rows.push([
      c,
      ...m.scenarios.map((s) => {
        const x = m.cells[s]?.[c];
        if (!x) return '–';
        if (x.isBaseline) return `${x.rank === 1 ? '*' : ''}100 (baseline)`;
        if (!x.ratio) return x.status === 'ok' ? '–' : x.status;
        const b = fmtBounds(x.ratio, { scale: 100 });
        return `${x.rank === 1 ? '*' : ''}${fmtFigure(x.ratio, { scale: 100 })}${b ? ` (${b})` : ''}${x.flags.join('')}`;
      }),
    ]);
  out.push(
    ...columns(
      rows,
      rows[0].map((_, i) => (i === 0 ? 'left' : 'right')),
      '  ',
    ),
  );
  out.push('');
  return out;
}

function table(t: TableView): string[] {
  const out = [`${t.scenario} · ${t.profile} · ${t.driver} · Node ${t.nodeMajor} · run ${t.runId}`];
  const rows: string[][] = [['#', 'contender', 'requests/s', 'interval', 'p99 ms', 'flags']];
  for (const r of t.rows.filter((x) => x.rank !== null))
    rows.push([
      String(r.rank),
      r.label,
      r.rps ? fmtFigure(r.rps) : '–',
      r.rps ? `${intervalName(r.rps)}${r.rps.interval ? ` ${fmtBounds(r.rps)}` : ''}` : '',
      r.latencyMs ? fmtMs(sig(r.latencyMs.p99)) : '–',
      r.flags.join(', '),
    ]);
  for (const r of t.rows.filter((x) => x.rank === null))
    rows.push(['–', r.label, r.otherRun ? 'other run' : r.status, '', '', r.notRanked ?? '']);
  out.push(...columns(rows, ['right', 'left', 'right', 'left', 'right', 'left'], '  '));
  if (t.summary) out.push(`  ${plain(t.summary)}`);
  for (const n of t.notes) out.push(`  note: ${plain(n)}`);
  for (const n of t.variants) out.push(`  variant: ${plain(n)}`);
  out.push('');
  return out;
}

/** The terminal text of a view. */
export function renderTerminalView(v: ReportView): string {
  if (!v.runs.length) return 'No results yet: run `npx just bench-all`.\n';
  const out = [...overview(v)];
  for (const t of v.tables) out.push(...table(t));
  const crit = v.findings.filter((f) => f.severity === 'critical' || f.severity === 'major').length;
  out.push(
    v.findings.length
      ? `Issues found: ${v.findings.length} (${crit} critical or major); see LEADERBOARD.md or leaderboard.html.`
      : 'Issues found: none.',
  );
  return `${out.join('\n')}\n`;
}

export const terminalExporter: Exporter = {
  format: 'terminal',
  description: 'plain aligned columns for the terminal',
  extension: 'txt',
  render(snapshot: ReportSnapshot, options: ExportOptions = {}): string {
    return renderTerminalView(buildView(snapshot, options));
  },
};
