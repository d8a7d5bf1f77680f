/**
 * The Markdown exporter (`results/LEADERBOARD.md`, `export --format md`). The first screen is
 * the answer: the overview (winners per scenario with ties, the scenario ×
 * contender matrix of "% of baseline" with intervals, one line on how sure the numbers are),
 * then per-table details with their measurement notes, findings, claims, the Node version
 * matrix and notes on method. Every interval is printed with its kind ("95% CI" or "range (N
 * trials)") and rounded outward, so it contains its printed figure.
 *
 * Capacity: when the snapshot has capacity cells the overview adds the matrix of
 * sustainable requests/s at p99 ≤ each scenario's SLO and, per scenario, how far that ranking
 * differs from the closed-loop one; a capacity table prints the capacity column set
 * (capacity-text.ts) instead of the closed-loop one.
 */
import { figureHeader, rankMeasure } from '../measure.ts';
import { whyMarkdown } from '../why-text.ts';
import { footprintMarkdown } from '../footprint-view.ts';
import { MIN_CI_TRIALS } from '../../analysis/stats.ts';
import {
  escapeMd,
  fmtBounds,
  fmtEstimate,
  fmtFigure,
  fmtInt,
  fmtMs,
  intervalName,
  plural,
  sig,
} from '../../core/format.ts';
import {
  capacityHeader,
  fmtSlo,
  kneeText,
  SHARE_OF_PEAK_HEADER,
  p99CapText,
  stepsText,
  sustainableText,
  tableRows,
} from '../capacity-text.ts';
import { buildView } from '../view-build.ts';
import { fidelityLine } from '../view/runs-view.ts';
import type { CapacityMatrixView, ReferenceRunView, ReportView, RowView, TableView } from '../view.ts';
import { pairText } from '../reference-run.ts';
import type { Exporter, ExportOptions } from './exporter-types.ts';
import type { ReportSnapshot } from '../snapshot.ts';

/** "97% (95% CI 95–100)" for a ratio to the baseline; "–" without one. */
export function pctText(r: RowView['ratio']): string {
  return r ? fmtEstimate(r, { scale: 100, unit: '%' }) : '–';
}

/** One matrix cell: "97% (95–100)", bold when the row ranks first; the status when not ranked. */
function matrixCell(c: ReportView['matrix']['cells'][string][string]): string {
  if (!c) return '–';
  if (c.isBaseline) return `${c.rank === 1 ? '**100%**' : '100%'} (baseline)`;
  if (!c.ratio) return c.status === 'ok' ? '–' : c.status;
  const b = fmtBounds(c.ratio, { scale: 100 });
  const text = `${fmtFigure(c.ratio, { scale: 100 })}%${b ? ` (${b})` : ''}`;
  const flags = c.flags.length ? ` ${c.flags.join(' ')}` : '';
  return `${c.rank === 1 ? `**${text}**` : text}${flags}`;
}

/** The overview block (shared by `export --format md`). */
export function overviewMarkdown(v: ReportView): string[] {
  const a = v.answer;
  const out = [
    '## Overview',
    '',
    `**The answer** (${a.profile ? `${a.profile} profile; ` : ''}ranked by ${a.measure}; ≈ not resolved):`,
    '',
    ...a.scenarios.map((s) => `- [${s.scenario}](#${s.tableId}) (${s.title}): ${s.text}`),
    '',
    `**Confidence:** ${a.confidence}${a.reference ? `  \n${a.reference}` : ''}`,
    '',
    `**How sure:** ${v.certainty}`,
    '',
    v.rankRule,
    '',
  ];
  if (!v.winners.length) return [...out, 'No ranked table yet.', ''];
  out.push('| scenario | rank 1 (the baseline included) | by |', '|---|---|---|');
  for (const w of v.winners)
    out.push(
      `| [${w.scenario}](#${w.tableId}) (${w.profile} · ${w.driver} · Node ${w.nodeMajor}) | ${w.winners.map((x) => `\`${x}\``).join(', ')}${w.winners.length > 1 ? ' (tied)' : ''} | ${w.margin ? escapeMd(w.margin) : w.winners.length > 1 ? 'no significant difference between them' : '–'} |`,
    );
  const m = v.matrix;
  const legend = [
    v.answer.measure,
    'bold = rank 1',
    'in brackets the interval, a 95% CI or the range of the trials, see the details',
    '≥ client-bound, a lower bound',
    '† not ranked',
    '‡ from another run',
    '~ after a scenario: its table has noisy rows, named in its notes',
  ].join('; ');
  out.push(
    '',
    `**% of each scenario's baseline**${m.profile ? ` (profile \`${m.profile}\`)` : ''}, one table per baseline (${legend}):`,
  );
  for (const f of m.families) {
    out.push(
      '',
      `| % of \`${f.baseline}\` | ${f.scenarios.map((s) => (m.noisy[s]?.length ? `${s} ~` : s)).join(' | ')} |`,
      `|---|${f.scenarios.map(() => '---:').join('|')}|`,
    );
    for (const c of f.contenders)
      out.push(`| \`${c}\` | ${f.scenarios.map((s) => matrixCell(m.cells[s]?.[c] ?? null)).join(' | ')} |`);
  }
  if (m.joinedNote) out.push('', m.joinedNote);
  out.push('');
  if (v.capacity) out.push(...capacityOverview(v.capacity));
  if (v.referenceRun) out.push(...referenceMarkdown(v.referenceRun));
  return out;
}

/** A one-run report's reference run (report/reference-run.ts): its note, then "there → here" per family. */
function referenceMarkdown(r: ReferenceRunView): string[] {
  const out = ['### Reference run', '', r.note];
  for (const f of r.families) {
    out.push(
      '',
      `| % of \`${f.baseline}\` | ${f.scenarios.join(' | ')} |`,
      `|---|${f.scenarios.map(() => '---:').join('|')}|`,
    );
    for (const c of f.contenders)
      out.push(`| \`${c}\` | ${f.scenarios.map((s) => pairText(r.pairs[s]?.[c])).join(' | ')} |`);
  }
  out.push('');
  return out;
}

/** One capacity matrix cell: "4,100 (3,900–4,300) · 82%", "≥ …" for a lower bound, "never". */
function capacityCell(c: NonNullable<CapacityMatrixView['cells'][string][string]>): string {
  if (!c.rps) return c.verdict === 'never' || c.verdict === 'interrupted' ? c.verdict : c.status;
  const b = fmtBounds(c.rps);
  const fig = sustainableText(c.rps, c.verdict);
  const text = `${c.rank === 1 ? `**${fig}**` : fig}${b ? ` (${b})` : ''}`;
  const pct = c.isBaseline ? 'baseline' : c.ratio ? `${fmtFigure(c.ratio, { scale: 100 })}%` : '';
  const flags = c.flags.filter((f) => f !== '≥');
  return `${text}${pct ? ` · ${pct}` : ''}${flags.length ? ` ${flags.join(' ')}` : ''}`;
}

/** The overview's capacity block: the matrix, then one line per scenario on the two rankings. */
function capacityOverview(m: CapacityMatrixView): string[] {
  const out = [
    '**Sustainable requests/s at p99 ≤ SLO** (open loop; per scenario its SLO; bold = rank 1; in brackets the interval; · % of the scenario’s baseline; ≥ the open-loop driver reached its limit, a lower bound; never = not even the lowest rate held the SLO; † not ranked):',
    '',
    `| contender | ${m.scenarios.map((s) => `[${s}](#${m.tableIds[s]}) (p99 ≤ ${fmtSlo(m.sloP99Ms[s] ?? Number.NaN)} ms)`).join(' | ')} |`,
    `|---|${m.scenarios.map(() => '---:').join('|')}|`,
  ];
  for (const c of m.contenders)
    out.push(
      `| \`${c}\` | ${m.scenarios
        .map((s) => {
          const x = m.cells[s]?.[c];
          return x ? capacityCell(x) : '–';
        })
        .join(' | ')} |`,
    );
  out.push(
    '',
    'Capacity against closed-loop ranking (the same cells, run and rounds; closed-loop ranks are a plain ordering of the peaks, no significance test):',
    '',
  );
  for (const r of m.rankings) out.push(`- ${escapeMd(r.text)}`);
  if (m.driverLines.length)
    out.push(
      '',
      'The open-loop driver’s own ceiling, as measured in the run:',
      '',
      ...m.driverLines.map((l) => `- ${escapeMd(l)}`),
    );
  out.push('');
  return out;
}

function rowLine(r: RowView): string {
  const lat = r.latencyMs;
  const res = r.resources;
  const rps = r.rps ? `${fmtFigure(r.rps)}${r.rpsMark ? ` ${r.rpsMark}` : ''}` : '–';
  const iv = r.rps ? (r.rps.interval ? `${intervalName(r.rps)} ${fmtBounds(r.rps)}` : intervalName(r.rps)) : '–';
  const cells = [
    r.rankText,
    `\`${r.label}\`${r.isBaseline ? ' (baseline)' : ''}`,
    rps,
    iv,
    r.isBaseline ? '100%' : pctText(r.ratio),
    lat ? fmtMs(sig(lat.p50)) : '–',
    lat ? fmtMs(sig(lat.p99)) : '–',
    r.errors === null ? '–' : fmtInt(r.errors),
    res ? `${res.cpuAvgPct.toFixed(0)} of ${res.cpuCapPct}` : '–',
    res ? res.rssPeakMiB.toFixed(0) : '–',
    escapeMd([...r.flags, ...(r.why ? [r.why.text] : [])].join('; ')),
  ];
  return `| ${cells.join(' | ')} |`;
}

/** One row of a capacity table: the capacity column set (capacity-text.ts). */
function capacityRowLine(r: RowView): string {
  const k = r.capacity;
  const iv = r.rps ? (r.rps.interval ? `${intervalName(r.rps)} ${fmtBounds(r.rps)}` : intervalName(r.rps)) : '–';
  const cells = [
    r.rankText,
    `\`${r.label}\`${r.isBaseline ? ' (baseline)' : ''}`,
    sustainableText(r.rps, k?.verdict ?? null),
    iv,
    r.isBaseline ? '100%' : pctText(r.ratio),
    k ? fmtFigure(k.peakRps) : '–',
    kneeText(k?.knee ?? null),
    p99CapText(k?.p99AtCapacityMs ?? null),
    k ? stepsText(k) : '–',
    escapeMd([...r.flags, ...(r.why ? [r.why.text] : [])].join('; ')),
  ];
  return `| ${cells.join(' | ')} |`;
}

/** The header lines of a table: the capacity column set when the table's cells have `capacity`. */
function tableHead(t: TableView): string[] {
  if (t.capacity)
    return [
      `| rank | contender | ${capacityHeader(t.capacity.sloP99Ms)} | interval | % of ${t.baseline} | closed-loop peak req/s | ${SHARE_OF_PEAK_HEADER} | p99 at capacity (ms) | searches, steps | flags |`,
      '|---:|---|---:|---|---:|---:|---:|---:|---:|---|',
    ];
  return [
    `| rank | contender | ${figureHeader(t.rows)} | interval | % of ${t.baseline} (${rankMeasure(t.rows[0] ?? { paired: 0, capacity: null })}) | p50 (ms) | p99 (ms) | errors | server CPU % (of max) | RSS peak (MiB) | flags |`,
    '|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---|',
  ];
}

/** One table's details: title, summary sentence, ranked rows, other-run ratios, not ranked, notes. */
export function tableMarkdown(t: TableView): string[] {
  const out = [
    `### <a id="${t.id}"></a>${t.scenario} · ${t.profile} · ${t.driver} · Node ${t.nodeMajor}`,
    '',
    `Run \`${t.runId}\` on ${t.machine}. Baseline: \`${t.baseline}\`.`,
    '',
  ];
  if (t.summary) out.push(t.summary, '');
  if (t.resolution) out.push(escapeMd(t.resolution), '');
  const shown = tableRows(t);
  if (shown.length) {
    out.push(...tableHead(t));
    for (const r of shown) out.push(t.capacity ? capacityRowLine(r) : rowLine(r));
    if (!shown.some((r) => r.rank !== null))
      out.push(
        '',
        `No contender is ranked in this table: a rank needs ${MIN_CI_TRIALS} searches (see the measurement notes).`,
      );
  } else out.push('No contender was ranked in this table.');
  const others = t.rows.filter((r) => r.otherRun);
  if (others.length) {
    out.push('', 'From other runs (ratio to their own run’s baseline only; not ranked):');
    for (const r of others) out.push(`- \`${r.label}\` (run \`${r.runId}\`): ${pctText(r.ratio)} of its baseline`);
  }
  const unranked = t.rows.filter((r) => r.rank === null && !r.otherRun && !shown.includes(r));
  if (unranked.length) {
    out.push('', 'Not ranked:');
    for (const r of unranked) out.push(`- \`${r.label}\`: ${escapeMd(r.notRanked ?? r.status)}`);
  }
  if (t.notes.length) {
    out.push('', '**Measurement notes**', '');
    for (const n of t.notes) out.push(`- ${escapeMd(n)}`);
  }
  if (t.variants.length) {
    out.push('', '**Variant overhead**', '');
    for (const n of t.variants) out.push(`- ${escapeMd(n)}`);
  }
  out.push('');
  return out;
}

/** The whole Markdown report. */
export function renderMarkdownView(v: ReportView): string {
  const lines: string[] = ['# Leaderboard', ''];
  lines.push('Generated by `just leaderboard` from `results/runs/`. Do not edit by hand.', '');
  if (!v.runs.length) {
    lines.push('No results yet: run `npx just bench-all`.');
    return `${lines.join('\n')}\n`;
  }
  if (v.driverFallback) lines.push(`> **Driver:** ${v.driverFallback}`, '');
  lines.push(`**Machine:** ${v.machine}  `);
  lines.push(
    `**Runs:** ${v.runs.map((r) => `\`${r.runId}\` (${r.startedAt.slice(0, 10)}, ${r.profile}, Node ${r.node}, commit ${r.commit}${r.state !== 'complete' ? `, ${r.state}` : ''})`).join('; ')}`,
  );
  for (const w of v.warnings) lines.push('', `> ${escapeMd(w)}`);
  lines.push(
    '',
    'Contents: [Overview](#overview) · [Details](#details) · [Findings](#findings) · [Claims](#claims) · [Node.js version matrix](#nodejs-version-matrix) · [Do the drivers agree?](#do-the-drivers-agree) · [Method](#method)',
    '',
  );
  lines.push(...overviewMarkdown(v));
  lines.push('## Details', '');
  for (const t of v.tables) lines.push(...tableMarkdown(t));

  lines.push('## Findings', '');
  if (!v.findings.length)
    lines.push(
      `None: no contender problem (failures, errors, wrong bodies, collapses${v.leakCheck ? '' : ', leaks'}) was found.`,
    );
  for (const f of v.findings)
    lines.push(
      `- **${f.severity}** · \`${f.label}\` · ${f.scenario} (${f.profile}): **${escapeMd(f.title)}**. ${escapeMd(f.evidence)}`,
    );
  if (v.leakCheck) lines.push('', `> ${v.leakCheck}`);
  lines.push('');

  lines.push('## Claims', '', escapeMd(v.claimsRule), '');
  if (v.claims.length) {
    lines.push(
      '| claim | source | source’s figure | decision range | load shape | ours | verdict |',
      '|---|---|---|---|---|---|---|',
    );
    for (const c of v.claims) {
      const cells = [
        `${escapeMd(c.claim)} (\`${c.a}\` vs \`${c.b}\`, ${c.scenario})`,
        escapeMd(c.source),
        escapeMd(c.sourceFigure),
        escapeMd(c.range),
        escapeMd(c.loadShape),
        `${escapeMd(c.ours)}${c.headroom ? `<br>${escapeMd(c.headroom)}` : ''}`,
        `**${escapeMd(c.verdict)}**${c.note ? `: ${escapeMd(c.note)}` : ''}${c.rule ? ` (rule: ${escapeMd(c.rule)})` : ''}`,
      ];
      lines.push(`| ${cells.join(' | ')} |`);
    }
  } else lines.push('No claims evaluated.');
  lines.push('');

  lines.push('## Node.js version matrix', '');
  if (!v.nodeMatrix.length) lines.push('Only one Node.js major measured.', '');
  for (const m of v.nodeMatrix) {
    lines.push(
      `### ${m.profile} · ${m.driver} · run \`${m.runId}\``,
      '',
      `Each major as a % of the same contender on Node ${m.reference} in the same run (its majors interleaved round by round; 95% CI and verdict from one model per scenario), Node ${m.reference} with its requests/s; a cell that did not run says why.`,
      '',
      `| contender | scenario | ${m.majors.map((x) => (x === m.reference ? `Node ${x} (reference)` : `Node ${x} (% of Node ${m.reference})`)).join(' | ')} |`,
      `|---|---|${m.majors.map(() => '---:').join('|')}|`,
    );
    for (const r of m.rows)
      lines.push(`| \`${r.label}\` | ${r.scenario} | ${r.cols.map((c) => c ?? '–').join(' | ')} |`);
    lines.push('');
  }
  lines.push('## Do the drivers agree?', '');
  if (!v.driverAgreement.length)
    lines.push(
      'No scenario was measured by two load drivers (closed loop); each driver’s tables are ranked within themselves.',
      '',
    );
  else {
    lines.push(
      'Each driver’s tables are ranked within themselves; per scenario, Spearman’s ρ between the orders of the contenders both drivers measured (each in its own run, so only the orders are compared, never the figures), and the contenders that move most:',
      '',
    );
    for (const d of v.driverAgreement) lines.push(`- ${escapeMd(d.text)}`);
    lines.push('');
  }
  lines.push('## Method', '');
  for (const m of v.method) lines.push(`- ${m}`);
  for (const f of v.fidelity) lines.push(`- ${fidelityLine(f)}`);
  lines.push('');
  return lines.join('\n');
}

/** One summary row: contender, requests/s with its interval, % of baseline with its interval, rank range. */
function summaryRow(r: RowView, t: TableView): string {
  const name = `\`${r.label}\`${r.otherRun ? ` (run \`${r.runId}\`)` : ''}`;
  const rps = r.rps
    ? `${t.capacity ? sustainableText(r.rps, r.capacity?.verdict ?? null) : fmtFigure(r.rps)}${fmtBounds(r.rps) ? ` (${intervalName(r.rps)} ${fmtBounds(r.rps)})` : ` (${intervalName(r.rps)})`}`
    : r.otherRun
      ? '–'
      : r.status;
  const pct = r.isBaseline
    ? '100% (baseline)'
    : r.ratio
      ? `${pctText(r.ratio)}${r.otherRun ? ` of its run's \`${t.baseline}\`` : ''}`
      : '–';
  const why = r.otherRun
    ? 'other run'
    : r.failed
      ? 'failed'
      : r.rps && r.trials < MIN_CI_TRIALS
        ? plural(r.trials, 'trial')
        : r.cellStatus;
  const rank = r.rank !== null ? r.rankText : `not ranked (${why})`;
  return `| ${name} | ${escapeMd(rps)} | ${escapeMd(pct)} | ${rank} |`;
}

/**
 * The paste-able summary (`export --format md --summary`, like hyperfine's --export-markdown):
 * the how-sure line, then per scenario its overview table (the one the winners come from) as one
 * Markdown table: contender, requests/s with its interval, % of the baseline with its interval,
 * rank range; rows from other runs last, marked with their run and not ranked.
 */
export function summaryMarkdown(v: ReportView): string {
  if (!v.runs.length) return 'No results yet: run `npx just bench-all`.\n';
  const out = [`**How sure:** ${v.certainty}`, ''];
  for (const w of v.winners) {
    const t = v.tables.find((x) => x.id === w.tableId);
    if (!t) continue;
    const fig = t.capacity ? capacityHeader(t.capacity.sloP99Ms) : 'requests/s';
    out.push(
      `**${t.scenario}** (${t.profile} · ${t.driver} · Node ${t.nodeMajor} · run \`${t.runId}\`)`,
      '',
      `| contender | ${fig} | % of \`${t.baseline}\` | rank |`,
      '|:---|---:|---:|---:|',
      ...t.rows.filter((r) => !r.otherRun).map((r) => summaryRow(r, t)),
      ...t.rows.filter((r) => r.otherRun).map((r) => summaryRow(r, t)),
      '',
    );
  }
  return `${out.join('\n')}`;
}

export const markdownExporter: Exporter = {
  format: 'md',
  description: 'LEADERBOARD.md: overview, details, findings, claims, Node matrix, method',
  extension: 'md',
  render(snapshot: ReportSnapshot, options: ExportOptions = {}): string {
    const v = buildView(snapshot, options);
    if (options.summary) return summaryMarkdown(v);
    const footprint = footprintMarkdown(v.footprint ?? []);
    return renderMarkdownView(v) + whyMarkdown(snapshot) + (footprint ? `\n${footprint}` : '');
  },
};
