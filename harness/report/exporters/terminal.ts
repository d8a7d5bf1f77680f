/**
 * The terminal exporter (`just leaderboard`'s output), in hyperfine's spirit: first the overview
 * (how sure, the winners per scenario, the % of baseline matrix), then per table plain aligned
 * columns without rules between rows: rank, contender, requests/s with its interval (named
 * "95% CI" or "range (N trials)"), p99, flags, then the summary sentence and the measurement notes.
 * A capacity table (issue 15) prints the capacity column set instead (capacity-text.ts:
 * sustainable req/s at p99 ≤ the SLO, interval, closed-loop peak, knee, p99 at the capacity,
 * steps / searches, flags), and the overview adds the capacity matrix and its ranking lines.
 */
import { whyTerminal } from '../why-text.ts';
import { type Align, columns } from '../columns.ts';
import { fmtBounds, fmtFigure, fmtMs, intervalName, sig } from '../format.ts';
import {
  capacityHeader,
  fmtSlo,
  kneeText,
  p99CapText,
  stepsText,
  sustainableText,
  tableRows,
} from '../capacity-text.ts';
import { buildView } from '../view-build.ts';
import type { ReportView, RowView, TableView } from '../view.ts';
import type { Exporter, ExportOptions } from './exporter-types.ts';
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
      (rows[0] ?? []).map((_, i) => (i === 0 ? 'left' : 'right')),
      '  ',
    ),
  );
  out.push('');
  if (v.capacity) out.push(...capacityOverview(v.capacity));
  return out;
}

/** The capacity matrix (sustainable req/s at p99 ≤ each scenario's SLO) and one line per scenario on the rankings. */
function capacityOverview(m: NonNullable<ReportView['capacity']>): string[] {
  const out = [
    '  Sustainable requests/s at p99 ≤ SLO (open loop; interval in brackets; · % of baseline; * = rank 1; ≥ driver at its limit, a lower bound; † not ranked):',
  ];
  const rows: string[][] = [
    ['contender', ...m.scenarios.map((s) => `${s} (p99 ≤ ${fmtSlo(m.sloP99Ms[s] ?? Number.NaN)} ms)`)],
  ];
  for (const c of m.contenders)
    rows.push([
      c,
      ...m.scenarios.map((s) => {
        const x = m.cells[s]?.[c];
        if (!x) return '–';
        if (!x.rps) return x.verdict === 'never' || x.verdict === 'interrupted' ? x.verdict : x.status;
        const b = fmtBounds(x.rps);
        const pct = x.isBaseline ? 'baseline' : x.ratio ? `${fmtFigure(x.ratio, { scale: 100 })}%` : '';
        return `${x.rank === 1 ? '*' : ''}${sustainableText(x.rps, x.verdict)}${b ? ` (${b})` : ''}${pct ? ` · ${pct}` : ''}${x.flags.includes('†') ? '†' : ''}`;
      }),
    ]);
  out.push(
    ...columns(
      rows,
      (rows[0] ?? []).map((_, i) => (i === 0 ? 'left' : 'right')),
      '  ',
    ),
  );
  for (const r of m.rankings) out.push(`  ${plain(r.text)}`);
  out.push('');
  return out;
}

/** The column set of a table: header, alignment and one row's cells (capacity tables: capacity-text.ts). */
function columnSet(t: TableView): { head: string[]; align: Align[]; cells: (r: RowView) => string[] } {
  const iv = (r: RowView) => (r.rps ? `${intervalName(r.rps)}${r.rps.interval ? ` ${fmtBounds(r.rps)}` : ''}` : '');
  if (t.capacity)
    return {
      head: [
        '#',
        'contender',
        capacityHeader(t.capacity.sloP99Ms),
        'interval',
        'peak req/s',
        'knee',
        'p99 at cap ms',
        'steps',
        'flags',
      ],
      align: ['right', 'left', 'right', 'left', 'right', 'right', 'right', 'right', 'left'],
      cells: (r) => [
        r.rankText,
        r.label,
        sustainableText(r.rps, r.capacity?.verdict ?? null),
        iv(r),
        r.capacity ? fmtFigure(r.capacity.peakRps) : '–',
        kneeText(r.capacity?.knee ?? null),
        p99CapText(r.capacity?.p99AtCapacityMs ?? null),
        r.capacity ? stepsText(r.capacity) : '–',
        r.flags.join(', '),
      ],
    };
  return {
    head: ['#', 'contender', 'requests/s', 'interval', 'p99 ms', 'flags'],
    align: ['right', 'left', 'right', 'left', 'right', 'left'],
    cells: (r) => [
      r.rankText,
      r.label,
      r.rps ? fmtFigure(r.rps) : '–',
      iv(r),
      r.latencyMs ? fmtMs(sig(r.latencyMs.p99)) : '–',
      r.flags.join(', '),
    ],
  };
}

function table(t: TableView): string[] {
  const out = [`${t.scenario} · ${t.profile} · ${t.driver} · Node ${t.nodeMajor} · run ${t.runId}`];
  const set = columnSet(t);
  const shown = tableRows(t);
  const rows: string[][] = [set.head, ...shown.map(set.cells)];
  for (const r of t.rows.filter((x) => !shown.includes(x)))
    rows.push([
      '–',
      r.label,
      r.otherRun ? 'other run' : r.status,
      ...set.head.slice(4).map(() => ''),
      r.notRanked ?? '',
    ]);
  out.push(...columns(rows, set.align, '  '));
  if (t.summary) out.push(`  ${plain(t.summary)}`);
  if (t.resolution) out.push(`  ${plain(t.resolution)}`);
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
    return renderTerminalView(buildView(snapshot, options)) + whyTerminal(snapshot);
  },
};
