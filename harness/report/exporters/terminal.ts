/**
 * The terminal exporter (`leaderboard`'s output), in hyperfine's spirit: the answer first, in the
 * terminal's width. By default only the overview: how sure, the winners per scenario with a single
 * winner's lead, one "% of baseline" matrix per baseline family (REST vs `node-http`; database and
 * GraphQL vs `postgraphile-express`), the capacity matrix when there are capacity cells, then one
 * line on the findings and where the rest is. With `details` (`--details`) the rank rule, the
 * capacity rankings and every table follow: rank, contender, requests/s, interval ("95% CI" or
 * "range (N trials)"), p99 ms, flags, then the summary sentence and the measurement notes; a
 * capacity table prints the capacity column set (capacity-text.ts: sustainable req/s at p99 ≤ the
 * SLO, interval, closed-loop peak, share of peak at SLO, p99 at the capacity, searches bracketed and
 * steps, flags).
 *
 * Width (`width`, default 100): prose is wrapped, names are cut with "…", tables never wrap (they
 * shrink, then leave out their least needed columns, saying which), matrices split into blocks of
 * columns. Colour (`color`, default off) through picocolors; `terminalSettings` decides both for a
 * stream from the TTY, $COLUMNS, NO_COLOR and FORCE_COLOR.
 */
import { figureHeader, rankMeasure } from '../measure.ts';
import { terminalSafe } from '../../core/terminal-text.ts';
import pc from 'picocolors';
import { fmtBounds, fmtFigure, fmtMs, intervalName, outward, sig } from '../../core/format.ts';
import { whyTerminal } from '../why-text.ts';
import { FOOTPRINT_COLUMNS, type FootprintView, footprintTextLines } from '../footprint-view.ts';
import {
  capacityHeader,
  fmtSlo,
  kneeText,
  p99CapText,
  stepsText,
  sustainableText,
  tableRows,
} from '../capacity-text.ts';
import { type ColumnSpec, fitTable, matrixBlocks, type Paint, truncate, wrap } from '../term-layout.ts';
import { buildView } from '../view-build.ts';
import type { CapacityMatrixCell, MatrixView, ReferenceRunView, ReportView, RowView, TableView } from '../view.ts';
import { pairText } from '../reference-run.ts';
import type { Exporter, ExportOptions } from './exporter-types.ts';
import type { ReportSnapshot } from '../snapshot.ts';

/** The default width when the output is not a terminal and $COLUMNS is not set, in columns. */
export const DEFAULT_WIDTH = 100;
/** Narrower than this is treated as this (a table needs room for a name and a figure). */
const MIN_WIDTH = 40;

/**
 * Width and colour for a stream: the width is the terminal's (`columns`) on a TTY, else $COLUMNS,
 * else 100; colour is on for a TTY whose TERM is not `dumb`, off when NO_COLOR is set and not
 * empty (no-color.org), forced on by FORCE_COLOR unless it is `0` or `false`.
 */
export function terminalSettings(
  out: { isTTY?: boolean; columns?: number },
  env: Record<string, string | undefined>,
): { width: number; color: boolean } {
  const cols = Number(env.COLUMNS);
  const width =
    out.isTTY && out.columns && out.columns > 0
      ? out.columns
      : Number.isInteger(cols) && cols > 0
        ? cols
        : DEFAULT_WIDTH;
  let color = Boolean(out.isTTY) && env.TERM !== 'dumb';
  if (env.FORCE_COLOR !== undefined) color = !['0', 'false'].includes(env.FORCE_COLOR);
  if (env.NO_COLOR) color = false;
  return { width: Math.max(MIN_WIDTH, width), color };
}

type Colors = ReturnType<typeof pc.createColors>;

/** What every part of the report needs: the width, the colours, the detail switch. */
interface Ctx {
  width: number;
  c: Colors;
  details: boolean;
}

/** Strips Markdown code ticks and emphasis from a sentence for the terminal. */
const plain = (s: string): string => s.replace(/`/g, '').replace(/\*\*/g, '');

/** The winners, one line per scenario (wrapped under the names), a single winner's lead after a dash. */
function winnerLines(v: ReportView, x: Ctx): string[] {
  const w = Math.min(22, Math.max(0, ...v.winners.map((r) => r.scenario.length)));
  const p = v.matrix.profile ? `${v.matrix.profile} profile; ` : '';
  const out = wrap(
    `Rank 1 of each table (${p}the baseline included; a single row’s lead over the next)`,
    x.width,
    '  ',
  ).map((l) => x.c.bold(l));
  for (const r of v.winners) {
    const who = r.winners.length ? `${r.winners.join(', ')}${r.winners.length > 1 ? ' (tied)' : ''}` : '';
    const text = [who, r.margin ? plain(r.margin) : ''].filter(Boolean).join(' — ');
    const first = `    ${truncate(r.scenario, w).padEnd(w)}  `;
    const lines = wrap(text, x.width, first);
    out.push(...lines.map((l, i) => (i === 0 ? first + x.c.green(l.slice(first.length)) : l)));
  }
  return out;
}

/** One "% of baseline" matrix cell: "*97 (95–100)≥"; the status when it has no ratio. */
function ratioCell(m: MatrixView, s: string, name: string): string {
  const x = m.cells[s]?.[name];
  if (!x) return '–';
  if (x.isBaseline) return `${x.rank === 1 ? '*' : ''}100 (baseline)`;
  if (!x.ratio) return x.status === 'ok' ? '–' : x.status;
  const b = fmtBounds(x.ratio, { scale: 100 });
  return `${x.rank === 1 ? '*' : ''}${fmtFigure(x.ratio, { scale: 100 })}${b ? ` (${b})` : ''}${x.flags.join('')}`;
}

/** Colours a matrix cell by what it says: rank 1 green, baseline dim, failed red, the header dim. */
function matrixPaint(x: Ctx, rows: string[][]): Paint {
  return (ri, ci, text) => {
    const raw = rows[ri]?.[ci] ?? '';
    if (ri === 0) return x.c.dim(text);
    if (ci === 0) return text;
    if (raw.startsWith('*')) return x.c.green(text);
    if (raw.includes('baseline') || raw === '–') return x.c.dim(text);
    if (raw === 'failed' || raw === 'never') return x.c.red(text);
    return text;
  };
}

/** One matrix per baseline family, each with its own contenders and order. */
function familyMatrices(v: ReportView, x: Ctx): string[] {
  const m = v.matrix;
  const out: string[] = [];
  for (const f of m.families) {
    out.push(
      '',
      ...wrap(
        `% of ${f.baseline} in ${v.answer.measure} (interval in brackets; * rank 1; ≥ client-bound; † not ranked; ‡ another run; ~ after a scenario: its table has noisy rows):`,
        x.width,
        '  ',
      ).map((l) => x.c.bold(l)),
    );
    const rows = [
      ['contender', ...f.scenarios.map((s) => (m.noisy[s]?.length ? `${s} ~` : s))],
      ...f.contenders.map((c) => [c, ...f.scenarios.map((s) => ratioCell(m, s, c))]),
    ];
    out.push(...matrixBlocks(rows, x.width, { indent: '  ', paint: matrixPaint(x, rows) }));
  }
  if (m.joinedNote) out.push('', ...wrap(plain(m.joinedNote), x.width, '  ', '    ').map((l) => x.c.yellow(l)));
  return out;
}

/** A rate in requests/s, short: `345`, `1.5k`, `28.2k`; bounds rounded outward at the same step. */
function shortRate(e: { figure: number; interval: [number, number] | null }): string {
  const k = e.figure >= 1000;
  const scale = k ? 0.001 : 1;
  const step = k ? 0.1 : 1;
  const f = (n: number) => (k ? n.toFixed(1) : n.toLocaleString('en-US'));
  const fig = `${f(Math.round((e.figure * scale) / step) * step)}${k ? 'k' : ''}`;
  if (!e.interval) return fig;
  const [lo, hi] = outward([e.interval[0] * scale, e.interval[1] * scale], step);
  return `${fig} (${f(lo)}–${f(hi)}${k ? 'k' : ''})`;
}

/** One capacity matrix cell: "*≥28.2k (19.6–40.7k) 108%", "never", "failed". */
function capacityCell(x: CapacityMatrixCell | null | undefined): string {
  if (!x) return '–';
  if (!x.rps) return x.verdict === 'never' || x.verdict === 'interrupted' ? x.verdict : x.status;
  const pct = x.isBaseline ? 'base' : x.ratio ? `${fmtFigure(x.ratio, { scale: 100 })}%` : '';
  return `${x.rank === 1 ? '*' : ''}${x.verdict === 'at-least' ? '≥' : ''}${shortRate(x.rps)}${pct ? ` ${pct}` : ''}${x.flags.includes('†') ? '†' : ''}`;
}

/** The capacity matrix (sustainable requests/s at p99 ≤ each scenario's SLO); with details, the ranking lines. */
function capacityOverview(m: NonNullable<ReportView['capacity']>, x: Ctx): string[] {
  const out = [
    '',
    ...wrap(
      'Sustainable requests/s at p99 ≤ the SLO (open loop; 95% CI in brackets; % of baseline; * rank 1; ≥ driver at its limit, a lower bound; † not ranked):',
      x.width,
      '  ',
    ).map((l) => x.c.bold(l)),
  ];
  const rows = [
    ['contender', ...m.scenarios.map((s) => `${s} ≤${fmtSlo(m.sloP99Ms[s] ?? Number.NaN)} ms`)],
    ...m.contenders.map((c) => [c, ...m.scenarios.map((s) => capacityCell(m.cells[s]?.[c]))]),
  ];
  out.push(...matrixBlocks(rows, x.width, { indent: '  ', paint: matrixPaint(x, rows) }));
  if (x.details) for (const r of m.rankings) out.push(...wrap(plain(r.text), x.width, '  '));
  for (const l of m.driverLines) out.push(...wrap(plain(l), x.width, '  Driver ceiling: ', '    '));
  return out;
}

/** A one-run report's reference beside it (report/reference-run.ts): one matrix per family, "there → here". */
function referenceLines(r: ReferenceRunView, x: Ctx): string[] {
  const out = ['', ...wrap(plain(r.note), x.width, '  ').map((l) => x.c.yellow(l))];
  for (const f of r.families) {
    const rows = [
      [`% of ${f.baseline}`, ...f.scenarios],
      ...f.contenders.map((c) => [c, ...f.scenarios.map((s) => pairText(r.pairs[s]?.[c]))]),
    ];
    out.push(...matrixBlocks(rows, x.width, { indent: '  ', paint: (ri, _ci, t) => (ri === 0 ? x.c.dim(t) : t) }));
  }
  return out;
}

/**
 * The answer first (view/answer-view.ts): a head naming the profile and the ranking measure, one
 * line per scenario, the confidence line, the reference line, the driver fallback and the capacity
 * scenarios in one line; the arithmetic (how sure, the rank rule, the matrices) only with details.
 */
function overview(v: ReportView, x: Ctx): string[] {
  const a = v.answer;
  const p = a.profile ? `${a.profile} profile; ` : '';
  const out = wrap(`Overview (${p}ranked by ${a.measure}; ≈ not resolved)`, x.width).map((l) => x.c.bold(l));
  if (!a.scenarios.length) out.push('  No ranked table yet.');
  for (const s of a.scenarios) {
    const first = `  ${s.scenario} (${cutWords(s.title, Math.max(12, Math.floor(x.width / 2) - s.scenario.length))}): `;
    const lines = wrap(s.text, x.width, first, '    ');
    out.push(...lines.map((l, i) => (i === 0 ? x.c.bold(l.slice(0, first.length)) + l.slice(first.length) : l)));
  }
  out.push(...wrap(plain(a.confidence), x.width, '  ', '    ').map((l) => x.c.yellow(l)));
  if (a.reference) out.push(...wrap(plain(a.reference), x.width, '  ', '    '));
  if (v.driverFallback) out.push(...wrap(plain(v.driverFallback), x.width, '  Driver: ', '    '));
  if (!x.details) {
    // Contenders shown from another run are in no scenario line: say so, and how to rank them.
    if (v.matrix.joinedNote)
      out.push(...wrap(plain(v.matrix.joinedNote), x.width, '  ', '    ').map((l) => x.c.yellow(l)));
    return out;
  }
  out.push('', ...wrap(v.certainty, x.width, '  How sure: ', '    '));
  out.push(...wrap(v.rankRule, x.width, '  ', '    ').map((l) => x.c.dim(l)));
  if (v.winners.length) out.push('', ...winnerLines(v, x), ...familyMatrices(v, x));
  if (v.capacity) out.push(...capacityOverview(v.capacity, x));
  if (v.referenceRun) out.push(...referenceLines(v.referenceRun, x));
  out.push('');
  return out;
}

/** The column set of a table: header, specs (how each column gives way) and one row's cells. */
function columnSet(t: TableView): { head: string[]; specs: ColumnSpec[]; cells: (r: RowView) => string[] } {
  // One kind of interval in the whole table: its name goes into the header ("95% CI"), not into every cell.
  const kinds = new Set(tableRows(t).map((r) => (r.rps ? intervalName(r.rps) : '')));
  const [only] = kinds;
  const one = kinds.size === 1 && only ? only : null;
  const iv = (r: RowView) =>
    r.rps ? (one ? fmtBounds(r.rps) : `${intervalName(r.rps)}${r.rps.interval ? ` ${fmtBounds(r.rps)}` : ''}`) : '';
  const ivHead = one ?? 'interval';
  const name: ColumnSpec = { align: 'left', min: 16, cut: 'middle' };
  const flags: ColumnSpec = { align: 'left', min: 10, drop: 1 };
  if (t.capacity)
    return {
      head: [
        '#',
        'contender',
        capacityHeader(t.capacity.sloP99Ms),
        ivHead,
        'peak req/s',
        'share of peak',
        'p99 at cap ms',
        'searches, steps',
        'flags',
      ],
      specs: [
        { align: 'right' },
        name,
        { align: 'right' },
        { align: 'left', drop: 2 },
        { align: 'right', drop: 4 },
        { align: 'right', drop: 3 },
        { align: 'right', drop: 5 },
        { align: 'right', drop: 6 },
        flags,
      ],
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
    head: ['#', 'contender', figureHeader(t.rows), ivHead, 'p99 ms', 'flags'],
    specs: [
      { align: 'right' },
      name,
      { align: 'right' },
      { align: 'left', drop: 2 },
      { align: 'right', drop: 3 },
      flags,
    ],
    cells: (r) => [
      r.rankText,
      r.label,
      r.rps ? `${fmtFigure(r.rps)}${r.rpsMark ? ` ${r.rpsMark}` : ''}` : '–',
      iv(r),
      r.latencyMs ? fmtMs(sig(r.latencyMs.p99)) : '–',
      r.flags.join(', '),
    ],
  };
}

/** One table in detail: its title, the fitted columns, the rows not ranked, the sentences under it. */
function table(t: TableView, x: Ctx): string[] {
  const slo = t.capacity ? ` · sustainable req/s at p99 ≤ ${fmtSlo(t.capacity.sloP99Ms)} ms` : '';
  const by = t.capacity ? '' : ` · ranked by ${rankMeasure(t.rows[0] ?? { paired: 0, capacity: null })}`;
  const title = `${t.scenario} · ${t.profile} · ${t.driver} · Node ${t.nodeMajor} · run ${t.runId}${slo}${by}`;
  const out = wrap(title, x.width).map((l) => x.c.bold(l));
  const set = columnSet(t);
  const shown = tableRows(t);
  const rows: string[][] = [set.head, ...shown.map(set.cells)];
  const paint: Paint = (ri, ci, text) => {
    if (ri === 0) return x.c.dim(text);
    const cell = rows[ri]?.[ci] ?? '';
    return ci === 0 && (cell === '1' || cell.startsWith('1–')) ? x.c.green(text) : text;
  };
  const fitted = fitTable(rows, set.specs, x.width, { indent: '  ', paint });
  out.push(...fitted.lines);
  if (fitted.dropped.length)
    out.push(
      ...wrap(
        `(left out at ${x.width} columns: ${fitted.dropped.join(', ')}; widen the terminal or see LEADERBOARD.md)`,
        x.width,
        '  ',
      ).map((l) => x.c.dim(l)),
    );
  const prose = (s: string, first: string) => wrap(plain(s), x.width, first, '    ');
  for (const r of t.rows.filter((y) => !shown.includes(y))) {
    const why = `${r.label} (${r.otherRun ? 'other run' : r.status}): ${r.notRanked ?? 'not ranked'}`;
    out.push(...prose(why, '  – ').map((l) => (r.failed ? x.c.red(l) : x.c.dim(l))));
  }
  if (t.summary) out.push(...prose(t.summary, '  '));
  if (t.resolution) out.push(...prose(t.resolution, '  '));
  for (const n of t.notes) out.push(...prose(n, '  note: ').map((l) => x.c.yellow(l)));
  for (const n of t.variants) out.push(...prose(n, '  variant: '));
  out.push('');
  return out;
}

/** The terminal text of a view; `o.details` adds every table, `o.width` (default 100) and `o.color` shape it. */
export function renderTerminalView(v: ReportView, o: Pick<ExportOptions, 'details' | 'width' | 'color'> = {}): string {
  if (!v.runs.length) return 'No results yet: run `npx just bench-all`.\n';
  const x: Ctx = {
    width: Math.max(MIN_WIDTH, o.width ?? DEFAULT_WIDTH),
    c: pc.createColors(Boolean(o.color)),
    details: Boolean(o.details),
  };
  const out = [...overview(v, x)];
  if (x.details) for (const t of v.tables) out.push(...table(t, x));
  if (x.details) for (const f of v.footprint ?? []) out.push(...footprintTerminal(f, x));
  const crit = v.findings.filter((f) => f.severity === 'critical' || f.severity === 'major').length;
  const findings = v.findings.length
    ? `Findings: ${v.findings.length} (${crit} critical or major)`
    : `Findings: none${v.leakCheck ? ' (leaks not judged in every cell)' : ''}`;
  out.push(...wrap(`${findings}${v.claims.length ? ` · ${claimsLine(v)}` : ''}.`, x.width, '  ', '    '));
  if (x.details) for (const d of v.driverAgreement) out.push(...wrap(plain(d.text), x.width, 'Drivers: ', '    '));
  if (!x.details)
    out.push(
      ...wrap(
        `Details: --details (${v.tables.length} tables) / the report's Method (leaderboard.html).`,
        x.width,
        '  ',
        '    ',
      ).map((l) => x.c.dim(l)),
    );
  return `${out.join('\n')}\n`;
}

/**
 * One run's Footprint table (report/footprint-view.ts): a title, the aligned rows when they fit
 * the width (else one wrapped line per row, "column value" pairs), the note dimmed.
 */
function footprintTerminal(f: FootprintView, x: Ctx): string[] {
  const aligned = footprintTextLines(f);
  const rows = aligned.every((l) => l.length <= x.width)
    ? aligned
    : f.rows.flatMap((r) =>
        wrap(
          FOOTPRINT_COLUMNS.map((c, i) => (i ? `${c.header} ${c.text(r)}` : `${c.text(r)}:`))
            .join(', ')
            .replace(':,', ':'),
          x.width,
          '',
          '    ',
        ),
      );
  return ['', x.c.bold(`Footprint · run ${f.runId}`), ...rows, ...wrap(f.note, x.width).map((l) => x.c.dim(l)), ''];
}

/** `s` cut to `w` characters at a word's end, with "…" when cut (a word longer than `w` is cut inside). */
function cutWords(s: string, w: number): string {
  if ([...s].length <= w) return s;
  const cut = s.slice(0, w - 1);
  const at = cut.lastIndexOf(' ');
  return `${(at > w / 3 ? cut.slice(0, at) : cut).replace(/[\s,:;]+$/, '')}…`;
}

/** "claims: 1 confirmed, 8 refuted of 19 (1 provisional)": the settled verdict counts of the claims table (`npx just claims` measures them). */
function claimsLine(v: ReportView): string {
  const kinds = ['confirmed', 'refuted'];
  const counts = kinds
    .map((k) => [k, v.claims.filter((c) => c.verdict.startsWith(k)).length] as const)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`);
  const provisional = v.claims.filter((c) => c.provisional).length;
  return `claims: ${counts.length ? counts.join(', ') : 'none settled'} of ${v.claims.length}${provisional ? ` (${provisional} provisional)` : ''}`;
}

export const terminalExporter: Exporter = {
  format: 'terminal',
  description: 'the overview fitted to the terminal (--details: every table), colour on a TTY',
  extension: 'txt',
  render(snapshot: ReportSnapshot, options: ExportOptions = {}): string {
    const width = Math.max(MIN_WIDTH, options.width ?? DEFAULT_WIDTH);
    const why = options.details ? whyTerminal(snapshot) : '';
    const fitted = why
      ? `${why
          .split('\n')
          .flatMap((l) => (l ? wrap(l, width) : [l]))
          .join('\n')}`
      : '';
    // Names, reasons and log tails are contender text: no escape but colour reaches the terminal.
    return terminalSafe(renderTerminalView(buildView(snapshot, options), options) + fitted);
  },
};
